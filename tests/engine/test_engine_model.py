"""Encoder-decoder forward pass, teacher forcing and the loss against the naive reference."""

import dataclasses
import math

import naive_transformer as naive
import numpy as np
import pytest

from engine import (
    Trace,
    TransformerConfig,
    cross_entropy,
    decode,
    encode,
    forward,
    init_params,
    teacher_forcing_batch,
    teacher_forcing_loss,
)
from engine.model import embed_with_positions, source_mask, target_mask

SRC = np.array([[3, 4, 5, 6, 7], [8, 9, 10, 0, 0]])  # row 1 has two <pad>
TGT = np.array([[1, 3, 4, 5], [1, 6, 0, 0]])


@pytest.mark.parametrize("final_norm", [False, True])
@pytest.mark.parametrize("scale_embeddings", [False, True])
def test_forward_matches_the_naive_reference(small_config, final_norm, scale_embeddings):
    config = dataclasses.replace(
        small_config, final_norm=final_norm, scale_embeddings=scale_embeddings
    )
    params = init_params(config, np.random.default_rng(99))
    logits = forward(SRC, TGT, params, config)
    assert logits.shape == (2, 4, config.tgt_vocab_size)
    for b in range(2):
        ref = naive.forward(SRC[b].tolist(), TGT[b].tolist(), params, config)
        np.testing.assert_allclose(logits[b], ref, rtol=1e-10, atol=1e-11)


def test_teacher_forcing_sequences_by_hand(small_config):
    batch = teacher_forcing_batch([[3, 4, 5], [6]], small_config)  # <pad> 0, <s> 1, <eos> 2
    assert batch.decoder_input.tolist() == [[1, 3, 4, 5], [1, 6, 0, 0]]
    assert batch.labels.tolist() == [[3, 4, 5, 2], [6, 2, 0, 0]]


def test_teacher_forcing_needs_special_tokens():
    config = TransformerConfig(
        src_vocab_size=6, tgt_vocab_size=6, d_model=4, n_heads=1, d_ff=4, bos_id=None
    )
    with pytest.raises(ValueError, match="bos_id"):
        teacher_forcing_batch([[3]], config)


def test_cross_entropy_by_hand_ignores_padding():
    logits = np.array([[[0.0, math.log(3), 0.0], [5.0, 1.0, 2.0]]])
    labels = np.array([[1, 0]])  # the second position is <pad> (id 0)
    # p(label 1) = 3 / (1 + 3 + 1)
    assert cross_entropy(logits, labels, pad_id=0) == pytest.approx(-math.log(3 / 5), rel=1e-14)
    with pytest.raises(ValueError, match="every label is padding"):
        cross_entropy(logits, np.array([[0, 0]]), pad_id=0)


def test_teacher_forcing_loss_matches_naive_mean_over_non_pad(small_config, small_params):
    targets = [[3, 4, 5], [6]]
    loss, logits, batch = teacher_forcing_loss(SRC, targets, small_params, small_config)
    per_position = []
    for b in range(2):
        ref_logits = naive.forward(
            SRC[b].tolist(), batch.decoder_input[b].tolist(), small_params, small_config
        )
        for row, label in zip(ref_logits, batch.labels[b], strict=True):
            if label != small_config.pad_id:
                per_position.append(naive.cross_entropy([row], [int(label)], pad_id=None))
    assert len(per_position) == 4 + 2  # "I love you <eos>" and "x <eos>"
    assert loss == pytest.approx(sum(per_position) / len(per_position), rel=1e-10)
    assert logits.shape == (2, 4, small_config.tgt_vocab_size)


def test_the_decoder_cannot_see_the_future(small_config, small_params):
    tgt_a = np.array([[1, 3, 4, 5]])
    tgt_b = np.array([[1, 3, 7, 8]])  # differs from position 2 on
    a = forward(SRC[:1], tgt_a, small_params, small_config)
    b = forward(SRC[:1], tgt_b, small_params, small_config)
    np.testing.assert_allclose(a[0, :2], b[0, :2], rtol=1e-13, atol=1e-14)
    assert not np.allclose(a[0, 2:], b[0, 2:])


