"""Reads the pages need: a learner's latest quiz answers, with their reviews."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from quizsvc.store.models import OpenAnswerReview, QuizAnswer


@dataclass(frozen=True)
class AnsweredQuestion:
    """A learner's latest answer to a quiz question, with the latest review if any."""

    answer_id: int
    question_id: str
    choices: list[str] | None
    text: str | None
    score: float | None
    suggested_score: float | None
    answered_at: datetime
    review_comment: str | None
    reviewed_at: datetime | None

    @property
    def awaiting_review(self) -> bool:
        return self.score is None


def latest_quiz_answers(session: Session, learner_id: int) -> dict[str, AnsweredQuestion]:
    """question id -> the learner's latest answer to it (two queries)."""
    answers = session.scalars(
        select(QuizAnswer)
        .where(QuizAnswer.learner_id == learner_id)
        .order_by(QuizAnswer.question_id, QuizAnswer.attempt)
    ).all()
    latest = {answer.question_id: answer for answer in answers}
    reviews: dict[int, OpenAnswerReview] = {}
    if latest:
        for review in session.scalars(
            select(OpenAnswerReview)
            .where(OpenAnswerReview.answer_id.in_([a.id for a in latest.values()]))
            .order_by(OpenAnswerReview.reviewed_at, OpenAnswerReview.id)
        ):
            reviews[review.answer_id] = review
    return {
        question_id: AnsweredQuestion(
            answer_id=answer.id,
            question_id=question_id,
            choices=answer.choices,
            text=answer.text,
            score=answer.score,
            suggested_score=answer.suggested_score,
            answered_at=answer.answered_at,
            review_comment=reviews[answer.id].comment if answer.id in reviews else None,
            reviewed_at=reviews[answer.id].reviewed_at if answer.id in reviews else None,
        )
        for question_id, answer in latest.items()
    }
