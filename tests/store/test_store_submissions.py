"""Recording drill submissions: attempts, penalty, idempotency, ownership, atomicity."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, tzinfo

import pytest
from sqlalchemy import func, select

from quizsvc.drills import Variant, generate_variant
from quizsvc.grading import grade_numeric, parse_answer
from quizsvc.store import (
    AttemptsExhausted,
    DrillVariant,
    IdempotencyConflict,
    NotFound,
    NotYourVariant,
    SkillProgressRecord,
    Submission,
    load_variant,
    progress_for,
    record_submission,
)
from quizsvc.store import progress as progress_module

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)  # as in conftest.py


def submit(session, learner_id, variant_id, key, *, raw_score=1.0, answer_text="1", now=T0):
    return record_submission(
        session,
        learner_id=learner_id,
        variant_id=variant_id,
        idempotency_key=key,
        answer_text=answer_text,
        parsed_value=[[1.0]],
        raw_score=raw_score,
        cells=[],
        now=now,
    )


def count(session, model, **where):
    query = select(func.count()).select_from(model)
    for name, value in where.items():
        query = query.where(getattr(model, name) == value)
    return session.scalar(query)


def attempts_used(session, variant_id):
    session.rollback()  # a fresh transaction sees what others committed
    return session.scalar(select(DrillVariant.attempts_used).where(DrillVariant.id == variant_id))


def test_each_try_after_the_first_loses_the_penalty(session, learner, issue):
    variant = issue(learner, attempts_allowed=3, penalty=0.1)
    results = [
        submit(session, learner, variant.id, f"k{n}", raw_score=raw)
        for n, raw in ((1, 0.5), (2, 0.5), (3, 1.0))
    ]
    assert [r.attempt for r in results] == [1, 2, 3]
    assert [r.attempts_left for r in results] == [2, 1, 0]
    assert [r.raw_score for r in results] == [0.5, 0.5, 1.0]
    # Third try, penalty 0.1, raw 1.0: 1.0 - 0.1 * 2 = 0.8; second: 0.5 - 0.1 = 0.4.
    assert [r.score for r in results] == pytest.approx([0.5, 0.4, 0.8], abs=1e-12)
    assert [r.penalty_applied for r in results] == pytest.approx([0.0, 0.1, 0.2], abs=1e-12)
    assert not any(r.replayed for r in results)
    stored = session.scalars(select(Submission).order_by(Submission.attempt)).all()
    assert [s.score for s in stored] == pytest.approx([0.5, 0.4, 0.8], abs=1e-12)
    assert attempts_used(session, variant.id) == 3


def test_a_solved_variant_takes_no_more_answers_but_replays_its_own(session, learner, issue):
    variant = issue(learner, attempts_allowed=3)
    first = submit(session, learner, variant.id, "k1", raw_score=1.0)
    with pytest.raises(AttemptsExhausted, match="already solved"):
        submit(session, learner, variant.id, "k2", raw_score=1.0)
    assert submit(session, learner, variant.id, "k1", raw_score=1.0) == first
    assert attempts_used(session, variant.id) == 1


def test_the_penalty_never_takes_the_score_below_zero(session, learner, issue):
    variant = issue(learner, attempts_allowed=3, penalty=0.25)
    submit(session, learner, variant.id, "k1", raw_score=0.0)
    submit(session, learner, variant.id, "k2", raw_score=0.0)
    third = submit(session, learner, variant.id, "k3", raw_score=0.3)
    # 0.3 - 0.25 * 2 < 0: the score is 0 and only the 0.3 there was is taken off.
    assert third.score == 0.0
    assert third.penalty_applied == pytest.approx(0.3)


def test_submitting_beyond_the_attempts_allowed_is_refused(session, learner, issue):
    variant = issue(learner, attempts_allowed=2)
    submit(session, learner, variant.id, "k1", raw_score=0.0)
    submit(session, learner, variant.id, "k2", raw_score=0.0)
    with pytest.raises(AttemptsExhausted, match="all 2 attempt"):
        submit(session, learner, variant.id, "k3")
    assert count(session, Submission) == 2
    assert attempts_used(session, variant.id) == 2
    assert progress_for(session, learner)[0].attempts == 2


def test_the_same_idempotency_key_returns_the_first_result_and_writes_nothing(
    session, session_factory, learner, issue
):
    variant = issue(learner)
    first = submit(session, learner, variant.id, "retry-me", raw_score=0.5)
    with session_factory() as other_session:  # e.g. the client retried on a new request
        again = submit(
            other_session, learner, variant.id, "retry-me", raw_score=0.5, now=T0 + timedelta(1)
        )
    assert again == first
    assert again.replayed and not first.replayed
    assert again.submitted_at == T0
    assert count(session, Submission) == 1
    assert attempts_used(session, variant.id) == 1
    assert progress_for(session, learner)[0].attempts == 1


def test_a_replay_after_the_last_attempt_still_returns_its_result(session, learner, issue):
    variant = issue(learner, attempts_allowed=1)
    first = submit(session, learner, variant.id, "only")
    assert submit(session, learner, variant.id, "only") == first
    with pytest.raises(AttemptsExhausted):
        submit(session, learner, variant.id, "another")


def test_an_idempotency_key_reused_for_another_answer_is_refused(session, learner, issue):
    variant = issue(learner)
    second_variant = issue(learner, question_id="scores-2")
    submit(session, learner, variant.id, "k", answer_text="1")
    with pytest.raises(IdempotencyConflict):
        submit(session, learner, variant.id, "k", answer_text="2")
    with pytest.raises(IdempotencyConflict):
        submit(session, learner, second_variant.id, "k", answer_text="1")
    assert count(session, Submission) == 1


def test_idempotency_keys_belong_to_each_learner(session, learner, other_learner, issue):
    mine, theirs = issue(learner), issue(other_learner)
    assert submit(session, learner, mine.id, "same-key").attempt == 1
    assert submit(session, other_learner, theirs.id, "same-key").attempt == 1
    assert count(session, Submission) == 2


def test_submitting_to_another_learners_variant_is_refused(session, learner, other_learner, issue):
    variant = issue(learner)
    with pytest.raises(NotYourVariant, match="another learner"):
        submit(session, other_learner, variant.id, "k")
    assert count(session, Submission) == 0
    assert attempts_used(session, variant.id) == 0
    assert progress_for(session, other_learner) == []
    with pytest.raises(NotYourVariant):
        load_variant(session, variant.id, learner_id=other_learner)


def test_an_unknown_variant_is_not_found(session, learner):
    with pytest.raises(NotFound):
        submit(session, learner, 12345, "k")


def test_a_failure_while_recording_rolls_back_everything(
    session, session_factory, learner, issue, monkeypatch
):
    variant = issue(learner, penalty=0.5)
    submit(session, learner, variant.id, "first", raw_score=0.5)

    def broken_update(*args, **kwargs):
        raise RuntimeError("disk on fire")

    # a second attempt recomputes the skill's progress (the variant's best may change)
    monkeypatch.setattr(progress_module, "recompute_progress", broken_update)
    with pytest.raises(RuntimeError, match="disk on fire"):
        submit(session, learner, variant.id, "second", raw_score=1.0)

    with session_factory() as fresh:
        assert count(fresh, Submission) == 1
        assert count(fresh, Submission, idempotency_key="second") == 0
        assert attempts_used(fresh, variant.id) == 1
        (progress,) = progress_for(fresh, learner)
        assert (progress.attempts, progress.last_score, progress.mastery) == (1, 0.5, 0.25)

    # The session that failed is usable again, and the failed try did not count.
    monkeypatch.undo()
    retried = submit(session, learner, variant.id, "second", raw_score=1.0)
    assert (retried.attempt, retried.score) == (2, 0.5)


def test_a_failure_while_counting_a_first_attempt_rolls_back_everything(
    session, session_factory, learner, issue, monkeypatch
):
    variant = issue(learner)

    def broken_update(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(progress_module, "update_progress", broken_update)
    with pytest.raises(RuntimeError, match="disk on fire"):
        submit(session, learner, variant.id, "first", raw_score=1.0)
    with session_factory() as fresh:
        assert count(fresh, Submission) == 0
        assert attempts_used(fresh, variant.id) == 0
        assert progress_for(fresh, learner) == []


def test_the_submission_keeps_the_answer_the_parsed_value_and_the_cells(session, learner, issue):
    variant = issue(learner)
    text = "0.5  -inf"
    parsed = parse_answer(text)
    grade = grade_numeric(parsed, [[0.5, float("-inf")]], load_tolerance())
    result = record_submission(
        session,
        learner_id=learner,
        variant_id=variant.id,
        idempotency_key="k",
        answer_text=text,
        parsed_value=parsed,
        raw_score=grade.score,
        cells=grade.cells,
        now=T0,
    )
    assert result.parsed_value == [[0.5, "-inf"]]
    assert result.cells[1]["expected"] == "-inf" and result.cells[1]["correct"] is True
    session.rollback()
    stored = session.scalars(select(Submission)).one()
    assert stored.answer_text == text
    assert stored.parsed_value == [[0.5, "-inf"]]
    assert stored.cells == [cell.to_json_dict() for cell in grade.cells]
    assert stored.submitted_at == T0
    assert stored.recorded_at.tzinfo is not None


def load_tolerance():
    from quizsvc.grading import Tolerance

    return Tolerance(atol=0.01)


def test_a_nan_answer_is_refused_before_anything_is_written(session, learner, issue):
    variant = issue(learner)
    with pytest.raises(ValueError, match="NaN"):
        record_submission(
            session,
            learner_id=learner,
            variant_id=variant.id,
            idempotency_key="k",
            answer_text="nan",
            parsed_value=[[float("nan")]],
            raw_score=0.0,
            cells=[],
        )
    assert count(session, Submission) == 0


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("raw_score", 1.5, ValueError),
        ("raw_score", float("nan"), ValueError),
        ("idempotency_key", "", ValueError),
        ("idempotency_key", "x" * 129, ValueError),
        ("raw_score", True, TypeError),
        ("raw_score", "1", TypeError),
        ("answer_text", 1, TypeError),
        ("answer_text", None, TypeError),
    ],
)
def test_bad_arguments_are_refused(session, learner, issue, field, value, error):
    variant = issue(learner)
    arguments = {
        "learner_id": learner,
        "variant_id": variant.id,
        "idempotency_key": "k",
        "answer_text": "1",
        "parsed_value": [[1.0]],
        "raw_score": 1.0,
        "cells": [],
        field: value,
    }
    with pytest.raises(error):
        record_submission(session, **arguments)
    session.rollback()
    assert count(session, Submission) == 0 and attempts_used(session, variant.id) == 0


class NoOffset(tzinfo):
    """A time zone that cannot say its offset: naive in effect."""

    def utcoffset(self, dt):
        return None


def test_a_naive_time_is_refused(session, learner, issue):
    variant = issue(learner)
    with pytest.raises(ValueError, match="timezone-aware"):
        submit(session, learner, variant.id, "k", now=T0.replace(tzinfo=None))
    with pytest.raises(ValueError, match="timezone-aware"):
        submit(session, learner, variant.id, "k", now=T0.replace(tzinfo=NoOffset()))
    assert count(session, Submission) == 0


def test_a_real_variant_is_stored_whole_and_rebuilt_without_drill_code(session, learner, issue):
    variant = generate_variant("masked_row", seed=11)
    issued = issue(
        learner,
        question_id="masked-1",
        kind=variant.kind,
        seed=variant.seed,
        params=variant.params,
        variant_json=variant.to_json(),
        skill=variant.skill,
        content_version="bank-abc",
    )
    stored = load_variant(session, issued.id, learner_id=learner)
    assert (stored.kind, stored.seed, stored.skill) == ("masked_row", 11, variant.skill)
    assert stored.params == json.loads(json.dumps(variant.params))
    assert stored.content_version == "bank-abc"
    assert Variant.from_json(stored.variant_json) == variant

    expected_text = "  ".join(repr(float(x)) for x in variant.answer.values[0])
    grade = grade_numeric(expected_text, variant.answer.values, variant.tolerance)
    result = submit(session, learner, issued.id, "k", raw_score=grade.score)
    assert result.score == 1.0
    (progress,) = progress_for(session, learner)
    assert (progress.skill, progress.attempts, progress.mastery) == (variant.skill, 1, 0.5)
    assert load_variant(session, issued.id).attempts_left == issued.attempts_allowed - 1


def test_progress_rows_are_not_duplicated_per_skill(session, learner, issue):
    first, second = issue(learner), issue(learner, question_id="scores-2")
    submit(session, learner, first.id, "a")
    submit(session, learner, second.id, "b")
    assert count(session, SkillProgressRecord, learner_id=learner) == 1
    assert progress_for(session, learner)[0].attempts == 2
