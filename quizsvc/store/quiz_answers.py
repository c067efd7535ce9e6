"""Learners' answers to the chapter's questions: choices, numbers and open texts.

``record_quiz_answer`` is one transaction on the given Session, as the other write
functions are (see ``write_transaction``); an open answer waits for its review
(``quizsvc.store.reviews``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from quizsvc.grading import score_after_attempts
from quizsvc.store.arguments import (
    aware,
    require_key,
    require_storable_text,
    require_text,
    unit_interval,
)
from quizsvc.store.content_versions import content_version_id
from quizsvc.store.errors import AttemptsExhausted, NotFound
from quizsvc.store.lti import queue_grade_passback
from quizsvc.store.models import QuizAnswer, User
from quizsvc.store.transactions import earlier_answer, write_transaction


@dataclass(frozen=True)
class QuizAnswerResult:
    """A recorded quiz answer; ``score`` (after the attempts penalty) is None while an open
    answer awaits review, ``raw_score`` (the grader's) is None for every open answer."""

    answer_id: int
    question_id: str
    attempt: int
    score: float | None
    suggested_score: float | None
    answered_at: datetime
    raw_score: float | None
    replayed: bool = field(default=False, compare=False)

    @property
    def awaiting_review(self) -> bool:
        return self.score is None


def record_quiz_answer(
    session: Session,
    *,
    learner_id: int,
    question_id: str,
    content_version: str,
    idempotency_key: str,
    choices: Sequence[str] | None = None,
    text: str | None = None,
    score: float | None = None,
    suggested_score: float | None = None,
    skill: str | None = None,
    attempts_allowed: int | None = None,
    penalty: float = 0.0,
    late_penalty: float = 0.0,
    now: datetime | None = None,
) -> QuizAnswerResult:
    """Record an answer to a quiz question, in one transaction.

    Give either ``choices`` (the chosen ids; one for a single-choice question) with the
    grader's ``score``, a numeric answer's ``text`` with its ``score``, or an open answer's
    ``text`` with ``score=None`` (it waits for :func:`record_review`) and the rubric's
    ``suggested_score``.  The attempt number is the learner's count of answers to the
    question plus one (the learner's row is locked meanwhile); the answer is refused
    (AttemptsExhausted) beyond ``attempts_allowed`` and after an answer the grader scored 1.
    The score recorded is ``score_after_attempts(score, attempt, penalty)``, the grader's
    kept as ``raw_score``, with ``late_penalty`` (a late answer's, by the chapter's late
    policy) taken off as a fraction of it (an open answer's when it is reviewed).
    ``skill`` (the question's) is kept with the answer, for the learner's history; a
    skill's progress counts drills only.  Idempotency keys work as in
    :func:`record_submission`.
    """
    require_text("question_id", question_id, 100)
    require_text("content_version", content_version, 128)
    require_key(idempotency_key)
    if (choices is None) == (text is None):
        raise ValueError("give exactly one of choices and text")
    if choices is not None:
        if isinstance(choices, str) or not all(isinstance(c, str) for c in choices):
            raise TypeError("choices must be a sequence of choice ids (str)")
        choices = list(choices)
        if score is None:
            raise ValueError("a choice answer needs its score")
    if text is not None and not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if text is not None:
        require_storable_text("answer", text)
    score = None if score is None else unit_interval("score", score)
    suggested_score = (
        None if suggested_score is None else unit_interval("suggested_score", suggested_score)
    )
    penalty = unit_interval("penalty", penalty)
    late_penalty = unit_interval("late_penalty", late_penalty)
    if skill is not None:
        require_text("skill", skill, 100)
    now = aware(now)
    with write_transaction(session):
        # Serialises this learner's quiz answers, so attempt numbers cannot collide.
        if session.scalar(select(User.id).where(User.id == learner_id).with_for_update()) is None:
            raise NotFound(f"no user with id {learner_id}")
        earlier = earlier_answer(
            session,
            QuizAnswer,
            learner_id=learner_id,
            idempotency_key=idempotency_key,
            same=lambda answer: (
                (answer.question_id, answer.choices, answer.text) == (question_id, choices, text)
            ),
        )
        if earlier is not None:
            return quiz_answer_result(earlier, replayed=True)
        mine = (QuizAnswer.learner_id == learner_id, QuizAnswer.question_id == question_id)
        used, best = session.execute(
            select(func.count(QuizAnswer.id), func.max(QuizAnswer.raw_score)).where(*mine)
        ).one()
        if best == 1.0:
            raise AttemptsExhausted(f"question {question_id!r} is already answered right")
        if attempts_allowed is not None and used >= attempts_allowed:
            raise AttemptsExhausted(
                f"all {attempts_allowed} attempt(s) at question {question_id!r} are used"
            )
        answer = QuizAnswer(
            learner_id=learner_id,
            question_id=question_id,
            content_version_id=content_version_id(session, content_version, now),
            attempt=used + 1,
            idempotency_key=idempotency_key,
            choices=choices,
            text=text,
            score=None
            if score is None
            else score_after_attempts(score, used + 1, penalty) * (1.0 - late_penalty),
            late_penalty=late_penalty,
            raw_score=score,
            suggested_score=suggested_score,
            skill=skill,
            answered_at=now,
        )
        session.add(answer)
        session.flush()
        if answer.score is not None:
            queue_grade_passback(session, learner_id, now)
        result = quiz_answer_result(answer, replayed=False)
    return result


def quiz_answer_result(answer: QuizAnswer, *, replayed: bool) -> QuizAnswerResult:
    return QuizAnswerResult(
        answer_id=answer.id,
        question_id=answer.question_id,
        attempt=answer.attempt,
        score=answer.score,
        suggested_score=answer.suggested_score,
        answered_at=answer.answered_at,
        raw_score=answer.raw_score,
        replayed=replayed,
    )
