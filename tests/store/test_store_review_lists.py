"""The lists instructors review open answers from: by state and question, oldest first, an
answer's neighbours in them (answers of the same moment in id order)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from quizsvc.store import (
    ReviewPlace,
    answers_for_review,
    latest_reviews,
    record_quiz_answer,
    record_review,
    review_place,
)

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def write(session, learner, key, *, question="why-scale", minutes=0, text="an answer", score=None):
    return record_quiz_answer(
        session,
        learner_id=learner,
        question_id=question,
        content_version="v1",
        idempotency_key=key,
        text=text if score is None else None,
        choices=None if score is None else ["a"],
        score=score,
        now=T0 + timedelta(minutes=minutes),
    ).answer_id


@pytest.fixture
def answers(session, learner, other_learner, instructor):
    """Five open answers (two of the same moment) and a choice one; the second reviewed
    twice. Returns them in list order and the instructor's id."""
    late = write(session, learner, "late", minutes=5)
    same_b = write(session, other_learner, "same-b", minutes=1)  # same moment, lower id
    same_a = write(session, learner, "same-a", minutes=1)
    first = write(session, other_learner, "first", question="why-mask")
    other = write(session, learner, "other", question="why-mask", minutes=3)
    write(session, learner, "choice", question="softmax-sum", minutes=2, score=1.0)
    write(session, instructor, "tried", minutes=4)  # an instructor's: never listed
    record_review(session, answer_id=same_a, reviewer_id=instructor, confirmed_score=0.5)
    record_review(session, answer_id=same_a, reviewer_id=instructor, confirmed_score=0.8)
    return [first, same_b, same_a, other, late], instructor


def test_lists_by_state_and_question_oldest_first(session, answers):
    (first, same_b, same_a, other, late), _ = answers
    assert answers_for_review(session) == [first, same_b, other, late]
    assert answers_for_review(session, state="reviewed") == [same_a]
    assert answers_for_review(session, state="all") == [first, same_b, same_a, other, late]
    assert answers_for_review(session, state="all", question_id="why-mask") == [first, other]
    assert answers_for_review(session, state="all", limit=2) == [first, same_b]
    with pytest.raises(ValueError, match="review state"):
        answers_for_review(session, state="done")


def test_an_answers_place_in_a_list(session, answers):
    (first, same_b, same_a, other, late), _ = answers
    assert review_place(session, same_a, state="all") == ReviewPlace(same_b, other, 3, 5)
    assert review_place(session, first, state="all") == ReviewPlace(None, same_b, 1, 5)
    assert review_place(session, late, state="all") == ReviewPlace(other, None, 5, 5)
    # reviewed, so not awaiting: its neighbours all the same
    assert review_place(session, same_a) == ReviewPlace(same_b, other, None, 4)
    assert review_place(session, other, question_id="why-mask") == ReviewPlace(first, None, 2, 2)
    assert review_place(session, 999) == ReviewPlace(None, None, None, 0)


def test_the_latest_review_of_each_answer(session, answers):
    (first, _, same_a, _, _), _ = answers
    latest = latest_reviews(session, [first, same_a])
    assert list(latest) == [same_a]
    assert (latest[same_a].score, latest[same_a].reviewer) == (0.8, "Grace")
    assert latest_reviews(session, []) == {}
