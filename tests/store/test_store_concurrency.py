"""Many writers at once: nothing lost, attempts numbered without gaps, no "database is locked"."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime

import pytest
from sqlalchemy import event, func, select

from quizsvc.store import (
    DrillVariant,
    IdempotencyConflict,
    Submission,
    progress_for,
    record_submission,
)

THREADS = 20
T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)  # as in conftest.py


def run_at_once(work: Callable[[int], object]) -> tuple[list[object], list[BaseException]]:
    """Run work(0..THREADS-1) on THREADS threads released together; results and errors."""
    barrier = threading.Barrier(THREADS)
    results: list[object] = [None] * THREADS
    errors: list[BaseException] = []

    def run(index: int) -> None:
        try:
            barrier.wait(timeout=30)
            results[index] = work(index)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads), "a writer never finished"
    return results, errors


def test_twenty_writers_on_one_variant_lose_nothing(session_factory, learner, issue):
    variant = issue(learner, attempts_allowed=THREADS, penalty=0.05, skill="scores")
    own = [issue(learner, question_id=f"own-{i}", skill=f"own-{i}") for i in range(THREADS)]
    fresh = [issue(learner, question_id=f"fresh-{i}", skill="fresh") for i in range(THREADS)]

    def half_right(session, variant_id: int, key: str) -> None:
        record_submission(
            session,
            learner_id=learner,
            variant_id=variant_id,
            idempotency_key=key,
            answer_text="0.5",
            parsed_value=[[0.5]],
            raw_score=0.5,
            cells=[],
            now=T0,
        )

    def work(index: int):
        # Each thread its own Session: one answer to the shared variant, two to its own, and
        # the first to one of twenty variants of a skill they share.
        with session_factory() as session:
            shared = record_submission(
                session,
                learner_id=learner,
                variant_id=variant.id,
                idempotency_key=f"shared-{index}",
                answer_text=str(index),
                parsed_value=[[index]],
                raw_score=0.9,  # below 1: a solved variant would refuse the rest
                cells=[],
                now=T0,
            )
            for n in range(2):
                half_right(session, own[index].id, f"own-{index}-{n}")
            half_right(session, fresh[index].id, f"fresh-{index}")
            return shared

    results, errors = run_at_once(work)
    assert errors == [], [repr(e) for e in errors]  # in particular no "database is locked"

    # Attempts 1..20 each exactly once, each with its own penalty.
    by_attempt = sorted(results, key=lambda r: r.attempt)
    assert [r.attempt for r in by_attempt] == list(range(1, THREADS + 1))
    assert [r.score for r in by_attempt] == pytest.approx(
        [max(0.0, 0.9 - 0.05 * (a - 1)) for a in range(1, THREADS + 1)], abs=1e-12
    )
    with session_factory() as session:
        assert session.scalar(select(func.count()).select_from(Submission)) == 4 * THREADS
        assert session.get(DrillVariant, variant.id).attempts_used == THREADS
        progress = {p.skill: p for p in progress_for(session, learner)}
        assert len(progress) == THREADS + 2
        # The shared variant counts once, at its best attempt (the first, 0.9): 0.5 * 0.9.
        assert progress["scores"].attempts == THREADS
        assert progress["scores"].mastery == pytest.approx(0.45, abs=1e-12)
        # No lost update: twenty items of 0.5 folded one by one, 0.5 * (1 - 0.5**20); one
        # lost would leave 0.5 * (1 - 0.5**19), 4.8e-7 less.
        assert progress["fresh"].attempts == THREADS
        assert progress["fresh"].mastery == pytest.approx(0.5 * (1 - 0.5**THREADS), abs=1e-12)
        # Its own variant, tried twice (penalty 0.1): 0.5, then 0.5 - 0.1 = 0.4; it keeps 0.5.
        assert all(progress[f"own-{i}"].attempts == 2 for i in range(THREADS))
        assert all(progress[f"own-{i}"].last_score == pytest.approx(0.5) for i in range(THREADS))
        assert all(progress[f"own-{i}"].mastery == pytest.approx(0.25) for i in range(THREADS))


def test_twenty_retries_of_one_submission_write_it_once(session_factory, learner, issue):
    variant = issue(learner, attempts_allowed=3)

    def work(index: int):
        with session_factory() as session:
            return record_submission(
                session,
                learner_id=learner,
                variant_id=variant.id,
                idempotency_key="double-click",
                answer_text="1",
                parsed_value=[[1.0]],
                raw_score=1.0,
                cells=[],
                now=T0,
            )

    results, errors = run_at_once(work)
    assert errors == [], [repr(e) for e in errors]
    assert len({r.submission_id for r in results}) == 1
    assert all(r == results[0] for r in results)
    assert sum(not r.replayed for r in results) == 1
    with session_factory() as session:
        assert session.scalar(select(func.count()).select_from(Submission)) == 1
        assert session.get(DrillVariant, variant.id).attempts_used == 1
        assert progress_for(session, learner)[0].attempts == 1


def test_recording_locks_the_variant_before_reading_it(engine, session_factory, learner, issue):
    variant = issue(learner)
    statements: list[str] = []

    def remember(conn, cursor, statement, parameters, context, executemany):
        statements.append(" ".join(statement.split()).upper())

    event.listen(engine, "before_cursor_execute", remember)
    try:
        with session_factory() as session:
            record_submission(
                session,
                learner_id=learner,
                variant_id=variant.id,
                idempotency_key="k",
                answer_text="1",
                parsed_value=[[1.0]],
                raw_score=1.0,
                cells=[],
            )
    finally:
        event.remove(engine, "before_cursor_execute", remember)
    first_select = next(s for s in statements if s.startswith("SELECT"))
    assert "FROM DRILL_VARIANTS" in first_select
    if engine.dialect.name == "postgresql":
        assert first_select.endswith("FOR UPDATE")
    else:
        # SQLite has no row locks: the write lock is taken when the transaction begins.
        assert statements[0] == "BEGIN IMMEDIATE"


def test_one_key_sent_for_many_variants_at_once_is_written_once(session_factory, learner, issue):
    variants = [issue(learner, question_id=f"q-{i}") for i in range(THREADS)]

    def work(index: int):
        with session_factory() as session:
            return record_submission(
                session,
                learner_id=learner,
                variant_id=variants[index].id,
                idempotency_key="confused-client",
                answer_text="1",
                parsed_value=[[1.0]],
                raw_score=1.0,
                cells=[],
                now=T0,
            )

    results, errors = run_at_once(work)
    assert sum(result is not None for result in results) == 1
    assert len(errors) == THREADS - 1
    assert all(isinstance(error, IdempotencyConflict) for error in errors), errors
    with session_factory() as session:
        assert session.scalar(select(func.count()).select_from(Submission)) == 1
        assert sum(session.get(DrillVariant, v.id).attempts_used for v in variants) == 1
        assert progress_for(session, learner)[0].attempts == 1
