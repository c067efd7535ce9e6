"""A student's account over its life: deactivated (the work stays, nobody logs in with it)
and active again, deleted with everything recorded of them, and everything recorded of them
as one document they may download.

Each write is one transaction on the given Session, as the other write functions are.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from quizsvc.store.arguments import aware
from quizsvc.store.errors import NotFound
from quizsvc.store.jsonvalues import to_json_value
from quizsvc.store.lti_models import LtiAccount, LtiGradeLink, LtiGradeOutbox, LtiLaunchValue
from quizsvc.store.models import (
    DeadlineExtension,
    DrillVariant,
    LoginAttempt,
    LoginSession,
    OpenAnswerReview,
    QuizAnswer,
    QuizStart,
    SkillProgressRecord,
    Submission,
    User,
)
from quizsvc.store.transactions import locked_row, write_transaction


def _student(session: Session, user_id: int) -> User:
    user = locked_row(session, select(User).where(User.id == user_id, User.role == "student"))
    if user is None:
        raise NotFound(f"no student {user_id}")
    return user


def deactivate_student(session: Session, user_id: int, *, now: datetime | None = None) -> User:
    """Deactivate the student's account (again: no change); NotFound for no such student."""
    with write_transaction(session):
        user = _student(session, user_id)
        if user.deactivated_at is None:
            user.deactivated_at = aware(now)
    return user


def reactivate_student(session: Session, user_id: int) -> User:
    """Let the student log in again; NotFound for no such student."""
    with write_transaction(session):
        user = _student(session, user_id)
        user.deactivated_at = None
    return user


def delete_student(session: Session, user_id: int, *, name_keys: tuple[str, ...] = ()) -> None:
    """Delete the student and every row recorded of them: their answers and the reviews of
    them, their variants and submissions, their progress, their logins, their quiz starts
    and deadline extensions, the login throttle's counts under ``name_keys`` (the keys the
    web app counts their name under), their LMS accounts, grade links and queued grades, and
    the launch values an LMS sent for them (the values name the LMS user). NotFound for no
    such student."""
    with write_transaction(session):
        _student(session, user_id)
        subs = session.scalars(select(LtiAccount.sub).where(LtiAccount.user_id == user_id)).all()
        if subs:
            # the id_token's claim, as json.dumps writes it
            named = [f'"sub": {json.dumps(sub, ensure_ascii=False)}' for sub in subs]
            for key, value in session.execute(select(LtiLaunchValue.key, LtiLaunchValue.value)):
                stored = json.dumps(value, ensure_ascii=False)
                if any(sub in stored for sub in named):
                    session.execute(delete(LtiLaunchValue).where(LtiLaunchValue.key == key))
        answers = select(QuizAnswer.id).where(QuizAnswer.learner_id == user_id)
        session.execute(delete(OpenAnswerReview).where(OpenAnswerReview.answer_id.in_(answers)))
        for model, column in (
            (QuizAnswer, QuizAnswer.learner_id),
            (Submission, Submission.learner_id),
            (DrillVariant, DrillVariant.learner_id),
            (SkillProgressRecord, SkillProgressRecord.learner_id),
            (LoginSession, LoginSession.user_id),
            (QuizStart, QuizStart.learner_id),
            (DeadlineExtension, DeadlineExtension.learner_id),
            (LtiGradeOutbox, LtiGradeOutbox.user_id),
            (LtiGradeLink, LtiGradeLink.user_id),
            (LtiAccount, LtiAccount.user_id),
        ):
            session.execute(delete(model).where(column == user_id))
        if name_keys:
            session.execute(delete(LoginAttempt).where(LoginAttempt.key.in_(name_keys)))
        session.execute(delete(User).where(User.id == user_id))
        session.expunge_all()  # the deleted rows' objects


def _moment(value: datetime | None) -> str | None:
    return None if value is None else value.astimezone(UTC).isoformat()


