"""Writing learners' work: drill variants, submissions, quiz answers and reviews.

Every function here is one transaction on the given Session: it commits when it
returns and rolls back everything it did when it raises (see ``write_transaction``).
The caller grades first and records only graded answers: an answer the grader rejects
is never recorded and never counts as an attempt.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from quizsvc.grading import score_after_attempts
from quizsvc.store import progress
from quizsvc.store.errors import (
    AttemptsExhausted,
    IdempotencyConflict,
    InvalidText,
    NotAllowed,
    NotFound,
    NotYourVariant,
    StaleReview,
)
from quizsvc.store.jsonvalues import to_json_value
from quizsvc.store.models import (
    ContentVersion,
    DrillVariant,
    OpenAnswerReview,
    QuizAnswer,
    Submission,
    User,
)
from quizsvc.store.text import UNSTORABLE_TEXT, unstorable_text
from quizsvc.store.transactions import write_transaction

MAX_IDEMPOTENCY_KEY_LENGTH = 128
_MAX_SEED = 2**63 - 1


# --- results ---------------------------------------------------------------------------


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


@dataclass(frozen=True)
class QuizAnswerResult:
    """A recorded quiz answer; ``score`` is None while an open answer awaits review."""

    answer_id: int
    question_id: str
    attempt: int
    score: float | None
    suggested_score: float | None
    answered_at: datetime
    replayed: bool = field(default=False, compare=False)

    @property
    def awaiting_review(self) -> bool:
        return self.score is None


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


# --- variants --------------------------------------------------------------------------


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
    _require_text("question_id", question_id, 100)
    _require_text("kind", kind, 64)
    _require_text("skill", skill, 100)
    _require_text("content_version", content_version, 128)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed must be an int, got {seed!r}")
    if not 0 <= int(seed) <= _MAX_SEED:
        raise ValueError(f"seed must lie in [0, 2**63 - 1], got {seed}")
    if isinstance(attempts_allowed, bool) or not isinstance(attempts_allowed, numbers.Integral):
        raise TypeError(f"attempts_allowed must be an int, got {attempts_allowed!r}")
    if attempts_allowed < 1:
        raise ValueError(f"attempts_allowed must be at least 1, got {attempts_allowed}")
    penalty = _unit_interval("penalty", penalty)
    params_json = to_json_value(dict(params))
    document = to_json_value(dict(variant_json))
    now = _aware(now)
    with write_transaction(session):
        _require_user(session, learner_id)
        version_id = _content_version_id(session, content_version, now)
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


# --- submissions -----------------------------------------------------------------------


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
      attempt, penalty)``, and the submission, the variant's attempt count and the
      learner's progress on the variant's skill commit together.

    ``parsed_value`` is the parsed answer (e.g. ``parse_answer``'s array) and ``cells``
    the per-cell results (``CellResult`` objects or their ``to_json_dict()``).
    """
    _require_key(idempotency_key)
    if not isinstance(answer_text, str):
        raise TypeError(f"answer_text must be a str, got {type(answer_text).__name__}")
    raw_score = _unit_interval("raw_score", raw_score)
    parsed_json = to_json_value(parsed_value)
    cells_json = to_json_value(list(cells))
    now = _aware(now)
    with write_transaction(session):
        variant = session.scalar(
            select(DrillVariant)
            .where(DrillVariant.id == variant_id)
            .with_for_update()
            .execution_options(populate_existing=True)
        )
        if variant is None:
            raise NotFound(f"no drill variant with id {variant_id}")
        if variant.learner_id != learner_id:
            raise NotYourVariant(f"drill variant {variant_id} was issued to another learner")

        existing = session.scalar(
            select(Submission).where(
                Submission.learner_id == learner_id,
                Submission.idempotency_key == idempotency_key,
            )
        )
        if existing is not None:
            if existing.variant_id != variant_id or existing.answer_text != answer_text:
                raise IdempotencyConflict(
                    f"idempotency key {idempotency_key!r} was already used for another answer"
                )
            return _submission_result(existing, variant, replayed=True)

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
        score = score_after_attempts(raw_score, attempt, variant.penalty)
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


