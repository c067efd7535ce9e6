"""Gradients of the building blocks of `engine.layers`, each beside a forward that keeps what
its backward needs.

A `*_forward` computes exactly what its counterpart in `engine.layers` computes (it calls it)
and returns the output with a small cache; the `*_backward` takes that cache and the gradient
of the loss with respect to the output (`d_` + the name of the forward's value) and returns the
gradients with respect to the inputs and the parameters, the latter in the parameters' own
dataclasses. Shapes: b = batch, h = heads, n = query positions, m = key positions.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from engine.layers import (
    attention,
    linear,
    merge_heads,
    split_heads,
)
from engine.params import AttentionParams, FeedForwardParams, LayerNormParams

Array = np.ndarray


# --- embedding and linear layers -------------------------------------------------------------


def embed_backward(ids: Array, d_x: Array, vocab_size: int, scale: bool = False) -> Array:
    """d Embedding table: each looked-up row collects the gradients of the positions that read
    it (times sqrt(d_model) when the lookup was scaled). ids (..., n), d_x (..., n, d_model)."""
    d_model = d_x.shape[-1]
    if scale:
        d_x = d_x * math.sqrt(d_model)
    d_table = np.zeros((vocab_size, d_model), dtype=d_x.dtype)  # (vocab, d_model)
    ids = np.asarray(ids).reshape(-1)  # (positions,)
    if ids.size:
        rows, d_rows = _sum_by_id(ids, d_x.reshape(-1, d_model))
        d_table[rows] = d_rows
    return d_table


def _sum_by_id(ids: Array, d_rows: Array) -> tuple[Array, Array]:
    """The distinct ids (k,) and, for each, the sum of the rows of `d_rows` (n, d) at its
    positions (k, d): sorted by id, then summed run by run. (np.add.at does the same 5x slower
    where ids repeat, as a small vocabulary's do, and no faster at the base size's.)"""
    order = np.argsort(ids, kind="stable")
    sorted_ids = ids[order]
    starts = np.flatnonzero(np.r_[True, sorted_ids[1:] != sorted_ids[:-1]])
    return sorted_ids[starts], np.add.reduceat(d_rows[order], starts, axis=0)


def linear_backward(
    x: Array, w: Array, d_y: Array, bias: bool = True
) -> tuple[Array, Array, Array | None]:
    """y = x W + b: dx = dy Wᵀ, dW = xᵀ dy, db = Σ dy (over every position)."""
    rows = x.reshape(-1, x.shape[-1])  # (rows, d_in)
    d_rows = d_y.reshape(-1, d_y.shape[-1])  # (rows, d_out)
    d_x = (d_rows @ w.T).reshape(x.shape)  # (..., d_in)
    # dW in W's memory layout (column-major, for the engine's weights): the optimizer then reads
    # the two in one order, without copying either
    column_major = w.flags.f_contiguous and not w.flags.c_contiguous
    d_w = (d_rows.T @ rows).T if column_major else rows.T @ d_rows  # (d_in, d_out)
    d_b = d_rows.sum(axis=0) if bias else None  # (d_out,)
    return d_x, d_w, d_b


# --- scaled dot-product and multi-head attention ---------------------------------------------


def attention_backward(
    q: Array, k: Array, v: Array, weights: Array, d_output: Array
) -> tuple[Array, Array, Array]:
    """Gradients of softmax(Q Kᵀ / sqrt(d_k) + mask) V with respect to Q, K and V.

    `weights` (..., n, m) are the forward's softmax; a masked position has weight 0 and so gets
    a zero gradient, and a row masked entirely (all weights 0) gets zeros throughout.
    """
    d_weights = d_output @ v.swapaxes(-1, -2)  # (..., n, m)
    d_v = weights.swapaxes(-1, -2) @ d_output  # (..., m, d_v)
    # softmax: dS = P ⊙ (dP - Σ_j dP_j P_j), row by row
    d_scores = weights * (d_weights - np.sum(d_weights * weights, axis=-1, keepdims=True))
    d_scores *= 1.0 / math.sqrt(q.shape[-1])  # (..., n, m)
    d_q = d_scores @ k  # (..., n, d_k)
    d_k = d_scores.swapaxes(-1, -2) @ q  # (..., m, d_k)
    return d_q, d_k, d_v


def split_heads_backward(d_heads: Array) -> Array:
    """split_heads only moves numbers: its gradient is the inverse move, merge_heads."""
    return merge_heads(d_heads)  # (b, n, d_model)


def merge_heads_backward(d_concat: Array, n_heads: int) -> Array:
    return split_heads(d_concat, n_heads)  # (b, h, n, d_k)


class AttentionCache(NamedTuple):
    x_q: Array  # (b, n, d_model)
    x_kv: Array  # (b, m, d_model)
    q: Array  # (b, h, n, d_k)
    k: Array  # (b, h, m, d_k)
    v: Array  # (b, h, m, d_k)
    weights: Array  # (b, h, n, m)
    concat: Array  # (b, n, d_model)


def multi_head_attention_forward(
    x_q: Array, x_kv: Array, p: AttentionParams, n_heads: int, mask: Array | None = None
) -> tuple[Array, AttentionCache]:
    """`engine.layers.multi_head_attention`, keeping Q, K, V, the weights and the concat."""
    q = split_heads(linear(x_q, p.w_q, p.b_q), n_heads)  # (b, h, n, d_k)
    k = split_heads(linear(x_kv, p.w_k, p.b_k), n_heads)  # (b, h, m, d_k)
    v = split_heads(linear(x_kv, p.w_v, p.b_v), n_heads)  # (b, h, m, d_k)
    context, weights = attention(q, k, v, mask)  # (b, h, n, d_k), (b, h, n, m)
    concat = merge_heads(context)  # (b, n, d_model)
    output = linear(concat, p.w_o, p.b_o)  # (b, n, d_model)
    return output, AttentionCache(x_q, x_kv, q, k, v, weights, concat)


def multi_head_attention_backward(
    cache: AttentionCache, p: AttentionParams, d_output: Array
) -> tuple[Array, Array, AttentionParams]:
    """Returns (d x_q, d x_kv, the gradients of W_q, W_k, W_v, W_o and their biases).

    For self-attention x_q and x_kv are the same array: its gradient is the sum of the two.
    """
    n_heads = cache.q.shape[1]
    d_concat, d_w_o, d_b_o = linear_backward(cache.concat, p.w_o, d_output, p.b_o is not None)
    d_context = merge_heads_backward(d_concat, n_heads)  # (b, h, n, d_k)
    d_q, d_k, d_v = attention_backward(cache.q, cache.k, cache.v, cache.weights, d_context)
    d_x_q, d_w_q, d_b_q = linear_backward(
        cache.x_q, p.w_q, split_heads_backward(d_q), p.b_q is not None
    )
    d_x_k, d_w_k, d_b_k = linear_backward(
        cache.x_kv, p.w_k, split_heads_backward(d_k), p.b_k is not None
    )
    d_x_v, d_w_v, d_b_v = linear_backward(
        cache.x_kv, p.w_v, split_heads_backward(d_v), p.b_v is not None
    )
    grads = AttentionParams(d_w_q, d_w_k, d_w_v, d_w_o, d_b_q, d_b_k, d_b_v, d_b_o)
    return d_x_q, d_x_k + d_x_v, grads


# --- LayerNorm, the residual, the feed-forward network -----------------------------------------


class LayerNormCache(NamedTuple):
    x_hat: Array  # (..., d_model): (x - mean) / sqrt(var + eps)
    inv_std: Array  # (..., 1): 1 / sqrt(var + eps)


def layer_norm_forward(
    x: Array, p: LayerNormParams, eps: float = 1e-5
) -> tuple[Array, LayerNormCache]:
    """`engine.layers.layer_norm` step by step (the same operations in the same order, so the
    same numbers), keeping the normalised x̂ and 1/σ from its one pass."""
    inv_d = 1.0 / x.shape[-1]
    centered = x - np.einsum("...i->...", x)[..., None] * inv_d  # (..., d_model)
    var = np.einsum("...i,...i->...", centered, centered)[..., None] * inv_d  # (..., 1)
    inv_std = 1.0 / np.sqrt(var + eps)  # (..., 1)
    x_hat = centered
    x_hat *= inv_std
    y = x_hat * p.gain  # x̂ ⊙ γ + β
    y += p.bias
    return y, LayerNormCache(x_hat, inv_std)


def layer_norm_backward(
    cache: LayerNormCache, p: LayerNormParams, d_y: Array
) -> tuple[Array, LayerNormParams]:
    """dx = (1/σ) (dx̂ - mean(dx̂) - x̂ mean(dx̂ ⊙ x̂)), with dx̂ = dy ⊙ γ."""
    x_hat, inv_std = cache
    axes = tuple(range(d_y.ndim - 1))
    grads = LayerNormParams(gain=np.sum(d_y * x_hat, axis=axes), bias=np.sum(d_y, axis=axes))
    d_x_hat = d_y * p.gain  # (..., d_model)
    d_x = inv_std * (
        d_x_hat
        - d_x_hat.mean(axis=-1, keepdims=True)
        - x_hat * np.mean(d_x_hat * x_hat, axis=-1, keepdims=True)
    )
    return d_x, grads


def add_norm_forward(
    x: Array, sublayer_out: Array, p: LayerNormParams, eps: float
) -> tuple[Array, LayerNormCache]:
    """LayerNorm(x + Sublayer(x)), as `engine.layers.add_norm`."""
    return layer_norm_forward(x + sublayer_out, p, eps)


def add_norm_backward(
    cache: LayerNormCache, p: LayerNormParams, d_y: Array
) -> tuple[Array, LayerNormParams]:
    """The residual copies the gradient of the sum to both x and Sublayer(x): returns that
    one gradient (d x = d Sublayer(x)) and the LayerNorm's."""
    return layer_norm_backward(cache, p, d_y)


