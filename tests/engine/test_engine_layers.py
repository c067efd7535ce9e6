"""Building blocks against hand-worked values and the naive loop reference."""

import math
import warnings

import naive_transformer as naive
import numpy as np
import pytest

from engine import (
    AttentionParams,
    FeedForwardParams,
    LayerNormParams,
    Trace,
    add_norm,
    apply_mask,
    attention,
    causal_mask,
    embed,
    feed_forward,
    layer_norm,
    linear,
    log_softmax,
    merge_heads,
    multi_head_attention,
    padding_mask,
    positional_encoding,
    softmax,
    split_heads,
)
from engine.layers import FEW_ROWS


def test_softmax_hand_values():
    out = softmax(np.array([0.0, math.log(2), math.log(5)]))
    np.testing.assert_allclose(out, [1 / 8, 2 / 8, 5 / 8], rtol=1e-15)


def test_softmax_is_stable_for_large_scores():
    np.testing.assert_allclose(softmax(np.array([1000.0, 1000.0, -1000.0])), [0.5, 0.5, 0.0])


def test_softmax_masked_entries_are_exactly_zero():
    out = softmax(np.array([[0.0, -np.inf, 0.0], [1.0, 2.0, -np.inf]]))
    assert out[0, 1] == 0.0 and out[1, 2] == 0.0
    np.testing.assert_allclose(out[0], [0.5, 0.0, 0.5])
    np.testing.assert_allclose(out.sum(axis=1), [1.0, 1.0])


def test_softmax_of_an_all_masked_row_is_zero_not_nan():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = softmax(np.array([[-np.inf, -np.inf], [0.0, 0.0]]))
    assert out.tolist() == [[0.0, 0.0], [0.5, 0.5]]


def test_softmax_of_integers_and_along_another_axis():
    np.testing.assert_allclose(softmax(np.array([0, 0])), [0.5, 0.5])
    columns = softmax(np.array([[0.0, 1.0], [0.0, 1.0]]), axis=0)
    np.testing.assert_allclose(columns, [[0.5, 0.5], [0.5, 0.5]])


def test_softmax_into_its_own_input():
    x = np.array([[0.0, math.log(3)], [-np.inf, 0.0]])
    out = softmax(x, out=x)
    assert out is x
    np.testing.assert_allclose(x, [[0.25, 0.75], [0.0, 1.0]], rtol=1e-15)


def test_softmax_along_a_leading_axis_and_of_a_list():
    x = np.array([[1.0, 2.0], [3.0, 5.0]])
    e = np.exp(x)
    np.testing.assert_allclose(softmax(x, axis=0), e / e.sum(axis=0), rtol=1e-15)
    cube = np.arange(12.0).reshape(2, 3, 2) / 4
    np.testing.assert_allclose(
        softmax(cube, axis=-2), np.exp(cube) / np.exp(cube).sum(axis=-2, keepdims=True)
    )
    np.testing.assert_allclose(softmax([0.0, math.log(3)]), [0.25, 0.75], rtol=1e-15)


def test_log_softmax_hand_values():
    out = log_softmax(np.array([0.0, math.log(3)]))
    np.testing.assert_allclose(out, [-math.log(4), math.log(3) - math.log(4)], rtol=1e-14)


def test_log_softmax_is_stable_for_large_logits():
    out = log_softmax(np.array([1000.0, 1000.0, -1000.0]))
    np.testing.assert_allclose(out[:2], [-math.log(2), -math.log(2)], rtol=1e-15)
    np.testing.assert_allclose(out[2], -2000.0 - math.log(2), rtol=1e-15)


def test_apply_mask_writes_into_the_scores_it_returns():
    scores = np.zeros((2, 2))
    assert apply_mask(scores, causal_mask(2)) is scores
    assert scores.tolist() == [[0.0, -np.inf], [0.0, 0.0]]


def test_positional_encoding_matches_the_formula_by_hand():
    pe = positional_encoding(3, 4)
    expected = [
        [0.0, 1.0, 0.0, 1.0],
        [math.sin(1), math.cos(1), math.sin(0.01), math.cos(0.01)],
        [math.sin(2), math.cos(2), math.sin(0.02), math.cos(0.02)],
    ]
    np.testing.assert_allclose(pe, expected, rtol=0, atol=1e-15)


