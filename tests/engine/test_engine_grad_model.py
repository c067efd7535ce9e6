"""The whole encoder-decoder's gradient: every parameter of every layer against central finite
differences in float64 on small random models, with a padded source and padded targets."""

import dataclasses

import numpy as np
import pytest
from gradcheck import check_gradient

from engine import TransformerConfig, forward, init_params, teacher_forcing_batch
from engine.backward import cross_entropy_forward_backward
from engine.grad_model import backward, forward_with_cache, loss_and_gradients
from engine.optim import leaves

TOLERANCE = 1e-6
CONFIG = TransformerConfig(
    src_vocab_size=11,
    tgt_vocab_size=11,
    d_model=8,
    n_heads=2,
    d_ff=16,
    n_encoder_layers=2,
    n_decoder_layers=2,
)
# source length 5, the second padded (<pad> = 0); targets of 3 and 1 tokens: decoder length 4
SOURCE = np.array([[3, 4, 5, 6, 7], [8, 4, 9, 0, 0]])
TARGETS = [[3, 4, 5], [6]]


def random_params(config, seed=3):
    """init_params, with LayerNorm gains and every bias drawn at random too (init makes them
    ones and zeros, which would hide a gradient that forgot them)."""
    rng = np.random.default_rng(seed)
    params = init_params(config, rng)
    for array in leaves(params):
        if array.ndim == 1:
            array[...] = rng.normal(1.0 if np.all(array == 1) else 0.0, 0.3, size=array.shape)
    return params


def named_leaves(tree, prefix=""):
    """(path, array) for every array of a parameter tree, in `leaves` order."""
    if tree is None:
        return []
    if isinstance(tree, np.ndarray):
        return [(prefix, tree)]
    if isinstance(tree, list):
        return [pair for i, t in enumerate(tree) for pair in named_leaves(t, f"{prefix}.{i}")]
    return [
        pair
        for f in dataclasses.fields(tree)
        for pair in named_leaves(getattr(tree, f.name), f"{prefix}.{f.name}".lstrip("."))
    ]


def check_every_parameter(config, smoothing, entries=5, source=SOURCE, targets=TARGETS):
    params = random_params(config)
    batch = teacher_forcing_batch(targets, config)

    def loss():
        logits = forward(source, batch.decoder_input, params, config)
        return cross_entropy_forward_backward(logits, batch.labels, config.pad_id, smoothing)[0]

    value, grads = loss_and_gradients(
        source, batch.decoder_input, batch.labels, params, config, smoothing
    )
    assert value == pytest.approx(loss(), rel=1e-15)
    named_params, named_grads = named_leaves(params), named_leaves(grads)
    assert [name for name, _ in named_params] == [name for name, _ in named_grads]
    rng = np.random.default_rng(0)
    errors = {}
    for (name, array), (_, grad) in zip(named_params, named_grads, strict=True):
        assert grad.shape == array.shape, name
        assert grad.dtype == array.dtype, name
        errors[name] = check_gradient(loss, array, grad, rng, count=entries)
    worst = max(errors, key=errors.get)
    assert errors[worst] < TOLERANCE, (worst, errors[worst])
    return params, grads


@pytest.mark.parametrize("smoothing", [0.0, 0.1])
def test_every_parameter_of_every_layer(smoothing):
    check_every_parameter(CONFIG, smoothing)


def test_scaled_embeddings_final_norms_and_no_biases():
    config = dataclasses.replace(
        CONFIG,
        scale_embeddings=True,
        final_norm=True,
        attention_bias=False,
        output_bias=False,
    )
    _, grads = check_every_parameter(config, 0.1)
    assert grads.b_out is None and grads.encoder_layers[0].self_attn.b_q is None
    assert grads.encoder_norm is not None and grads.decoder_norm is not None


def test_many_entries_of_a_one_layer_model():
    # 40 entries of each array (all of the smaller ones), a model of 1 + 1 layers
    config = dataclasses.replace(CONFIG, n_encoder_layers=1, n_decoder_layers=1, d_ff=6)
    check_every_parameter(config, 0.1, entries=40)


def test_padding_gets_exactly_no_gradient():
    # the source's <pad> is only ever a masked key, the targets' <pad> a masked key whose own
    # logits predict a padding label: neither embedding row may receive anything
    _, grads = check_every_parameter(CONFIG, 0.0, entries=1)
    np.testing.assert_array_equal(grads.src_embedding[0], 0.0)
    np.testing.assert_array_equal(grads.tgt_embedding[0], 0.0)
    # and rows no sequence uses get nothing either
    np.testing.assert_array_equal(grads.src_embedding[[1, 2, 10]], 0.0)


def test_forward_with_cache_computes_the_forward_s_logits():
    params = random_params(CONFIG)
    batch = teacher_forcing_batch(TARGETS, CONFIG)
    logits, _ = forward_with_cache(SOURCE, batch.decoder_input, params, CONFIG)
    np.testing.assert_array_equal(logits, forward(SOURCE, batch.decoder_input, params, CONFIG))


def test_backward_is_linear_in_the_logits_gradient():
    params = random_params(CONFIG)
    batch = teacher_forcing_batch(TARGETS, CONFIG)
    logits, cache = forward_with_cache(SOURCE, batch.decoder_input, params, CONFIG)
    r = np.random.default_rng(1).normal(size=logits.shape)
    once, twice = leaves(backward(cache, r)), leaves(backward(cache, 2 * r))
    for a, b in zip(once, twice, strict=True):
        np.testing.assert_allclose(b, 2 * a, rtol=1e-13, atol=1e-15)


def test_float32_gradients_stay_float32():
    config = dataclasses.replace(CONFIG, dtype="float32")
    params = init_params(config, np.random.default_rng(0))
    batch = teacher_forcing_batch(TARGETS, config)
    _, grads = loss_and_gradients(SOURCE, batch.decoder_input, batch.labels, params, config)
    assert {g.dtype for g in leaves(grads)} == {np.dtype(np.float32)}


def test_a_source_of_padding_only():
    # the third source is all <pad>: its encoder rows and its cross-attention see nothing (zero
    # weights), so its memory gets no gradient, and the rest is still exact
    source = np.array([[3, 4, 5, 6, 7], [8, 4, 9, 0, 0], [0, 0, 0, 0, 0]])
    _, grads = check_every_parameter(CONFIG, 0.1, source=source, targets=[*TARGETS, [5, 7]])
    np.testing.assert_array_equal(grads.src_embedding[0], 0.0)
