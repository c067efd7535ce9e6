"""Engine throughput at the paper's base size, as ratios measured in one run.

    .venv/bin/python benchmarks/engine.py [--quick]      # or: make bench

Targets and the latest figures: docs/performance.md.

Prints: the teacher-forcing forward pass (batch 8, source and target length 64, float32) in
GFLOP/s and as a share of a raw numpy matmul doing the same number of FLOPs, as
`engine.shards.parallel_forward` runs it (the batch split over the cores): the median, lowest
and highest share over rounds that time the two back to back, since a shared machine's speed drifts
by 10-30 % within minutes and a share of two timings taken minutes apart carries that drift;
then the plain `forward` (the batch not split); the same share for the forward's matrix
products alone (its own shapes and weights, nothing between them), which
bounds what any rewrite of the rest could reach; greedy decoding of 128 tokens with and without
the KV cache, their ratio, and the cached per-token cost at 16, 32, 64 and 128 tokens, with and
without the encoder's one pass (which a short decoding spreads over fewer tokens).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

# Run as a script, this file's folder heads sys.path and this file would shadow the package.
_here = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _here]

import numpy as np  # noqa: E402

from engine import (  # noqa: E402
    TransformerConfig,
    TransformerParams,
    encode,
    forward,
    greedy_decode,
    init_params,
    split_heads,
)
from engine.shards import parallel_forward, shard_count  # noqa: E402


def best_time(fn, repeats: int, *, warm_up: bool = True) -> float:
    """The fastest of ``repeats`` calls of ``fn``, in seconds; after one call not timed unless
    ``warm_up`` is false (the caller has run it, or times the first calls on purpose)."""
    if warm_up:
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def paired_shares(
    timed: Callable[[], float], reference: Callable[[], float], rounds: int
) -> list[float]:
    """For each round, the share of the reference's throughput that `timed` reaches, the two
    run back to back; each callable runs its work and returns its seconds per FLOP."""
    shares = []
    for _ in range(rounds):
        seconds = timed()
        shares.append(reference() / seconds)
    return shares


def measured_batch() -> tuple[
    TransformerConfig, TransformerParams, np.ndarray, np.ndarray, np.random.Generator
]:
    """The measured pass: the paper's base size in float32 with random weights, a batch of 8
    source and 8 target sentences of 64 random tokens each, and the generator the tokens came
    from (for any further draws)."""
    b, n, t, vocab = 8, 64, 64, 8000
    config = TransformerConfig(src_vocab_size=vocab, tgt_vocab_size=vocab, dtype="float32")
    params = init_params(config, np.random.default_rng(0))
    rng = np.random.default_rng(1)
    src = rng.integers(3, vocab, size=(b, n))
    tgt = rng.integers(3, vocab, size=(b, t))
    return config, params, src, tgt, rng


def forward_flops(config: TransformerConfig, b: int, n: int, t: int) -> float:
    """Multiply-adds x 2 of every matmul in one teacher-forcing forward pass."""
    d, f, v = config.d_model, config.d_ff, config.tgt_vocab_size
    projections = 2 * d * d
    encoder_layer = b * n * (4 * projections + 2 * 2 * d * f) + b * 2 * 2 * n * n * d
    decoder_layer = (
        b * t * (4 * projections + 2 * 2 * d * f)  # self-attn projections, FFN
        + b * t * 2 * projections  # cross-attn Q and output projections
        + b * n * 2 * projections  # cross-attn K and V of the encoder output
        + b * 2 * 2 * t * t * d  # self-attn scores and weighted values
        + b * 2 * 2 * t * n * d  # cross-attn scores and weighted values
    )
    output = b * t * 2 * d * v
    return (
        config.n_encoder_layers * encoder_layer + config.n_decoder_layers * decoder_layer + output
    )


def raw_matmul_reference(
    config: TransformerConfig, rows: int, flops: float, rng: np.random.Generator
) -> tuple[Callable[[], None], float]:
    """The raw reference: one (rows, d_model) x (d_model, d_ff) float32 matmul with random
    inputs, repeated to about `flops`. Returns the function to time and the FLOPs it does."""
    x = rng.standard_normal((rows, config.d_model)).astype(np.float32)
    w = rng.standard_normal((config.d_model, config.d_ff)).astype(np.float32)
    reps = max(1, round(flops / (2 * rows * config.d_model * config.d_ff)))

    def raw_matmul() -> None:
        for _ in range(reps):
            x @ w

    return raw_matmul, reps * 2 * rows * config.d_model * config.d_ff


def matrix_products_only(
    params: TransformerParams, config: TransformerConfig, b: int, n: int, t: int
):
    """The forward's matmuls in its order, on its weights, with nothing in between.

    The inputs are random: only shapes matter for the time. Returns a function to time.
    """
    rng = np.random.default_rng(2)
    dtype, d, h = config.np_dtype, config.d_model, config.n_heads

    def rows(count: int, width: int = d):
        return rng.standard_normal((count, width)).astype(dtype)

    def heads(length: int):  # laid out as the forward's split_heads leaves them
        return split_heads(rows(b * length).reshape(b, length, d), h)

    x_src, x_tgt, hidden = rows(b * n), rows(b * t), rows(b * max(n, t), config.d_ff)
    q_src, q_tgt = heads(n), heads(t)

    def attention_products(x_q, x_kv, p, q, k):
        x_q @ p.w_q
        x_kv @ p.w_k
        x_kv @ p.w_v
        scores = q @ k.swapaxes(-1, -2)
        scores @ k  # weights @ values
        x_q @ p.w_o

    def feed_forward_products(x, p):
        x @ p.w_1
        hidden[: x.shape[0]] @ p.w_2

    def run():
        for layer in params.encoder_layers:
            attention_products(x_src, x_src, layer.self_attn, q_src, q_src)
            feed_forward_products(x_src, layer.ffn)
        for layer in params.decoder_layers:
            attention_products(x_tgt, x_tgt, layer.self_attn, q_tgt, q_tgt)
            attention_products(x_tgt, x_src, layer.cross_attn, q_tgt, q_src)
            feed_forward_products(x_tgt, layer.ffn)
        x_tgt @ params.w_out

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats (for a smoke run)")
    args = parser.parse_args()
    repeats = 1 if args.quick else 5
    rounds = 1 if args.quick else 9

    config, params, src, tgt, rng = measured_batch()
    (b, n), t, vocab = src.shape, tgt.shape[1], config.tgt_vocab_size
    flops = forward_flops(config, b, n, t)
    raw_matmul, raw_flops = raw_matmul_reference(config, b * t, flops, rng)
    engine_times, raw_times = [], []

    def engine_round() -> float:
        engine_times.append(best_time(lambda: parallel_forward(src, tgt, params, config), 2))
        return engine_times[-1] / flops

    def raw_round() -> float:
        raw_times.append(best_time(raw_matmul, 2))
        return raw_times[-1] / raw_flops

    shares = sorted(paired_shares(engine_round, raw_round, rounds))
    engine_s, raw_s = min(engine_times), min(raw_times)
    whole_s = best_time(lambda: forward(src, tgt, params, config), repeats)
    raw_gflops = raw_flops / raw_s / 1e9
    engine_gflops = flops / engine_s / 1e9
    products_s = best_time(matrix_products_only(params, config, b, n, t), repeats)
    products_gflops = flops / products_s / 1e9
    print(f"config: d_model {config.d_model}, heads {config.n_heads}, d_ff {config.d_ff}, ")
    print(f"        N {config.n_encoder_layers}+{config.n_decoder_layers}, vocab {vocab}, float32")
    print(f"teacher forcing forward, batch {b}, source {n}, target {t}:")
    print(f"  {flops / 1e9:.1f} GFLOP in {engine_s * 1e3:.1f} ms = {engine_gflops:.1f} GFLOP/s")
    print(f"  raw numpy matmul, same FLOPs: {raw_gflops:.1f} GFLOP/s (the best of its rounds)")
    print(
        f"  engine / raw matmul throughput, {rounds} rounds timing the two back to back:"
        f" median {statistics.median(shares):.0%}"
        f" (lowest {shares[0]:.0%}, highest {shares[-1]:.0%})"
    )
    shards = shard_count(b, n + t, config.d_model, None)
    print(
        f"  (split into {shards} batch shards, one per core; the batch not split, plain forward:"
        f" {flops / whole_s / 1e9 / raw_gflops:.0%})"
    )
    print(
        f"  its matrix products alone: {products_s * 1e3:.1f} ms = {products_gflops:.1f} GFLOP/s,"
        f" {products_gflops / raw_gflops:.0%} of raw; the rest of the pass:"
        f" {(engine_s - products_s) * 1e3:.1f} ms"
    )

    print(f"greedy decoding, batch {b}, source {n}:")
    encoder_s = best_time(lambda: encode(src, params, config), repeats)
    print(f"  the encoder's pass, once per decoding: {encoder_s * 1e3:.1f} ms")
    per_token, per_step = {}, {}
    for length in (16, 32, 64, 128):
        seconds = best_time(
            lambda length=length: greedy_decode(
                src, params, config, length, use_cache=True, stop_at_eos=False
            ),
            max(1, repeats // 2),
        )
        per_token[length] = seconds / length
        per_step[length] = (seconds - encoder_s) / length
        print(
            f"  cached, {length:3d} tokens: {seconds * 1e3:8.1f} ms, "
            f"{per_token[length] * 1e3:.2f} ms/token, "
            f"{per_step[length] * 1e3:.2f} ms/token without the encoder's pass"
        )
    uncached = best_time(
        lambda: greedy_decode(src, params, config, 128, use_cache=False, stop_at_eos=False),
        1,
    )
    cached = per_token[128] * 128
    print(f"  uncached, 128 tokens: {uncached * 1e3:8.1f} ms, {uncached / 128 * 1e3:.2f} ms/token")
    print(f"  uncached / cached at 128 tokens: {uncached / cached:.1f}x")
    print(
        f"  cached per-token cost, 128 vs 16 tokens: {per_token[128] / per_token[16]:.2f}x"
        f" ({per_step[128] / per_step[16]:.2f}x without the encoder's pass)"
    )


if __name__ == "__main__":
    main()
