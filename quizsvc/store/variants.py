"""Drill variants issued to learners, and the graded submissions to them.

Every write function here is one transaction on the given Session: it commits when it
returns and rolls back everything it did when it raises (see ``write_transaction``).
The caller grades first and records only graded answers: an answer the grader rejects
is never recorded and never counts as an attempt.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from quizsvc.grading import score_after_attempts
from quizsvc.store import progress
from quizsvc.store.arguments import aware, require_key, require_text, unit_interval
from quizsvc.store.content_versions import content_version_id
from quizsvc.store.errors import (
    AttemptsExhausted,
    IdempotencyConflict,
    NotFound,
    NotYourVariant,
)
from quizsvc.store.jsonvalues import to_json_value
from quizsvc.store.models import ContentVersion, DrillVariant, Submission, User
from quizsvc.store.transactions import earlier_answer, locked_row, write_transaction

_MAX_SEED = 2**63 - 1


@dataclass(frozen=True)
class IssuedVariant:
    id: int
    learner_id: int
    question_id: str
    kind: str
    seed: int
    skill: str
    content_version: str
    attempts_allowed: int
    penalty: float
    created_at: datetime
    params: dict[str, Any] = field(default_factory=dict)  # as stored
    variant_json: dict[str, Any] = field(default_factory=dict)  # as stored

    def as_stored(self) -> StoredVariant:
        """The variant as ``load_variant`` would read it back now: no attempt used yet."""
        return StoredVariant(
            id=self.id,
            learner_id=self.learner_id,
            question_id=self.question_id,
            kind=self.kind,
            seed=self.seed,
            params=self.params,
            variant_json=self.variant_json,
            skill=self.skill,
            content_version=self.content_version,
            attempts_allowed=self.attempts_allowed,
            attempts_used=0,
            penalty=self.penalty,
            created_at=self.created_at,
        )


@dataclass(frozen=True)
class StoredVariant:
    """A variant as stored: ``variant_json`` rebuilds it with ``Variant.from_json``."""

    id: int
    learner_id: int
    question_id: str
    kind: str
    seed: int
    params: dict[str, Any]
    variant_json: dict[str, Any]
    skill: str
    content_version: str
    attempts_allowed: int
    attempts_used: int
    penalty: float
    created_at: datetime

    @property
    def attempts_left(self) -> int:
        return self.attempts_allowed - self.attempts_used


@dataclass(frozen=True)
class SubmissionResult:
    """A recorded submission.  A replay (same idempotency key) returns an equal result
    with ``replayed=True`` (``replayed`` is left out of ==)."""

    submission_id: int
    variant_id: int
    attempt: int
    attempts_left: int
    raw_score: float
    penalty_applied: float
    score: float
    cells: list[Any]
    parsed_value: Any
    submitted_at: datetime
    replayed: bool = field(default=False, compare=False)


def issue_variant(
    session: Session,
    *,
    learner_id: int,
    question_id: str,
    kind: str,
    seed: int,
    params: Mapping[str, Any],
    variant_json: Mapping[str, Any],
    content_version: str,
    attempts_allowed: int,
    penalty: float,
    skill: str,
    now: datetime | None = None,
) -> IssuedVariant:
    """Store a drill variant issued to ``learner_id`` (``variant_json``: ``Variant.to_json()``)."""
    require_text("question_id", question_id, 100)
    require_text("kind", kind, 64)
    require_text("skill", skill, 100)
    require_text("content_version", content_version, 128)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed must be an int, got {seed!r}")
    if not 0 <= int(seed) <= _MAX_SEED:
        raise ValueError(f"seed must lie in [0, 2**63 - 1], got {seed}")
    if isinstance(attempts_allowed, bool) or not isinstance(attempts_allowed, numbers.Integral):
        raise TypeError(f"attempts_allowed must be an int, got {attempts_allowed!r}")
    if attempts_allowed < 1:
        raise ValueError(f"attempts_allowed must be at least 1, got {attempts_allowed}")
    penalty = unit_interval("penalty", penalty)
    params_json = to_json_value(dict(params))
    document = to_json_value(dict(variant_json))
    now = aware(now)
    with write_transaction(session):
        _require_user(session, learner_id)
        version_id = content_version_id(session, content_version, now)
        variant = DrillVariant(
            learner_id=learner_id,
            question_id=question_id,
            content_version_id=version_id,
            kind=kind,
            seed=int(seed),
            params=params_json,
            variant_json=document,
            skill=skill,
            attempts_allowed=int(attempts_allowed),
            penalty=penalty,
            attempts_used=0,
            created_at=now,
        )
        session.add(variant)
        session.flush()
        issued = IssuedVariant(
            id=variant.id,
            learner_id=learner_id,
            question_id=question_id,
            kind=kind,
            seed=int(seed),
            skill=skill,
            content_version=content_version,
            attempts_allowed=int(attempts_allowed),
            penalty=penalty,
            created_at=now,
            params=params_json,
            variant_json=document,
        )
    return issued


def load_variant(
    session: Session, variant_id: int, *, learner_id: int | None = None
) -> StoredVariant:
    """The stored variant; with ``learner_id``, NotYourVariant if it is someone else's."""
    row = session.execute(
        select(DrillVariant, ContentVersion.version)
        .join(ContentVersion, ContentVersion.id == DrillVariant.content_version_id)
        .where(DrillVariant.id == variant_id)
        .execution_options(populate_existing=True)
    ).first()
    if row is None:
        raise NotFound(f"no drill variant with id {variant_id}")
    variant, version = row
    if learner_id is not None and variant.learner_id != learner_id:
        raise NotYourVariant(f"drill variant {variant_id} was issued to another learner")
    return StoredVariant(
        id=variant.id,
        learner_id=variant.learner_id,
        question_id=variant.question_id,
        kind=variant.kind,
        seed=variant.seed,
        params=variant.params,
        variant_json=variant.variant_json,
        skill=variant.skill,
        content_version=version,
        attempts_allowed=variant.attempts_allowed,
        attempts_used=variant.attempts_used,
        penalty=variant.penalty,
        created_at=variant.created_at,
    )


