"""Each building block's gradient against central finite differences in float64, on a loss
L = Σ output ⊙ R with a random R (so dL/d output = R), plus hand-worked loss gradients."""

import math

import numpy as np
import pytest
from gradcheck import check_gradient, finite_difference, relative_error

from engine import (
    AttentionParams,
    FeedForwardParams,
    LayerNormParams,
    attention,
    causal_mask,
    embed,
    feed_forward,
    layer_norm,
    linear,
    multi_head_attention,
)
from engine.backward import (
    add_norm_backward,
    add_norm_forward,
    attention_backward,
    cross_entropy_forward_backward,
    embed_backward,
    feed_forward_backward,
    feed_forward_forward,
    layer_norm_backward,
    layer_norm_forward,
    linear_backward,
    multi_head_attention_backward,
    multi_head_attention_forward,
)
from engine.model import cross_entropy

TOLERANCE = 1e-6


@pytest.fixture
def rng():
    return np.random.default_rng(7)


def test_linear(rng):
    x, w, b = rng.normal(size=(2, 3, 4)), rng.normal(size=(4, 5)), rng.normal(size=5)
    r = rng.normal(size=(2, 3, 5))

    def loss():
        return float(np.sum(linear(x, w, b) * r))

    d_x, d_w, d_b = linear_backward(x, w, r)
    for array, grad in [(x, d_x), (w, d_w), (b, d_b)]:
        assert check_gradient(loss, array, grad, rng, count=array.size) < TOLERANCE
    assert linear_backward(x, w, r, bias=False)[2] is None


@pytest.mark.parametrize("scale", [False, True])
def test_embedding_lookup_collects_the_rows_it_read(rng, scale):
    table = rng.normal(size=(6, 4))
    ids = np.array([[1, 3, 1], [5, 0, 1]])
    r = rng.normal(size=(2, 3, 4))
    d_table = embed_backward(ids, r, 6, scale)
    factor = 2.0 if scale else 1.0  # sqrt(d_model = 4)
    np.testing.assert_allclose(d_table[1], factor * (r[0, 0] + r[0, 2] + r[1, 2]), rtol=1e-15)
    np.testing.assert_array_equal(d_table[[2, 4]], 0.0)  # never looked up

    def loss():
        return float(np.sum(embed(ids, table, scale) * r))

    assert check_gradient(loss, table, d_table, rng, count=table.size) < TOLERANCE


def masks(n, m):
    """(2, 1, n, m): the first sequence's last key is padding; in the second, a causal mask and
    a query (the last) that may attend to nothing."""
    mask = np.ones((2, 1, n, m), dtype=bool)
    mask[0, 0, :, -1] = False
    mask[1, 0] = causal_mask(n)[:, :m]
    mask[1, 0, -1] = False
    return mask


def test_scaled_dot_product_attention_with_masks(rng):
    n, m, d_k = 4, 4, 3
    q, k, v = (rng.normal(size=(2, 2, length, d_k)) for length in (n, m, m))
    mask = masks(n, m)
    r = rng.normal(size=(2, 2, n, d_k))

    def loss():
        return float(np.sum(attention(q, k, v, mask)[0] * r))

    _, weights = attention(q, k, v, mask)
    d_q, d_k, d_v = attention_backward(q, k, v, weights, r)
    for array, grad in [(q, d_q), (k, d_k), (v, d_v)]:
        assert check_gradient(loss, array, grad, rng, count=array.size) < TOLERANCE
    # a padding key and the row that sees nothing get exactly zero
    np.testing.assert_array_equal(d_k[0, :, -1], 0.0)
    np.testing.assert_array_equal(d_v[0, :, -1], 0.0)
    np.testing.assert_array_equal(d_q[1, :, -1], 0.0)


def test_attention_gradient_by_hand_for_one_query_and_two_keys():
    # scores q·k / sqrt(1) = (0, ln 3): weights (1/4, 3/4); output = 1/4 v_0 + 3/4 v_1
    q, k = np.array([[1.0]]), np.array([[0.0], [math.log(3)]])
    v = np.array([[2.0], [6.0]])
    weights = np.array([[0.25, 0.75]])
    d_q, d_k, d_v = attention_backward(q, k, v, weights, np.array([[1.0]]))
    np.testing.assert_allclose(d_v, [[0.25], [0.75]], rtol=1e-15)
    # dL/dweights = v = (2, 6); dscores = w ⊙ (v - w·v) = (1/4 (2 - 5), 3/4 (6 - 5))
    d_scores = np.array([-0.75, 0.75])
    np.testing.assert_allclose(d_q, [[d_scores @ k[:, 0]]], rtol=1e-15)
    np.testing.assert_allclose(d_k, d_scores[:, None] * q[0, 0], rtol=1e-15)


