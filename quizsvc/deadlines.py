"""A chapter's schedule applied to one learner: the bank's rule (``quizsvc.bank.schedule``)
with what the store keeps of them (when they started a timed quiz, their extension). The
pages and the API ask these before taking an answer, and say a refusal as they like."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TypeVar

from sqlalchemy.orm import Session

from quizsvc import store
from quizsvc.bank import Bank
from quizsvc.bank.schedule import (
    REFUSAL_STATUS,
    DrillSchedule,
    Extension,
    Part,
    QuizSchedule,
    Refusal,
    Verdict,
    judge,
)

T = TypeVar("T")


class DeadlineRefused(Exception):
    """An answer (or a start) the chapter's schedule refuses at this moment."""

    def __init__(self, verdict: Verdict, part: Part) -> None:
        assert verdict.refusal is not None
        super().__init__(f"{part}: {verdict.refusal.value}")
        self.verdict = verdict
        self.part = part

    @property
    def refusal(self) -> Refusal:
        assert self.verdict.refusal is not None
        return self.verdict.refusal

    @property
    def status(self) -> int:
        return REFUSAL_STATUS[self.refusal]


def schedule_of(bank: Bank, chapter_id: str, part: Part) -> DrillSchedule | None:
    chapter = bank.chapter(chapter_id)
    return chapter.quiz if part == "quiz" else chapter.drills


@dataclass(frozen=True)
class Standing:
    """A learner's position on a chapter's quiz or drills: the schedule, the rule's verdict
    now, when they started a timed quiz (None: not started, or no limit) and their
    extension, for the page that states them."""

    schedule: DrillSchedule | None
    verdict: Verdict
    started_at: datetime | None
    extension: store.StoredExtension | None

    @property
    def time_limit(self) -> int | None:
        return self.schedule.time_limit if isinstance(self.schedule, QuizSchedule) else None

    @property
    def must_start(self) -> bool:
        """A timed quiz not started yet, which may be started now."""
        return self.time_limit is not None and self.started_at is None


def _reading(session: Session, read: Callable[[], T]) -> T:
    """``read()`` in the open transaction, or in a read-only one ended afterwards (so that
    a write may follow in ``session``)."""
    if session.in_transaction():
        return read()
    store.begin_read_only(session)
    try:
        return read()
    finally:
        session.commit()


def standing(
    session: Session,
    bank: Bank,
    learner_id: int,
    chapter_id: str,
    part: Part,
    now: datetime | None = None,
    *,
    starting: bool = False,
) -> Standing:
    now = now or datetime.now(UTC)
    schedule = schedule_of(bank, chapter_id, part)
    if schedule is None:
        return Standing(None, judge(None, now), None, None)

    def read() -> tuple[datetime | None, store.StoredExtension | None]:
        started = None
        if isinstance(schedule, QuizSchedule) and schedule.time_limit is not None:
            started = store.quiz_started_at(session, learner_id, chapter_id)
        return started, store.extension_for(session, learner_id, chapter_id, part)

    started, stored = _reading(session, read)
    extension = None if stored is None else Extension(stored.closes_at, stored.extra_minutes)
    verdict = judge(schedule, now, started_at=started, extension=extension, starting=starting)
    return Standing(schedule, verdict, started, stored)


def require_answerable(
    session: Session,
    bank: Bank,
    learner_id: int,
    chapter_id: str,
    part: Part,
    now: datetime | None = None,
) -> float:
    """The late penalty of an answer given now (0.0 on time); DeadlineRefused when the
    schedule takes no answer of this learner now."""
    verdict = standing(session, bank, learner_id, chapter_id, part, now).verdict
    if verdict.refusal is not None:
        raise DeadlineRefused(verdict, part)
    return verdict.late_penalty


def start_quiz(
    session: Session, bank: Bank, learner_id: int, chapter_id: str, now: datetime | None = None
) -> datetime:
    """Start the chapter's timed quiz for the learner (again: the first start stands);
    DeadlineRefused when the quiz is not open, or closed to them."""
    now = now or datetime.now(UTC)
    verdict = standing(session, bank, learner_id, chapter_id, "quiz", now, starting=True).verdict
    if verdict.refusal is not None:
        raise DeadlineRefused(verdict, "quiz")
    return store.start_quiz(session, learner_id, chapter_id, now=now)
