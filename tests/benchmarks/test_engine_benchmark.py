"""The engine benchmark's FLOP count, checked against the shapes a traced forward pass records."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from engine import Trace, TransformerConfig, forward, init_params

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "engine.py"


@pytest.fixture(scope="module")
def benchmark():
    spec = importlib.util.spec_from_file_location("engine_benchmark", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CONFIG = TransformerConfig(
    src_vocab_size=11,
    tgt_vocab_size=13,
    d_model=8,
    n_heads=2,
    d_ff=12,
    n_encoder_layers=2,
    n_decoder_layers=3,
)


def flops_from_trace(trace: Trace, d_model: int) -> int:
    """2 x (elements of each product's result) x (the length of the sum behind each element)."""
    total = 0
    for name in trace.names():
        scope, _, leaf = name.rpartition(".")
        if scope.endswith("attn"):
            inner = {
                "q": d_model,
                "k": d_model,
                "v": d_model,
                "raw_scores": trace[f"{scope}.q"].shape[-1],
                "context": trace[f"{scope}.weights"].shape[-1],
                "output": trace[f"{scope}.concat"].shape[-1],
            }.get(leaf)
        elif scope.endswith("ffn"):
            inner = {"hidden": d_model, "output": trace[f"{scope}.hidden"].shape[-1]}[leaf]
        else:
            inner = d_model if name == "logits" else None
        if inner is not None:
            total += 2 * trace[name].size * inner
    return total


def test_forward_flops_counts_every_product_of_the_forward_pass(benchmark):
    b, n, t = 3, 5, 4
    rng = np.random.default_rng(0)
    trace = Trace()
    forward(
        rng.integers(0, 11, size=(b, n)),
        rng.integers(0, 13, size=(b, t)),
        init_params(CONFIG, rng),
        CONFIG,
        trace=trace,
    )
    assert benchmark.forward_flops(CONFIG, b, n, t) == flops_from_trace(trace, CONFIG.d_model)


def test_the_products_only_replay_runs_the_forward_s_shapes(benchmark):
    params = init_params(CONFIG, np.random.default_rng(0))
    run = benchmark.matrix_products_only(params, CONFIG, 3, 5, 4)
    run()  # shapes that did not fit the weights would raise here


def test_paired_shares_divide_each_round_s_reference_by_its_own_timing(benchmark):
    timed = iter([2.0, 4.0, 1.0])  # seconds per FLOP, one per round
    reference = iter([1.0, 3.0, 1.0])
    shares = benchmark.paired_shares(lambda: next(timed), lambda: next(reference), 3)
    assert shares == [0.5, 0.75, 1.0]


@pytest.mark.parametrize(("warm_up", "calls"), [(True, 4), (False, 3)])
def test_best_time_calls_once_more_to_warm_up_unless_told_not_to(benchmark, warm_up, calls):
    made = []
    seconds = benchmark.best_time(lambda: made.append(1), 3, warm_up=warm_up)
    assert len(made) == calls
    assert 0 <= seconds < 1
