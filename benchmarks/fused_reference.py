"""The engine's forward with its elementwise work in fused, compiled kernels (numba), measured
beside `engine.shards.parallel_forward` in one run; where numexpr is installed, a numexpr
variant too.

Neither numba nor numexpr is a dependency of the project; run this from an environment that
has them:

    .venv/bin/pip install numba numexpr     # measured with 0.68 and 2.14; never in pyproject.toml
    .venv/bin/python benchmarks/fused_reference.py [--rounds 9] [--no-numexpr]

The fused forward is the engine's pass with the same products, made by the same `linear` and
the same matmuls on the same layouts, split into the same batch shards by `engine.shards`;
only the work between the products changes: residual + bias + LayerNorm in one pass over each
row, scale + mask + softmax of each head's scores in one pass over its (m, n) block, bias +
ReLU in place after W_1, the embedding lookup and positional encoding in one pass, the heads'
outputs written straight into their concatenated layout and each shard's logits straight into
the batch's (no `np.concatenate`). Every kernel is `parallel=False` (the shards already run one
per core) and releases the GIL (`nogil`) so the shards' kernels run at once. The numexpr
variant does what numexpr can of the same (it has no fused reductions; see NUMEXPR below), on
one numexpr thread.

Prints numba's compile time and the largest difference between each variant's logits and the
engine's, then interleaved rounds of the engine's forward, each variant, the forward's matrix
products alone (the ceiling benchmarks/engine.py reports) and its raw matmul reference (best of
3 each per round): each one's ms and share of the raw matmul's throughput, and the time each
variant saves, per round and as medians (of all rounds, and of the quiet ones, where the raw
matmul ran near its best), with the load average before and after. What it shows:
docs/performance.md.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

# Run as a script, this file's folder heads sys.path and benchmarks/engine.py would shadow the
# engine package; that file is loaded below under another name for its helpers.
_here = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _here]

try:
    import llvmlite.binding
    from llvmlite import ir

    # On CPUs with AVX-512, LLVM's tuning keeps vectors at 256 bits where NumPy's own kernels use
    # 512, and the softmax kernel runs at half speed; without AVX-512 this changes nothing. Read
    # when numba is first imported.
    if "NUMBA_CPU_FEATURES" not in os.environ:
        features = llvmlite.binding.get_host_cpu_features().flatten()
        os.environ["NUMBA_CPU_FEATURES"] = f"{features},-prefer-256-bit"
    from numba import njit, types
    from numba.extending import intrinsic
except ImportError:
    sys.exit("numba is not installed here; see the top of benchmarks/fused_reference.py")
try:
    import numexpr
except ImportError:  # the numexpr variant is measured where numexpr is installed
    numexpr = None

import numpy as np  # noqa: E402

from engine import (  # noqa: E402
    TransformerConfig,
    TransformerParams,
    apply_mask,
    causal_mask,
    layer_norm,
    linear,
    softmax,
    split_heads,
)
from engine.layers import FEW_ROWS, project_kv  # noqa: E402
from engine.model import _positions_table, as_batch  # noqa: E402
from engine.params import AttentionParams, FeedForwardParams, LayerNormParams  # noqa: E402
from engine.shards import map_shards, parallel_forward, shard_count  # noqa: E402

Array = np.ndarray

# fastmath off: IEEE semantics, -inf and all; the kernels vectorize without it (each query's
# softmax runs down a column of the key-major scores, one SIMD lane per query). The one
# exception is the LayerNorm's sums along a row, which LLVM vectorizes only if it may reorder
# them ("reassoc", nothing else): 2-3x faster, and a different summation order is all it
# changes (NumPy's own is pairwise); the logits check below shows the result.
KERNEL = {"nogil": True, "parallel": False, "fastmath": False, "cache": False}
ROW_SUMS = {**KERNEL, "fastmath": {"reassoc"}}

# --- exp, vectorizable -------------------------------------------------------------------------
# Without Intel's SVML installed, numba calls libm's scalar expf, which costs more than the
# whole of NumPy's SIMD softmax; this exp is plain arithmetic, which LLVM vectorizes.


@intrinsic
def _float32_from_bits(typingctx, bits):
    """The float32 whose IEEE bits are the int32 `bits` (a bitcast, no conversion)."""
    if bits != types.int32:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.FloatType())

    return types.float32(types.int32), codegen


F32 = np.float32
LOG2_E = F32(1.4426950408889634)
LN2_HI, LN2_LO = F32(0.693359375), F32(-2.12194440e-4)  # Cody-Waite split of ln 2 (Cephes)
EXP_FLOOR = F32(-87.0)  # exp(-87) ~ 1.6e-38, the smallest normal float32's neighbourhood
HALF, ONE = F32(0.5), F32(1.0)
C2, C3, C4, C5, C6, C7 = (F32(1 / math.factorial(i)) for i in range(2, 8))


@njit(inline="always", **KERNEL)
def exp_nonpositive(x):
    """e^x for float32 x <= 0, within ~1 ulp: 2^k e^r with k = round(x / ln 2), |r| <= ln2 / 2,
    e^r by its Taylor series to r^7 (the next term is < 5e-9)."""
    x = max(x, EXP_FLOOR)
    k = np.int32(x * LOG2_E - HALF)  # truncation toward 0 rounds to nearest, as x <= 0
    kf = F32(k)
    r = (x - kf * LN2_HI) - kf * LN2_LO
    e_r = ONE + r * (ONE + r * (C2 + r * (C3 + r * (C4 + r * (C5 + r * (C6 + r * C7))))))
    return e_r * _float32_from_bits(np.int32((k + 127) << 23))  # 2^k, k in [-126, 0]


# --- the fused kernels ------------------------------------------------------------------------


@njit(**KERNEL)
def embed_positions(ids, table, pe, scale, out):
    """out[b, i] = table[ids[b, i]] (x scale) + PE[i] in one pass. ids: (b, n); out: (b, n, d)."""
    batch, n = ids.shape
    for b in range(batch):
        for i in range(n):
            row = table[ids[b, i]]
            for j in range(row.shape[0]):
                out[b, i, j] = row[j] * scale + pe[i, j] if scale != 1 else row[j] + pe[i, j]


@njit(**KERNEL)
def scaled_masked_softmax(scores, scale, causal, key_keep):
    """In place, softmax over the keys of (scores x scale), masked, for every head.

    scores: (b, h, m, n) key-major, as `engine.layers.attention` lays them out: row i holds key
    i's score against every query, so one query's softmax runs down a column and each pass
    below is elementwise across a row (one SIMD lane per query). Query j may attend to key i
    if key_keep[b, i] and, when `causal`, i <= j. A query that may attend to nothing gets zeros.
    """
    batch, heads, m, n = scores.shape
    peak = np.empty(n, np.float32)  # (n,) per query
    total = np.empty(n, np.float32)
    for b in range(batch):
        for h in range(heads):
            s = scores[b, h]  # (m, n), 16 KB at m = n = 64: the three passes stay in L1
            peak[:] = -np.inf
            for i in range(m):
                # the queries j >= first may attend to key i; every loop runs over all of j,
                # selecting, because a loop starting at a variable j is not vectorized
                first = (i if causal else 0) if key_keep[b, i] else n
                for j in range(n):
                    v, p = s[i, j], peak[j]
                    peak[j] = v if j >= first and v > p else p
            for j in range(n):
                peak[j] *= scale  # max(s) x scale = max(s x scale): rounding is monotonic
            total[:] = 0
            for i in range(m):
                first = (i if causal else 0) if key_keep[b, i] else n
                for j in range(n):
                    e = exp_nonpositive(s[i, j] * scale - peak[j]) if j >= first else F32(0)
                    s[i, j] = e
                    total[j] += e
            for j in range(n):
                total[j] = ONE / total[j] if total[j] > 0 else ONE
            for i in range(m):
                for j in range(n):
                    s[i, j] *= total[j]


@njit(**ROW_SUMS)
def residual_layer_norm(x, sublayer, bias, gain, beta, eps, out):
    """out = LayerNorm(x + (sublayer + bias)) row by row, each row read once from memory.

    x, sublayer, out: (rows, d); bias, gain, beta: (d,). `out` must not be x or sublayer (LLVM
    would see them overlap and give up vectorizing)."""
    rows, d = x.shape
    inv_d = F32(1.0 / d)
    for r in range(rows):
        total = F32(0)
        for j in range(d):
            v = x[r, j] + (sublayer[r, j] + bias[j])
            out[r, j] = v
            total += v
        mean = total * inv_d
        squares = F32(0)
        for j in range(d):
            c = out[r, j] - mean
            out[r, j] = c
            squares += c * c
        inv_std = ONE / np.sqrt(squares * inv_d + eps)
        for j in range(d):
            out[r, j] = out[r, j] * inv_std * gain[j] + beta[j]


@njit(**KERNEL)
def bias_relu(hidden, bias):
    """In place: hidden = max(hidden + bias, 0). hidden: (rows, d_ff), bias: (d_ff,)."""
    rows, d_ff = hidden.shape
    for r in range(rows):
        for j in range(d_ff):
            v = hidden[r, j] + bias[j]
            hidden[r, j] = v if v > 0 else 0


# --- the same four, with numexpr ---------------------------------------------------------------
# numexpr fuses elementwise expressions but not reductions, and its exp (no VML in the pip wheel)
# takes 300 us per 131k floats against NumPy's 53: the softmax stays the engine's, and a
# LayerNorm still makes its two sums with NumPy between numexpr's passes.


def numexpr_embed_positions(ids, table, pe, scale, out):
    rows = table[ids]  # (b, n, d)
    if scale != 1:
        rows *= scale
    np.add(rows, pe[: ids.shape[1]], out=out)


def numexpr_scaled_masked_softmax(scores, scale, causal, key_keep):
    """The engine's own steps (`engine.layers.attention`) on the same key-major scores."""
    mask = key_keep[:, None, None, :]  # (b, 1, 1, m)
    if causal:
        mask = mask & causal_mask(scores.shape[-1])[None, None]  # (b, 1, n, m)
    query_major = scores.swapaxes(-1, -2)  # (b, h, n, m)
    query_major *= scale
    softmax(apply_mask(query_major, mask), out=query_major)


