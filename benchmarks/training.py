"""One training step of the engine, as ratios measured in one run.

    .venv/bin/python benchmarks/training.py [--quick] [--rounds 5]      # or: make bench-train

torch is never a dependency; where it is importable the same step runs in PyTorch too (see the
top of benchmarks/torch_reference.py for an environment that has it). Targets and the latest
figures: docs/performance.md.

One step at the paper's base size (batch 8, source and target length 64, d_model 512, 8 heads,
d_ff 2048, 6 + 6 layers, vocabulary 8000, float32): the forward with its cache, the
cross-entropy and its gradient, the backward and an Adam update (`engine.grad_model`,
`engine.optim`). Beside it, in the same rounds: a raw numpy matmul, and PyTorch eager with
autograd on nn.Transformer loaded with the same weights (`engine.torch_weights`), a step of
`torch.optim.Adam` with the paper's constants. Everything runs on the same number of threads
(`--threads`, default 1: numpy's BLAS through threadpoolctl, torch's intra-op pool through
`torch.set_num_threads`; the engine's step does not split its batch over the cores as
`engine.shards.parallel_forward` does). Each round times the three back to back; the ratios are
the medians over the rounds, the engine's throughput counting 3x the forward's FLOPs (forward,
and the two products of the backward per product of the forward); the engine's stages are timed
within its steps. `--quick` runs a tiny model once, for a smoke test.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

# Run as a script, this file's folder heads sys.path and benchmarks/engine.py would shadow the
# engine package; that file is loaded below under another name for its helpers.
_here = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _here]

import numpy as np  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from engine import TransformerConfig, init_params, positional_encoding  # noqa: E402
from engine.backward import cross_entropy_forward_backward  # noqa: E402
from engine.grad_model import backward, forward_with_cache  # noqa: E402
from engine.optim import Adam  # noqa: E402
from engine.torch_weights import transformer_from_torch  # noqa: E402

try:
    import torch
except ImportError:
    torch = None

_spec = importlib.util.spec_from_file_location("engine_benchmark", _here / "engine.py")
engine_benchmark = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(engine_benchmark)
forward_flops = engine_benchmark.forward_flops
raw_matmul_reference = engine_benchmark.raw_matmul_reference

BASE = {"batch": 8, "length": 64, "vocab": 8000, "sizes": {}}
TINY = {
    "batch": 2,
    "length": 8,
    "vocab": 50,
    "sizes": {
        "d_model": 32,
        "n_heads": 4,
        "d_ff": 64,
        "n_encoder_layers": 2,
        "n_decoder_layers": 2,
    },
}


def seconds_of(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def training_batch(size: dict) -> tuple[TransformerConfig, np.ndarray, np.ndarray, np.ndarray]:
    """The measured batch: random source ids (b, n), decoder input and labels (b, t), no
    padding; the config as nn.Transformer builds it (a LayerNorm ending each stack)."""
    b, length, vocab = size["batch"], size["length"], size["vocab"]
    config = TransformerConfig(
        src_vocab_size=vocab,
        tgt_vocab_size=vocab,
        dtype="float32",
        final_norm=True,
        **size["sizes"],
    )
    rng = np.random.default_rng(1)
    src = rng.integers(3, vocab, size=(b, length))
    tgt = rng.integers(3, vocab, size=(b, length + 1))
    return config, src, tgt[:, :-1], tgt[:, 1:]


STAGES = ("forward", "loss", "backward", "Adam")


def engine_step(config, params, src, decoder_input, labels):
    """The engine's step on `params` (updated in place), as `loss_and_gradients` and
    `Adam.step` run it, with a clock between its stages. Returns (step function, the losses,
    each stage's seconds per step)."""
    optimizer = Adam(params, d_model=config.d_model)
    losses, stages = [], {stage: [] for stage in STAGES}

    def step() -> None:
        times = [time.perf_counter()]
        logits, cache = forward_with_cache(src, decoder_input, params, config)
        times.append(time.perf_counter())
        loss, d_logits = cross_entropy_forward_backward(logits, labels, config.pad_id)
        times.append(time.perf_counter())
        grads = backward(cache, d_logits)
        times.append(time.perf_counter())
        optimizer.step(grads)
        times.append(time.perf_counter())
        losses.append(loss)
        for stage, start, end in zip(STAGES, times[:-1], times[1:], strict=True):
            stages[stage].append(end - start)

    return step, losses, stages


def torch_model(config: TransformerConfig, length: int):
    """nn.Transformer with embeddings, positions and the output layer, dropout off, and the
    same weights as numpy arrays in the engine's layout."""
    torch.manual_seed(0)
    d, vocab = config.d_model, config.tgt_vocab_size
    modules = torch.nn.ModuleDict(
        {
            "transformer": torch.nn.Transformer(
                d_model=d,
                nhead=config.n_heads,
                num_encoder_layers=config.n_encoder_layers,
                num_decoder_layers=config.n_decoder_layers,
                dim_feedforward=config.d_ff,
                dropout=0.0,
                batch_first=True,
            ),
            "src_embedding": torch.nn.Embedding(vocab, d),
            "tgt_embedding": torch.nn.Embedding(vocab, d),
            "output": torch.nn.Linear(d, vocab),
        }
    ).train()
    positions = torch.from_numpy(positional_encoding(length, d).astype(np.float32))

    def numpy_of(tensor):
        return tensor.detach().numpy().copy()

    params = transformer_from_torch(
        {k: numpy_of(v) for k, v in modules["transformer"].state_dict().items()},
        config,
        src_embedding=numpy_of(modules["src_embedding"].weight),
        tgt_embedding=numpy_of(modules["tgt_embedding"].weight),
        w_out=numpy_of(modules["output"].weight).T.copy(),
        b_out=numpy_of(modules["output"].bias),
    )
    return modules, positions, params


def torch_step(modules, positions, config, src, decoder_input, labels):
    """PyTorch eager: forward, cross-entropy, autograd's backward, an Adam step."""
    optimizer = torch.optim.Adam(modules.parameters(), lr=1e-4, betas=(0.9, 0.98), eps=1e-9)
    src_t, tgt_t = torch.from_numpy(src), torch.from_numpy(decoder_input)
    labels_t = torch.from_numpy(labels).reshape(-1)
    n, t = src.shape[1], decoder_input.shape[1]
    causal = torch.nn.Transformer.generate_square_subsequent_mask(t)
    losses = []

    def step() -> None:
        optimizer.zero_grad(set_to_none=True)
        logits = modules["output"](
            modules["transformer"](
                modules["src_embedding"](src_t) + positions[:n],
                modules["tgt_embedding"](tgt_t) + positions[:t],
                tgt_mask=causal,
            )
        )
        loss = torch.nn.functional.cross_entropy(
            logits.reshape(-1, config.tgt_vocab_size), labels_t
        )
        loss.backward()
        optimizer.step()
        losses.append(float(loss.detach()))

    return step, losses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tiny model, one round (smoke run)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds timing all back to back")
    parser.add_argument("--threads", type=int, default=1, help="threads for numpy and torch")
    parser.add_argument("--no-torch", action="store_true", help="leave PyTorch out")
    args = parser.parse_args()
    size, rounds = (TINY, 1) if args.quick else (BASE, max(1, args.rounds))
    use_torch = torch is not None and not args.no_torch

    config, src, decoder_input, labels = training_batch(size)
    (b, n), t = src.shape, decoder_input.shape[1]
    flops = forward_flops(config, b, n, t)
    if use_torch:
        torch.set_num_threads(args.threads)
        modules, positions, params = torch_model(config, max(n, t))
        torch_run, torch_losses = torch_step(modules, positions, config, src, decoder_input, labels)
    else:
        params = init_params(config, np.random.default_rng(0))
    engine_run, engine_losses, engine_stages = engine_step(
        config, params, src, decoder_input, labels
    )
    raw_matmul, raw_flops = raw_matmul_reference(config, b * t, flops, np.random.default_rng(2))

    with threadpool_limits(limits=args.threads, user_api="blas"):
        engine_run()  # the first steps, not timed; from the same weights, the same loss
        if use_torch:
            torch_run()
        raw_matmul()
        engine_s, torch_s, raw_s = [], [], []
        for _ in range(rounds):
            engine_s.append(seconds_of(engine_run))
            if use_torch:
                torch_s.append(seconds_of(torch_run))
            raw_s.append(seconds_of(raw_matmul))

    step_flops = 3 * flops
    shares = [(step_flops / e) / (raw_flops / r) for e, r in zip(engine_s, raw_s, strict=True)]
    print(f"config: d_model {config.d_model}, heads {config.n_heads}, d_ff {config.d_ff},")
    print(
        f"        N {config.n_encoder_layers}+{config.n_decoder_layers},"
        f" vocab {config.tgt_vocab_size}, float32; batch {b}, source {n}, target {t}"
    )
    threads = f"{args.threads} thread{'s' if args.threads > 1 else ''}"
    versions = f"numpy {np.__version__}" + (f", torch {torch.__version__}" if use_torch else "")
    print(f"{threads} for numpy and torch; {versions}; {rounds} rounds, medians")
    print(f"one training step, 3 x {flops / 1e9:.3g} GFLOP of forward products:")
    engine_median = statistics.median(engine_s)
    print(
        f"  engine step: {engine_median * 1e3:.1f} ms = "
        f"{step_flops / engine_median / 1e9:.1f} GFLOP/s (loss {engine_losses[0]:.4f})"
    )
    stage_ms = ", ".join(
        f"{stage} {statistics.median(engine_stages[stage][-rounds:]) * 1e3:.1f}" for stage in STAGES
    )
    print(f"    its stages (ms, medians): {stage_ms}")
    raw_rate = statistics.median(raw_flops / r for r in raw_s)
    print(f"  raw numpy matmul: {raw_rate / 1e9:.1f} GFLOP/s")
    print(
        f"  engine / raw matmul throughput: median {statistics.median(shares):.0%}"
        f" (lowest {min(shares):.0%}, highest {max(shares):.0%}; target >= 50%)"
    )
    if not use_torch:
        why = "--no-torch" if torch is not None else "torch is not importable here"
        print(f"  torch step: skipped ({why})")
        return
    ratios = [e / s for e, s in zip(engine_s, torch_s, strict=True)]
    torch_median = statistics.median(torch_s)
    print(f"  torch step: {torch_median * 1e3:.1f} ms (loss {torch_losses[0]:.4f})")
    print(
        f"  engine step / torch step: median {statistics.median(ratios):.2f}x"
        f" (lowest {min(ratios):.2f}x, highest {max(ratios):.2f}x; target <= 1.5x)"
    )


if __name__ == "__main__":
    main()
