"""The login throttle's counts: a row per counted attempt (``LoginAttempt``), counted in a
moving window, so that every worker process, on every host, counts against the same limit and
a restart forgets nothing.

An attempt is counted only if every limit of its key lets it in, in one transaction that
holds the key's lock, so that attempts sent at once are counted exactly: on SQLite the
transaction's ``BEGIN IMMEDIATE`` already serialises writers, on PostgreSQL a transaction
advisory lock on the key does (other keys are not held up). As in the `limits` library's
moving window, an attempt at time t is in the window of a limit while ``t >= now - window``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, select, text
from sqlalchemy.orm import Session

from quizsvc.store.models import LoginAttempt
from quizsvc.store.transactions import write_transaction

MAX_KEY_LENGTH = 100  # the column's


@dataclass(frozen=True)
class AttemptLimit:
    """At most ``amount`` counted attempts in any ``window``."""

    amount: int
    window: timedelta


@dataclass(frozen=True)
class Counter:
    """What attempts are counted against (``key``) and the limits they are held to."""

    key: str
    limits: tuple[AttemptLimit, ...]

    def __post_init__(self) -> None:
        if not self.key or len(self.key) > MAX_KEY_LENGTH:
            raise ValueError(f"a throttle key is 1 to {MAX_KEY_LENGTH} characters: {self.key!r}")
        if not self.limits:
            raise ValueError("a throttle counter needs at least one limit")


@dataclass(frozen=True)
class Refused:
    """An attempt a limit refused: the counter's key and how long until it would pass."""

    key: str
    wait: timedelta


def count_attempt(
    session: Session,
    counted: Counter,
    *,
    checked: Sequence[Counter] = (),
    keep: timedelta,
    now: datetime | None = None,
) -> Refused | None:
    """Count an attempt against ``counted`` if its limits, and those of every counter of
    ``checked`` (tested, not counted), let it in: None; else the first counter that refused
    and the wait. One transaction, which also deletes every attempt older than ``keep`` (the
    longest window of any limit the caller counts with)."""
    now = now or datetime.now(UTC)
    with write_transaction(session):
        for counter in checked:
            if (wait := _wait(session, counter, now)) is not None:
                return Refused(counter.key, wait)
        _lock(session, counted.key)
        if (wait := _wait(session, counted, now)) is not None:
            return Refused(counted.key, wait)
        session.add(LoginAttempt(key=counted.key, attempted_at=now))
        session.execute(delete(LoginAttempt).where(LoginAttempt.attempted_at < now - keep))
    return None


def attempt_wait(
    session: Session, counter: Counter, *, now: datetime | None = None
) -> Refused | None:
    """Whether an attempt against ``counter`` would be let in now (None), counting nothing; a
    read in the caller's transaction."""
    now = now or datetime.now(UTC)
    wait = _wait(session, counter, now)
    return None if wait is None else Refused(counter.key, wait)


def forget_attempts(session: Session, key: str) -> None:
    """Delete every attempt counted against ``key`` (a right password forgets the wrong ones)."""
    with write_transaction(session):
        _lock(session, key)
        session.execute(delete(LoginAttempt).where(LoginAttempt.key == key))


def _wait(session: Session, counter: Counter, now: datetime) -> timedelta | None:
    """None if every limit of ``counter`` lets one more attempt in at ``now``, else how long
    until all of them would."""
    longest = max(limit.window for limit in counter.limits)
    times = session.scalars(
        select(LoginAttempt.attempted_at)
        .where(LoginAttempt.key == counter.key, LoginAttempt.attempted_at >= now - longest)
        .order_by(LoginAttempt.attempted_at)
    ).all()
    waits = []
    for limit in counter.limits:
        inside = [t for t in times if t >= now - limit.window]
        if len(inside) >= limit.amount:
            # one more gets in once all but amount - 1 of them have left the window
            waits.append(inside[len(inside) - limit.amount] + limit.window - now)
    return max(waits) if waits else None


def _lock(session: Session, key: str) -> None:
    """Hold off every other transaction counting against ``key`` until this one ends."""
    if session.get_bind().dialect.name == "postgresql":
        number = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big", signed=True)
        session.execute(text("SELECT pg_advisory_xact_lock(:number)"), {"number": number})
    # SQLite: the transaction began with BEGIN IMMEDIATE, which no other writer gets past
