"""What the chapters' schedules need kept per learner: when they started a timed quiz, and
the extensions an instructor gave them (a later close, extra minutes). The rule that reads
them is the bank's (``quizsvc.bank.schedule``); each write is one transaction on the given
Session, as the other write functions are."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from quizsvc.store.arguments import aware, require_text
from quizsvc.store.errors import NotFound
from quizsvc.store.models import DeadlineExtension, QuizStart, User
from quizsvc.store.transactions import locked_row, write_transaction

PARTS = ("quiz", "drills")
MAX_EXTRA_MINUTES = 100_000


@dataclass(frozen=True)
class StoredExtension:
    chapter_id: str
    part: str
    closes_at: datetime | None
    extra_minutes: int
    set_at: datetime


def quiz_started_at(session: Session, learner_id: int, chapter_id: str) -> datetime | None:
    """When the learner started the chapter's quiz, or None."""
    return session.scalar(
        select(QuizStart.started_at).where(
            QuizStart.learner_id == learner_id, QuizStart.chapter_id == chapter_id
        )
    )


def start_quiz(
    session: Session, learner_id: int, chapter_id: str, *, now: datetime | None = None
) -> datetime:
    """Record that the learner starts the chapter's quiz now, once: starting again returns
    the first start (the clock is never reset)."""
    require_text("chapter_id", chapter_id, 100)
    now = aware(now)
    with write_transaction(session):
        # the learner's row serialises their starts, so two at once record one
        if locked_row(session, select(User).where(User.id == learner_id)) is None:
            raise NotFound(f"no user with id {learner_id}")
        started = quiz_started_at(session, learner_id, chapter_id)
        if started is None:
            session.add(QuizStart(learner_id=learner_id, chapter_id=chapter_id, started_at=now))
            session.flush()
            started = now
    return started


def _check_part(part: str) -> None:
    if part not in PARTS:
        raise ValueError(f"part must be one of {PARTS}, got {part!r}")


def extension_for(
    session: Session, learner_id: int, chapter_id: str, part: str
) -> StoredExtension | None:
    _check_part(part)
    row = session.scalar(
        select(DeadlineExtension).where(
            DeadlineExtension.learner_id == learner_id,
            DeadlineExtension.chapter_id == chapter_id,
            DeadlineExtension.part == part,
        )
    )
    return None if row is None else _stored(row)


def extensions_of(session: Session, learner_id: int) -> list[StoredExtension]:
    """The learner's extensions, by chapter and part."""
    rows = session.scalars(
        select(DeadlineExtension)
        .where(DeadlineExtension.learner_id == learner_id)
        .order_by(DeadlineExtension.chapter_id, DeadlineExtension.part)
    )
    return [_stored(row) for row in rows]


def _stored(row: DeadlineExtension) -> StoredExtension:
    return StoredExtension(row.chapter_id, row.part, row.closes_at, row.extra_minutes, row.set_at)


def set_extension(
    session: Session,
    *,
    learner_id: int,
    chapter_id: str,
    part: str,
    closes_at: datetime | None,
    extra_minutes: int,
    set_by: int | None,
    now: datetime | None = None,
) -> StoredExtension:
    """Give the learner a later close and/or extra minutes on a chapter's quiz or drills,
    replacing any earlier extension of theirs; with neither, the extension is removed."""
    _check_part(part)
    require_text("chapter_id", chapter_id, 100)
    if isinstance(extra_minutes, bool) or not isinstance(extra_minutes, int):
        raise TypeError("extra_minutes must be an int")
    if not 0 <= extra_minutes <= MAX_EXTRA_MINUTES:
        raise ValueError(f"extra_minutes must be from 0 to {MAX_EXTRA_MINUTES}")
    if closes_at is not None:
        closes_at = aware(closes_at)
    now = aware(now)
    with write_transaction(session):
        if locked_row(session, select(User).where(User.id == learner_id)) is None:
            raise NotFound(f"no user with id {learner_id}")
        session.execute(
            delete(DeadlineExtension).where(
                DeadlineExtension.learner_id == learner_id,
                DeadlineExtension.chapter_id == chapter_id,
                DeadlineExtension.part == part,
            )
        )
        row = DeadlineExtension(
            learner_id=learner_id,
            chapter_id=chapter_id,
            part=part,
            closes_at=closes_at,
            extra_minutes=extra_minutes,
            set_by=set_by,
            set_at=now,
        )
        if closes_at is not None or extra_minutes:
            session.add(row)
            session.flush()
    return _stored(row)