# --- quiz answers and reviews ----------------------------------------------------------


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
    now: datetime | None = None,
) -> QuizAnswerResult:
    """Record an answer to a quiz question, in one transaction.

    Give either ``choices`` (the chosen ids; one for a single-choice question) with its
    ``score``, or an open answer's ``text``, usually with ``score=None`` (it waits for
    :func:`record_review`) and the rubric's ``suggested_score``.  The attempt number is
    the learner's count of answers to the question plus one (the learner's row is locked
    meanwhile); ``attempts_allowed`` refuses more.  With a ``skill``, a scored answer
    updates that skill's progress now, an open one at its first review.  Idempotency
    keys work as in :func:`record_submission`.
    """
    _require_text("question_id", question_id, 100)
    _require_text("content_version", content_version, 128)
    _require_key(idempotency_key)
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
        _require_storable_text("answer", text)
    score = None if score is None else _unit_interval("score", score)
    suggested_score = (
        None if suggested_score is None else _unit_interval("suggested_score", suggested_score)
    )
    if skill is not None:
        _require_text("skill", skill, 100)
    now = _aware(now)
    with write_transaction(session):
        # Serialises this learner's quiz answers, so attempt numbers cannot collide.
        if session.scalar(select(User.id).where(User.id == learner_id).with_for_update()) is None:
            raise NotFound(f"no user with id {learner_id}")
        existing = session.scalar(
            select(QuizAnswer).where(
                QuizAnswer.learner_id == learner_id,
                QuizAnswer.idempotency_key == idempotency_key,
            )
        )
        if existing is not None:
            if (
                existing.question_id != question_id
                or existing.choices != choices
                or existing.text != text
            ):
                raise IdempotencyConflict(
                    f"idempotency key {idempotency_key!r} was already used for another answer"
                )
            return _quiz_answer_result(existing, replayed=True)
        used = session.scalar(
            select(func.count(QuizAnswer.id)).where(
                QuizAnswer.learner_id == learner_id, QuizAnswer.question_id == question_id
            )
        )
        if attempts_allowed is not None and used >= attempts_allowed:
            raise AttemptsExhausted(
                f"all {attempts_allowed} attempt(s) at question {question_id!r} are used"
            )
        answer = QuizAnswer(
            learner_id=learner_id,
            question_id=question_id,
            content_version_id=_content_version_id(session, content_version, now),
            attempt=used + 1,
            idempotency_key=idempotency_key,
            choices=choices,
            text=text,
            score=score,
            suggested_score=suggested_score,
            skill=skill,
            answered_at=now,
        )
        session.add(answer)
        session.flush()
        if skill is not None and score is not None:
            progress.update_progress(
                session, learner_id=learner_id, skill=skill, score=score, now=now
            )
        result = _quiz_answer_result(answer, replayed=False)
    return result


