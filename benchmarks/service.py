"""Every instructor page and export, and the learner pages, at two class sizes: time and SQL
statements per request, and how they grow.

    .venv/bin/python benchmarks/service.py [--sizes 50 500] [--repeats 5]
    bash .ci/run .venv/bin/python benchmarks/service.py   # SQLite, then PostgreSQL

For each database (SQLite in a temporary file; PostgreSQL as well when TEST_DATABASE_URL
is set, a throw-away database as for the tests: its public schema is dropped) and each size,
a course is seeded (``benchmarks/seed.py``; PostgreSQL is then vacuumed and analysed, as
autovacuum keeps a live database), the app is served through Flask's test client,
and each request is made once to warm up, then ``--repeats`` times: the median time (the
whole body read, so an export counts in full) and the number of SQL statements it issued.
The per-learner pages are those of learner 1, whose activity is the same at every size, so
their figures should not move with the class. ``ratio`` is the time at the larger size over
the time at the smaller, measured in the same run.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

# Run as a script, this file's folder heads sys.path and benchmarks/engine.py would shadow
# the engine package.
_here = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _here]
sys.path.append(str(_here))

import seed as seeding  # noqa: E402
from sqlalchemy import Engine, event, text  # noqa: E402

from quizsvc import practice, store  # noqa: E402
from quizsvc.selftest import answer_text  # noqa: E402
from quizsvc.store import migrate  # noqa: E402
from quizsvc.web import create_app  # noqa: E402

CONTENT = seeding.REPO / "content"


class StatementCounter:
    """Counts the SQL statements every engine in the process sends (SQLAlchemy's
    ``before_cursor_execute`` event)."""

    def __init__(self) -> None:
        self.count = 0
        event.listen(Engine, "before_cursor_execute", self._count)

    def _count(self, *_args: object) -> None:
        self.count += 1

    def close(self) -> None:
        event.remove(Engine, "before_cursor_execute", self._count)


class Client:
    """Flask's test client, logged in, carrying the CSRF token as a browser's forms do."""

    def __init__(self, app, name: str) -> None:
        self.client = app.test_client()
        self.token = ""
        self.get("/login")
        response = self.post("/login", {"name": name, "password": seeding.PASSWORD})
        if response.status_code != 302:
            raise RuntimeError(f"cannot log in as {name}: HTTP {response.status_code}")

    def get(self, path: str):
        response = self.client.get(path)
        if response.mimetype == "text/html":  # not a download (an XLSX file is no text)
            match = re.search(r'<meta name="csrf-token" content="([^"]+)"', response.text)
            if match:
                self.token = match.group(1)
        return response

    def post(self, path: str, data: dict[str, str]):
        return self.client.post(path, data={"csrf_token": self.token, **data})


@dataclass(frozen=True)
class Request:
    name: str
    # returns a function making the request (set up, e.g. a fresh variant, before the clock)
    prepare: Callable[[], Callable[[], object]]


def requests(app, course: seeding.Course) -> list[Request]:
    instructor = Client(app, seeding.INSTRUCTOR)
    learner = Client(app, seeding.learner_name(1))
    student = course.keen_learner_id
    sessions = app.extensions["quizsvc"].sessions
    live = app.extensions["quizsvc"].bank
    with sessions() as session:
        variant = store.unfinished_variants(session, student, limit=1) or None
    variant_id = (
        variant[0].variant_id
        if variant
        else _new_variant(sessions, live, student)  # learner 1 finished everything
    )

    def get(client: Client, path: str) -> Callable[[], Callable[[], object]]:
        def prepare() -> Callable[[], object]:
            def call() -> object:
                response = client.get(path)
                assert response.status_code == 200, (path, response.status_code)
                return response.data

            return call

        return prepare

    def submit() -> Callable[[], object]:
        fresh = _new_variant(sessions, live, student)
        with sessions() as session:
            expected = practice.drill_state(session, student, fresh).variant.answer.values

        def call() -> object:
            response = learner.post(
                f"/variants/{fresh}/submissions",
                {"pasted": answer_text(expected), "idempotency_key": f"bench-{fresh}"},
            )
            assert response.status_code == 302, response.status_code
            return response.data

        return call

    return [
        Request("instructor overview", get(instructor, "/instructor/")),
        Request("students list", get(instructor, "/instructor/students")),
        Request("a student", get(instructor, f"/instructor/students/{student}")),
        Request("a student's report", get(instructor, f"/instructor/students/{student}/report")),
        Request("reviews queue", get(instructor, "/instructor/reviews")),
        Request("reports (item statistics)", get(instructor, "/instructor/reports")),
        Request("gradebook.csv", get(instructor, "/instructor/reports/gradebook.csv")),
        Request(
            "gradebook.xlsx (exact)",
            get(instructor, "/instructor/reports/gradebook.xlsx?exact=1"),
        ),
        Request("items.csv", get(instructor, "/instructor/reports/items.csv")),
        Request("events.csv", get(instructor, "/instructor/reports/events.csv")),
        Request("events.jsonl", get(instructor, "/instructor/reports/events.jsonl")),
        Request("learner: drills list", get(learner, "/drills")),
        Request("learner: progress", get(learner, "/progress")),
        Request("learner: a drill page", get(learner, f"/variants/{variant_id}")),
        Request("learner: submit", submit),
    ]


def _new_variant(sessions, live, learner_id: int) -> int:
    question = next(q for q in live.questions.values() if q.type == "drill")
    with sessions() as session:
        return practice.start_drill(session, live, learner_id, question.id, seed=1).id


@dataclass(frozen=True)
class Measure:
    seconds: float  # median
    statements: int


def measure(request: Request, counter: StatementCounter, repeats: int) -> Measure:
    request.prepare()()  # warm-up: templates compiled, caches filled
    times, statements = [], set()
    for _ in range(repeats):
        call = request.prepare()
        before = counter.count
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
        statements.add(counter.count - before)
    # the same request issues the same statements every time; if not, show the most
    return Measure(statistics.median(times), max(statements))


@contextmanager
def database(backend: str) -> Iterator[str]:
    """An empty database's URL."""
    if backend == "sqlite":
        with tempfile.TemporaryDirectory(prefix="quizsvc-bench-") as directory:
            yield f"sqlite:///{directory}/quizsvc.sqlite3"
        return
    url = os.environ["TEST_DATABASE_URL"]
    engine = store.make_engine(url)
    with engine.begin() as connection:
        connection.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
        connection.execute(text("CREATE SCHEMA public"))
    engine.dispose()
    yield url