class FeedForwardCache(NamedTuple):
    x: Array  # (..., d_model)
    hidden: Array  # (..., d_ff), after the ReLU


def feed_forward_forward(x: Array, p: FeedForwardParams) -> tuple[Array, FeedForwardCache]:
    """`engine.layers.feed_forward`, keeping the ReLU's output."""
    hidden = linear(x, p.w_1, p.b_1)  # (..., d_ff)
    np.maximum(hidden, 0, out=hidden)  # ReLU
    return linear(hidden, p.w_2, p.b_2), FeedForwardCache(x, hidden)


def feed_forward_backward(
    cache: FeedForwardCache, p: FeedForwardParams, d_output: Array
) -> tuple[Array, FeedForwardParams]:
    d_hidden, d_w_2, d_b_2 = linear_backward(cache.hidden, p.w_2, d_output)
    d_hidden *= cache.hidden > 0  # ReLU passes the gradient where it passed the value
    d_x, d_w_1, d_b_1 = linear_backward(cache.x, p.w_1, d_hidden)
    return d_x, FeedForwardParams(d_w_1, d_b_1, d_w_2, d_b_2)


# --- the loss ----------------------------------------------------------------------------------


def smoothed_targets(labels: Array, vocab_size: int, smoothing: float = 0.0) -> Array:
    """q = (1 - ε_ls) one_hot(label) + ε_ls / vocab: the target distribution of each position
    (as PyTorch's `cross_entropy(..., label_smoothing=ε_ls)`). labels (b, t) -> (b, t, vocab)."""
    q = np.full((*labels.shape, vocab_size), smoothing / vocab_size)
    np.put_along_axis(q, labels[..., None], 1.0 - smoothing + smoothing / vocab_size, axis=-1)
    return q


