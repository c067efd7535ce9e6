"""Per-skill progress and history: mastery by hand, isolation, query count and indexes."""

from __future__ import annotations

import re
import threading
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import event, text
from sqlalchemy.dialects import sqlite

from quizsvc.store import (
    HistoryEntry,
    begin_read_only,
    next_mastery,
    progress_for,
    recent_history,
    record_quiz_answer,
    record_submission,
)
from quizsvc.store.progress import progress_query, quiz_history_query, submission_history_query

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)  # as in conftest.py


def submit(session, learner_id, variant_id, key, raw_score, now):
    return record_submission(
        session,
        learner_id=learner_id,
        variant_id=variant_id,
        idempotency_key=key,
        answer_text=str(raw_score),
        parsed_value=[[raw_score]],
        raw_score=raw_score,
        cells=[],
        now=now,
    )


def test_mastery_moves_halfway_to_each_score():
    assert next_mastery(0.0, 1.0) == 0.5
    assert next_mastery(0.5, 1.0) == 0.75
    assert next_mastery(0.75, 0.5) == 0.625
    assert next_mastery(0.625, 0.0) == 0.3125


def test_progress_by_hand(session, learner, issue):
    scores_1 = issue(learner, skill="scores", penalty=0.0, attempts_allowed=3)
    scores_2 = issue(learner, skill="scores", question_id="scores-2", penalty=0.0)
    softmax = issue(learner, skill="softmax", question_id="softmax-1", penalty=0.25)
    attention = issue(learner, skill="attention", question_id="attention-1", penalty=0.5)
    times = [T0 + timedelta(minutes=m) for m in range(8)]
    # a variant counts once, at its best attempt, in the order variants were first answered
    submit(session, learner, scores_1.id, "a", 0.5, times[0])  # scores_1 0.5: mastery 0.25
    submit(session, learner, scores_1.id, "b", 1.0, times[1])  # scores_1 1.0: 0.5
    submit(session, learner, scores_2.id, "c", 0.0, times[2])  # then scores_2 0.0: 0.25
    submit(session, learner, softmax.id, "d", 0.0, times[3])  # 0.0
    submit(session, learner, softmax.id, "e", 1.0, times[4])  # attempt 2: 0.75 -> 0.375
    submit(session, learner, attention.id, "f", 0.8, times[5])  # 0.8 -> 0.4
    submit(session, learner, attention.id, "g", 1.0, times[6])  # attempt 2: 0.5 < 0.8, still 0.4

    attn, scores, soft = progress_for(session, learner)
    assert scores.skill == "scores"
    assert (scores.attempts, scores.best_score, scores.last_score) == (3, 1.0, 0.0)
    assert scores.mastery == pytest.approx(0.25)
    assert scores.last_activity == times[2]
    assert soft.skill == "softmax"
    assert (soft.attempts, soft.best_score, soft.last_score) == (2, 0.75, 0.75)
    assert soft.mastery == pytest.approx(0.375)
    assert soft.last_activity == times[4]
    # the correct answer scored 0.5 after the penalty: the variant keeps its 0.8
    assert attn.skill == "attention"
    assert (attn.attempts, attn.best_score, attn.last_score) == (2, 0.8, 0.8)
    assert attn.mastery == pytest.approx(0.4)
    assert attn.last_activity == times[6]


def test_a_corrected_variant_keeps_its_place_among_the_items(session, learner, issue):
    first = issue(learner, skill="scores", penalty=0.0, attempts_allowed=3)
    second = issue(learner, skill="scores", question_id="scores-2", penalty=0.0)
    submit(session, learner, first.id, "a", 0.0, T0)
    submit(session, learner, second.id, "b", 0.5, T0 + timedelta(minutes=1))
    submit(session, learner, first.id, "c", 1.0, T0 + timedelta(minutes=2))
    # items in the order first answered: first (now 1.0), second 0.5
    # mastery 0.5 * (0.5 * 1.0) + 0.5 * 0.5 = 0.5, and the newest item is second;
    # (first moved last would give 0.625 and last 1.0; every attempt counted, 0.625 and 1.0)
    [scores] = progress_for(session, learner)
    assert scores.mastery == pytest.approx(0.5)
    assert (scores.attempts, scores.best_score, scores.last_score) == (3, 1.0, 0.5)
    assert scores.last_activity == T0 + timedelta(minutes=2)


def test_progress_is_per_learner(session, learner, other_learner, issue):
    mine = issue(learner, skill="scores")
    theirs = issue(other_learner, skill="softmax")
    submit(session, learner, mine.id, "a", 1.0, T0)
    submit(session, other_learner, theirs.id, "a", 0.5, T0)
    assert [p.skill for p in progress_for(session, learner)] == ["scores"]
    assert [(p.skill, p.mastery) for p in progress_for(session, other_learner)] == [
        ("softmax", 0.25)
    ]
    assert [e.kind for e in recent_history(session, learner)] == ["drill"]


def test_recent_history_mixes_drills_and_quiz_answers_newest_first(session, learner, issue):
    variant = issue(learner, attempts_allowed=5)
    submit(session, learner, variant.id, "d1", 0.0, T0)
    record_quiz_answer(
        session,
        learner_id=learner,
        question_id="why-sqrt-dk",
        content_version="v1",
        idempotency_key="q1",
        text="to keep the softmax from saturating",
        now=T0 + timedelta(minutes=1),
    )
    submit(session, learner, variant.id, "d2", 1.0, T0 + timedelta(minutes=2))
    history = recent_history(session, learner)
    assert history == [
        HistoryEntry("drill", 2, "scores-1", "scores", 2, 0.9, T0 + timedelta(minutes=2), 1),
        HistoryEntry("quiz", 1, "why-sqrt-dk", None, 1, None, T0 + timedelta(minutes=1)),
        HistoryEntry("drill", 1, "scores-1", "scores", 1, 0.0, T0, 1),
    ]
    assert [e.record_id for e in recent_history(session, learner, limit=2)] == [2, 1]
    assert recent_history(session, learner, limit=2)[1].kind == "quiz"


