"""Greedy autoregressive decoding: the KV cache changes the cost, never the result."""

import dataclasses

import numpy as np
import pytest

import engine.decoding
from engine import (
    LayerCache,
    TransformerConfig,
    causal_mask,
    decode,
    encode,
    greedy_decode,
    init_params,
    next_token,
)
from engine.model import source_mask

SRC = np.array([[3, 4, 5, 6], [7, 8, 0, 0], [9, 10, 3, 0]])


def test_cached_and_uncached_decoding_agree_to_1e9(small_config, small_params):
    cached = greedy_decode(SRC, small_params, small_config, 12, use_cache=True, stop_at_eos=False)
    plain = greedy_decode(SRC, small_params, small_config, 12, use_cache=False, stop_at_eos=False)
    assert cached.tokens.shape == (3, 12)
    assert cached.logits.shape == (3, 12, small_config.tgt_vocab_size)
    np.testing.assert_array_equal(cached.tokens, plain.tokens)
    np.testing.assert_allclose(cached.logits, plain.logits, rtol=0, atol=1e-9)


def test_greedy_tokens_are_the_argmax_of_a_teacher_forced_pass_on_them(small_config, small_params):
    """A second formulation: feed <s> + the generated tokens in one parallel pass; every
    generated token must be the argmax of the logits at the position before it."""
    result = greedy_decode(SRC, small_params, small_config, 10, stop_at_eos=False)
    decoder_input = np.concatenate(
        [np.full((3, 1), small_config.bos_id), result.tokens[:, :-1]], axis=1
    )
    memory_mask = source_mask(SRC, small_config)
    memory = encode(SRC, small_params, small_config, memory_mask)
    # generated ids may include <pad>: as decoder input they are tokens, not padding
    logits = decode(
        decoder_input, memory, small_params, small_config, memory_mask, self_mask=causal_mask(10)
    )
    np.testing.assert_array_equal(np.argmax(logits, axis=-1), result.tokens)
    np.testing.assert_allclose(logits, result.logits, atol=1e-9)


def test_decoding_stops_at_eos_and_pads_after_it(small_config, small_params):
    free = greedy_decode(SRC, small_params, small_config, 12, stop_at_eos=False).tokens
    eos = int(free[0, 3])  # pretend the token row 0 emits at step 3 is <eos>
    config = dataclasses.replace(small_config, eos_id=eos, pad_id=0)
    stopped = greedy_decode(SRC, small_params, config, 12).tokens
    expected = []
    for row in free:
        hits = np.flatnonzero(row == eos)
        end = hits[0] + 1 if hits.size else len(row)
        expected.append([*row[:end], *[0] * (len(row) - end)])
    expected = np.array(expected)
    # decoding stops once every row has emitted <eos>
    last_needed = max((np.flatnonzero(r == eos)[0] + 1 if (r == eos).any() else 12) for r in free)
    assert stopped.shape == (3, last_needed)
    np.testing.assert_array_equal(stopped, expected[:, :last_needed])


def test_a_model_that_says_eos_first_stops_after_one_step(small_config, small_params):
    params = dataclasses.replace(small_params, b_out=small_params.b_out.copy())
    params.b_out[small_config.eos_id] = 1e6
    result = greedy_decode(SRC, params, small_config, 12)
    assert result.tokens.tolist() == [[small_config.eos_id]] * 3


def test_float32_cached_decoding_matches_float64(small_config):
    config32 = dataclasses.replace(small_config, dtype="float32")
    p64 = init_params(small_config, np.random.default_rng(8))
    p32 = init_params(config32, np.random.default_rng(8))
    r64 = greedy_decode(SRC, p64, small_config, 6, stop_at_eos=False)
    r32 = greedy_decode(SRC, p32, config32, 6, stop_at_eos=False)
    assert r32.logits.dtype == np.float32
    np.testing.assert_array_equal(r32.tokens, r64.tokens)
    np.testing.assert_allclose(r32.logits, r64.logits, rtol=1e-3, atol=1e-4)


def test_the_cache_grows_one_row_per_step_and_refuses_to_overflow(small_config, small_params):
    memory = np.zeros((1, 3, small_config.d_model))
    layer = small_params.decoder_layers[0]
    cache = LayerCache.create(memory, layer.cross_attn, small_config, capacity=2)
    assert cache.cross[0].shape == (1, small_config.n_heads, 3, small_config.d_k)
    y = np.ones((1, 1, small_config.d_model))
    k, _ = cache.extend_self(y, layer.self_attn, small_config.n_heads)
    assert k.shape[2] == 1
    k, _ = cache.extend_self(2 * y, layer.self_attn, small_config.n_heads)
    assert k.shape[2] == 2 and cache.length == 2
    with pytest.raises(ValueError, match="KV cache holds 2 positions, asked for 3"):
        cache.extend_self(y, layer.self_attn, small_config.n_heads)


@pytest.mark.parametrize("max_len", [0, -1, 2.5])
def test_max_len_must_be_a_positive_integer(small_config, small_params, max_len):
    with pytest.raises(ValueError, match="max_len must be a positive integer"):
        greedy_decode(SRC, small_params, small_config, max_len)


def test_decoding_needs_a_start_token():
    config = TransformerConfig(
        src_vocab_size=5,
        tgt_vocab_size=5,
        d_model=4,
        n_heads=1,
        d_ff=4,
        n_encoder_layers=1,
        n_decoder_layers=1,
        bos_id=None,
    )
    params = init_params(config, np.random.default_rng(0))
    with pytest.raises(ValueError, match="bos_id"):
        greedy_decode(np.array([[3]]), params, config, 3)


def test_next_token_takes_the_first_of_tied_maxima():
    logits = np.array([[0.1, 2.0, 2.0, -1.0], [5.0, -np.inf, 4.0, 5.0]])
    assert next_token(logits).tolist() == [1, 0]


def test_one_token_is_a_valid_length(small_config, small_params):
    result = greedy_decode(SRC, small_params, small_config, 1, stop_at_eos=False)
    assert result.tokens.shape == (3, 1) and result.logits.shape == (3, 1, 9)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.tokens = result.tokens  # type: ignore[misc]


def test_an_unbatched_source_decodes_like_a_batch_of_one(small_config, small_params):
    single = greedy_decode(SRC[0], small_params, small_config, 4, stop_at_eos=False)
    batch = greedy_decode(SRC[:1], small_params, small_config, 4, stop_at_eos=False)
    np.testing.assert_array_equal(single.tokens, batch.tokens)


def test_cached_decoding_never_reruns_the_whole_prefix(small_config, small_params, monkeypatch):
    # `decode` is the uncached path's whole-prefix pass; the cached path (the default) must
    # not need it
    def whole_prefix_pass(*args, **kwargs):
        raise AssertionError("the whole prefix was decoded again")

    monkeypatch.setattr(engine.decoding, "decode", whole_prefix_pass)
    greedy_decode(SRC, small_params, small_config, 4)
    with pytest.raises(AssertionError, match="decoded again"):
        greedy_decode(SRC, small_params, small_config, 4, use_cache=False)