def numexpr_residual_layer_norm(x, sublayer, bias, gain, beta, eps, out):
    inv_d = F32(1.0 / x.shape[-1])
    numexpr.evaluate("x + (y + b)", {"x": x, "y": sublayer, "b": bias}, out=out)
    mean = np.einsum("ij->i", out)[:, None] * inv_d  # (rows, 1)
    numexpr.evaluate("c - mean", {"c": out, "mean": mean}, out=out)
    inv_std = ONE / np.sqrt(np.einsum("ij,ij->i", out, out)[:, None] * inv_d + eps)
    numexpr.evaluate(
        "c * inv_std * gain + beta",
        {"c": out, "inv_std": inv_std, "gain": gain, "beta": beta},
        out=out,
    )


def numexpr_bias_relu(hidden, bias):
    variables = {"h": hidden, "b": bias, "zero": F32(0)}
    numexpr.evaluate("where(h + b > zero, h + b, zero)", variables, out=hidden)


class Kernels(NamedTuple):
    """The elementwise work between the products, by the signatures of the numba kernels."""

    embed_positions: Callable
    scaled_masked_softmax: Callable
    residual_layer_norm: Callable
    bias_relu: Callable


NUMBA = Kernels(embed_positions, scaled_masked_softmax, residual_layer_norm, bias_relu)
NUMEXPR = Kernels(
    numexpr_embed_positions,
    numexpr_scaled_masked_softmax,
    numexpr_residual_layer_norm,
    numexpr_bias_relu,
)
if numexpr is not None:
    numexpr.set_num_threads(1)  # each batch shard is on a core of its own already