def random_attention_params(rng, d, bias=True):
    matrices = [rng.normal(size=(d, d)) / math.sqrt(d) for _ in range(4)]
    biases = [rng.normal(size=d) * 0.1 if bias else None for _ in range(4)]
    return AttentionParams(*matrices, *biases)


@pytest.mark.parametrize("bias", [True, False])
def test_multi_head_attention_split_concat_and_w_o(rng, bias):
    d, heads = 6, 2
    x_q, x_kv = rng.normal(size=(2, 4, d)), rng.normal(size=(2, 4, d))
    p = random_attention_params(rng, d, bias)
    mask = masks(4, 4)
    r = rng.normal(size=(2, 4, d))

    def loss():
        return float(np.sum(multi_head_attention(x_q, x_kv, p, heads, mask) * r))

    out, cache = multi_head_attention_forward(x_q, x_kv, p, heads, mask)
    np.testing.assert_array_equal(out, multi_head_attention(x_q, x_kv, p, heads, mask))
    d_x_q, d_x_kv, grads = multi_head_attention_backward(cache, p, r)
    checks = [(x_q, d_x_q), (x_kv, d_x_kv)]
    for name in ("w_q", "w_k", "w_v", "w_o", "b_q", "b_k", "b_v", "b_o"):
        if getattr(p, name) is None:
            assert getattr(grads, name) is None
        else:
            checks.append((getattr(p, name), getattr(grads, name)))
    for array, grad in checks:
        assert check_gradient(loss, array, grad, rng, count=12) < TOLERANCE


def test_self_attention_sums_the_gradients_of_queries_keys_and_values(rng):
    d, heads = 4, 2
    x = rng.normal(size=(1, 3, d))
    p = random_attention_params(rng, d)
    r = rng.normal(size=(1, 3, d))
    _, cache = multi_head_attention_forward(x, x, p, heads, causal_mask(3))
    d_x_q, d_x_kv, _ = multi_head_attention_backward(cache, p, r)

    def loss():
        return float(np.sum(multi_head_attention(x, x, p, heads, causal_mask(3)) * r))

    assert check_gradient(loss, x, d_x_q + d_x_kv, rng, count=x.size) < TOLERANCE


def test_layer_norm_and_the_residual(rng):
    x, sub = rng.normal(size=(2, 3, 5)), rng.normal(size=(2, 3, 5))
    p = LayerNormParams(gain=rng.normal(size=5), bias=rng.normal(size=5))
    r = rng.normal(size=(2, 3, 5))
    y, cache = layer_norm_forward(x, p, 1e-5)
    np.testing.assert_array_equal(y, layer_norm(x, p, 1e-5))

    def loss():
        return float(np.sum(layer_norm(x, p, 1e-5) * r))

    d_x, grads = layer_norm_backward(cache, p, r)
    for array, grad in [(x, d_x), (p.gain, grads.gain), (p.bias, grads.bias)]:
        assert check_gradient(loss, array, grad, rng, count=array.size) < TOLERANCE

    def residual_loss():
        return float(np.sum(layer_norm(x + sub, p, 1e-5) * r))

    _, cache = add_norm_forward(x, sub, p, 1e-5)
    d_sum, _ = add_norm_backward(cache, p, r)
    for array in (x, sub):
        assert check_gradient(residual_loss, array, d_sum, rng, count=array.size) < TOLERANCE


def test_layer_norm_gradient_sums_to_zero_over_the_features(rng):
    # shifting every feature of a row by the same amount changes nothing
    x = rng.normal(size=(4, 6))
    p = LayerNormParams(gain=rng.normal(size=6), bias=np.zeros(6))
    _, cache = layer_norm_forward(x, p)
    d_x, _ = layer_norm_backward(cache, p, rng.normal(size=(4, 6)))
    np.testing.assert_allclose(d_x.sum(axis=-1), 0.0, atol=1e-14)


