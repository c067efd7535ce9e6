"""Login sessions: one row per login in a browser, so that a logout or a new password ends it
here, on the server, whatever a copy of the browser's cookie says.

The cookie carries the user's id and a random token; the row keeps only the token's digest.
A row ends (``ended_at``, ``end_reason``) instead of being deleted, so that a browser whose
session a new password ended can be told why, once. Rows begun longer ago than a login can
last are deleted when their user next logs in, which keeps the table small without a cron.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, or_, select, update
from sqlalchemy.orm import Session

from quizsvc.store.errors import InvalidUser
from quizsvc.store.models import LOGIN_SESSION_END_REASONS, LoginSession, User
from quizsvc.store.tokens import new_token, token_digest
from quizsvc.store.transactions import write_transaction

# How long a login lasts at most, counted from the login: Flask's default
# PERMANENT_SESSION_LIFETIME, which is how long the web's signed cookie is accepted.
DEFAULT_LOGIN_LIFETIME = timedelta(days=31)

EXPIRED = "expired"  # FoundLoginSession.ended_by of a login older than its lifetime
DEACTIVATED = "deactivated"  # ... of a login into an account deactivated since


@dataclass(frozen=True)
class FoundLoginSession:
    """A login session found by its token: its user, and why it no longer lets them in
    (``"logout"``, ``"password_change"``, ``"expired"``, ``"deactivated"``), or None while it
    does."""

    user: User
    ended_by: str | None


def begin_login_session(
    session: Session,
    user_id: int,
    *,
    lifetime: timedelta = DEFAULT_LOGIN_LIFETIME,
    now: datetime | None = None,
) -> str:
    """A new login for the user; returns its token (only the token's digest is stored).

    Also deletes the user's rows that ended, or began, more than ``lifetime`` ago: no
    cookie can still name them, and a session is refused after ``lifetime`` anyway."""
    now = now or datetime.now(UTC)
    token = new_token()
    with write_transaction(session):
        if session.get(User, user_id) is None:
            raise InvalidUser(f"no user with id {user_id}")
        cutoff = now - lifetime
        session.execute(
            delete(LoginSession).where(
                LoginSession.user_id == user_id,
                or_(LoginSession.created_at < cutoff, LoginSession.ended_at < cutoff),
            )
        )
        session.add(LoginSession(user_id=user_id, token_hash=token_digest(token), created_at=now))
    return token


def find_login_session(
    session: Session,
    user_id: int,
    token: str,
    *,
    lifetime: timedelta = DEFAULT_LOGIN_LIFETIME,
    now: datetime | None = None,
) -> FoundLoginSession | None:
    """The user's login session of ``token`` with the user, read in one statement; None if
    the user has no such session (never had, or it was pruned)."""
    if not isinstance(token, str) or not token:
        return None
    found = session.execute(
        select(User, LoginSession)
        .join(LoginSession, LoginSession.user_id == User.id)
        .where(User.id == user_id, LoginSession.token_hash == token_digest(token))
    ).first()
    if found is None:
        return None
    user, login = found
    if user.deactivated_at is not None:
        return FoundLoginSession(user, DEACTIVATED)
    if login.end_reason is not None:
        return FoundLoginSession(user, login.end_reason)
    if login.created_at < (now or datetime.now(UTC)) - lifetime:
        return FoundLoginSession(user, EXPIRED)
    return FoundLoginSession(user, None)


def end_login_session(
    session: Session, user_id: int, token: str, *, now: datetime | None = None
) -> bool:
    """End the user's login session of ``token`` (a logout). True if it was live; ending
    one that had already ended, or that does not exist, changes nothing."""
    if not isinstance(token, str) or not token:
        return False
    with write_transaction(session):
        ended = session.execute(
            update(LoginSession)
            .where(
                LoginSession.user_id == user_id,
                LoginSession.token_hash == token_digest(token),
                LoginSession.ended_at.is_(None),
            )
            .values(ended_at=now or datetime.now(UTC), end_reason="logout")
        )
    return ended.rowcount == 1


def end_live_login_sessions(session: Session, user_id: int, reason: str, now: datetime) -> None:
    """End every live login of the user, in the caller's transaction (a new password's)."""
    if reason not in LOGIN_SESSION_END_REASONS:
        raise ValueError(f"unknown reason {reason!r} to end a login session")
    session.execute(
        update(LoginSession)
        .where(LoginSession.user_id == user_id, LoginSession.ended_at.is_(None))
        .values(ended_at=now, end_reason=reason)
    )
