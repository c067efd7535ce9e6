"""When a chapter's quiz and its drills may be answered, as authored in ``chapter.yaml``
(``quiz:`` and ``drills:``), and the rule that decides, at a moment, whether an answer is
taken (and at what late penalty) or refused and why.

The rule is a pure function of the schedule, the moment, when the learner started a timed
quiz and the learner's extension, so the pages, the API and the tests apply the very same
one; where the start and the extension are kept is the store's business.

The boundaries: a quiz is open from ``opens`` on (that instant included) until ``closes``
(that instant excluded); a time limit's end is excluded too.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictInt, model_validator

from quizsvc.bank.problems import ContentProblem, content_error
from quizsvc.messages import N_


def _aware_datetime(raw: Any) -> datetime:
    """A YAML timestamp (or an ISO 8601 text) with its time zone; a date alone, or a time
    without a zone (whose moment depends on the server's clock), is refused."""
    value = raw
    if isinstance(raw, str):
        try:
            value = datetime.fromisoformat(raw.strip())
        except ValueError:
            raise content_error(ContentProblem.NOT_A_DATETIME, got=repr(raw)[:60]) from None
    if isinstance(value, datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            raise content_error(ContentProblem.NAIVE_DATETIME, got=str(raw))
        return value
    if isinstance(value, date):
        raise content_error(ContentProblem.NAIVE_DATETIME, got=str(raw))
    raise content_error(ContentProblem.NOT_A_DATETIME, got=repr(raw)[:60])


AwareDatetime = Annotated[datetime, BeforeValidator(_aware_datetime)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LatePolicy(_Model):
    """What happens to an answer after ``closes``: refused, or taken with ``penalty`` (a
    fraction of the score taken off) until ``until`` (if given)."""

    policy: Literal["refuse", "penalty"] = "refuse"
    penalty: Annotated[float, Field(strict=True, gt=0, le=1, allow_inf_nan=False)] | None = None
    until: AwareDatetime | None = None

    @model_validator(mode="after")
    def _check_penalty(self) -> LatePolicy:
        if self.policy == "penalty" and self.penalty is None:
            raise content_error(ContentProblem.LATE_PENALTY_MISSING)
        if self.policy == "refuse" and (self.penalty is not None or self.until is not None):
            key = "penalty" if self.penalty is not None else "until"
            raise content_error(ContentProblem.LATE_PENALTY_WITH_REFUSE, (key,), key=key)
        return self


class DrillSchedule(_Model):
    """``drills:`` in chapter.yaml: when the chapter's drills take answers."""

    opens: AwareDatetime | None = None
    closes: AwareDatetime | None = None
    late: LatePolicy = LatePolicy()

    @model_validator(mode="after")
    def _check_order(self) -> DrillSchedule:
        if self.opens and self.closes and self.closes <= self.opens:
            raise content_error(
                ContentProblem.CLOSES_NOT_AFTER_OPENS,
                ("closes",),
                closes=self.closes.isoformat(),
                opens=self.opens.isoformat(),
            )
        until = self.late.until
        if until is not None and (self.closes is None or until <= self.closes):
            raise content_error(ContentProblem.UNTIL_NOT_AFTER_CLOSES, ("late", "until"))
        return self


class QuizSchedule(DrillSchedule):
    """``quiz:`` in chapter.yaml: the drills' keys, and ``time_limit`` in minutes, counted
    from the moment the learner starts the quiz."""

    time_limit: StrictInt | None = Field(default=None, ge=1, le=10_000)


Part = Literal["quiz", "drills"]


class Refusal(StrEnum):
    """Why an answer (or a start) is refused at a moment."""

    NOT_OPEN = "not_open"
    CLOSED = "closed"
    NOT_STARTED = "not_started"
    TIME_UP = "time_up"


# The HTTP status each refusal is said with: the schedule forbids it (403), or the learner's
# own quiz is in the wrong state for it (409).
REFUSAL_STATUS = {
    Refusal.NOT_OPEN: 403,
    Refusal.CLOSED: 403,
    Refusal.NOT_STARTED: 409,
    Refusal.TIME_UP: 409,
}

# With {opens}, {closes} and {ends}: the moments as the interface writes them.
REFUSAL_MESSAGES = {
    Refusal.NOT_OPEN: N_("This is not open yet: it opens on {opens}."),
    Refusal.CLOSED: N_("This is closed: it closed on {closes}."),
    Refusal.NOT_STARTED: N_("Start the quiz first: its time limit counts from the start."),
    Refusal.TIME_UP: N_("Time is up: your time for the quiz ended on {ends}."),
}


@dataclass(frozen=True)
class Extension:
    """An instructor's exception for one learner: a later close, extra minutes of time."""

    closes: datetime | None = None
    extra_minutes: int = 0


@dataclass(frozen=True)
class Verdict:
    """The rule's answer at a moment: ``refusal`` (None: the answer is taken), the late
    penalty to take off the score, and the moments that decided, as they apply to this
    learner (``closes`` with the extension, ``ends``: the end of a started quiz's time)."""

    refusal: Refusal | None
    late_penalty: float
    opens: datetime | None
    closes: datetime | None
    ends: datetime | None

    @property
    def late(self) -> bool:
        return self.refusal is None and self.late_penalty > 0


def closes_for(schedule: DrillSchedule, extension: Extension | None) -> datetime | None:
    """The close that applies to a learner: an extension's, when it is later."""
    closes = schedule.closes
    later = extension.closes if extension is not None else None
    if later is not None and (closes is None or later > closes):
        return later
    return closes


def time_ends(
    schedule: DrillSchedule, started_at: datetime | None, extension: Extension | None
) -> datetime | None:
    """When a started timed quiz's time runs out (None: no limit, or not started)."""
    limit = getattr(schedule, "time_limit", None)
    if limit is None or started_at is None:
        return None
    extra = extension.extra_minutes if extension is not None else 0
    return started_at + timedelta(minutes=limit + extra)


def judge(
    schedule: DrillSchedule | None,
    now: datetime,
    *,
    started_at: datetime | None = None,
    extension: Extension | None = None,
    starting: bool = False,
) -> Verdict:
    """Whether an answer given at ``now`` is taken, and at what late penalty.

    ``starting``: the question is whether the quiz may be started (its time limit is not
    yet counting). ``now`` and the schedule's moments are timezone-aware.
    """
    if schedule is None:
        return Verdict(None, 0.0, None, None, None)
    opens, closes = schedule.opens, closes_for(schedule, extension)
    ends = time_ends(schedule, started_at, extension)

    def verdict(refusal: Refusal | None, penalty: float = 0.0) -> Verdict:
        return Verdict(refusal, penalty, opens, closes, ends)

    if opens is not None and now < opens:
        return verdict(Refusal.NOT_OPEN)
    penalty = 0.0
    if closes is not None and now >= closes:
        late = schedule.late
        if late.policy == "refuse" or (late.until is not None and now >= late.until):
            return verdict(Refusal.CLOSED)
        penalty = float(late.penalty or 0.0)
    if getattr(schedule, "time_limit", None) is not None and not starting:
        if started_at is None:
            return verdict(Refusal.NOT_STARTED)
        if ends is not None and now >= ends:
            return verdict(Refusal.TIME_UP)
    return verdict(None, penalty)


def after_late_penalty(score: float, late_penalty: float) -> float:
    """A score with the late penalty taken off, as a fraction of it."""
    return score * (1.0 - late_penalty)
