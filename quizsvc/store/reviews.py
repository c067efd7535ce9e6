"""Instructors' reviews of open answers, and the queue of answers awaiting one.

``record_review`` is one transaction on the given Session, as the other write functions
are (see ``write_transaction``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from quizsvc.store.arguments import aware, require_storable_text, unit_interval
from quizsvc.store.errors import NotAllowed, NotFound, StaleReview
from quizsvc.store.lti import queue_grade_passback
from quizsvc.store.models import OpenAnswerReview, QuizAnswer, User
from quizsvc.store.quiz_answers import QuizAnswerResult, quiz_answer_result
from quizsvc.store.transactions import locked_row, write_transaction


@dataclass(frozen=True)
class ReviewResult:
    review_id: int
    answer_id: int
    reviewer_id: int
    suggested_score: float | None
    confirmed_score: float
    comment: str
    reviewed_at: datetime
    first_review: bool


def record_review(
    session: Session,
    *,
    answer_id: int,
    reviewer_id: int,
    confirmed_score: float,
    comment: str = "",
    suggested_score: float | None = None,
    now: datetime | None = None,
    seen_review_id: int | None = None,
) -> ReviewResult:
    """An instructor's score for an open answer, in one transaction.

    The answer's score becomes ``confirmed_score`` (a later review overrides an earlier
    one), less the answer's late penalty as a fraction of it.  ``suggested_score`` defaults
    to the one stored with the answer.

    ``seen_review_id`` is the latest review the reviewer was shown (0: none); if another
    review has been recorded since, ``StaleReview`` is raised and nothing is written, so a
    form opened earlier cannot silently overwrite a colleague's review.
    """
    confirmed_score = unit_interval("confirmed_score", confirmed_score)
    if suggested_score is not None:
        suggested_score = unit_interval("suggested_score", suggested_score)
    if not isinstance(comment, str):
        raise TypeError("comment must be a str")
    now = aware(now)
    with write_transaction(session):
        reviewer = session.get(User, reviewer_id)
        if reviewer is None:
            raise NotFound(f"no user with id {reviewer_id}")
        if reviewer.role != "instructor":
            raise NotAllowed(f"user {reviewer.name!r} is not an instructor and cannot review")
        answer = locked_row(session, select(QuizAnswer).where(QuizAnswer.id == answer_id))
        if answer is None:
            raise NotFound(f"no quiz answer with id {answer_id}")
        latest = latest_review(session, answer.id)
        if not _is_open(answer, latest):
            raise NotAllowed(f"quiz answer {answer_id} is not an open answer")
        if seen_review_id is not None and (latest.id if latest else 0) != seen_review_id:
            raise StaleReview(
                f"quiz answer {answer_id} was reviewed again after the form was opened"
            )
        require_storable_text("comment", comment)
        first_review = answer.score is None
        if suggested_score is None:
            suggested_score = answer.suggested_score
        review = OpenAnswerReview(
            answer_id=answer.id,
            reviewer_id=reviewer_id,
            suggested_score=suggested_score,
            confirmed_score=confirmed_score,
            comment=comment,
            reviewed_at=now,
        )
        session.add(review)
        # a late answer keeps its late penalty through every review
        answer.score = confirmed_score * (1.0 - answer.late_penalty)
        session.flush()
        queue_grade_passback(session, answer.learner_id, now)
        result = ReviewResult(
            review_id=review.id,
            answer_id=answer.id,
            reviewer_id=reviewer_id,
            suggested_score=suggested_score,
            confirmed_score=confirmed_score,
            comment=comment,
            reviewed_at=now,
            first_review=first_review,
        )
    return result


def answers_awaiting_review(session: Session, *, limit: int = 50) -> list[QuizAnswerResult]:
    """Students' open answers with no confirmed score yet, oldest first. (An instructor
    trying a question out is not waiting for a review.)"""
    answers = session.scalars(
        select(QuizAnswer)
        .join(User, User.id == QuizAnswer.learner_id)
        .where(QuizAnswer.score.is_(None), User.role == "student")
        .order_by(QuizAnswer.answered_at, QuizAnswer.id)
        .limit(limit)
    )
    return [quiz_answer_result(answer, replayed=False) for answer in answers]


def is_open_answer(session: Session, answer: QuizAnswer) -> bool:
    """Whether an instructor scores this answer: one recorded awaiting review (and maybe
    reviewed since). A choice, or a text graded when it was recorded (a numeric answer),
    is the grader's."""
    return _is_open(answer, latest_review(session, answer.id))


def _is_open(answer: QuizAnswer, latest: OpenAnswerReview | None) -> bool:
    return answer.text is not None and (answer.score is None or latest is not None)


def latest_review(session: Session, answer_id: int) -> OpenAnswerReview | None:
    """The review that set the answer's score (the latest), or None."""
    return session.scalar(
        select(OpenAnswerReview)
        .where(OpenAnswerReview.answer_id == answer_id)
        .order_by(OpenAnswerReview.reviewed_at.desc(), OpenAnswerReview.id.desc())
        .limit(1)
    )
