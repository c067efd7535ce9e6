"""The store's tables as SQLAlchemy 2.0 typed models.

Times are timezone-aware UTC datetimes in Python (``UTCDateTime``); JSON columns hold
plain JSON (±inf as the strings "inf"/"-inf", as ``quizsvc.drills`` writes them).
The migrations (``migrations/versions/``, ``quizsvc db upgrade``) create exactly this schema;
``tests/store/test_store_migrations.py`` checks that they agree.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

ROLES = ("student", "instructor")
LANGUAGES = ("zh", "en")

# Stable constraint names, so migrations (and SQLite's batch mode) can refer to them.
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class UTCDateTime(TypeDecorator[datetime]):
    """An aware datetime stored in UTC; SQLite, which drops the zone, gets it back as UTC."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"naive datetime {value!r}: the store only takes aware datetimes")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    # none_as_null: Python None is SQL NULL, not the JSON text 'null', so NOT NULL and the
    # CHECK constraints below see it.
    type_annotation_map = {  # noqa: RUF012 (SQLAlchemy's documented form)
        datetime: UTCDateTime(),
        dict[str, Any]: JSON(none_as_null=True),
        Any: JSON(none_as_null=True),
    }


class User(Base):
    """A learner (student) or an instructor; ``name`` is the login name; ``language`` the
    interface's language the user chose ("zh" or "en"), None before a choice;
    ``deactivated_at`` when an instructor deactivated the account (None while active): its
    work stays, and nobody logs in with it."""

    __tablename__ = "users"
    __table_args__ = (
        CheckConstraint("role IN ('student', 'instructor')", name="role"),
        CheckConstraint("language IN ('zh', 'en')", name="language"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    display_name: Mapped[str] = mapped_column(String(200))
    role: Mapped[str] = mapped_column(String(16))
    password_hash: Mapped[str] = mapped_column(String(255))
    # For API clients later: a hash of a per-user token, never the token itself.
    api_token_hash: Mapped[str | None] = mapped_column(String(255), unique=True)
    created_at: Mapped[datetime]
    language: Mapped[str | None] = mapped_column(String(2))
    deactivated_at: Mapped[datetime | None]


LOGIN_SESSION_END_REASONS = ("logout", "password_change")


class LoginSession(Base):
    """One login in a browser: the cookie holds the user's id and a random token, this row a
    digest of the token (so the table's contents let nobody in). ``ended_at`` and
    ``end_reason`` stay NULL while the login lasts; a logout or a new password ends it."""

    __tablename__ = "login_sessions"
    __table_args__ = (
        CheckConstraint("end_reason IN ('logout', 'password_change')", name="end_reason"),
        CheckConstraint("(ended_at IS NULL) = (end_reason IS NULL)", name="ended_with_reason"),
        # A user's sessions: those still live end at a new password, the old ones are pruned.
        Index(None, "user_id", "created_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime]
    ended_at: Mapped[datetime | None]
    end_reason: Mapped[str | None] = mapped_column(String(16))


class ContentVersion(Base):
    """A version of the question bank (``quizsvc.bank.Bank.version``) that work was done on."""

    __tablename__ = "content_versions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    version: Mapped[str] = mapped_column(String(128), unique=True)
    created_at: Mapped[datetime]


class DrillVariant(Base):
    """A drill variant issued to one learner, with its whole JSON document.

    ``variant_json`` is ``quizsvc.drills.Variant.to_json()``: prompt, given tensors,
    expected answer, tolerance and solution, so a regrade or an audit never depends on
    the generators' later code.  ``attempts_used`` counts the recorded submissions.
    """

    __tablename__ = "drill_variants"
    __table_args__ = (
        CheckConstraint("attempts_allowed >= 1", name="attempts_allowed"),
        CheckConstraint(
            "attempts_used >= 0 AND attempts_used <= attempts_allowed", name="attempts_used"
        ),
        CheckConstraint("penalty >= 0 AND penalty <= 1", name="penalty"),
        Index(None, "learner_id", "question_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    learner_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    question_id: Mapped[str] = mapped_column(String(100))
    content_version_id: Mapped[int] = mapped_column(ForeignKey("content_versions.id"))
    kind: Mapped[str] = mapped_column(String(64))
    seed: Mapped[int] = mapped_column(BigInteger)
    params: Mapped[dict[str, Any]]
    variant_json: Mapped[dict[str, Any]]
    skill: Mapped[str] = mapped_column(String(100))
    attempts_allowed: Mapped[int] = mapped_column(Integer)
    penalty: Mapped[float] = mapped_column(Float)
    attempts_used: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime]


class Submission(Base):
    """One graded answer to a drill variant.

    ``score`` is ``raw_score`` after the attempts penalty; ``penalty_applied`` is what was
    taken off (``min(raw_score, penalty * (attempt - 1))``).  ``cells`` holds the per-cell
    results (``quizsvc.grading.CellResult.to_json_dict()``).  ``submitted_at`` is when the
    learner submitted, ``recorded_at`` when the row was written.
    """

    __tablename__ = "submissions"
    __table_args__ = (
        UniqueConstraint("learner_id", "idempotency_key"),
        UniqueConstraint("variant_id", "attempt"),
        CheckConstraint("attempt >= 1", name="attempt"),
        CheckConstraint("raw_score >= 0 AND raw_score <= 1", name="raw_score"),
        CheckConstraint("score >= 0 AND score <= 1", name="score"),
        Index(None, "learner_id", "submitted_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    variant_id: Mapped[int] = mapped_column(ForeignKey("drill_variants.id"))
    learner_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    attempt: Mapped[int] = mapped_column(Integer)
    idempotency_key: Mapped[str] = mapped_column(String(128))
    answer_text: Mapped[str] = mapped_column(Text)
    parsed_value: Mapped[Any]
    raw_score: Mapped[float] = mapped_column(Float)
    penalty_applied: Mapped[float] = mapped_column(Float)
    score: Mapped[float] = mapped_column(Float)
    cells: Mapped[Any]
    # the fraction of the score taken off for a late answer (the chapter's late policy)
    late_penalty: Mapped[float] = mapped_column(Float, server_default="0")
    submitted_at: Mapped[datetime]
    recorded_at: Mapped[datetime]


class QuizAnswer(Base):
    """An answer to a quiz question: choice ids, a numeric answer's text, or open text.

    ``raw_score`` is the grader's score of a choice or numeric answer, and ``score`` that
    after the attempts penalty of its question (``score_after_attempts``); an open answer
    has no ``raw_score``, and its ``score`` is None while it waits for an instructor.
    ``suggested_score`` is the rubric's suggestion (``quizsvc.grading.suggest_open_score``).
    """

    __tablename__ = "quiz_answers"
    __table_args__ = (
        UniqueConstraint("learner_id", "idempotency_key"),
        UniqueConstraint("learner_id", "question_id", "attempt"),
        CheckConstraint("attempt >= 1", name="attempt"),
        CheckConstraint("choices IS NOT NULL OR text IS NOT NULL", name="choices_or_text"),
        CheckConstraint("score IS NULL OR (score >= 0 AND score <= 1)", name="score"),
        CheckConstraint(
            "raw_score IS NULL OR (raw_score >= 0 AND raw_score <= 1)", name="raw_score"
        ),
        Index(None, "learner_id", "answered_at"),
        # The review queue, oldest first: only the answers still waiting, in queue order, so
        # the queue is read without scanning every answer (migration 0003).
        Index(
            "ix_quiz_answers_awaiting_review",
            "answered_at",
            "id",
            sqlite_where=text("score IS NULL"),
            postgresql_where=text("score IS NULL"),
        ),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    learner_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    question_id: Mapped[str] = mapped_column(String(100))
    content_version_id: Mapped[int] = mapped_column(ForeignKey("content_versions.id"))
    attempt: Mapped[int] = mapped_column(Integer)
    idempotency_key: Mapped[str] = mapped_column(String(128))
    choices: Mapped[list[str] | None] = mapped_column(JSON(none_as_null=True))
    text: Mapped[str | None] = mapped_column(Text)
    score: Mapped[float | None] = mapped_column(Float)
    suggested_score: Mapped[float | None] = mapped_column(Float)
    skill: Mapped[str | None] = mapped_column(String(100))
    answered_at: Mapped[datetime]
    raw_score: Mapped[float | None] = mapped_column(Float)
    # the fraction of the score taken off for a late answer (the chapter's late policy),
    # an open answer's reviewed score included
    late_penalty: Mapped[float] = mapped_column(Float, server_default="0")


class OpenAnswerReview(Base):
    """An instructor's review of an open answer; the latest one sets the answer's score."""

    __tablename__ = "open_answer_reviews"
    __table_args__ = (
        CheckConstraint("confirmed_score >= 0 AND confirmed_score <= 1", name="confirmed_score"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    answer_id: Mapped[int] = mapped_column(ForeignKey("quiz_answers.id"), index=True)
    reviewer_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    suggested_score: Mapped[float | None] = mapped_column(Float)
    confirmed_score: Mapped[float] = mapped_column(Float)
    comment: Mapped[str] = mapped_column(Text)
    reviewed_at: Mapped[datetime]


class SkillProgressRecord(Base):
    """A learner's progress on one skill (see ``quizsvc.store.progress`` for mastery)."""

    __tablename__ = "skill_progress"
    __table_args__ = (
        # Also the index that progress pages read through (learner_id leads).
        UniqueConstraint("learner_id", "skill"),
        CheckConstraint("attempts >= 0", name="attempts"),
        CheckConstraint("mastery >= 0 AND mastery <= 1", name="mastery"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    learner_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    skill: Mapped[str] = mapped_column(String(100))
    attempts: Mapped[int] = mapped_column(Integer)
    best_score: Mapped[float] = mapped_column(Float)
    last_score: Mapped[float] = mapped_column(Float)
    mastery: Mapped[float] = mapped_column(Float)
    last_activity: Mapped[datetime]


class LoginAttempt(Base):
    """One attempt at a password that the login throttle counted (``quizsvc.store.
    login_attempts``): ``key`` names what it counts against (a digest of an account name, a
    client's address or network), ``attempted_at`` when. Rows older than the longest window
    of the limits are deleted as attempts come in."""

    __tablename__ = "login_attempts"
    __table_args__ = (
        # a key's attempts in its window, oldest first
        Index(None, "key", "attempted_at"),
        # the rows every window has left, for pruning
        Index(None, "attempted_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(100))
    attempted_at: Mapped[datetime]


class ContentLoad(Base):
    """A question bank made the live one, after it validated: by an instructor's reload, or
    by the first process to serve an empty database. The newest row (highest ``id``) is the
    version every worker process serves; ``version`` is ``quizsvc.bank.Bank.version``."""

    __tablename__ = "content_loads"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    version: Mapped[str] = mapped_column(String(128))
    loaded_at: Mapped[datetime]


class ContentWorker(Base):
    """The bank version a worker process serves: ``worker`` is ``host:pid``, ``load_id`` the
    newest content load it has acted on, ``seen_at`` when it last said so."""

    __tablename__ = "content_workers"
    __table_args__ = (Index(None, "seen_at"),)

    worker: Mapped[str] = mapped_column(String(300), primary_key=True)
    version: Mapped[str] = mapped_column(String(128))
    load_id: Mapped[int | None] = mapped_column(Integer)
    seen_at: Mapped[datetime]


class QuizStart(Base):
    """When a learner started a chapter's timed quiz (its time limit counts from here)."""

    __tablename__ = "quiz_starts"
    __table_args__ = (UniqueConstraint("learner_id", "chapter_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    learner_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    chapter_id: Mapped[str] = mapped_column(String(100))
    started_at: Mapped[datetime]


class DeadlineExtension(Base):
    """An instructor's exception to a chapter's schedule for one learner: a later close
    (``closes_at``, None: the chapter's) and extra minutes of a quiz's time limit. ``part``
    is "quiz" or "drills"."""

    __tablename__ = "deadline_extensions"
    __table_args__ = (
        UniqueConstraint("learner_id", "chapter_id", "part"),
        CheckConstraint("part IN ('quiz', 'drills')", name="part"),
        CheckConstraint("extra_minutes >= 0", name="extra_minutes"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    learner_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    chapter_id: Mapped[str] = mapped_column(String(100))
    part: Mapped[str] = mapped_column(String(10))
    closes_at: Mapped[datetime | None]
    extra_minutes: Mapped[int] = mapped_column(Integer)
    set_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    set_at: Mapped[datetime]
