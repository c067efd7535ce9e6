"""The reads behind the learner's pages: latest quiz answers, unfinished drill variants, the
learner's standing on each drill."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from quizsvc.store import (
    DrillStanding,
    drill_standings,
    latest_quiz_answers,
    record_quiz_answer,
    record_review,
    unfinished_variants,
)

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)  # as in conftest.py


def minutes(m: int) -> datetime:
    return T0 + timedelta(minutes=m)


def answer(session, learner, key, question_id, *, choices=None, text=None, score=None, at=0):
    return record_quiz_answer(
        session,
        learner_id=learner,
        question_id=question_id,
        content_version="v1",
        idempotency_key=key,
        choices=choices,
        text=text,
        score=score,
        now=minutes(at),
    ).answer_id


def test_latest_quiz_answers_are_each_questions_newest_with_its_latest_review(
    session, learner, other_learner, instructor
):
    answer(session, learner, "a1", "q-choice", choices=["a"], score=0.0, at=1)
    newest_choice = answer(session, learner, "a2", "q-choice", choices=["b"], score=1.0, at=2)
    waiting = answer(session, learner, "a3", "q-waiting", text="heads", at=3)
    reviewed = answer(session, learner, "a4", "q-reviewed", text="subspaces", at=4)
    first = record_review(
        session, answer_id=reviewed, reviewer_id=instructor, confirmed_score=0.5,
        comment="first", now=minutes(10),
    )  # fmt: skip
    record_review(
        session, answer_id=reviewed, reviewer_id=instructor, confirmed_score=1.0,
        comment="second", now=minutes(11), seen_review_id=first.review_id,
    )  # fmt: skip
    answer(session, other_learner, "b1", "q-other", choices=["a"], score=1.0, at=5)

    latest = latest_quiz_answers(session, learner)
    assert sorted(latest) == ["q-choice", "q-reviewed", "q-waiting"]
    choice = latest["q-choice"]
    assert (choice.answer_id, choice.choices, choice.text, choice.score) == (
        newest_choice, ["b"], None, 1.0,
    )  # fmt: skip
    assert (choice.answered_at, choice.review_comment, choice.reviewed_at) == (
        minutes(2),
        None,
        None,
    )
    assert not choice.awaiting_review
    pending = latest["q-waiting"]
    assert (pending.answer_id, pending.text, pending.score) == (waiting, "heads", None)
    assert pending.awaiting_review and pending.review_comment is None
    done = latest["q-reviewed"]
    assert (done.answer_id, done.score, done.review_comment, done.reviewed_at) == (
        reviewed, 1.0, "second", minutes(11),
    )  # fmt: skip
    assert latest_quiz_answers(session, instructor) == {}


def test_unfinished_variants_are_neither_solved_nor_out_of_attempts_newest_first(
    session, learner, other_learner, issue, submit
):
    started = issue(learner, question_id="d-a", attempts_allowed=3, now=minutes(1))
    solved = issue(learner, question_id="d-a", attempts_allowed=3, now=minutes(2))
    spent = issue(learner, question_id="d-b", attempts_allowed=1, now=minutes(3))
    fresh = issue(learner, question_id="d-b", kind="softmax_row", skill="softmax", now=minutes(4))
    issue(other_learner, question_id="d-a", now=minutes(5))
    submit(learner, started.id, "s1", 0.5)
    submit(learner, solved.id, "s2", 0.5)
    submit(learner, solved.id, "s3", 1.0)  # solved with an attempt to spare
    submit(learner, spent.id, "s4", 0.5)  # its only attempt

    unfinished = unfinished_variants(session, learner)
    assert [
        (v.variant_id, v.question_id, v.kind, v.skill, v.attempts_used, v.attempts_left)
        for v in unfinished
    ] == [
        (fresh.id, "d-b", "softmax_row", "softmax", 0, 3),
        (started.id, "d-a", "score_row", "scores", 1, 2),
    ]
    assert [v.created_at for v in unfinished] == [minutes(4), minutes(1)]
    assert [v.variant_id for v in unfinished_variants(session, learner, question_id="d-a")] == [
        started.id
    ]
    assert unfinished_variants(session, learner, question_id="d-c") == []
    assert [v.variant_id for v in unfinished_variants(session, learner, limit=1)] == [fresh.id]


def test_at_most_fifty_unfinished_variants_by_default(session, learner, issue):
    ids = [issue(learner, now=minutes(i)).id for i in range(51)]
    assert [v.variant_id for v in unfinished_variants(session, learner)] == ids[::-1][:50]


def test_a_drills_standing_counts_finished_and_unfinished_variants_and_its_best_score(
    session, learner, other_learner, issue, submit
):
    # d-a: solved at the second attempt (1.0 - 0.1 penalty = 0.9), one answered once
    # (0.75) and one not answered yet: 1 finished, 2 unfinished, best 0.9
    solved = issue(learner, question_id="d-a", penalty=0.1)
    submit(learner, solved.id, "a1", 0.5)
    submit(learner, solved.id, "a2", 1.0)
    started = issue(learner, question_id="d-a")
    submit(learner, started.id, "a3", 0.75)
    issue(learner, question_id="d-a")
    # d-b: two variants out of attempts, neither solved: the single attempt scores 0.125;
    # the other scores 0.0 then 0.75 - 0.5 penalty = 0.25, so the best is 0.25, never the
    # raw 0.75
    single = issue(learner, question_id="d-b", attempts_allowed=1)
    submit(learner, single.id, "b1", 0.125)
    costly = issue(learner, question_id="d-b", attempts_allowed=2, penalty=0.5)
    submit(learner, costly.id, "b2", 0.0)
    submit(learner, costly.id, "b3", 0.75)
    # d-c: started, never answered; another learner's solved variant of d-a is not hers
    issue(learner, question_id="d-c")
    theirs = issue(other_learner, question_id="d-a")
    submit(other_learner, theirs.id, "o1", 1.0)

    assert drill_standings(session, learner) == {
        "d-a": DrillStanding("d-a", finished=1, unfinished=2, best=0.9),
        "d-b": DrillStanding("d-b", finished=2, unfinished=0, best=0.25),
        "d-c": DrillStanding("d-c", finished=0, unfinished=1, best=None),
    }
    assert drill_standings(session, other_learner) == {
        "d-a": DrillStanding("d-a", finished=1, unfinished=0, best=1.0),
    }
    assert drill_standings(session, other_learner + learner + 1) == {}
