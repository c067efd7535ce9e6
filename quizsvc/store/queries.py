"""Reads the pages need: a learner's latest quiz answers, with their reviews, the drill
variants they have started but not finished, and where they stand on each drill."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, case, exists, func, select
from sqlalchemy.orm import Session

from quizsvc.store.models import DrillVariant, OpenAnswerReview, QuizAnswer, Submission


@dataclass(frozen=True)
class AnsweredQuestion:
    """A learner's latest answer to a quiz question, with the latest review if any:
    ``attempt`` is its try (1 for the first), ``raw_score`` the grader's score of a choice or
    numeric answer before the attempts penalty (None for an open answer)."""

    answer_id: int
    question_id: str
    choices: list[str] | None
    text: str | None
    score: float | None
    suggested_score: float | None
    answered_at: datetime
    review_comment: str | None
    reviewed_at: datetime | None
    attempt: int
    raw_score: float | None

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
            attempt=answer.attempt,
            raw_score=answer.raw_score,
        )
        for question_id, answer in latest.items()
    }


def _finished() -> ColumnElement[bool]:
    """Whether a drill variant (the row of DrillVariant in the query) takes no more answers:
    solved (a raw score of 1, as ``record_submission`` counts it) or out of attempts."""
    solved = exists().where(Submission.variant_id == DrillVariant.id, Submission.raw_score == 1.0)
    return solved | (DrillVariant.attempts_used >= DrillVariant.attempts_allowed)


@dataclass(frozen=True)
class UnfinishedVariant:
    """A drill variant its learner can still answer: not solved, attempts left."""

    variant_id: int
    question_id: str
    kind: str
    skill: str
    attempts_used: int
    attempts_allowed: int
    created_at: datetime

    @property
    def attempts_left(self) -> int:
        return self.attempts_allowed - self.attempts_used


def unfinished_variants(
    session: Session, learner_id: int, *, question_id: str | None = None, limit: int = 50
) -> list[UnfinishedVariant]:
    """The learner's variants that are not finished (neither solved nor out of attempts),
    newest first (one query); with ``question_id``, only that drill's."""
    query = (
        select(
            DrillVariant.id,
            DrillVariant.question_id,
            DrillVariant.kind,
            DrillVariant.skill,
            DrillVariant.attempts_used,
            DrillVariant.attempts_allowed,
            DrillVariant.created_at,
        )
        .where(DrillVariant.learner_id == learner_id, ~_finished())
        .order_by(DrillVariant.created_at.desc(), DrillVariant.id.desc())
        .limit(limit)
    )
    if question_id is not None:
        query = query.where(DrillVariant.question_id == question_id)
    return [UnfinishedVariant(*row) for row in session.execute(query)]


@dataclass(frozen=True)
class DrillStanding:
    """Where a learner stands on one drill: ``finished`` variants (solved or out of
    attempts), ``unfinished`` ones (as ``unfinished_variants`` counts them), and ``best``,
    the best score of any of its variants, a variant scoring its best attempt after the
    attempts penalty (as ``quizsvc.store.progress`` counts it); None before a first
    answer."""

    question_id: str
    finished: int
    unfinished: int
    best: float | None


def drill_standings(session: Session, learner_id: int) -> dict[str, DrillStanding]:
    """question id -> the learner's standing on that drill, for every drill they have started
    a variant of (one query, whatever the number of drills)."""
    per_variant = (
        select(Submission.variant_id, func.max(Submission.score).label("best"))
        .where(Submission.learner_id == learner_id)
        .group_by(Submission.variant_id)
        .subquery()
    )
    finished = _finished()
    query = (
        select(
            DrillVariant.question_id,
            func.sum(case((finished, 1), else_=0)),
            func.sum(case((finished, 0), else_=1)),
            func.max(per_variant.c.best),
        )
        .outerjoin(per_variant, per_variant.c.variant_id == DrillVariant.id)
        .where(DrillVariant.learner_id == learner_id)
        .group_by(DrillVariant.question_id)
    )
    return {
        row[0]: DrillStanding(row[0], int(row[1]), int(row[2]), row[3])
        for row in session.execute(query)
    }