def test_source_padding_changes_nothing(small_config, small_params):
    short = forward(np.array([[8, 9, 10]]), TGT[:1], small_params, small_config)
    padded = forward(np.array([[8, 9, 10, 0, 0, 0]]), TGT[:1], small_params, small_config)
    np.testing.assert_allclose(short, padded, rtol=1e-12, atol=1e-13)


def test_batch_rows_are_independent(small_config, small_params):
    both = forward(SRC, TGT, small_params, small_config)
    for b in range(2):
        alone = forward(SRC[b : b + 1], TGT[b : b + 1], small_params, small_config)
        np.testing.assert_allclose(both[b], alone[0], rtol=1e-12, atol=1e-13)


def test_float32_forward_stays_float32_and_agrees_with_float64(small_config):
    config32 = dataclasses.replace(small_config, dtype="float32")
    params64 = init_params(small_config, np.random.default_rng(5))
    params32 = init_params(config32, np.random.default_rng(5))  # same draws, cast
    trace = Trace()
    logits32 = forward(SRC, TGT, params32, config32, trace)
    assert {a.dtype for a in trace.store.values()} == {np.dtype(np.float32)}
    np.testing.assert_allclose(
        logits32, forward(SRC, TGT, params64, small_config), rtol=2e-4, atol=2e-5
    )


def test_trace_records_named_intermediates_without_changing_the_result(small_config, small_params):
    trace = Trace()
    traced = forward(SRC, TGT, small_params, small_config, trace)
    np.testing.assert_array_equal(traced, forward(SRC, TGT, small_params, small_config))
    for name in [
        "encoder.input",
        "encoder.0.self_attn.q",
        "encoder.0.self_attn.scores",
        "encoder.0.self_attn.weights",
        "encoder.1.ffn.hidden",
        "encoder.output",
        "decoder.0.self_attn.masked_scores",
        "decoder.1.cross_attn.weights",
        "decoder.0.ffn.hidden",
        "decoder.1.norm3.output",
        "logits",
        "probs",
    ]:
        assert name in trace, name
    h, d_k = small_config.n_heads, small_config.d_k
    assert trace["decoder.1.cross_attn.weights"].shape == (2, h, 4, 5)
    # the trace holds what the pass computed: recompute one step from its neighbours
    q, k = trace["encoder.0.self_attn.q"], trace["encoder.0.self_attn.k"]
    np.testing.assert_allclose(
        trace["encoder.0.self_attn.scores"], q @ k.swapaxes(-1, -2) / math.sqrt(d_k)
    )
    masked = trace["decoder.0.self_attn.masked_scores"]
    assert masked[0, 0, 0, 1] == -np.inf and masked[1, 0, 3, 2] == -np.inf  # future, padding
    np.testing.assert_allclose(trace["probs"].sum(axis=-1), np.ones((2, 4)))
    np.testing.assert_array_equal(trace["logits"], traced)


def test_encode_accepts_a_single_unbatched_sequence(small_config, small_params):
    np.testing.assert_array_equal(
        encode(np.array([3, 4]), small_params, small_config),
        encode(np.array([[3, 4]]), small_params, small_config),
    )
    with pytest.raises(ValueError, match=r"shape \(batch, length\)"):
        encode(np.zeros((1, 1, 2), dtype=int), small_params, small_config)