def test_positional_encoding_odd_width_and_offset():
    pe = positional_encoding(2, 5, start=7)
    for row, pos in zip(pe, (7, 8), strict=True):
        np.testing.assert_allclose(row, naive.positional_encoding_row(pos, 5), atol=1e-15)
    assert pe[0, 4] == pytest.approx(math.sin(7 / 10000 ** (4 / 5)))


def test_embed_is_a_lookup_with_optional_sqrt_d_scaling():
    table = np.array([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]])
    assert embed(np.array([1, 0, 1]), table).tolist() == [
        [5.0, 6.0, 7.0, 8.0],
        [1.0, 2.0, 3.0, 4.0],
        [5.0, 6.0, 7.0, 8.0],
    ]
    assert embed(np.array([0]), table, scale=True).tolist() == [[2.0, 4.0, 6.0, 8.0]]


def test_embed_takes_ids_as_a_plain_list():
    table = np.arange(6.0).reshape(3, 2)
    assert embed([2, 0], table).tolist() == [[4.0, 5.0], [0.0, 1.0]]
    with pytest.raises(TypeError, match="token ids must be integers"):
        embed([0.5], table)


@pytest.mark.parametrize(
    ("ids", "error", "message"),
    [
        ([0, 2], ValueError, "token id 2 is outside the vocabulary [0, 2)"),
        ([-1], ValueError, "token id -1 is outside"),
        ([0.0], TypeError, "token ids must be integers"),
    ],
)
def test_embed_rejects_bad_ids(ids, error, message):
    with pytest.raises(error) as info:
        embed(np.array(ids), np.zeros((2, 3)))
    assert message in str(info.value)


def test_masks():
    assert causal_mask(3).tolist() == [
        [True, False, False],
        [True, True, False],
        [True, True, True],
    ]
    mask = padding_mask(np.array([[5, 6, 0], [7, 0, 0]]), pad_id=0)
    assert mask.shape == (2, 1, 1, 3)
    assert mask[:, 0, 0].tolist() == [[True, True, False], [True, False, False]]


def test_attention_hand_worked():
    q = np.array([[1.0, 0.0]])
    k = np.array([[1.0, 0.0], [0.0, 1.0]])
    v = np.array([[1.0, 2.0], [3.0, 4.0]])
    out, weights = attention(q, k, v)
    s = 1 / math.sqrt(2)  # score of key 0; key 1 scores 0
    w0 = math.exp(s) / (math.exp(s) + 1)
    np.testing.assert_allclose(weights, [[w0, 1 - w0]], rtol=1e-15)
    np.testing.assert_allclose(out, [[w0 * 1 + (1 - w0) * 3, w0 * 2 + (1 - w0) * 4]], rtol=1e-15)


def test_attention_matches_naive_reference_with_a_causal_mask():
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((4, 3)) for _ in range(3))
    out, weights = attention(q, k, v, causal_mask(4))
    ref_out, ref_w = naive.attention(q.tolist(), k.tolist(), v.tolist(), lambda i, j: j <= i)
    np.testing.assert_allclose(out, ref_out, rtol=1e-12)
    np.testing.assert_allclose(weights, ref_w, rtol=1e-12)
    assert (weights[np.triu_indices(4, 1)] == 0.0).all()
    np.testing.assert_allclose(weights.sum(axis=-1), np.ones(4))


