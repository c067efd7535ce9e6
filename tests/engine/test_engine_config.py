import dataclasses

import numpy as np
import pytest

from engine import TransformerConfig, init_params


def test_defaults_are_the_papers_base_model():
    c = TransformerConfig(src_vocab_size=100, tgt_vocab_size=100)
    assert (c.d_model, c.n_heads, c.d_ff, c.n_encoder_layers, c.n_decoder_layers) == (
        512,
        8,
        2048,
        6,
        6,
    )
    assert c.d_k == 64 and c.layer_norm_eps == 1e-5
    assert not c.scale_embeddings and not c.final_norm


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"d_model": 510}, "d_model (510) must be divisible by n_heads (8)"),
        ({"d_model": 0}, "d_model must be a positive integer, got 0"),
        ({"n_heads": -2}, "n_heads must be a positive integer, got -2"),
        ({"d_ff": 2.5}, "d_ff must be a positive integer, got 2.5"),
        ({"src_vocab_size": True}, "src_vocab_size must be a positive integer, got True"),
        ({"n_encoder_layers": -1}, "n_encoder_layers must be a non-negative integer"),
        ({"layer_norm_eps": 0}, "layer_norm_eps must be a positive number"),
        ({"dtype": "float16"}, "dtype must be one of ['float32', 'float64']"),
        ({"eos_id": 100}, "eos_id must be None or a token id in [0, 100), got 100"),
    ],
)
def test_bad_values_are_rejected_with_a_clear_message(changes, message):
    with pytest.raises(ValueError) as info:
        TransformerConfig(**{"src_vocab_size": 100, "tgt_vocab_size": 100, **changes})
    assert message in str(info.value)


def test_init_is_reproducible_from_a_generator_and_never_global():
    c = TransformerConfig(
        src_vocab_size=7,
        tgt_vocab_size=5,
        d_model=4,
        n_heads=2,
        d_ff=6,
        n_encoder_layers=1,
        n_decoder_layers=1,
        final_norm=True,
    )
    a = init_params(c, np.random.default_rng(3))
    b = init_params(c, np.random.default_rng(3))
    other = init_params(c, np.random.default_rng(4))
    assert (a.encoder_layers[0].ffn.w_1 == b.encoder_layers[0].ffn.w_1).all()
    assert not (a.encoder_layers[0].ffn.w_1 == other.encoder_layers[0].ffn.w_1).all()
    assert a.w_out.shape == (4, 5) and a.src_embedding.shape == (7, 4)
    assert a.encoder_norm is not None and a.decoder_layers[0].norm3.gain.tolist() == [1.0] * 4
    with pytest.raises(TypeError, match=r"numpy\.random\.Generator"):
        init_params(c, 3)


def test_biases_special_tokens_and_precision_by_default():
    c = TransformerConfig(src_vocab_size=100, tgt_vocab_size=100)
    assert c.attention_bias and c.output_bias  # as in the paper's linear layers and PyTorch
    assert (c.pad_id, c.bos_id, c.eos_id, c.dtype) == (0, 1, 2, "float64")
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.d_model = 4  # type: ignore[misc]
    assert hash(c) == hash(TransformerConfig(src_vocab_size=100, tgt_vocab_size=100))


def test_a_stack_may_have_no_layers():
    c = TransformerConfig(src_vocab_size=5, tgt_vocab_size=5, n_encoder_layers=0)
    assert c.n_encoder_layers == 0


def test_initial_values_follow_their_distributions():
    # Glorot-uniform weights within +-sqrt(6 / (d_in + d_out)), reaching close to it; biases
    # N(0, 0.02); embeddings N(0, 1/d_model). Thousands of draws from a fixed generator.
    c = TransformerConfig(
        src_vocab_size=200, tgt_vocab_size=200, d_model=64, n_heads=4, d_ff=256,
        n_encoder_layers=1, n_decoder_layers=1,
    )  # fmt: skip
    p = init_params(c, np.random.default_rng(11))
    for w, (d_in, d_out) in ((p.encoder_layers[0].ffn.w_1, (64, 256)), (p.w_out, (64, 200))):
        limit = np.sqrt(6.0 / (d_in + d_out))
        assert np.abs(w).max() <= limit and np.abs(w).max() > 0.99 * limit
    for bias in (p.encoder_layers[0].ffn.b_1, p.decoder_layers[0].self_attn.b_q):
        assert abs(bias.mean()) < 0.01 and 0.015 < bias.std() < 0.025
    for table in (p.src_embedding, p.tgt_embedding):
        assert abs(table.mean()) < 0.01 and abs(table.std() - 64**-0.5) < 0.01


def test_initial_weight_matrices_are_column_major_and_embedding_tables_row_major():
    # the layout decoding's few-row products read fastest (engine.layers.FEW_ROWS); the
    # embedding lookups read whole rows
    c = TransformerConfig(
        src_vocab_size=20, tgt_vocab_size=30, d_model=8, n_heads=2, d_ff=16,
        n_encoder_layers=1, n_decoder_layers=1,
    )  # fmt: skip
    p = init_params(c, np.random.default_rng(0))
    encoder, decoder = p.encoder_layers[0], p.decoder_layers[0]
    weights = [p.w_out, encoder.ffn.w_1, encoder.ffn.w_2, decoder.ffn.w_1, decoder.ffn.w_2]
    for attn in (encoder.self_attn, decoder.self_attn, decoder.cross_attn):
        weights += [attn.w_q, attn.w_k, attn.w_v, attn.w_o]
    assert all(w.flags.f_contiguous and not w.flags.c_contiguous for w in weights)
    assert p.src_embedding.flags.c_contiguous and p.tgt_embedding.flags.c_contiguous