@pytest.mark.parametrize(("length", "start"), [(3, 0), (100, 0), (1, 63), (1, 64), (5, 126)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_positions_are_added_by_the_formula_at_every_offset_and_length(length, start, dtype):
    # The encodings come from tables shared across calls (64, then 128 positions, ...):
    # lengths and offsets on both sides of those sizes must all get the formula's values.
    config = TransformerConfig(src_vocab_size=4, tgt_vocab_size=4, d_model=6, n_heads=2)
    table = np.arange(24, dtype=dtype).reshape(4, 6)
    ids = np.array([[t % 4 for t in range(length)]])
    out = embed_with_positions(ids, table, config, start=np.int64(start))  # any integer type
    assert out.dtype == dtype and out.flags.writeable
    for i in range(length):
        expected = table[i % 4] + np.array(naive.positional_encoding_row(start + i, 6))
        rtol = 1e-6 if dtype == np.float32 else 0
        np.testing.assert_allclose(out[0, i], expected, rtol=rtol, atol=1e-12)


# what every attention records, in the order it computes them
ATTENTION_NAMES = [
    "q",
    "k",
    "v",
    "raw_scores",
    "scores",
    "masked_scores",
    "weights",
    "context",
    "concat",
    "output",
]


def test_the_trace_names_every_step_of_every_layer_and_nothing_else(small_config, small_params):
    # SRC has padding, so every attention (self and cross) records its masked scores
    trace = Trace()
    forward(SRC, TGT, small_params, small_config, trace)
    expected = {"logits", "probs", "encoder.output", "decoder.output"}
    for stack in ("encoder", "decoder"):
        expected |= {f"{stack}.{step}" for step in ("embedding", "positional", "input")}
    sublayers = {
        "encoder": (("self_attn", ATTENTION_NAMES), ("ffn", ("hidden", "output"))),
        "decoder": (
            ("self_attn", ATTENTION_NAMES),
            ("cross_attn", ATTENTION_NAMES),
            ("ffn", ("hidden", "output")),
        ),
    }
    for stack, parts in sublayers.items():
        for i in range(2):
            for sublayer, names in parts:
                expected |= {f"{stack}.{i}.{sublayer}.{name}" for name in names}
            for norm in range(1, len(parts) + 1):
                expected |= {f"{stack}.{i}.norm{norm}.sum", f"{stack}.{i}.norm{norm}.output"}
    assert set(trace.names()) == expected


def test_traced_positional_encodings_are_read_only(small_config, small_params):
    trace = Trace()
    forward(SRC, TGT, small_params, small_config, trace)
    positional = trace["encoder.positional"]
    with pytest.raises(ValueError, match="read-only"):
        positional[0, 0] = 99.0
    np.testing.assert_allclose(positional[1], naive.positional_encoding_row(1, 8), rtol=1e-15)


def test_the_pass_accepts_unbatched_sequences_and_plain_lists(small_config, small_params):
    batched = forward(SRC[:1], TGT[:1], small_params, small_config)
    np.testing.assert_array_equal(forward(SRC[0], TGT[0], small_params, small_config), batched)
    as_lists = forward(SRC[:1].tolist(), TGT[:1].tolist(), small_params, small_config)
    np.testing.assert_array_equal(as_lists, batched)
    memory = encode(SRC[:1], small_params, small_config)
    np.testing.assert_array_equal(decode(TGT[0], memory, small_params, small_config), batched)


def test_source_and_target_batches_of_different_sizes_are_refused(small_config, small_params):
    with pytest.raises(ValueError, match="source and target batches differ: 2 and 1 sequences"):
        forward(SRC, TGT[:1], small_params, small_config)


def test_teacher_forcing_needs_a_target(small_config):
    with pytest.raises(ValueError, match="at least one target sequence"):
        teacher_forcing_batch([], small_config)
    batch = teacher_forcing_batch([[3]], small_config)
    with pytest.raises(dataclasses.FrozenInstanceError):
        batch.labels = batch.decoder_input  # type: ignore[misc]


def test_masks_exist_only_where_something_is_padding(small_config):
    assert source_mask(np.array([[3, 4]]), small_config) is None
    assert source_mask(np.array([[0, 0]]), small_config).tolist() == [[[[False, False]]]]
    assert target_mask(np.array([[1, 6]]), small_config).tolist() == [
        [[[True, False], [True, True]]]
    ]
    assert not target_mask(np.array([[0, 0]]), small_config).any()