def populate(session, issue, learner, skills: int, submissions_per_skill: int) -> None:
    for s in range(skills):
        variant = issue(
            learner,
            skill=f"skill-{s:02d}",
            question_id=f"q-{s}",
            attempts_allowed=submissions_per_skill,
        )
        for n in range(submissions_per_skill):
            submit(session, learner, variant.id, f"{s}-{n}", 0.5, T0 + timedelta(seconds=n))
        record_quiz_answer(
            session,
            learner_id=learner,
            question_id=f"quiz-{s}",
            content_version="v1",
            idempotency_key=f"quiz-{s}",
            choices=["a"],
            score=1.0,
            skill=f"skill-{s:02d}",
        )


def statements_for_progress_page(engine, session_factory, learner) -> list[str]:
    statements: list[str] = []

    def count(conn, cursor, statement, parameters, context, executemany):
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        with session_factory() as session:
            begin_read_only(session)
            progress = progress_for(session, learner)
            history = recent_history(session, learner, limit=20)
            # Everything a page shows is loaded: touching it must not query again.
            shown = [(p.skill, p.mastery, p.last_activity) for p in progress]
            shown += [(e.question_id, e.skill, e.score, e.at) for e in history]
            assert shown
    finally:
        event.remove(engine, "before_cursor_execute", count)
    return [s for s in statements if not s.lstrip().upper().startswith("BEGIN")]


def test_a_progress_page_takes_three_queries_whatever_the_amount_of_work(
    engine, session_factory, session, add_user, issue
):
    small, large = add_user("small"), add_user("large")
    populate(session, issue, small, skills=1, submissions_per_skill=1)
    populate(session, issue, large, skills=12, submissions_per_skill=6)
    assert len(progress_for(session, large)) == 12
    assert len(recent_history(session, large, limit=100)) == 12 * 6 + 12

    for learner in (small, large):
        statements = statements_for_progress_page(engine, session_factory, learner)
        assert len(statements) == 3, statements
        assert all(s.lstrip().upper().startswith("SELECT") for s in statements)


def query_plan(engine, query) -> str:
    sql = str(query.compile(dialect=sqlite.dialect(), compile_kwargs={"literal_binds": True}))
    with engine.connect() as connection:
        rows = connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}").fetchall()
    return "\n".join(row[-1] for row in rows)


def test_progress_queries_read_through_indexes(sqlite_engine):
    engine = sqlite_engine
    plan = query_plan(engine, progress_query(1))
    # The unique (learner_id, skill) constraint's index (SQLite names it sqlite_autoindex_...).
    assert re.search(r"SEARCH skill_progress USING (COVERING )?INDEX \S+ \(learner_id=\?\)", plan)
    assert "TEMP B-TREE" not in plan, plan  # no sort: the index gives the order
    plan = query_plan(engine, submission_history_query(1, 20))
    assert "USING INDEX ix_submissions_learner_id_submitted_at" in plan, plan
    assert "SCAN submissions" not in plan, plan
    plan = query_plan(engine, quiz_history_query(1, 20))
    assert "USING INDEX ix_quiz_answers_learner_id_answered_at" in plan, plan


def test_a_read_only_session_neither_blocks_nor_waits_for_a_writer(
    engine, session_factory, learner, issue
):
    variant = issue(learner)
    with session_factory() as reader:
        begin_read_only(reader)
        assert progress_for(reader, learner) == []  # the reader's transaction is open
        # A writer on another thread commits while the reader is still open.
        errors: list[BaseException] = []

        def write() -> None:
            try:
                with session_factory() as writer:
                    submit(writer, learner, variant.id, "k", 1.0, T0)
            except BaseException as exc:
                errors.append(exc)

        writer_thread = threading.Thread(target=write)
        writer_thread.start()
        writer_thread.join(timeout=5)
        assert not writer_thread.is_alive(), "the writer waited for the reader"
        assert errors == []
        with pytest.raises(RuntimeError, match="read-only"):
            submit(reader, learner, variant.id, "k2", 1.0, T0)
    with session_factory() as after:
        assert progress_for(after, learner)[0].attempts == 1


def test_sqlite_connections_get_wal_foreign_keys_and_a_busy_timeout(sqlite_engine):
    with sqlite_engine.connect() as connection:
        assert connection.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        # FULL is 2 (OFF 0, NORMAL 1): in WAL mode only FULL syncs the log at every commit,
        # so that a transaction that returned survives a power loss
        assert connection.execute(text("PRAGMA synchronous")).scalar() == 2
        assert connection.execute(text("PRAGMA foreign_keys")).scalar() == 1
        assert connection.execute(text("PRAGMA busy_timeout")).scalar() == 30_000


def test_recent_history_stops_at_its_limit_twenty_by_default(session, learner, issue):
    at = T0
    for v in range(7):  # three attempts each: 21 submissions
        variant = issue(learner, attempts_allowed=3)
        for attempt in range(3):
            submit(session, learner, variant.id, f"{v}-{attempt}", 0.0, at)
            at += timedelta(minutes=1)
    assert [e.record_id for e in recent_history(session, learner)] == list(range(21, 1, -1))
    assert [e.record_id for e in recent_history(session, learner, limit=1)] == [21]
    assert recent_history(session, learner, limit=0) == []
    assert recent_history(session, learner, limit=-5) == []