def _quiz_answer_result(answer: QuizAnswer, *, replayed: bool) -> QuizAnswerResult:
    return QuizAnswerResult(
        answer_id=answer.id,
        question_id=answer.question_id,
        attempt=answer.attempt,
        score=answer.score,
        suggested_score=answer.suggested_score,
        answered_at=answer.answered_at,
        replayed=replayed,
    )


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
    one).  ``suggested_score`` defaults to the one stored with the answer.  The first
    review of an answer with a skill counts as one attempt in that skill's progress; a
    later review corrects the score, and the skill's progress is recomputed with it.

    ``seen_review_id`` is the latest review the reviewer was shown (0: none); if another
    review has been recorded since, ``StaleReview`` is raised and nothing is written, so a
    form opened earlier cannot silently overwrite a colleague's review.
    """
    confirmed_score = _unit_interval("confirmed_score", confirmed_score)
    if suggested_score is not None:
        suggested_score = _unit_interval("suggested_score", suggested_score)
    if not isinstance(comment, str):
        raise TypeError("comment must be a str")
    now = _aware(now)
    with write_transaction(session):
        reviewer = session.get(User, reviewer_id)
        if reviewer is None:
            raise NotFound(f"no user with id {reviewer_id}")
        if reviewer.role != "instructor":
            raise NotAllowed(f"user {reviewer.name!r} is not an instructor and cannot review")
        answer = session.scalar(
            select(QuizAnswer)
            .where(QuizAnswer.id == answer_id)
            .with_for_update()
            .execution_options(populate_existing=True)
        )
        if answer is None:
            raise NotFound(f"no quiz answer with id {answer_id}")
        latest = latest_review(session, answer.id)
        if not _is_open(answer, latest):
            raise NotAllowed(f"quiz answer {answer_id} is not an open answer")
        if seen_review_id is not None and (latest.id if latest else 0) != seen_review_id:
            raise StaleReview(
                f"quiz answer {answer_id} was reviewed again after the form was opened"
            )
        _require_storable_text("comment", comment)
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
        answer.score = confirmed_score
        session.flush()
        if answer.skill is not None:
            # counted in answer order, as a correction is: confirming the same score again
            # must not move the progress
            progress.recompute_progress(
                session, learner_id=answer.learner_id, skill=answer.skill, now=now
            )
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
    return [_quiz_answer_result(answer, replayed=False) for answer in answers]


def is_open_answer(session: Session, answer: QuizAnswer) -> bool:
    """Whether an instructor scores this answer: one recorded awaiting review (and maybe
    reviewed since). A choice, or a text graded when it was recorded (a numeric answer),
    is the grader's."""
    return _is_open(answer, latest_review(session, answer.id))


def _is_open(answer: QuizAnswer, latest: OpenAnswerReview | None) -> bool:
    return answer.text is not None and (answer.score is None or latest is not None)


def _require_storable_text(name: str, text: str) -> None:
    problem = unstorable_text(text)
    if problem is not None:
        raise InvalidText(f"the {name} {UNSTORABLE_TEXT[problem]}")


def latest_review(session: Session, answer_id: int) -> OpenAnswerReview | None:
    """The review that set the answer's score (the latest), or None."""
    return session.scalar(
        select(OpenAnswerReview)
        .where(OpenAnswerReview.answer_id == answer_id)
        .order_by(OpenAnswerReview.reviewed_at.desc(), OpenAnswerReview.id.desc())
        .limit(1)
    )


# --- helpers ---------------------------------------------------------------------------


def _content_version_id(session: Session, version: str, now: datetime) -> int:
    """The id of ``version``'s row, inserting it if needed (safe against a concurrent insert)."""
    dialect = session.get_bind().dialect.name
    if dialect in ("sqlite", "postgresql"):
        insert = sqlite_insert if dialect == "sqlite" else postgresql_insert
        session.execute(
            insert(ContentVersion)
            .values(version=version, created_at=now)
            .on_conflict_do_nothing(index_elements=["version"])
        )
    version_id = session.scalar(select(ContentVersion.id).where(ContentVersion.version == version))
    if version_id is None:
        row = ContentVersion(version=version, created_at=now)
        session.add(row)
        session.flush()
        version_id = row.id
    return version_id


def _require_user(session: Session, user_id: int) -> None:
    if session.scalar(select(User.id).where(User.id == user_id)) is None:
        raise NotFound(f"no user with id {user_id}")


def _require_key(key: str) -> None:
    if not isinstance(key, str) or not key.strip():
        raise ValueError("an idempotency key is required")
    if len(key) > MAX_IDEMPOTENCY_KEY_LENGTH:
        raise ValueError(
            f"the idempotency key is longer than {MAX_IDEMPOTENCY_KEY_LENGTH} characters"
        )
    _require_storable_text("idempotency key", key)


def _require_text(name: str, value: str, max_length: int) -> None:
    if not isinstance(value, str) or not value:
        raise ValueError(f"{name} must be a non-empty str, got {value!r}")
    if len(value) > max_length:
        raise ValueError(f"{name} is longer than {max_length} characters")


def _unit_interval(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {value!r}")
    value = float(value)
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise ValueError(f"{name} must be between 0 and 1, got {value!r}")
    return value


def _aware(now: datetime | None) -> datetime:
    if now is None:
        return datetime.now(UTC)
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError(f"now must be timezone-aware, got {now!r}")
    return now.astimezone(UTC)
