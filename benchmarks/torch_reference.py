"""The engine beside PyTorch's nn.Transformer, same weights, same batch, measured in one run.

torch is not a dependency of the project; run this from an environment that has both:

    python3 -m venv /tmp/torch-env
    /tmp/torch-env/bin/pip install torch==2.13.0 -e .   # the CPU wheel
    /tmp/torch-env/bin/python benchmarks/torch_reference.py

Prints, for the paper's base size (batch 8, source and target length 64, float32): the largest
difference between the engine's logits and PyTorch's, then the teacher-forcing forward of
each (the engine's as `engine.shards.parallel_forward` runs it, the batch split over the cores)
as a share of a raw matmul of the same FLOPs, against numpy's matmul (OpenBLAS, what the
engine gets) and against torch's (MKL/oneDNN). The latest figures: docs/performance.md.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

# Run as a script, this file's folder heads sys.path and benchmarks/engine.py would shadow the
# engine package; that file is loaded below under another name for its helpers.
_here = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _here]

try:
    import torch
except ImportError:
    sys.exit("torch is not installed here; see the top of benchmarks/torch_reference.py")

import numpy as np  # noqa: E402

from engine import TransformerConfig, forward, positional_encoding  # noqa: E402
from engine.shards import parallel_forward  # noqa: E402
from engine.torch_weights import transformer_from_torch  # noqa: E402

_spec = importlib.util.spec_from_file_location("engine_benchmark", _here / "engine.py")
engine_benchmark = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(engine_benchmark)
best_time, forward_flops = engine_benchmark.best_time, engine_benchmark.forward_flops


def main() -> None:
    b, n, t, vocab = 8, 64, 64, 8000
    config = TransformerConfig(
        src_vocab_size=vocab, tgt_vocab_size=vocab, dtype="float32", final_norm=True
    )
    torch.manual_seed(0)
    model = torch.nn.Transformer(
        d_model=config.d_model,
        nhead=config.n_heads,
        num_encoder_layers=config.n_encoder_layers,
        num_decoder_layers=config.n_decoder_layers,
        dim_feedforward=config.d_ff,
        dropout=0.0,
        batch_first=True,
    ).eval()
    src_embedding = torch.nn.Embedding(vocab, config.d_model)
    tgt_embedding = torch.nn.Embedding(vocab, config.d_model)
    output = torch.nn.Linear(config.d_model, vocab)
    positions = torch.from_numpy(positional_encoding(max(n, t), config.d_model).astype(np.float32))

    rng = np.random.default_rng(1)
    src = rng.integers(3, vocab, size=(b, n))
    tgt = rng.integers(3, vocab, size=(b, t))
    src_t, tgt_t = torch.from_numpy(src), torch.from_numpy(tgt)
    causal = torch.nn.Transformer.generate_square_subsequent_mask(t)

    def torch_forward():
        with torch.inference_mode():
            memory_in = src_embedding(src_t) + positions[:n]
            target_in = tgt_embedding(tgt_t) + positions[:t]
            return output(model(memory_in, target_in, tgt_mask=causal))

    def numpy_of(tensor):
        return tensor.detach().numpy()

    params = transformer_from_torch(
        {k: numpy_of(v) for k, v in model.state_dict().items()},
        config,
        src_embedding=numpy_of(src_embedding.weight),
        tgt_embedding=numpy_of(tgt_embedding.weight),
        w_out=numpy_of(output.weight).T.copy(),
        b_out=numpy_of(output.bias),
    )
    difference = np.abs(forward(src, tgt, params, config) - numpy_of(torch_forward())).max()
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; numpy {np.__version__}")
    print(f"largest |engine logit - torch logit|: {difference:.2e}")

    flops = forward_flops(config, b, n, t)
    x = rng.standard_normal((b * t, config.d_model)).astype(np.float32)
    w = rng.standard_normal((config.d_model, config.d_ff)).astype(np.float32)
    reps = max(1, round(flops / (2 * x.shape[0] * x.shape[1] * w.shape[1])))
    x_t, w_t = torch.from_numpy(x), torch.from_numpy(w)

    def repeated(product):
        def run():
            for _ in range(reps):
                product()

        return run

    raw = {
        "numpy": reps * 2 * x.size * w.shape[1] / best_time(repeated(lambda: x @ w), 5),
        "torch": reps * 2 * x.size * w.shape[1] / best_time(repeated(lambda: x_t @ w_t), 5),
    }
    passes = {
        "engine": best_time(lambda: parallel_forward(src, tgt, params, config), 5),
        "torch nn.Transformer": best_time(torch_forward, 5),
    }
    print(f"teacher forcing forward, batch {b}, source {n}, target {t}, {flops / 1e9:.1f} GFLOP:")
    for library, rate in raw.items():
        print(f"  raw {library} matmul: {rate / 1e9:.1f} GFLOP/s")
    for name, seconds in passes.items():
        rate = flops / seconds
        shares = ", ".join(f"{rate / raw[library]:.0%} of raw {library}" for library in raw)
        print(f"  {name}: {seconds * 1e3:.1f} ms = {rate / 1e9:.1f} GFLOP/s, {shares}")


if __name__ == "__main__":
    main()