def test_feed_forward_with_relu(rng):
    x = rng.normal(size=(2, 3, 4))
    p = FeedForwardParams(
        w_1=rng.normal(size=(4, 7)),
        b_1=rng.normal(size=7),
        w_2=rng.normal(size=(7, 4)),
        b_2=rng.normal(size=4),
    )
    r = rng.normal(size=(2, 3, 4))
    out, cache = feed_forward_forward(x, p)
    np.testing.assert_array_equal(out, feed_forward(x, p))
    assert (cache.hidden == 0).any()  # some units are off, and pass no gradient

    def loss():
        return float(np.sum(feed_forward(x, p) * r))

    d_x, grads = feed_forward_backward(cache, p, r)
    for name in ("w_1", "b_1", "w_2", "b_2"):
        array, grad = getattr(p, name), getattr(grads, name)
        assert check_gradient(loss, array, grad, rng, count=array.size) < TOLERANCE
    assert check_gradient(loss, x, d_x, rng, count=x.size) < TOLERANCE


def test_cross_entropy_gradient_is_softmax_minus_one_hot_by_hand():
    # softmax(0, ln 2, ln 5) = (1/8, 2/8, 5/8); label 2; one position of a batch with a pad label
    logits = np.array([[[0.0, math.log(2), math.log(5)], [3.0, 1.0, 2.0]]])
    labels = np.array([[2, 0]])
    loss, d_logits = cross_entropy_forward_backward(logits, labels, pad_id=0)
    assert loss == pytest.approx(-math.log(5 / 8), rel=1e-14)
    np.testing.assert_allclose(d_logits[0, 0], [1 / 8, 2 / 8, -3 / 8], rtol=1e-14)
    np.testing.assert_array_equal(d_logits[0, 1], 0.0)  # padding target: no gradient


def test_label_smoothing_by_hand():
    # ε_ls = 0.1 over 3 classes: targets (0.1/3, 0.1/3, 0.9 + 0.1/3)
    logits = np.array([[[0.0, math.log(2), math.log(5)]]])
    loss, d_logits = cross_entropy_forward_backward(logits, np.array([[2]]), None, 0.1)
    q = np.array([0.1 / 3, 0.1 / 3, 0.9 + 0.1 / 3])
    expected = -(q @ np.log([1 / 8, 2 / 8, 5 / 8]))
    assert loss == pytest.approx(expected, rel=1e-14)
    np.testing.assert_allclose(d_logits[0, 0], np.array([1, 2, 5]) / 8 - q, rtol=1e-13)


@pytest.mark.parametrize("smoothing", [0.0, 0.1])
def test_cross_entropy_mean_over_non_pad_targets(rng, smoothing):
    logits = rng.normal(size=(2, 4, 6))
    labels = np.array([[3, 4, 2, 0], [5, 0, 0, 0]])
    loss, d_logits = cross_entropy_forward_backward(logits, labels, 0, smoothing)
    if smoothing == 0.0:
        assert loss == pytest.approx(cross_entropy(logits, labels, 0), rel=1e-15)

    def f():
        return cross_entropy_forward_backward(logits, labels, 0, smoothing)[0]

    numeric = np.array(
        [finite_difference(f, logits, i) for i in np.ndindex(*logits.shape)]
    ).reshape(logits.shape)
    assert relative_error(numeric, d_logits) < TOLERANCE
    np.testing.assert_array_equal(d_logits[labels == 0], 0.0)


def test_cross_entropy_refuses_all_padding_and_bad_smoothing():
    with pytest.raises(ValueError, match="every label is padding"):
        cross_entropy_forward_backward(np.zeros((1, 2, 3)), np.zeros((1, 2), int), 0)
    with pytest.raises(ValueError, match="label smoothing"):
        cross_entropy_forward_backward(np.zeros((1, 1, 3)), np.ones((1, 1), int), 0, 1.0)


def test_the_key_bias_gets_no_gradient(rng):
    # q·(k + b_k) shifts every score of a query by the same q·b_k, which softmax cancels
    d = 6
    x_q, x_kv = rng.normal(size=(2, 4, d)), rng.normal(size=(2, 3, d))
    p = random_attention_params(rng, d)
    _, cache = multi_head_attention_forward(x_q, x_kv, p, 2)
    _, _, grads = multi_head_attention_backward(cache, p, rng.normal(size=(2, 4, d)))
    np.testing.assert_allclose(grads.b_k, 0.0, atol=1e-14)
    assert np.linalg.norm(grads.b_q) > 1e-3
