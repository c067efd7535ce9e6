"""Every page the service benchmark measures issues as many SQL statements for a class of 30
as for a class of 3: nothing queries once per learner, per answer or per row (an N+1).

The courses are seeded by ``benchmarks/seed.py`` through the store's own write API, and the
pages are the benchmark's own list (``benchmarks/service.py``), so the two cannot drift apart.
Learner 1's own work is the same in both courses; the classes differ in everyone else's.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import pytest

from quizsvc.store import migrate
from quizsvc.web import create_app

# seeding a class of 30 and timing every page takes seconds
pytestmark = pytest.mark.slow

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
SIZES = (3, 30)


def load_benchmark(name: str):
    if name not in sys.modules:  # registered first: dataclasses look their module up
        spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


service = load_benchmark("service")  # it imports the seeding module, benchmarks/seed.py


@pytest.fixture(scope="module")
def measured(tmp_path_factory) -> dict[int, tuple[dict[str, int], dict[str, int]]]:
    """Class size -> (request name -> statements the request issued, table -> rows)."""
    counter = service.StatementCounter()
    by_size = {}
    try:
        for learners in SIZES:
            url = f"sqlite:///{tmp_path_factory.mktemp(f'class-{learners}') / 'q.sqlite3'}"
            migrate.upgrade(url)
            app = create_app(
                {"SECRET_KEY": "test", "DATABASE_URL": url, "CONTENT_DIR": str(service.CONTENT)}
            )
            # the live content version is read once a second, whatever the class size: not
            # in the middle of a measured request
            app.extensions["quizsvc"].checked_at = math.inf
            sessions = app.extensions["quizsvc"].sessions
            course = service.seeding.seed_course(sessions, app.extensions["quizsvc"].bank, learners)
            by_size[learners] = (
                {
                    request.name: service.measure(request, counter, repeats=1).statements
                    for request in service.requests(app, course)
                },
                course.rows,
            )
            sessions.kw["bind"].dispose()
    finally:
        counter.close()
    return by_size


REQUESTS = [
    "instructor overview",
    "students list",
    "a student",
    "a student's report",
    "reviews queue",
    "reports (item statistics)",
    "gradebook.csv",
    "gradebook.xlsx (exact)",
    "items.csv",
    "events.csv",
    "events.jsonl",
    "learner: drills list",
    "learner: progress",
    "learner: a drill page",
    "learner: submit",
]


def test_the_larger_class_has_several_times_the_work(measured):
    (_, small), (_, large) = (measured[size] for size in SIZES)
    assert large["users"] == small["users"] + SIZES[1] - SIZES[0]
    for table in ("drill_variants", "submissions", "quiz_answers", "skill_progress"):
        assert large[table] >= 3 * small[table] > 0, table


def test_every_request_of_the_benchmark_is_checked(measured):
    assert set(measured[SIZES[0]][0]) == set(REQUESTS)


@pytest.mark.parametrize("name", REQUESTS)
def test_a_request_issues_as_many_statements_for_30_learners_as_for_3(measured, name):
    small, large = (measured[size][0][name] for size in SIZES)
    assert small > 0
    assert large == small