# --- the forward, the engine's structure with the kernels between its products ----------------


def rows_of(x: Array) -> Array:
    """(..., d) -> (rows, d), a view."""
    return x.reshape(-1, x.shape[-1])


def add_norm(
    x: Array, sublayer: Array, bias: Array, p: LayerNormParams, eps: Array, kernels: Kernels
) -> Array:
    """LayerNorm(x + Sublayer(x)), the sublayer's output bias added on the way."""
    out = np.empty_like(x)
    kernels.residual_layer_norm(
        rows_of(x), rows_of(sublayer), bias, p.gain, p.bias, eps, rows_of(out)
    )
    return out


def multi_head_attention(
    x_q: Array,
    x_kv: Array,
    p: AttentionParams,
    n_heads: int,
    causal: bool,
    key_keep: Array,
    kernels: Kernels,
) -> tuple[Array, Array]:
    """The engine's products, the softmax fused. Returns (concat W_o, b_o), b_o not yet added."""
    b, n, d = x_q.shape
    q = split_heads(linear(x_q, p.w_q, p.b_q), n_heads)  # (b, h, n, d_k)
    k, v = project_kv(x_kv, p, n_heads)  # (b, h, m, d_k)
    scores = k @ q.swapaxes(-1, -2)  # (b, h, m, n): key-major, as the engine lays them out
    kernels.scaled_masked_softmax(scores, F32(1.0 / math.sqrt(q.shape[-1])), causal, key_keep)
    concat = np.empty((b, n, d), x_q.dtype)
    # each head's product written straight into its columns of the concatenation
    np.matmul(scores.swapaxes(-1, -2), v, out=split_heads(concat, n_heads))
    return linear(concat, p.w_o), _bias_or_zeros(p.b_o, d, x_q.dtype)


