"""The Transformer's building blocks as small pure functions on numpy arrays.

Shapes in comments: b = batch, h = heads, n = query positions, m = key positions.
Masks are boolean with True meaning "may attend".
"""

from __future__ import annotations

import math

import numpy as np

from engine.params import AttentionParams, FeedForwardParams, LayerNormParams
from engine.trace import Trace, record

Array = np.ndarray


def softmax(x: Array, axis: int = -1, out: Array | None = None) -> Array:
    """Numerically stable softmax; -inf entries get exactly 0.

    A slice that is entirely -inf has no defined distribution: it gets all zeros (rather than
    NaN), so a query that may attend to nothing contributes a zero vector.
    `out` (as in NumPy; may be `x` itself) receives the result instead of a new array.
    """
    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(np.float64)
    peak = np.max(x, axis=axis, keepdims=True)
    peak[~np.isfinite(peak)] = 0
    e = np.subtract(x, peak, out=out)
    np.exp(e, out=e)
    total = _sum_keep(e, axis)
    total[total == 0] = 1
    e *= 1.0 / total
    return e


def _sum_keep(x: Array, axis: int = -1) -> Array:
    """Sum over one axis, keeping it. (einsum is several times faster than x.sum(axis) at the
    short rows attention has.)"""
    if axis in (-1, x.ndim - 1):
        return np.einsum("...i->...", x)[..., None]
    return np.expand_dims(np.einsum("...i->...", np.moveaxis(x, axis, -1)), axis)


