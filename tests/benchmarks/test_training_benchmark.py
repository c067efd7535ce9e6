"""benchmarks/training.py run tiny (`--quick`): it prints every row, and the engine's first loss
equals PyTorch's on the same weights where torch is importable. Timings are not checked."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a subprocess that imports torch where it is installed

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "training.py"
ROWS = [
    "config: d_model 32, heads 4, d_ff 64,",
    "N 2+2, vocab 50, float32; batch 2, source 8, target 8",
    "1 thread for numpy and torch;",
    "one training step, 3 x",
    "engine step:",
    "its stages (ms, medians): forward ",
    "raw numpy matmul:",
    "engine / raw matmul throughput: median",
]
TORCH_ROWS = ["torch step:", "engine step / torch step: median"]
HAS_TORCH = importlib.util.find_spec("torch") is not None


def run(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(BENCHMARK), "--quick", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout


def test_without_torch_the_engine_s_rows_and_a_note_are_printed():
    output = run("--no-torch")
    for row in ROWS:
        assert row in output
    why = "--no-torch" if HAS_TORCH else "torch is not importable here"
    assert f"torch step: skipped ({why})" in output


@pytest.mark.skipif(not HAS_TORCH, reason="torch is not installed")
def test_with_torch_the_two_steps_start_from_the_same_loss():
    output = run()
    for row in [*ROWS, *TORCH_ROWS]:
        assert row in output
    losses = re.findall(r"\(loss (\d+\.\d+)\)", output)
    assert len(losses) == 2
    # the same weights and batch: the same cross-entropy, near ln(50) = 3.91 for random weights
    assert losses[0] == losses[1]
    assert abs(float(losses[0]) - 3.91) < 1.0
