"""The event export streams: its peak memory does not grow with the number of rows.

The export holds one fetched batch (``yield_per`` rows), one row and one ~64 KiB chunk at
a time, whatever the table's size.  tracemalloc makes Python 5-10x slower, so instead of
a million rows this measures the peak at two sizes, SMALL and LARGE = 3 x SMALL, and
checks that it stays flat.  It exports with ``yield_per=100`` (the default is 1000) so
that the batches are full from ~1 000 rows on and SMALL can be small: the code path is
the same, only the constant is smaller.  Measured here with yield_per=100: +35 KB from
1 000 to 3 000 rows, +14 KB from 1 500 to 6 000; with the default 1000, ~3.7 MB, flat
from 3 000 to 40 000 rows.  An export that kept its rows (``.all()``) needs about 1.6 KB
more per row, ~3 MB more at LARGE than at SMALL (this test then fails).  The rows are
bulk-inserted with Core ``insert``.
"""

from __future__ import annotations

import tracemalloc
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import insert

from quizsvc.reports import events_csv_chunks, events_jsonl_chunks
from quizsvc.reports.formats import CHUNK_SIZE
from quizsvc.store import (
    ContentVersion,
    DrillVariant,
    QuizAnswer,
    Submission,
    User,
    begin_read_only,
)

pytestmark = pytest.mark.slow  # the large table alone takes seconds to fill and export

SMALL = 1_000  # the batches are full from here on (see above)
LARGE = 3 * SMALL
YIELD_PER = 100
STUDENTS = 50
TRIES = 3  # submissions per variant
BATCH = 5_000
T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
QUIZ_ANSWERS = 200  # a few quiz answers, so both cursors are merged

MAX_GROWTH = 500_000  # bytes of peak memory allowed from SMALL to LARGE rows
MAX_PEAK = 50_000_000


def add_submissions(session, start: int, stop: int) -> None:
    """Submissions start..stop-1 (ids start+1..), TRIES per variant, spread over students."""
    first_variant, end_variant = start // TRIES, -(-stop // TRIES)
    for lo in range(first_variant, end_variant, BATCH):
        session.execute(
            insert(DrillVariant),
            [
                dict(
                    id=v + 1, learner_id=v % STUDENTS + 1, question_id="d-scores",
                    content_version_id=1, kind="score_row", seed=v, params={"n": 3},
                    variant_json={"format": 1}, skill="scores", attempts_allowed=TRIES,
                    penalty=0.1, attempts_used=TRIES, created_at=T0,
                )
                for v in range(lo, min(end_variant, lo + BATCH))
                if v * TRIES >= start  # a variant begun by the previous call exists
            ],
        )  # fmt: skip
    for lo in range(start, stop, BATCH):
        session.execute(
            insert(Submission),
            [
                dict(
                    id=i + 1, variant_id=i // TRIES + 1,
                    learner_id=(i // TRIES) % STUDENTS + 1, attempt=i % TRIES + 1,
                    idempotency_key=f"k{i}", answer_text="0.12, -0.5, -inf",
                    parsed_value=[[0.12, -0.5, "-inf"]], raw_score=0.5, penalty_applied=0.0,
                    score=0.5, cells=[{"row": 0, "col": 2, "expected": "-inf", "ok": True}],
                    submitted_at=T0 + timedelta(seconds=i), recorded_at=T0,
                )
                for i in range(lo, min(stop, lo + BATCH))
            ],
        )  # fmt: skip
    session.commit()


def seed_base(session) -> None:
    session.execute(
        insert(User),
        [
            dict(id=i + 1, name=f"s{i}", display_name=f"学生 {i}", role="student",
                 password_hash="-", created_at=T0)
            for i in range(STUDENTS)
        ],
    )  # fmt: skip
    session.execute(insert(ContentVersion), [dict(id=1, version="v1", created_at=T0)])
    session.execute(
        insert(QuizAnswer),
        [
            dict(learner_id=i % STUDENTS + 1, question_id=f"q-{i // STUDENTS}",
                 content_version_id=1, attempt=1, idempotency_key=f"q{i}",
                 text='an "open", answer\nover two lines', score=None, suggested_score=0.5,
                 skill="qkv", answered_at=T0 + timedelta(seconds=i))
            for i in range(QUIZ_ANSWERS)
        ],
    )  # fmt: skip
    session.commit()


class Counter:
    """Counts the lines and sizes of the chunks, keeping none of them."""

    def __init__(self) -> None:
        self.lines = self.chunks = self.biggest = 0

    def take(self, chunks) -> None:
        for chunk in chunks:
            self.lines += chunk.count(b"\n")
            self.chunks += 1
            self.biggest = max(self.biggest, len(chunk))


def measure(sessions, export, *, traced: bool = True) -> tuple[Counter, int]:
    """The chunks of one full export, counted, and the peak traced bytes meanwhile."""
    counter = Counter()
    with sessions() as session:
        begin_read_only(session)
        if not traced:
            counter.take(export(session, yield_per=YIELD_PER))
            return counter, 0
        tracemalloc.start()
        try:
            counter.take(export(session, yield_per=YIELD_PER))
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    return counter, peak


@pytest.mark.parametrize("export", [events_csv_chunks, events_jsonl_chunks])
def test_the_event_export_peak_memory_does_not_grow_with_rows(sessions, export):
    # CSV: a header line, and the quiz answers' line break inside a quoted field
    header, quiz_lines = (1, 2 * QUIZ_ANSWERS) if export is events_csv_chunks else (0, QUIZ_ANSWERS)
    with sessions() as session:
        seed_base(session)
        add_submissions(session, 0, SMALL)
    measure(sessions, export, traced=False)  # warm up: compiled statements, lazy imports
    small, small_peak = measure(sessions, export)
    with sessions() as session:
        add_submissions(session, SMALL, LARGE)
    large, large_peak = measure(sessions, export)

    assert small.lines == header + SMALL + quiz_lines
    assert large.lines == header + LARGE + quiz_lines
    assert large_peak - small_peak < MAX_GROWTH, (small_peak, large_peak)
    assert large_peak < MAX_PEAK
    # written as it goes: many chunks of about CHUNK_SIZE, not one file-sized string
    assert large.chunks > 5 and large.biggest < 2 * CHUNK_SIZE


LARGE_TABLE = 50_000
LARGE_TABLE_PEAK = 20_000_000  # an export that kept its rows would need ~80 MB here


def test_a_large_table_exports_within_a_fixed_memory_bound(sessions):
    """50 000 submissions, the default batch size, one bound that does not depend on rows."""
    with sessions() as session:
        seed_base(session)
        add_submissions(session, 0, LARGE_TABLE)
    counter = Counter()
    with sessions() as session:
        begin_read_only(session)
        tracemalloc.start()
        try:
            counter.take(events_jsonl_chunks(session))
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert counter.lines == LARGE_TABLE + QUIZ_ANSWERS
    assert peak < LARGE_TABLE_PEAK, peak