def log_softmax(x: Array, axis: int = -1) -> Array:
    peak = np.max(x, axis=axis, keepdims=True)
    shifted = x - peak
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def positional_encoding(n_positions: int, d_model: int, start: int = 0) -> Array:
    """Sinusoidal encoding: PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(...)."""
    pos = np.arange(start, start + n_positions, dtype=np.float64)[:, None]  # (n, 1)
    two_i = (np.arange(d_model) // 2 * 2).astype(np.float64)  # 0, 0, 2, 2, 4, 4, ...
    angle = pos / np.power(10000.0, two_i / d_model)  # (n, d)
    return np.where(np.arange(d_model) % 2 == 0, np.sin(angle), np.cos(angle))


def embed(ids: Array, table: Array, scale: bool = False) -> Array:
    """Look up rows of the embedding table (no arithmetic, as the chapter stresses)."""
    ids = np.asarray(ids)
    if ids.dtype.kind not in "iu":
        raise TypeError(f"token ids must be integers, got dtype {ids.dtype}")
    vocab_size = table.shape[0]
    if ids.size and (ids.min() < 0 or ids.max() >= vocab_size):
        bad = ids[(ids < 0) | (ids >= vocab_size)].flat[0]
        raise ValueError(f"token id {bad} is outside the vocabulary [0, {vocab_size})")
    x = table[ids]  # (..., n, d_model)
    return x * math.sqrt(table.shape[1]) if scale else x


def causal_mask(n: int) -> Array:
    """(n, n) boolean: position i may attend to positions 0..i."""
    return np.tril(np.ones((n, n), dtype=bool))


def padding_mask(ids: Array, pad_id: int) -> Array:
    """(b, 1, 1, m) boolean: keys that are not padding, broadcastable over heads and queries."""
    return (np.asarray(ids) != pad_id)[:, None, None, :]


def apply_mask(scores: Array, mask: Array) -> Array:
    """In place: -inf wherever the boolean mask says "may not attend"; returns `scores`."""
    np.copyto(scores, -np.inf, where=~np.asarray(mask, dtype=bool))
    return scores


def attention(
    q: Array, k: Array, v: Array, mask: Array | None = None, trace: Trace | None = None
) -> tuple[Array, Array]:
    """Scaled dot-product attention softmax(Q Kᵀ / sqrt(d_k) + mask) V.

    q: (..., n, d_k), k: (..., m, d_k), v: (..., m, d_v), mask broadcastable to (..., n, m).
    Returns (output (..., n, d_v), weights (..., n, m)).
    """
    # The scores are laid out key-major, (..., m, n) in memory, and used through a transposed
    # view: the softmax's reductions over the keys then run across rows, which NumPy vectorizes,
    # instead of along short rows, which it does not (its max is ~3x slower there).
    scores = (k @ q.swapaxes(-1, -2)).swapaxes(-1, -2)  # (..., n, m)
    if trace is not None:
        record(trace, "raw_scores", scores.copy())
    scores *= 1.0 / math.sqrt(q.shape[-1])  # a Python float keeps float32 as float32
    if trace is not None:
        record(trace, "scores", scores.copy())
    if mask is not None:
        apply_mask(scores, mask)
        if trace is not None:
            record(trace, "masked_scores", scores)
    # in place unless the trace holds the masked scores
    weights = softmax(scores, out=scores if trace is None else None)
    output = weights @ v  # (..., n, d_v)
    if trace is not None:
        record(trace, "weights", weights)
        record(trace, "context", output)
    return output, weights


# Up to this many rows (a decoding step has 8), a product with a column-major weight runs faster
# as (Wᵀ xᵀ)ᵀ than as x W: over the decoder's 100 MB of weights, 8 rows take 15-20 % less time
# than x W with row-major weights, 16 rows 5-22 %, 32 rows 0-10 %; 64 rows even; slower from 96
# (docs/performance.md, "The weights are column-major").
FEW_ROWS = 32


def linear(x: Array, w: Array, b: Array | None = None) -> Array:
    """x W + b over the last axis of x (..., d_in) -> (..., d_out)."""
    # One (rows, d_in) x (d_in, d_out) GEMM: numpy runs a stacked matmul as one GEMM per batch
    # item, which is much slower for short sequences.
    rows = x.reshape(-1, x.shape[-1])
    if rows.shape[0] <= FEW_ROWS and w.flags.f_contiguous and not w.flags.c_contiguous:
        y = np.ascontiguousarray((w.T @ rows.T).T)
    else:
        y = rows @ w
    y = y.reshape(*x.shape[:-1], w.shape[-1])
    if b is not None:
        y += b
    return y


def split_heads(x: Array, n_heads: int) -> Array:
    """(b, n, d_model) -> (b, h, n, d_k): head i takes columns i*d_k : (i+1)*d_k."""
    b, n, d = x.shape
    return x.reshape(b, n, n_heads, d // n_heads).transpose(0, 2, 1, 3)


def merge_heads(x: Array) -> Array:
    """(b, h, n, d_k) -> (b, n, h*d_k): concatenate the heads."""
    b, h, n, d_k = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, n, h * d_k)


def project_kv(x: Array, p: AttentionParams, n_heads: int) -> tuple[Array, Array]:
    """Keys and values of `x`, split into heads: two (b, h, m, d_k) arrays."""
    return split_heads(linear(x, p.w_k, p.b_k), n_heads), split_heads(
        linear(x, p.w_v, p.b_v), n_heads
    )


def multi_head_attention(
    x_q: Array,
    x_kv: Array | None,
    p: AttentionParams,
    n_heads: int,
    mask: Array | None = None,
    trace: Trace | None = None,
    kv: tuple[Array, Array] | None = None,
) -> Array:
    """MultiHead = Concat(head_1, ..., head_h) W_o, head_i = Attention(Q W_q^i, K W_k^i, V W_v^i).

    As in the paper (and PyTorch), the full projections x W_q, x W_k, x W_v are split into h
    column blocks of d_k = d_model / h; the chapter's section 5 instead slices X' itself, which
    is a special case (block-diagonal W_q) and not what trained models do.
    `kv` supplies keys and values already projected and split (for the decoding caches);
    otherwise they are projected from `x_kv`.
    x_q: (b, n, d_model), x_kv: (b, m, d_model). Returns (b, n, d_model).
    """
    q = split_heads(linear(x_q, p.w_q, p.b_q), n_heads)  # (b, h, n, d_k)
    k, v = kv if kv is not None else project_kv(x_kv, p, n_heads)  # (b, h, m, d_k)
    if trace is not None:
        record(trace, "q", q)
        record(trace, "k", k)
        record(trace, "v", v)
    context, _ = attention(q, k, v, mask, trace)  # (b, h, n, d_k)
    concat = merge_heads(context)  # (b, n, d_model)
    output = linear(concat, p.w_o, p.b_o)
    if trace is not None:
        record(trace, "concat", concat)
        record(trace, "output", output)
    return output


def layer_norm(x: Array, p: LayerNormParams, eps: float = 1e-5, out: Array | None = None) -> Array:
    """gain * (x - mean) / sqrt(var + eps) + bias over the last axis, with the biased variance.

    `out` (as in NumPy; may be `x` itself) receives the result instead of a new array.
    """
    inv_d = 1.0 / x.shape[-1]
    centered = np.subtract(x, _sum_keep(x) * inv_d, out=out)
    var = np.einsum("...i,...i->...", centered, centered)[..., None] * inv_d
    centered *= 1.0 / np.sqrt(var + eps)
    centered *= p.gain
    centered += p.bias
    return centered


def feed_forward(x: Array, p: FeedForwardParams, trace: Trace | None = None) -> Array:
    """FFN(x) = ReLU(x W_1 + b_1) W_2 + b_2, applied to each position separately."""
    hidden = linear(x, p.w_1, p.b_1)  # (..., d_ff)
    np.maximum(hidden, 0, out=hidden)  # ReLU
    output = linear(hidden, p.w_2, p.b_2)
    if trace is not None:
        record(trace, "hidden", hidden)
        record(trace, "output", output)
    return output


def add_norm(
    x: Array, sublayer_out: Array, p: LayerNormParams, eps: float, trace: Trace | None = None
) -> Array:
    """Post-LN residual of the paper: LayerNorm(x + Sublayer(x))."""
    total = x + sublayer_out
    # in place unless the trace keeps the sum
    output = layer_norm(total, p, eps, out=total if trace is None else None)
    if trace is not None:
        record(trace, "sum", total)
        record(trace, "output", output)
    return output