def feed_forward(x: Array, p: FeedForwardParams, kernels: Kernels) -> Array:
    """ReLU(x W_1 + b_1) W_2, b_2 left to the add-norm."""
    hidden = linear(x, p.w_1)  # (..., d_ff)
    kernels.bias_relu(rows_of(hidden), p.b_1)
    return linear(hidden, p.w_2)


def _bias_or_zeros(bias: Array | None, d: int, dtype) -> Array:
    return bias if bias is not None else np.zeros(d, dtype)


def embed_with_positions(
    ids: Array, table: Array, config: TransformerConfig, kernels: Kernels
) -> Array:
    """X' = Embedding(ids) + PE, (b, n) -> (b, n, d_model)."""
    if ids.size and (ids.min() < 0 or ids.max() >= table.shape[0]):
        raise ValueError("a token id is outside the vocabulary")  # the kernel does not check
    n = ids.shape[-1]
    pe = _positions_table(max(64, 1 << int(n - 1).bit_length()), config.d_model, table.dtype)
    scale = F32(math.sqrt(table.shape[1])) if config.scale_embeddings else F32(1)
    out = np.empty((*ids.shape, table.shape[1]), table.dtype)
    kernels.embed_positions(ids, table, pe, scale, out)
    return out


def key_keep(ids: Array, config: TransformerConfig) -> Array:
    """(b, m) boolean: the keys that are not padding."""
    if config.pad_id is None:
        return np.ones(ids.shape, dtype=bool)
    return ids != config.pad_id


def whole_pass(
    src_ids: Array,
    tgt_ids: Array,
    params: TransformerParams,
    config: TransformerConfig,
    out: Array,
    kernels: Kernels,
) -> None:
    """One shard's forward, its logits written into `out` (b, t, tgt_vocab)."""
    h, eps, k = config.n_heads, F32(config.layer_norm_eps), kernels
    src_keep, tgt_keep = key_keep(src_ids, config), key_keep(tgt_ids, config)
    x = embed_with_positions(src_ids, params.src_embedding, config, k)
    for p in params.encoder_layers:
        attn = multi_head_attention(x, x, p.self_attn, h, False, src_keep, k)
        x = add_norm(x, *attn, p.norm1, eps, k)
        x = add_norm(x, feed_forward(x, p.ffn, k), p.ffn.b_2, p.norm2, eps, k)
    memory = x
    if params.encoder_norm is not None:
        memory = layer_norm(memory, params.encoder_norm, config.layer_norm_eps)
    y = embed_with_positions(tgt_ids, params.tgt_embedding, config, k)
    for p in params.decoder_layers:
        attn = multi_head_attention(y, y, p.self_attn, h, True, tgt_keep, k)
        y = add_norm(y, *attn, p.norm1, eps, k)
        cross = multi_head_attention(y, memory, p.cross_attn, h, False, src_keep, k)
        y = add_norm(y, *cross, p.norm2, eps, k)
        y = add_norm(y, feed_forward(y, p.ffn, k), p.ffn.b_2, p.norm3, eps, k)
    if params.decoder_norm is not None:
        y = layer_norm(y, params.decoder_norm, config.layer_norm_eps)
    rows, logits = rows_of(y), rows_of(out)
    if rows.shape[0] <= FEW_ROWS:  # linear's other layout: not worth a second path here
        logits[...] = linear(rows, params.w_out)
    else:
        np.matmul(rows, params.w_out, out=logits)  # linear's product, into the batch's logits
    if params.b_out is not None:
        logits += params.b_out


def fused_forward(
    src_ids: Array,
    tgt_ids: Array,
    params: TransformerParams,
    config: TransformerConfig,
    workers: int | None = None,
    kernels: Kernels = NUMBA,
) -> Array:
    """`engine.forward`'s logits (b, t, tgt_vocab), its elementwise work fused."""
    src_ids, tgt_ids = as_batch(src_ids), as_batch(tgt_ids)
    b, t = tgt_ids.shape
    logits = np.empty((b, t, params.w_out.shape[1]), params.w_out.dtype)
    count = shard_count(b, src_ids.shape[1] + t, config.d_model, workers)

    def shard(src: Array, tgt: Array, sequences: Array) -> Array:
        whole_pass(src, tgt, params, config, logits[sequences[0] : sequences[-1] + 1], kernels)
        return sequences

    map_shards(shard, (src_ids, tgt_ids, np.arange(b)), count)
    return logits