def test_a_query_with_every_key_masked_gets_zero_weights_and_zero_output():
    rng = np.random.default_rng(1)
    q, k, v = (rng.standard_normal((1, 1, 2, 4)) for _ in range(3))
    mask = np.array([[False, False], [True, False]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out, weights = attention(q, k, v, mask)
    assert weights[0, 0, 0].tolist() == [0.0, 0.0]
    assert out[0, 0, 0].tolist() == [0.0, 0.0, 0.0, 0.0]
    assert weights[0, 0, 1].tolist() == [1.0, 0.0]
    np.testing.assert_allclose(out[0, 0, 1], v[0, 0, 0])


def test_layer_norm_hand_worked():
    x = np.array([1.0, 2.0, 3.0, 4.0])  # mean 2.5, biased variance 1.25
    p = LayerNormParams(gain=np.array([1.0, 1.0, 2.0, 2.0]), bias=np.array([0.0, 0.0, 0.0, 1.0]))
    std = math.sqrt(1.25 + 1e-5)
    expected = [-1.5 / std, -0.5 / std, 2 * 0.5 / std, 2 * 1.5 / std + 1]
    np.testing.assert_allclose(layer_norm(x, p), expected, rtol=1e-14)
    std_eps = math.sqrt(1.25 + 0.25)
    np.testing.assert_allclose(layer_norm(x, p, eps=0.25)[0], -1.5 / std_eps, rtol=1e-14)


def test_layer_norm_into_its_own_input():
    x = np.array([[1.0, 3.0], [2.0, 6.0]])  # standardised: [-1, 1] both
    p = LayerNormParams(gain=np.array([1.0, 2.0]), bias=np.array([0.0, 1.0]))
    out = layer_norm(x, p, eps=0.0, out=x)
    assert out is x
    assert x.tolist() == [[-1.0, 3.0], [-1.0, 3.0]]


def test_feed_forward_hand_worked():
    p = FeedForwardParams(
        w_1=np.array([[1.0, -1.0, 0.0], [0.0, 1.0, 1.0]]),
        b_1=np.array([0.0, 0.0, -1.0]),
        w_2=np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),
        b_2=np.array([0.5, 0.0]),
    )
    # x W_1 + b_1 = [2, -1, 0] -> ReLU [2, 0, 0] -> W_2 + b_2 = [2.5, 0]
    assert feed_forward(np.array([[2.0, 1.0]]), p).tolist() == [[2.5, 0.0]]


def test_add_norm_normalises_the_residual_sum():
    p = LayerNormParams(gain=np.ones(2), bias=np.zeros(2))
    out = add_norm(np.array([[1.0, 0.0]]), np.array([[0.0, 3.0]]), p, eps=0.0)
    np.testing.assert_allclose(out, [[-1.0, 1.0]])  # [1, 3]: mean 2, std 1


def test_attention_and_add_norm_leave_their_inputs_alone():
    # both work in place on arrays of their own; the caller's arrays keep their values
    rng = np.random.default_rng(3)
    q, k, v = (rng.standard_normal((2, 3, 4)) for _ in range(3))
    x, sublayer = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 3, 4))
    before = [a.copy() for a in (q, k, v, x, sublayer)]
    attention(q, k, v, causal_mask(3))
    add_norm(x, sublayer, LayerNormParams(gain=np.ones(4), bias=np.zeros(4)), eps=1e-5)
    for array, original in zip((q, k, v, x, sublayer), before, strict=True):
        assert np.array_equal(array, original)


def test_a_traced_add_norm_keeps_the_sum_beside_the_normalised_output():
    trace = Trace()
    p = LayerNormParams(gain=np.ones(2), bias=np.zeros(2))
    out = add_norm(np.array([[1.0, 0.0]]), np.array([[0.0, 3.0]]), p, eps=0.0, trace=trace)
    assert trace["sum"].tolist() == [[1.0, 3.0]]
    assert trace["output"] is out and out.tolist() == [[-1.0, 1.0]]


def test_split_heads_takes_column_blocks_and_merge_inverts_it():
    x = np.arange(2 * 3 * 6, dtype=float).reshape(2, 3, 6)
    heads = split_heads(x, 3)
    assert heads.shape == (2, 3, 3, 2)
    assert heads[1, 2, 0].tolist() == x[1, 0, 4:6].tolist()
    assert (merge_heads(heads) == x).all()


def _random_attention_params(rng, d, bias=True):
    def b():
        return rng.standard_normal(d) if bias else None

    return AttentionParams(
        *(rng.standard_normal((d, d)) * 0.5 for _ in range(4)), b(), b(), b(), b()
    )