def variant_submissions(session: Session, variant_id: int) -> list[SubmissionResult]:
    """The variant's submissions, first attempt first (one query)."""
    rows = session.execute(
        select(Submission, DrillVariant)
        .join(DrillVariant, DrillVariant.id == Submission.variant_id)
        .where(Submission.variant_id == variant_id)
        .order_by(Submission.attempt)
    ).all()
    return [_submission_result(sub, variant, replayed=False) for sub, variant in rows]


def record_submission(
    session: Session,
    *,
    learner_id: int,
    variant_id: int,
    idempotency_key: str,
    answer_text: str,
    parsed_value: Any,
    raw_score: float,
    cells: Sequence[Any],
    late_penalty: float = 0.0,
    now: datetime | None = None,
) -> SubmissionResult:
    """Record a graded answer to a drill variant, in one transaction.

    Locks the variant row (SELECT ... FOR UPDATE on PostgreSQL; on SQLite the whole
    write transaction holds the database's write lock from BEGIN IMMEDIATE), then:

    - NotFound / NotYourVariant if the variant is missing or someone else's;
    - the same ``idempotency_key`` again returns the first result and writes nothing
      (IdempotencyConflict if it was used for another variant or another answer text);
    - AttemptsExhausted once the variant is solved (a raw score of 1) or
      ``attempts_allowed`` submissions are recorded;
    - otherwise attempt = attempts used + 1, score = ``score_after_attempts(raw_score,
      attempt, penalty)`` less ``late_penalty`` (a late answer's) as a fraction of it, and the
      submission, the variant's attempt count and the
      learner's progress on the variant's skill commit together.

    ``parsed_value`` is the parsed answer (e.g. ``parse_answer``'s array) and ``cells``
    the per-cell results (``CellResult`` objects or their ``to_json_dict()``).
    """
    require_key(idempotency_key)
    if not isinstance(answer_text, str):
        raise TypeError(f"answer_text must be a str, got {type(answer_text).__name__}")
    raw_score = unit_interval("raw_score", raw_score)
    late_penalty = unit_interval("late_penalty", late_penalty)
    parsed_json = to_json_value(parsed_value)
    cells_json = to_json_value(list(cells))
    now = aware(now)
    with write_transaction(session):
        variant = locked_row(session, select(DrillVariant).where(DrillVariant.id == variant_id))
        if variant is None:
            raise NotFound(f"no drill variant with id {variant_id}")
        if variant.learner_id != learner_id:
            raise NotYourVariant(f"drill variant {variant_id} was issued to another learner")

        earlier = earlier_answer(
            session,
            Submission,
            learner_id=learner_id,
            idempotency_key=idempotency_key,
            same=lambda submission: (
                (submission.variant_id, submission.answer_text) == (variant_id, answer_text)
            ),
        )
        if earlier is not None:
            return _submission_result(earlier, variant, replayed=True)

        solved = session.scalar(
            select(Submission.id).where(
                Submission.variant_id == variant_id, Submission.raw_score == 1.0
            )
        )
        if solved is not None:
            raise AttemptsExhausted(f"drill variant {variant_id} is already solved")
        if variant.attempts_used >= variant.attempts_allowed:
            raise AttemptsExhausted(
                f"all {variant.attempts_allowed} attempt(s) at drill variant {variant_id} are used"
            )
        attempt = variant.attempts_used + 1
        score = score_after_attempts(raw_score, attempt, variant.penalty) * (1.0 - late_penalty)
        submission = Submission(
            variant_id=variant.id,
            learner_id=learner_id,
            attempt=attempt,
            idempotency_key=idempotency_key,
            answer_text=answer_text,
            parsed_value=parsed_json,
            raw_score=raw_score,
            penalty_applied=min(raw_score, variant.penalty * (attempt - 1)),
            score=score,
            cells=cells_json,
            late_penalty=late_penalty,
            submitted_at=now,
            recorded_at=datetime.now(UTC),
        )
        session.add(submission)
        variant.attempts_used = attempt
        try:
            session.flush()
        except IntegrityError as exc:
            # Only possible when the same key is being used at this moment for another
            # variant (that one holds another row lock); everything rolls back.
            if "idempotency_key" in str(exc.orig):
                raise IdempotencyConflict(
                    f"idempotency key {idempotency_key!r} is in use for another answer"
                ) from exc
            raise
        if attempt == 1:
            progress.update_progress(
                session, learner_id=learner_id, skill=variant.skill, score=score, now=now
            )
        else:  # the variant counts at its best attempt: its score may have risen
            progress.recompute_progress(
                session, learner_id=learner_id, skill=variant.skill, now=now
            )
        result = _submission_result(submission, variant, replayed=False)
    return result


def _submission_result(
    submission: Submission, variant: DrillVariant, *, replayed: bool
) -> SubmissionResult:
    return SubmissionResult(
        submission_id=submission.id,
        variant_id=submission.variant_id,
        attempt=submission.attempt,
        attempts_left=variant.attempts_allowed - submission.attempt,
        raw_score=submission.raw_score,
        penalty_applied=submission.penalty_applied,
        score=submission.score,
        cells=submission.cells,
        parsed_value=submission.parsed_value,
        submitted_at=submission.submitted_at,
        replayed=replayed,
    )


def _require_user(session: Session, user_id: int) -> None:
    if session.scalar(select(User.id).where(User.id == user_id)) is None:
        raise NotFound(f"no user with id {user_id}")