def personal_data(session: Session, user_id: int) -> dict[str, Any]:
    """Everything recorded of the user, as JSON values: the account (no password or token
    digests: they say nothing about the user), logins, drill variants with their
    submissions, quiz answers with their reviews, and progress. NotFound for no such user."""
    user = session.get(User, user_id)
    if user is None:
        raise NotFound(f"no user {user_id}")
    submissions: dict[int, list[dict[str, Any]]] = {}
    for row in session.scalars(
        select(Submission).where(Submission.learner_id == user_id).order_by(Submission.id)
    ):
        submissions.setdefault(row.variant_id, []).append(
            {
                "attempt": row.attempt,
                "answer": row.answer_text,
                "raw_score": row.raw_score,
                "penalty": row.penalty_applied,
                "score": row.score,
                "late_penalty": row.late_penalty,
                "cells": to_json_value(row.cells),
                "submitted_at": _moment(row.submitted_at),
            }
        )
    reviews: dict[int, list[dict[str, Any]]] = {}
    for review in session.scalars(
        select(OpenAnswerReview)
        .join(QuizAnswer, QuizAnswer.id == OpenAnswerReview.answer_id)
        .where(QuizAnswer.learner_id == user_id)
        .order_by(OpenAnswerReview.reviewed_at, OpenAnswerReview.id)
    ):
        reviews.setdefault(review.answer_id, []).append(
            {
                "score": review.confirmed_score,
                "comment": review.comment,
                "reviewed_at": _moment(review.reviewed_at),
            }
        )
    return {
        "account": {
            "name": user.name,
            "display_name": user.display_name,
            "role": user.role,
            "language": user.language,
            "created_at": _moment(user.created_at),
            "deactivated_at": _moment(user.deactivated_at),
            "has_api_token": user.api_token_hash is not None,
        },
        "lms_accounts": [
            {
                "issuer": account.issuer,
                "sub": account.sub,
                "created_at": _moment(account.created_at),
            }
            for account in session.scalars(
                select(LtiAccount).where(LtiAccount.user_id == user_id).order_by(LtiAccount.id)
            )
        ],
        "logins": [
            {
                "began_at": _moment(login.created_at),
                "ended_at": _moment(login.ended_at),
                "end_reason": login.end_reason,
            }
            for login in session.scalars(
                select(LoginSession)
                .where(LoginSession.user_id == user_id)
                .order_by(LoginSession.id)
            )
        ],
        "drill_variants": [
            {
                "question_id": variant.question_id,
                "kind": variant.kind,
                "seed": variant.seed,
                "params": to_json_value(variant.params),
                "variant": to_json_value(variant.variant_json),
                "created_at": _moment(variant.created_at),
                "submissions": submissions.get(variant.id, []),
            }
            for variant in session.scalars(
                select(DrillVariant)
                .where(DrillVariant.learner_id == user_id)
                .order_by(DrillVariant.id)
            )
        ],
        "quiz_answers": [
            {
                "question_id": answer.question_id,
                "attempt": answer.attempt,
                "choices": answer.choices,
                "text": answer.text,
                "score": answer.score,
                "late_penalty": answer.late_penalty,
                "answered_at": _moment(answer.answered_at),
                "reviews": reviews.get(answer.id, []),
            }
            for answer in session.scalars(
                select(QuizAnswer).where(QuizAnswer.learner_id == user_id).order_by(QuizAnswer.id)
            )
        ],
        "quiz_starts": [
            {"chapter_id": start.chapter_id, "started_at": _moment(start.started_at)}
            for start in session.scalars(
                select(QuizStart).where(QuizStart.learner_id == user_id).order_by(QuizStart.id)
            )
        ],
        "deadline_extensions": [
            {
                "chapter_id": extension.chapter_id,
                "part": extension.part,
                "closes_at": _moment(extension.closes_at),
                "extra_minutes": extension.extra_minutes,
                "set_at": _moment(extension.set_at),
            }
            for extension in session.scalars(
                select(DeadlineExtension)
                .where(DeadlineExtension.learner_id == user_id)
                .order_by(DeadlineExtension.id)
            )
        ],
        "progress": [
            {
                "skill": record.skill,
                "attempts": record.attempts,
                "best_score": record.best_score,
                "last_score": record.last_score,
                "mastery": record.mastery,
                "last_activity": _moment(record.last_activity),
            }
            for record in session.scalars(
                select(SkillProgressRecord)
                .where(SkillProgressRecord.learner_id == user_id)
                .order_by(SkillProgressRecord.skill)
            )
        ],
    }
