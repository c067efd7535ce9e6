"""The service under a class's load: requests per second, p50 and p99 at 50 concurrent
connections, beside a bare Flask `/ping` under the same gunicorn settings, measured by wrk.

    make bench-load   # or: .venv/bin/python benchmarks/load.py [--duration 5] [--warmup 1]
    bash .ci/run .venv/bin/python benchmarks/load.py   # SQLite, then a throw-away PostgreSQL

Needs wrk (Debian: ``apt-get install -y wrk``). For each database (SQLite in a temporary file;
PostgreSQL as well when TEST_DATABASE_URL is set, a throw-away database as for the tests: its
public schema is dropped) a course of 50 learners is seeded (``benchmarks/seed.py``), each
learner given an API token, a login session cookie and a drill variant of their own. Then, once
with one gunicorn worker and once with one per core (``--threads 8`` as ``make run`` serves),
wrk runs each scenario for ``--duration`` seconds after a warm-up, one connection per learner
(``benchmarks/load.lua``):

- ``bare /ping``: ``benchmarks/ping.py``, a Flask app with nothing but that route;
- ``GET /api/progress`` with the learner's token;
- ``GET`` the drill page (HTML) of the learner's variant, with the session cookie;
- ``POST`` a new variant of one drill (``/api/drills/<id>/variants``);
- start + submit: a new variant, then a (wrong, well-formed) answer to it, in turn.

It prints, per scenario, requests per second, p50 and p99 latency, responses other than 2xx,
and the ratio to the bare app measured in the same run; and how one worker per core scales
against one worker.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

# Run as a script, this file's folder heads sys.path and benchmarks/engine.py would shadow
# the engine package.
_here = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _here]
sys.path.append(str(_here))

import numpy as np  # noqa: E402
import service  # noqa: E402  (it imports seed, which takes this folder off sys.path again)

from quizsvc import practice, store  # noqa: E402
from quizsvc.bank import DrillQuestion  # noqa: E402
from quizsvc.selftest import answer_text  # noqa: E402
from quizsvc.store import migrate  # noqa: E402
from quizsvc.web import create_app  # noqa: E402

seeding = service.seeding

SCRIPT = _here / "load.lua"
SECRET_KEY = "load benchmark"
LEARNERS = 50
# (scenario of load.lua, label, is it a write)
SCENARIOS = [
    ("ping", "bare /ping", False),
    ("progress", "GET /api/progress", False),
    ("page", "GET drill page (HTML)", False),
    ("start", "POST start variant", True),
    ("pair", "start + submit pairs", True),
]


@dataclass(frozen=True)
class Result:
    rps: float
    p50_ms: float
    p99_ms: float
    non2xx: int
    socket_errors: int
    submitted: int  # acknowledged submissions (start + submit)


@dataclass(frozen=True)
class Fixture:
    """What wrk sends: a file of the learners' credentials, the drill, an answer to it."""

    datafile: Path
    drill: str
    answer: str  # JSON-escaped text


def _fixed_shape_drill(sessions, bank, learner_id: int) -> tuple[str, tuple[int, ...]]:
    """A drill whose answer has the same shape for every seed, so one answer fits each variant."""
    for question in bank.questions.values():
        if not isinstance(question, DrillQuestion):
            continue
        shapes = set()
        for seed in range(8):
            with sessions() as session:
                variant_id = practice.start_drill(
                    session, bank, learner_id, question.id, seed=seed
                ).id
                state = practice.drill_state(session, learner_id, variant_id)
                shapes.add(np.atleast_2d(state.variant.answer.values).shape)
        if len(shapes) == 1:
            return question.id, shapes.pop()
    raise SystemExit("error: no drill in the bank has an answer of a fixed shape")


