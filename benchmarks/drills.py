"""Time to generate a drill variant and to grade an answer to it, per drill kind.

    .venv/bin/python benchmarks/drills.py [--repeats N]

For every kind at its default params, over seeds 0..N-1: the median time of
``generate_variant``, of ``grade_numeric`` on the expected answer typed as text (as a
learner's submission arrives), and of the two together (what serving a drill and grading
its first attempt costs).  The target is a median under 2 ms for generate + grade.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

# Run as a script, this file's folder heads sys.path and benchmarks/engine.py would shadow
# the engine package.
_here = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _here]

from quizsvc.drills import DRILL_KINDS, generate_variant  # noqa: E402
from quizsvc.grading import grade_numeric  # noqa: E402
from quizsvc.selftest import answer_text  # noqa: E402

TARGET_SECONDS = 2e-3


def grade(variant) -> None:
    grade_numeric(
        answer_text(variant.answer.values),
        variant.answer.values,
        variant.tolerance,
        all_or_nothing=variant.all_or_nothing,
    )


def measure(kind: str, repeats: int) -> tuple[float, float, float]:
    """Median seconds of (generate, grade, generate + grade) over seeds 0..repeats-1."""
    for seed in range(5):  # warm-up: imports, caches, first-call costs
        grade(generate_variant(kind, seed))
    generate_times, grade_times, both_times = [], [], []
    for seed in range(repeats):
        start = time.perf_counter()
        variant = generate_variant(kind, seed)
        generated = time.perf_counter()
        grade(variant)
        graded = time.perf_counter()
        generate_times.append(generated - start)
        grade_times.append(graded - generated)
        both_times.append(graded - start)
    return (
        statistics.median(generate_times),
        statistics.median(grade_times),
        statistics.median(both_times),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=300, help="seeds per kind (default 300)")
    args = parser.parse_args()

    print(f"median over {args.repeats} seeds per kind, default params; target < 2 ms")
    header = f"{'kind':<22} {'generate':>10} {'grade':>10} {'gen+grade':>10}  target"
    print(header)
    print("-" * len(header))
    all_met = True
    for kind in DRILL_KINDS:
        generate_s, grade_s, both_s = measure(kind, args.repeats)
        met = both_s < TARGET_SECONDS
        all_met &= met
        print(
            f"{kind:<22} {generate_s * 1e3:>8.3f}ms {grade_s * 1e3:>8.3f}ms "
            f"{both_s * 1e3:>8.3f}ms  {'met' if met else 'MISSED'}"
        )
    print("all kinds meet the target" if all_met else "some kinds miss the target")


if __name__ == "__main__":
    main()
