"""Quiz answers and open-answer reviews."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from quizsvc.store import (
    AttemptsExhausted,
    IdempotencyConflict,
    InvalidText,
    NotAllowed,
    NotFound,
    OpenAnswerReview,
    QuizAnswer,
    StaleReview,
    answers_awaiting_review,
    is_open_answer,
    latest_review,
    progress_for,
    record_quiz_answer,
    record_review,
)

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)  # as in conftest.py


def choose(session, learner, key, choices, score, **kw):
    arguments = {"question_id": "softmax-sum", "content_version": "v1", "now": T0} | kw
    return record_quiz_answer(
        session,
        learner_id=learner,
        idempotency_key=key,
        choices=choices,
        score=score,
        **arguments,
    )


def write_open(session, learner, key="open", text="scale by 1/sqrt(d_k)", **kw):
    arguments = {"question_id": "why-scale", "content_version": "v1", "now": T0} | kw
    return record_quiz_answer(
        session, learner_id=learner, idempotency_key=key, text=text, **arguments
    )


def test_choice_answers_are_numbered_per_question(session, learner):
    first = choose(session, learner, "a", ["b"], 0.0)
    second = choose(session, learner, "b", ["a"], 1.0)
    other = choose(session, learner, "c", ["a", "c"], 0.5, question_id="which-masks")
    assert [(r.attempt, r.score) for r in (first, second, other)] == [(1, 0.0), (2, 1.0), (1, 0.5)]
    stored = session.scalars(select(QuizAnswer).order_by(QuizAnswer.id)).all()
    assert [a.choices for a in stored] == [["b"], ["a"], ["a", "c"]]
    assert all(a.text is None for a in stored)


def test_quiz_attempts_are_limited_when_asked(session, learner):
    choose(session, learner, "a", ["b"], 0.0, attempts_allowed=2)
    choose(session, learner, "b", ["b"], 0.0, attempts_allowed=2)
    with pytest.raises(AttemptsExhausted):
        choose(session, learner, "c", ["a"], 1.0, attempts_allowed=2)
    assert session.scalar(select(func.count()).select_from(QuizAnswer)) == 2


def test_a_later_try_loses_the_penalty_and_keeps_the_grader_s_score(session, learner):
    tries = {"attempts_allowed": 3, "penalty": 0.25}
    first = choose(session, learner, "a", ["b"], 0.5, **tries)
    second = choose(session, learner, "b", ["a", "c"], 0.5, **tries)
    third = choose(session, learner, "c", ["a"], 1.0, **tries)
    # max(0, raw - 0.25 * (try - 1)): 0.5, 0.25, 0.5
    assert [(r.attempt, r.raw_score, r.score) for r in (first, second, third)] == [
        (1, 0.5, 0.5),
        (2, 0.5, 0.25),
        (3, 1.0, 0.5),
    ]
    stored = session.scalars(select(QuizAnswer).order_by(QuizAnswer.id)).all()
    assert [(a.raw_score, a.score) for a in stored] == [(0.5, 0.5), (0.5, 0.25), (1.0, 0.5)]
    floored = choose(session, learner, "d", ["b"], 0.25, question_id="q2", **tries)
    assert floored.score == 0.25
    assert choose(session, learner, "e", ["b"], 0.25, question_id="q2", **tries).score == 0.0


def test_no_try_is_taken_after_a_right_one_even_with_tries_left(session, learner):
    choose(session, learner, "a", ["b"], 0.0, attempts_allowed=3)
    choose(session, learner, "b", ["a"], 1.0, attempts_allowed=3)
    with pytest.raises(AttemptsExhausted, match="already answered right"):
        choose(session, learner, "c", ["a"], 1.0, attempts_allowed=3)
    session.rollback()
    assert session.scalar(select(func.count()).select_from(QuizAnswer)) == 2
    # the same form sent again is its first result, not a refused try
    assert choose(session, learner, "b", ["a"], 1.0, attempts_allowed=3).replayed


def test_an_open_answer_has_no_raw_score(session, learner, instructor):
    answer = write_open(session, learner, suggested_score=0.5)
    assert answer.raw_score is None
    record_review(session, answer_id=answer.answer_id, reviewer_id=instructor, confirmed_score=1.0)
    stored = session.get(QuizAnswer, answer.answer_id)
    assert (stored.raw_score, stored.score) == (None, 1.0)


def test_quiz_answers_are_idempotent(session, learner):
    first = choose(session, learner, "k", ["a"], 1.0, skill="softmax")
    again = choose(session, learner, "k", ["a"], 1.0, skill="softmax")
    assert again == first and again.replayed
    with pytest.raises(IdempotencyConflict):
        choose(session, learner, "k", ["b"], 0.0)
    assert session.scalar(select(func.count()).select_from(QuizAnswer)) == 1


def test_quiz_answers_keep_their_skill_but_a_skill_s_progress_counts_drills_only(session, learner):
    choose(session, learner, "a", ["a"], 1.0, skill="softmax")
    choose(session, learner, "b", ["a"], 0.5, skill="softmax", question_id="softmax-max")
    choose(session, learner, "c", ["a"], 1.0, question_id="no-skill")
    assert progress_for(session, learner) == []
    stored = session.scalars(select(QuizAnswer).order_by(QuizAnswer.id)).all()
    assert [a.skill for a in stored] == ["softmax", "softmax", None]


def test_an_open_answer_waits_for_review(session, learner):
    answer = write_open(session, learner, suggested_score=0.5, skill="scaling")
    assert answer.awaiting_review and answer.score is None
    assert answer.suggested_score == 0.5
    assert [a.answer_id for a in answers_awaiting_review(session)] == [answer.answer_id]
    assert progress_for(session, learner) == []


def test_the_latest_review_sets_the_score(session, learner, instructor):
    answer = write_open(session, learner, suggested_score=0.5, skill="scaling")
    first = record_review(
        session,
        answer_id=answer.answer_id,
        reviewer_id=instructor,
        confirmed_score=1.0,
        comment="complete",
        now=T0 + timedelta(hours=1),
    )
    assert first.first_review and first.suggested_score == 0.5 and first.confirmed_score == 1.0
    second = record_review(
        session, answer_id=answer.answer_id, reviewer_id=instructor, confirmed_score=0.75
    )
    assert not second.first_review
    session.rollback()
    stored = session.get(QuizAnswer, answer.answer_id)
    assert stored.score == 0.75  # the latest review wins
    reviews = session.scalars(select(OpenAnswerReview).order_by(OpenAnswerReview.id)).all()
    assert [(r.confirmed_score, r.comment, r.reviewer_id) for r in reviews] == [
        (1.0, "complete", instructor),
        (0.75, "", instructor),
    ]
    assert reviews[0].reviewed_at == T0 + timedelta(hours=1)
    assert progress_for(session, learner) == []  # a skill's progress counts drills only
    assert answers_awaiting_review(session) == []


def test_a_review_from_a_page_opened_before_another_review_is_refused(
    session, learner, instructor, add_user
):
    colleague = add_user("ta", "instructor")
    answer = write_open(session, learner, skill="scaling")
    first = record_review(
        session,
        answer_id=answer.answer_id,
        reviewer_id=colleague,
        confirmed_score=0.8,
        comment="TA: good",
        seen_review_id=0,
    )
    with pytest.raises(StaleReview, match="reviewed again"):
        record_review(
            session,
            answer_id=answer.answer_id,
            reviewer_id=instructor,
            confirmed_score=0.2,
            seen_review_id=0,
        )
    session.rollback()
    assert session.get(QuizAnswer, answer.answer_id).score == 0.8
    latest = latest_review(session, answer.answer_id)
    assert (latest.id, latest.comment) == (first.review_id, "TA: good")
    record_review(
        session,
        answer_id=answer.answer_id,
        reviewer_id=instructor,
        confirmed_score=0.2,
        seen_review_id=first.review_id,
    )
    assert session.get(QuizAnswer, answer.answer_id).score == 0.2


def test_instructors_trying_a_question_out_are_not_in_the_review_queue(
    session, learner, instructor
):
    write_open(session, instructor, key="instructor's")
    mine = write_open(session, learner, key="learner's")
    assert [a.answer_id for a in answers_awaiting_review(session)] == [mine.answer_id]


def test_only_instructors_review_and_only_open_answers(session, learner, other_learner, instructor):
    answer = write_open(session, learner)
    with pytest.raises(NotAllowed, match="not an instructor"):
        record_review(
            session, answer_id=answer.answer_id, reviewer_id=other_learner, confirmed_score=1.0
        )
    choice = choose(session, learner, "c", ["a"], 1.0)
    with pytest.raises(NotAllowed, match="not an open answer"):
        record_review(
            session, answer_id=choice.answer_id, reviewer_id=instructor, confirmed_score=1.0
        )
    with pytest.raises(NotFound):
        record_review(session, answer_id=999, reviewer_id=instructor, confirmed_score=1.0)
    with pytest.raises(ValueError):
        record_review(
            session, answer_id=answer.answer_id, reviewer_id=instructor, confirmed_score=1.1
        )
    assert session.scalar(select(func.count()).select_from(OpenAnswerReview)) == 0


def test_an_answer_is_choices_or_text(session, learner):
    with pytest.raises(ValueError, match="exactly one"):
        record_quiz_answer(
            session,
            learner_id=learner,
            question_id="q",
            content_version="v1",
            idempotency_key="k",
        )
    with pytest.raises(ValueError, match="needs its score"):
        choose(session, learner, "k", ["a"], None)
    with pytest.raises(NotFound):
        choose(session, 999, "k", ["a"], 1.0)


def test_the_database_itself_refuses_an_answer_with_neither_choices_nor_text(session, learner):
    choose(session, learner, "a", ["a"], 1.0)  # creates content version 1
    session.add(
        QuizAnswer(
            learner_id=learner,
            question_id="q",
            content_version_id=1,
            attempt=1,
            idempotency_key="raw",
            choices=None,
            text=None,
            answered_at=T0,
        )
    )
    with pytest.raises(IntegrityError):
        session.flush()
    session.rollback()
    answer = write_open(session, learner, key="open")
    stored = session.get(QuizAnswer, answer.answer_id)
    assert stored.choices is None  # SQL NULL, not the JSON text 'null'
    assert (
        session.scalar(
            select(func.count()).select_from(QuizAnswer).where(QuizAnswer.choices.is_(None))
        )
        == 1
    )


def test_an_answer_graded_when_recorded_is_not_an_open_answer(session, learner, instructor):
    # a numeric answer: text, and a score from the grader
    numeric = record_quiz_answer(
        session,
        learner_id=learner,
        question_id="masked-scores",
        content_version="v1",
        idempotency_key="n",
        text="2.0, -inf",
        score=1.0,
        now=T0,
    )
    with pytest.raises(NotAllowed, match="not an open answer"):
        record_review(
            session, answer_id=numeric.answer_id, reviewer_id=instructor, confirmed_score=0.0
        )
    session.rollback()
    assert session.get(QuizAnswer, numeric.answer_id).score == 1.0
    assert not is_open_answer(session, session.get(QuizAnswer, numeric.answer_id))
    waiting = write_open(session, learner)
    assert is_open_answer(session, session.get(QuizAnswer, waiting.answer_id))


@pytest.mark.parametrize("comment", ["bad\x00byte", "lone \ud800 surrogate"])
def test_a_comment_no_database_can_store_is_refused(session, learner, instructor, comment):
    answer = write_open(session, learner)
    with pytest.raises(InvalidText):
        record_review(
            session,
            answer_id=answer.answer_id,
            reviewer_id=instructor,
            confirmed_score=1.0,
            comment=comment,
        )
    session.rollback()
    assert session.get(QuizAnswer, answer.answer_id).score is None


@pytest.mark.parametrize("text", ["bad\x00byte", "lone \ud800 surrogate"])
def test_answer_text_and_keys_no_database_can_store_are_refused(session, learner, text):
    with pytest.raises(InvalidText, match="answer"):
        write_open(session, learner, text=text)
    with pytest.raises(InvalidText, match="idempotency key"):
        write_open(session, learner, key=text)


@pytest.mark.parametrize(
    ("overrides", "error", "message"),
    [
        ({"question_id": ""}, ValueError, "question_id must be a non-empty str"),
        ({"question_id": "q" * 101}, ValueError, "question_id is longer than 100"),
        ({"content_version": ""}, ValueError, "content_version must be a non-empty str"),
        ({"content_version": "v" * 129}, ValueError, "content_version is longer than 128"),
        ({"choices": "a"}, TypeError, "choices must be a sequence of choice ids"),
        ({"choices": ["a", 2]}, TypeError, "choices must be a sequence of choice ids"),
        ({"score": 1.5}, ValueError, "score must be between 0 and 1"),
        ({"score": float("nan")}, ValueError, "score must be between 0 and 1"),
        ({"score": True}, TypeError, "score must be a number"),
        ({"suggested_score": -0.25}, ValueError, "suggested_score must be between 0 and 1"),
        ({"penalty": 1.5}, ValueError, "penalty must be between 0 and 1"),
        ({"skill": ""}, ValueError, "skill must be a non-empty str"),
        ({"skill": "s" * 101}, ValueError, "skill is longer than 100"),
        ({"now": T0.replace(tzinfo=None)}, ValueError, "now must be timezone-aware"),
    ],
    ids=repr,
)
def test_bad_choice_answers_are_refused_and_nothing_is_stored(
    session, learner, overrides, error, message
):
    arguments = {"choices": ["a"], "score": 1.0, "suggested_score": None, "skill": "scaling"}
    arguments |= overrides
    choices, score = arguments.pop("choices"), arguments.pop("score")
    with pytest.raises(error, match=message):
        choose(session, learner, "k", choices, score, **arguments)
    session.rollback()
    assert session.scalar(select(func.count()).select_from(QuizAnswer)) == 0
    assert progress_for(session, learner) == []


def test_an_open_answer_must_be_text(session, learner):
    with pytest.raises(TypeError, match="text must be a str, got int"):
        write_open(session, learner, text=5)
    session.rollback()
    assert session.scalar(select(func.count()).select_from(QuizAnswer)) == 0


def test_values_at_the_limits_are_stored(session, learner):
    result = choose(
        session,
        learner,
        "k" * 128,
        ("a", "c"),  # any sequence of ids: stored as a list
        0.0,
        question_id="q" * 100,
        content_version="v" * 128,
        skill="s" * 100,
    )
    stored = session.get(QuizAnswer, result.answer_id)
    assert (stored.question_id, stored.choices, stored.score) == ("q" * 100, ["a", "c"], 0.0)
    assert (stored.skill, result.replayed) == ("s" * 100, False)
    again = choose(
        session, learner, "k" * 128, ("a", "c"), 0.0, question_id="q" * 100,
        content_version="v" * 128, skill="s" * 100,
    )  # fmt: skip
    assert (again.answer_id, again.replayed) == (result.answer_id, True)


def test_answers_and_their_reviews_leave_the_skill_as_the_learner_s_drills_make_it(
    session, learner, other_learner, instructor, issue, submit
):
    scaling, other = issue(learner, skill="scaling"), issue(learner, skill="other")
    scaling_2 = issue(learner, skill="scaling", question_id="scaling-2")
    submit(learner, scaling.id, "d1", 0.5, T0)  # submission 1
    answer = write_open(session, learner, skill="scaling", now=T0 + timedelta(minutes=1))
    submit(learner, scaling_2.id, "d2", 0.0, T0 + timedelta(minutes=1))  # the same instant
    submit(learner, scaling.id, "d2b", 0.0, T0 + timedelta(minutes=1))  # scaling's 2nd try
    submit(learner, other.id, "d3", 1.0, T0 + timedelta(minutes=2))  # another skill
    theirs = issue(other_learner, skill="scaling")
    submit(other_learner, theirs.id, "d4", 1.0, T0)  # another learner's work on the skill
    first = record_review(
        session, answer_id=answer.answer_id, reviewer_id=instructor, confirmed_score=0.5
    )
    record_review(
        session,
        answer_id=answer.answer_id,
        reviewer_id=instructor,
        confirmed_score=1.0,
        seen_review_id=first.review_id,
        now=T0 + timedelta(hours=1),
    )
    progress = {p.skill: p for p in progress_for(session, learner)}
    # ada's scaling drills in the order first answered: scaling 0.5 (its second try, 0.0 - 0.1
    # floored, does not lower it), scaling_2 0.0 -> 0.25, 0.125; three graded attempts; the
    # reviewed answer (1.0) is the chapter's, not the skill's
    line = progress["scaling"]
    assert (line.attempts, line.best_score, line.last_score, line.mastery) == (3, 0.5, 0.0, 0.125)
    assert line.last_activity == T0 + timedelta(minutes=1)  # the newest submission
    assert (progress["other"].attempts, progress["other"].mastery) == (1, 0.5)


@pytest.mark.parametrize(
    ("overrides", "error", "message"),
    [
        ({"confirmed_score": 1.25}, ValueError, "confirmed_score must be between 0 and 1"),
        ({"confirmed_score": None}, TypeError, "confirmed_score must be a number"),
        ({"suggested_score": -0.5}, ValueError, "suggested_score must be between 0 and 1"),
        ({"suggested_score": "0.5"}, TypeError, "suggested_score must be a number"),
        ({"comment": None}, TypeError, "comment must be a str"),
        ({"reviewer_id": 999}, NotFound, "no user with id 999"),
        ({"answer_id": 999}, NotFound, "no quiz answer with id 999"),
        ({"now": T0.replace(tzinfo=None)}, ValueError, "now must be timezone-aware"),
    ],
    ids=repr,
)
def test_bad_reviews_are_refused_and_the_answer_still_waits(
    session, learner, instructor, overrides, error, message
):
    answer = write_open(session, learner, suggested_score=0.5, skill="scaling")
    arguments = {"answer_id": answer.answer_id, "reviewer_id": instructor, "confirmed_score": 1.0}
    with pytest.raises(error, match=message):
        record_review(session, **(arguments | overrides))
    session.rollback()
    assert session.scalar(select(func.count()).select_from(OpenAnswerReview)) == 0
    assert [a.answer_id for a in answers_awaiting_review(session)] == [answer.answer_id]
    assert progress_for(session, learner) == []


def test_the_review_queue_holds_the_oldest_fifty_by_default(session, learner):
    answers = [
        write_open(session, learner, key=f"k{i}", now=T0 + timedelta(minutes=i)).answer_id
        for i in range(51)
    ]
    assert [a.answer_id for a in answers_awaiting_review(session)] == answers[:50]
    assert [a.answer_id for a in answers_awaiting_review(session, limit=2)] == answers[:2]