def cross_entropy_forward_backward(
    logits: Array, labels: Array, pad_id: int | None, smoothing: float = 0.0
) -> tuple[float, Array]:
    """Mean over the non-padding labels of -Σ_v q_v log softmax(logits)_v, and its gradient
    (softmax - q) / count at those positions, 0 at padding. With ε_ls = 0 the loss is
    `engine.model.cross_entropy`. logits (b, t, vocab), labels (b, t)."""
    if not 0.0 <= smoothing < 1.0:
        raise ValueError(f"label smoothing must be in [0, 1), got {smoothing!r}")
    keep = np.ones(labels.shape, dtype=bool) if pad_id is None else labels != pad_id  # (b, t)
    count = int(keep.sum())
    if count == 0:
        raise ValueError("every label is padding: the loss is undefined")
    vocab = logits.shape[-1]
    # with q = (1 - ε) one_hot + ε / vocab:  -Σ_v q_v log p_v
    #   = -(1 - ε) log p_label - (ε / vocab) Σ_v log p_v,  log p = shifted - log Σ exp(shifted)
    shifted = logits - np.max(logits, axis=-1, keepdims=True)  # (b, t, vocab)
    probs = np.exp(shifted)  # (b, t, vocab), normalised below
    total = np.sum(probs, axis=-1, keepdims=True)  # (b, t, 1)
    log_total = np.log(total)[..., 0]  # (b, t)
    log_p_label = np.take_along_axis(shifted, labels[..., None], axis=-1)[..., 0] - log_total
    sum_log_p = np.sum(shifted, axis=-1) - vocab * log_total  # (b, t)
    per_position = -(1.0 - smoothing) * log_p_label - (smoothing / vocab) * sum_log_p
    loss = float(per_position[keep].astype(np.float64).mean())
    # d logits = (softmax - q) / count at the kept positions, 0 at padding
    d_logits = probs
    d_logits *= 1.0 / total
    if smoothing:
        d_logits -= smoothing / vocab
    rows = d_logits.reshape(-1, vocab)  # a view: (b t, vocab)
    rows[np.arange(rows.shape[0]), labels.reshape(-1)] -= 1.0 - smoothing
    d_logits *= (keep / count).astype(logits.dtype)[..., None]
    return loss, d_logits
