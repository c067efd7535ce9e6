"""benchmarks/load.py run tiny (two seconds a scenario, four connections, one worker): every
scenario is served, answered 2xx, and the start + submit pairs record submissions. Four
connections, not the benchmark's fifty, so that a pair completes within the run even on a
machine busy with the rest of the suite: at fifty a start can wait longer than the run lasts.
wrk is a Debian package the benchmark needs and the test suite does not: where it is not
installed this test is skipped."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.slow,  # seeds a class of 50 and starts gunicorn twice
    pytest.mark.skipif(shutil.which("wrk") is None, reason="wrk is not installed"),
]

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "load.py"
LABELS = [
    "bare /ping",
    "GET /api/progress",
    "GET drill page (HTML)",
    "POST start variant",
    "start + submit pairs",
]
ROW = re.compile(
    r"^(?P<label>.+?)\s+(?P<workers>\d+)\s+(?P<rps>\d+)\s+(?P<p50>[\d.]+)\s+(?P<p99>[\d.]+)"
    r"\s+(?P<non2xx>\d+)\s+(?P<ratio>[\d.]+)(?: \((?P<submitted>\d+) submissions\))?"
)


def test_every_scenario_runs_and_is_answered_2xx():
    run = subprocess.run(
        [
            sys.executable,
            str(BENCHMARK),
            *("--duration", "2", "--warmup", "0", "--workers", "1", "--connections", "4"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    rows = {}
    for line in run.stdout.splitlines():
        match = ROW.match(line)
        if match and match["label"] in LABELS:
            rows[match["label"]] = match
    assert list(rows) == LABELS, run.stdout
    for label, row in rows.items():
        assert row["workers"] == "1"
        assert int(row["rps"]) > 0, label
        assert row["non2xx"] == "0", (label, run.stdout)
    assert rows["bare /ping"]["ratio"] == "1.00"
    assert int(rows["start + submit pairs"]["submitted"]) > 0
