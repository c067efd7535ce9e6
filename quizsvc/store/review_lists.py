"""The lists an instructor reviews open answers from: students' open answers by state
(awaiting review, reviewed, or both) and question, oldest first, with an answer's place in
such a list (its previous and next answers) and the latest review of each. Nothing here
writes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Row, Select, and_, exists, func, or_, select
from sqlalchemy.orm import Session

from quizsvc.store.models import OpenAnswerReview, QuizAnswer, User

# awaiting: no review yet; reviewed: reviewed at least once; all: either
REVIEW_STATES = ("awaiting", "reviewed", "all")


@dataclass(frozen=True)
class ReviewPlace:
    """An answer's place in a review list: its neighbours' ids (None at either end), its
    position from 1 (None when the answer is not in the list) and the list's length."""

    previous: int | None
    next: int | None
    position: int | None
    total: int


def _listed(columns: Any, state: str, question_id: str | None) -> Select[Any]:
    if state not in REVIEW_STATES:
        raise ValueError(f"review state must be one of {REVIEW_STATES}, got {state!r}")
    reviewed = exists().where(OpenAnswerReview.answer_id == QuizAnswer.id)
    awaiting = QuizAnswer.score.is_(None)
    chosen = {"awaiting": awaiting, "reviewed": reviewed, "all": awaiting | reviewed}[state]
    query = (
        select(columns)
        .join(User, User.id == QuizAnswer.learner_id)
        .where(User.role == "student", QuizAnswer.text.is_not(None), chosen)
    )
    if question_id is not None:
        query = query.where(QuizAnswer.question_id == question_id)
    return query


def answers_for_review(
    session: Session, *, state: str = "awaiting", question_id: str | None = None, limit: int = 50
) -> list[int]:
    """The ids of students' open answers in `state` (to `question_id` if given), oldest
    first (by answer time, then id), at most `limit`."""
    return list(
        session.scalars(
            _listed(QuizAnswer.id, state, question_id)
            .order_by(QuizAnswer.answered_at, QuizAnswer.id)
            .limit(limit)
        )
    )


def review_place(
    session: Session, answer_id: int, *, state: str = "awaiting", question_id: str | None = None
) -> ReviewPlace:
    """Where the answer stands in the list `answers_for_review` gives for `state` and
    `question_id` (without its limit). An answer that is not in the list (one just
    reviewed, in the list of those awaiting review) still has the neighbours it would have:
    the next one after it is the one to review next."""
    answer = session.get(QuizAnswer, answer_id)
    if answer is None:
        return ReviewPlace(None, None, None, 0)
    at, key = answer.answered_at, answer.id
    before = or_(
        QuizAnswer.answered_at < at, and_(QuizAnswer.answered_at == at, QuizAnswer.id < key)
    )
    after = or_(
        QuizAnswer.answered_at > at, and_(QuizAnswer.answered_at == at, QuizAnswer.id > key)
    )
    previous = session.scalar(
        _listed(QuizAnswer.id, state, question_id)
        .where(before)
        .order_by(QuizAnswer.answered_at.desc(), QuizAnswer.id.desc())
        .limit(1)
    )
    following = session.scalar(
        _listed(QuizAnswer.id, state, question_id)
        .where(after)
        .order_by(QuizAnswer.answered_at, QuizAnswer.id)
        .limit(1)
    )
    total = session.scalar(_listed(func.count(QuizAnswer.id), state, question_id)) or 0
    listed = session.scalar(
        _listed(func.count(QuizAnswer.id), state, question_id).where(QuizAnswer.id == key)
    )
    position = None
    if listed:
        position = 1 + (
            session.scalar(_listed(func.count(QuizAnswer.id), state, question_id).where(before))
            or 0
        )
    return ReviewPlace(previous, following, position, total)


def latest_reviews(session: Session, answer_ids: list[int]) -> dict[int, Row[Any]]:
    """Answer id -> (id, reviewer display name, score, comment, at) of its latest review, for
    those of `answer_ids` reviewed."""
    if not answer_ids:
        return {}
    rows = session.execute(
        select(
            OpenAnswerReview.answer_id,
            OpenAnswerReview.id,
            User.display_name.label("reviewer"),
            OpenAnswerReview.confirmed_score.label("score"),
            OpenAnswerReview.comment,
            OpenAnswerReview.reviewed_at.label("at"),
        )
        .join(User, User.id == OpenAnswerReview.reviewer_id)
        .where(OpenAnswerReview.answer_id.in_(answer_ids))
        .order_by(OpenAnswerReview.reviewed_at, OpenAnswerReview.id)
    )
    return {row.answer_id: row for row in rows}  # the last of each answer's wins