def run_size(
    backend: str, learners: int, repeats: int, counter: StatementCounter
) -> tuple[dict[str, Measure], dict[str, int], float]:
    with database(backend) as url:
        migrate.upgrade(url)
        app = create_app(
            {
                "SECRET_KEY": "benchmark",
                "DATABASE_URL": url,
                "CONTENT_DIR": str(CONTENT),
            }
        )
        app_state = app.extensions["quizsvc"]
        started = time.perf_counter()
        course = seeding.seed_course(app_state.sessions, app_state.bank, learners)
        seeded = time.perf_counter() - started
        if backend == "postgresql":
            # A live database has been vacuumed and analysed by autovacuum; right after the
            # bulk seeding its statistics are missing and autovacuum would run mid-measurement.
            engine = app_state.sessions.kw["bind"]
            with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
                connection.execute(text("VACUUM ANALYZE"))
        results = {}
        for request in requests(app, course):
            results[request.name] = measure(request, counter, repeats)
        app_state.sessions.kw["bind"].dispose()
    return results, course.rows, seeded


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes",
        type=int,
        nargs=2,
        default=(50, 500),
        metavar=("SMALL", "LARGE"),
        help="the two class sizes (default 50 500)",
    )
    parser.add_argument(
        "--repeats", type=int, default=5, help="timed requests per page (default 5)"
    )
    args = parser.parse_args()
    small, large = args.sizes
    if not 1 <= small < large:
        parser.error("--sizes takes two class sizes, the smaller first")
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    backends = ["sqlite"] + (["postgresql"] if os.environ.get("TEST_DATABASE_URL") else [])
    counter = StatementCounter()
    try:
        for backend in backends:
            by_size = {}
            for learners in (small, large):
                results, rows, seeded = run_size(backend, learners, args.repeats, counter)
                by_size[learners] = results
                summary = ", ".join(f"{count} {name}" for name, count in rows.items())
                print(f"{backend}, {learners} learners (seeded in {seeded:.0f} s): {summary}")
            print_table(backend, small, large, by_size, args.repeats)
    finally:
        counter.close()


def print_table(
    backend: str, small: int, large: int, by_size: dict[int, dict[str, Measure]], repeats: int
) -> None:
    print(f"\n{backend}: median of {repeats} requests; statements per request")
    header = (
        f"{'request':<28} {'stmts@' + str(small):>10} {'stmts@' + str(large):>10}"
        f" {'ms@' + str(small):>9} {'ms@' + str(large):>9} {'ratio':>6}"
    )
    print(header)
    print("-" * len(header))
    for name, at_small in by_size[small].items():
        at_large = by_size[large][name]
        print(
            f"{name:<28} {at_small.statements:>10} {at_large.statements:>10}"
            f" {at_small.seconds * 1e3:>9.1f} {at_large.seconds * 1e3:>9.1f}"
            f" {at_large.seconds / at_small.seconds:>6.2f}"
        )
    print()


if __name__ == "__main__":
    main()