# --- the measurement ---------------------------------------------------------------------------


def _engine_benchmark():
    spec = importlib.util.spec_from_file_location("engine_benchmark", _here / "engine.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9, help="interleaved rounds (default 9)")
    parser.add_argument("--repeats", type=int, default=3, help="best of this many per round")
    parser.add_argument(
        "--no-numexpr", action="store_true", help="leave out the numexpr variant (shorter rounds)"
    )
    args = parser.parse_args()

    bench = _engine_benchmark()
    config, params, src, tgt, rng = bench.measured_batch()
    (b, n), t = src.shape, tgt.shape[1]

    with_numexpr = numexpr is not None and not args.no_numexpr
    variants = {"numba": NUMBA} | ({"numexpr": NUMEXPR} if with_numexpr else {})
    forwards = {"engine": lambda: parallel_forward(src, tgt, params, config)} | {
        name: lambda kernels=kernels: fused_forward(src, tgt, params, config, kernels=kernels)
        for name, kernels in variants.items()
    }
    start = time.perf_counter()
    forwards["numba"]()  # compiles every kernel
    first_call = time.perf_counter() - start
    warm_call = bench.best_time(forwards["numba"], 1, warm_up=False)
    versions = [f"numba {sys.modules['numba'].__version__}", f"numpy {np.__version__}"]
    if with_numexpr:
        versions.append(f"numexpr {numexpr.__version__} (1 thread)")
    print(", ".join(versions))
    print(f"numba's compile (its first call less a warm one): {first_call - warm_call:.1f} s")
    expected = forwards["engine"]()
    for name in variants:
        difference = np.abs(forwards[name]() - expected).max()
        print(
            f"largest |{name} logit - engine logit|: {difference:.2e}"
            f" ({difference / np.abs(expected).max():.1e} of the largest |logit|)"
        )

    flops = bench.forward_flops(config, b, n, t)
    raw_matmul, raw_flops = bench.raw_matmul_reference(config, b * t, flops, rng)
    # the ceiling of benchmarks/engine.py: the forward's products alone, nothing between them
    timed = {**forwards, "products": bench.matrix_products_only(params, config, b, n, t)}
    runs = {**timed, "raw": raw_matmul}
    for run in runs.values():
        run()  # warm-up
    print(f"teacher forcing forward, batch {b}, source {n}, target {t}, {flops / 1e9:.1f} GFLOP;")
    print(f"{args.rounds} interleaved rounds, best of {args.repeats} each; load before: {load()}")
    columns = [
        *(f"{name} ms" for name in timed),
        "raw GFLOP/s",
        *(f"{name}/raw" for name in timed),
        *(f"{name} saved ms" for name in variants),
    ]
    print("round " + " ".join(f"{column:>{len(column) + 2}}" for column in columns))
    table = []
    for i in range(args.rounds):
        seconds = {
            name: bench.best_time(run, args.repeats, warm_up=False) for name, run in runs.items()
        }
        raw_rate = raw_flops / seconds["raw"]
        table.append(
            [
                *(seconds[name] * 1e3 for name in timed),
                raw_rate / 1e9,
                *(flops / seconds[name] / raw_rate * 100 for name in timed),
                *((seconds["engine"] - seconds[name]) * 1e3 for name in variants),
            ]
        )
        print(_format_row(f"{i + 1}", columns, table[-1]))
    medians = [statistics.median(column) for column in zip(*table, strict=True)]
    print(_format_row("median", columns, medians))
    # Other work on the machine slows the raw matmul too: the rounds where it ran near its best
    # are the ones measured on the machine alone.
    raw = columns.index("raw GFLOP/s")
    quiet = [row for row in table if row[raw] >= 0.9 * max(r[raw] for r in table)]
    quiet_medians = [statistics.median(column) for column in zip(*quiet, strict=True)]
    print(_format_row("quiet", columns, quiet_medians))
    print(f"(quiet: the {len(quiet)} rounds whose raw matmul ran within 10 % of its fastest)")
    print(f"load after: {load()}")


def _format_row(label: str, columns: list[str], values: list[float]) -> str:
    cells = (
        f"{value:>{len(column) + 1}.0f}%"
        if column.endswith("/raw")
        else f"{value:>{len(column) + 2}.1f}"
        for column, value in zip(columns, values, strict=True)
    )
    return f"{label:>6}" + " ".join(cells)


if __name__ == "__main__":
    main()