def prepare(url: str, directory: Path) -> Fixture:
    """Seed the course and write the learners' tokens, cookies and variants for wrk."""
    migrate.upgrade(url)
    app = create_app(
        {"SECRET_KEY": SECRET_KEY, "DATABASE_URL": url, "CONTENT_DIR": str(service.CONTENT)}
    )
    app_state = app.extensions["quizsvc"]
    sessions, bank = app_state.sessions, app_state.bank
    course = seeding.seed_course(sessions, bank, LEARNERS)
    drill, shape = _fixed_shape_drill(sessions, bank, course.learner_ids[0])
    lines = []
    cookie_name = app.config["SESSION_COOKIE_NAME"]
    for number, learner_id in enumerate(course.learner_ids, start=1):
        name = seeding.learner_name(number)
        with sessions() as session:
            token = store.issue_api_token(session, name)
        with sessions() as session:
            variant_id = practice.start_drill(session, bank, learner_id, drill, seed=number).id
        # the session cookie a browser holds after logging in
        session_cookie = service.Client(app, name).client.get_cookie(cookie_name)
        cookie = f"{cookie_name}={session_cookie.value}"
        lines.append(f"{token}\t{cookie}\t{variant_id}\n")
    if url.startswith("postgresql"):
        engine = sessions.kw["bind"]
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.execute(service.text("VACUUM ANALYZE"))
    sessions.kw["bind"].dispose()
    datafile = directory / "learners.tsv"
    datafile.write_text("".join(lines))
    answer = json.dumps(answer_text(np.zeros(shape)))[1:-1]
    return Fixture(datafile, drill, answer)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def gunicorn(app: str, workers: int, env: dict[str, str]):
    """gunicorn serving ``app`` as ``make run`` does (8 threads a worker, access log on), on a
    free port; yields its base URL once it answers."""
    port = _free_port()
    command = [
        str(Path(sys.executable).with_name("gunicorn")),
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(workers),
        "--threads",
        "8",
        "--access-logfile",
        "-",
        # ping.py from this folder; the service's app must not see it (engine.py would shadow
        # the engine package)
        *(["--pythonpath", str(_here)] if app.startswith("ping:") else []),
        app,
    ]
    process = subprocess.Popen(
        command,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=_here.parent,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(base + "/ping" if "ping" in app else base + "/login")
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"gunicorn did not start: {process.stderr.read().decode()[-2000:]}"
                    ) from None
                time.sleep(0.2)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def wrk(base: str, scenario: str, fixture: Fixture, seconds: float, connections: int) -> Result:
    command = [
        "wrk",
        f"-t{connections}",
        f"-c{connections}",
        f"-d{max(1, round(seconds))}s",
        "--timeout",
        "10s",
        "-s",
        str(SCRIPT),
        base,
        "--",
        scenario,
        str(fixture.datafile),
        fixture.drill,
        fixture.answer,
    ]
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    line = next(line for line in output.splitlines() if line.startswith("{"))
    data = json.loads(line)
    return Result(
        rps=data["requests"] / (data["duration_us"] / 1e6),
        p50_ms=data["p50_us"] / 1e3,
        p99_ms=data["p99_us"] / 1e3,
        non2xx=data["non2xx"],
        socket_errors=data["socket_errors"],
        submitted=data["submitted"],
    )


def run(
    url: str, fixture: Fixture, workers: int, seconds: float, warmup: float, connections: int
) -> dict[str, Result]:
    results = {}
    env = {"QUIZSVC_SECRET_KEY": SECRET_KEY}
    with gunicorn("ping:create_app()", workers, env) as base:
        if warmup:
            wrk(base, "ping", fixture, warmup, connections)
        results["ping"] = wrk(base, "ping", fixture, seconds, connections)
    env = {
        **env,
        "DATABASE_URL": url,
        "QUIZSVC_CONTENT_DIR": str(service.CONTENT),
    }
    with gunicorn("quizsvc.web:create_app()", workers, env) as base:
        for scenario, _label, _write in SCENARIOS[1:]:
            if warmup:
                wrk(base, scenario, fixture, warmup, connections)
            results[scenario] = wrk(base, scenario, fixture, seconds, connections)
    return results


def print_table(backend: str, by_workers: dict[int, dict[str, Result]], seconds: float) -> None:
    counts = sorted(by_workers)
    print(f"\n{backend}: {seconds:g} s per scenario, wrk at the connections given")
    header = (
        f"{'scenario':<24} {'workers':>7} {'req/s':>8} {'p50 ms':>7} {'p99 ms':>7}"
        f" {'non-2xx':>7} {'x bare':>6}"
    )
    print(header)
    print("-" * len(header))
    for scenario, label, _write in SCENARIOS:
        for workers in counts:
            result = by_workers[workers][scenario]
            bare = by_workers[workers]["ping"].rps
            extra = f" ({result.submitted} submissions)" if scenario == "pair" else ""
            if result.socket_errors:
                extra += f" ({result.socket_errors} socket errors)"
            print(
                f"{label:<24} {workers:>7} {result.rps:>8.0f} {result.p50_ms:>7.1f}"
                f" {result.p99_ms:>7.1f} {result.non2xx:>7} {result.rps / bare:>6.2f}{extra}"
            )
    if len(counts) == 2:
        one, many = counts
        print(f"\n{many} workers / ({many} x 1 worker):")
        for scenario, label, _write in SCENARIOS:
            ratio = by_workers[many][scenario].rps / (many * by_workers[one][scenario].rps)
            print(f"  {label:<24} {ratio:.2f}")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=5, help="seconds a scenario (5)")
    parser.add_argument("--warmup", type=float, default=1, help="seconds before each (1; 0: none)")
    parser.add_argument("--connections", type=int, default=LEARNERS, help="(default 50)")
    parser.add_argument(
        "--workers",
        type=int,
        nargs="+",
        default=sorted({1, os.cpu_count() or 1}),
        help="the worker counts (default: 1 and one per core)",
    )
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("error: wrk is not installed (Debian: apt-get install -y wrk)")
    if not 1 <= args.connections <= LEARNERS:
        parser.error(f"--connections must be 1 to {LEARNERS} (one learner each)")
    backends = ["sqlite"] + (["postgresql"] if os.environ.get("TEST_DATABASE_URL") else [])
    for backend in backends:
        with service.database(backend) as url, tempfile.TemporaryDirectory() as directory:
            fixture = prepare(url, Path(directory))
            by_workers = {
                workers: run(url, fixture, workers, args.duration, args.warmup, args.connections)
                for workers in args.workers
            }
        print_table(backend, by_workers, args.duration)


if __name__ == "__main__":
    main()