@pytest.mark.parametrize("n_heads", [1, 2, 4])
def test_multi_head_attention_matches_naive_per_head_loops(n_heads):
    rng = np.random.default_rng(n_heads)
    p = _random_attention_params(rng, 8)
    xq, xkv = rng.standard_normal((2, 3, 8)), rng.standard_normal((2, 5, 8))
    key_ok = np.array([[True] * 5, [True, True, True, False, False]])
    out = multi_head_attention(xq, xkv, p, n_heads, key_ok[:, None, None, :])
    for b in range(2):
        ref = naive.multi_head_attention(
            xq[b].tolist(), xkv[b].tolist(), p, n_heads, lambda i, j, b=b: key_ok[b, j]
        )
        np.testing.assert_allclose(out[b], ref, rtol=1e-11, atol=1e-12)


def test_the_chapters_per_head_slicing_is_block_diagonal_projection():
    """Section 5 slices X' per head; that equals the paper's form with block-diagonal W."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((1, 3, 4))
    wq1, wq2, wk1, wk2, wv1, wv2 = (rng.standard_normal((2, 2)) for _ in range(6))
    w_o = rng.standard_normal((4, 4))
    out1, _ = attention(x[0, :, :2] @ wq1, x[0, :, :2] @ wk1, x[0, :, :2] @ wv1)
    out2, _ = attention(x[0, :, 2:] @ wq2, x[0, :, 2:] @ wk2, x[0, :, 2:] @ wv2)
    chapter = np.concatenate([out1, out2], axis=1) @ w_o

    def block(a, b):
        return np.block([[a, np.zeros((2, 2))], [np.zeros((2, 2)), b]])

    p = AttentionParams(block(wq1, wq2), block(wk1, wk2), block(wv1, wv2), w_o)
    np.testing.assert_allclose(multi_head_attention(x, x, p, 2)[0], chapter, rtol=1e-12)


def test_self_attention_without_positions_is_permutation_equivariant():
    rng = np.random.default_rng(3)
    p = _random_attention_params(rng, 8)
    x = rng.standard_normal((1, 5, 8))
    perm = np.array([3, 0, 4, 1, 2])
    out = multi_head_attention(x, x, p, 2)
    out_perm = multi_head_attention(x[:, perm], x[:, perm], p, 2)
    np.testing.assert_allclose(out_perm, out[:, perm], rtol=1e-12)


def test_batched_attention_equals_one_sample_at_a_time():
    rng = np.random.default_rng(4)
    p = _random_attention_params(rng, 8)
    x = rng.standard_normal((3, 4, 8))
    batched = multi_head_attention(x, x, p, 4, causal_mask(4))
    for b in range(3):
        single = multi_head_attention(x[b : b + 1], x[b : b + 1], p, 4, causal_mask(4))
        np.testing.assert_allclose(batched[b], single[0], rtol=1e-13)


def test_float32_stays_float32_and_agrees_with_float64():
    rng = np.random.default_rng(5)
    p64 = _random_attention_params(rng, 8)
    p32 = AttentionParams(*(a.astype(np.float32) for a in vars(p64).values()))
    x = rng.standard_normal((2, 3, 8))
    out32 = multi_head_attention(x.astype(np.float32), x.astype(np.float32), p32, 2)
    out64 = multi_head_attention(x, x, p64, 2)
    assert out32.dtype == np.float32
    np.testing.assert_allclose(out32, out64, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("rows", [1, FEW_ROWS, FEW_ROWS + 1])
@pytest.mark.parametrize("layout", ["C", "F"])
def test_linear_matches_the_naive_product_for_any_row_count_and_weight_layout(rows, layout):
    # few rows with a column-major weight take another route through BLAS than the rest
    rng = np.random.default_rng(rows)
    x = rng.standard_normal((1, rows, 6))
    w, b = np.asarray(rng.standard_normal((6, 5)), order=layout), rng.standard_normal(5)
    expected = [naive.vec_mat(row, w.tolist(), b.tolist()) for row in x[0].tolist()]
    y = linear(x, w, b)
    assert y.shape == (1, rows, 5) and y.flags.c_contiguous
    np.testing.assert_allclose(y[0], expected, rtol=1e-12, atol=1e-12)
