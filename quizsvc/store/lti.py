"""The LMS launch (LTI 1.3) in the store: platforms, the tool's keys, LMS users' accounts,
pylti1p3's launch values, and grade passback's links and outbox (``lti_models``).

Each write function is one transaction (``write_transaction``) but
:func:`queue_grade_passback`, which runs inside the transaction of the write that changed a
score, so a score and its passback are recorded together or not at all.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import delete, exists, insert, literal, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from werkzeug.security import generate_password_hash

from quizsvc.store.arguments import aware, require_storable_text, require_text
from quizsvc.store.errors import StoreError
from quizsvc.store.lti_models import (
    URL_LENGTH,
    LtiAccount,
    LtiGradeLink,
    LtiGradeOutbox,
    LtiLaunchValue,
    LtiPlatform,
    LtiToolKey,
)
from quizsvc.store.models import LANGUAGES, ROLES, User
from quizsvc.store.text import unstorable_text
from quizsvc.store.transactions import locked_row, write_transaction


class InvalidPlatform(StoreError):
    """A platform registration that cannot be stored (a URL that is not http(s), no
    deployment id)."""


def _require_url(name: str, url: str) -> str:
    require_text(name, url, URL_LENGTH)
    parts = urlsplit(url)
    if parts.scheme not in {"http", "https"} or not parts.netloc:
        raise InvalidPlatform(f"the {name} {url!r} is not an http(s) URL")
    return url


def add_platform(
    session: Session,
    *,
    issuer: str,
    client_id: str,
    deployment_ids: list[str],
    auth_login_url: str,
    auth_token_url: str,
    key_set_url: str,
    auth_audience: str | None = None,
    now: datetime | None = None,
) -> tuple[LtiPlatform, bool]:
    """Register a platform, or update the one with this issuer and client id (its deployment
    ids joined with the new ones): the platform and whether it is new."""
    require_text("issuer", issuer, URL_LENGTH)
    require_text("client id", client_id, 255)
    for name, url in (
        ("login URL", auth_login_url),
        ("token URL", auth_token_url),
        ("key set URL", key_set_url),
    ):
        _require_url(name, url)
    if auth_audience is not None:
        require_text("token audience", auth_audience, URL_LENGTH)
    if not deployment_ids:
        raise InvalidPlatform("a platform needs at least one deployment id")
    for deployment in deployment_ids:
        require_text("deployment id", deployment, 255)
        require_storable_text("deployment id", deployment)
    now = aware(now)
    with write_transaction(session):
        platform = locked_row(
            session,
            select(LtiPlatform).where(
                LtiPlatform.issuer == issuer, LtiPlatform.client_id == client_id
            ),
        )
        created = platform is None
        if platform is None:
            platform = LtiPlatform(issuer=issuer, client_id=client_id, created_at=now)
            session.add(platform)
            known: list[str] = []
        else:
            known = list(platform.deployment_ids)
        platform.deployment_ids = known + [d for d in deployment_ids if d not in known]
        platform.auth_login_url = auth_login_url
        platform.auth_token_url = auth_token_url
        platform.key_set_url = key_set_url
        platform.auth_audience = auth_audience
        session.flush()
    return platform, created


def list_platforms(session: Session) -> list[LtiPlatform]:
    return list(session.scalars(select(LtiPlatform).order_by(LtiPlatform.id)))


def find_platform(session: Session, issuer: str, client_id: str | None) -> LtiPlatform | None:
    """The platform of ``issuer`` with ``client_id``; without a client id (an OIDC login may
    leave it out), the issuer's platform if it has exactly one."""
    query = select(LtiPlatform).where(LtiPlatform.issuer == issuer)
    if client_id is not None:
        return session.scalar(query.where(LtiPlatform.client_id == client_id))
    found = list(session.scalars(query.limit(2)))
    return found[0] if len(found) == 1 else None


def platform_by_id(session: Session, platform_id: int) -> LtiPlatform | None:
    return session.get(LtiPlatform, platform_id)


# --- the tool's keys ------------------------------------------------------------------------


def add_tool_key(
    session: Session, *, kid: str, private_pem: str, public_pem: str, now: datetime | None = None
) -> LtiToolKey:
    """Keep a new key pair of the tool's: the newest is the one that signs."""
    require_text("key id", kid, 64)
    now = aware(now)
    with write_transaction(session):
        key = LtiToolKey(kid=kid, private_pem=private_pem, public_pem=public_pem, created_at=now)
        session.add(key)
        session.flush()
    return key


def tool_keys(session: Session) -> list[LtiToolKey]:
    """The tool's key pairs, newest first."""
    return list(session.scalars(select(LtiToolKey).order_by(LtiToolKey.id.desc())))


# --- LMS users' accounts --------------------------------------------------------------------


@dataclass(frozen=True)
class LaunchAccount:
    user: User
    created: bool


def lti_user_name(issuer: str, sub: str) -> str:
    """The account name of an LMS user: ``lti-`` and a digest of (issuer, sub), so it is the
    same at every launch and says nothing about the user."""
    digest = hashlib.sha256(f"{issuer}\n{sub}".encode()).hexdigest()
    return f"lti-{digest[:24]}"


def account_for_launch(
    session: Session,
    *,
    issuer: str,
    sub: str,
    role: str,
    display_name: str,
    language: str | None = None,
    now: datetime | None = None,
) -> LaunchAccount:
    """The account mapped to the LMS user (``issuer``, ``sub``), created with ``role`` at the
    first launch; a later launch finds it as it is (its role is not changed by the LMS).

    The account has a random password nobody knows: it is entered through the LMS only.
    """
    require_text("issuer", issuer, URL_LENGTH)
    require_text("sub", sub, 255)
    require_storable_text("sub", sub)
    if role not in ROLES:
        raise ValueError(f"invalid role {role!r}")
    if language is not None and language not in LANGUAGES:
        raise ValueError(f"invalid language {language!r}")
    display_name = (display_name or "").strip()[:200]
    if not display_name or unstorable_text(display_name) is not None:
        display_name = "LMS user"
    now = aware(now)
    password_hash = generate_password_hash(secrets.token_urlsafe(32))
    try:
        with write_transaction(session):
            found = _account(session, issuer, sub)
            if found is not None:
                return LaunchAccount(found, created=False)
            user = User(
                name=lti_user_name(issuer, sub),
                display_name=display_name,
                role=role,
                password_hash=password_hash,
                created_at=now,
                language=language,
            )
            session.add(user)
            session.flush()
            session.add(LtiAccount(issuer=issuer, sub=sub, user_id=user.id, created_at=now))
            session.flush()
    except IntegrityError:
        # another launch of the same LMS user created the account between this one's look
        # and its insert (PostgreSQL lets both look first); write_transaction undid this
        # one's insert: the account is the other's
        with write_transaction(session):
            found = _account(session, issuer, sub)
        if found is None:
            raise
        return LaunchAccount(found, created=False)
    return LaunchAccount(user, created=True)


def _account(session: Session, issuer: str, sub: str) -> User | None:
    return session.scalar(
        select(User)
        .join(LtiAccount, LtiAccount.user_id == User.id)
        .where(LtiAccount.issuer == issuer, LtiAccount.sub == sub)
    )


def lti_account_count(session: Session) -> int:
    return len(session.scalars(select(LtiAccount.id)).all())


# --- pylti1p3's launch values ---------------------------------------------------------------


def launch_value(session: Session, key: str, *, now: datetime | None = None) -> Any:
    """The value under ``key``, None if there is none or it expired."""
    now = now or datetime.now(UTC)
    return session.scalar(
        select(LtiLaunchValue.value).where(
            LtiLaunchValue.key == key, LtiLaunchValue.expires_at > now
        )
    )


def set_launch_value(
    session: Session, key: str, value: Any, *, expires_at: datetime, now: datetime | None = None
) -> None:
    """Keep ``value`` under ``key`` until ``expires_at`` (replacing any value there), and
    delete the values that expired."""
    require_text("key", key, 255)
    now = aware(now)
    with write_transaction(session):
        session.execute(delete(LtiLaunchValue).where(LtiLaunchValue.expires_at <= now))
        session.execute(delete(LtiLaunchValue).where(LtiLaunchValue.key == key))
        session.add(LtiLaunchValue(key=key, value=value, expires_at=expires_at))


def take_launch_value(session: Session, key: str, *, now: datetime | None = None) -> bool:
    """Delete the value under ``key``: True if there was one that had not expired. Of two
    requests taking the same key, one gets True (a nonce is used once)."""
    now = now or datetime.now(UTC)
    with write_transaction(session):
        result = session.execute(
            delete(LtiLaunchValue).where(LtiLaunchValue.key == key, LtiLaunchValue.expires_at > now)
        )
    return result.rowcount == 1


# --- grade passback -------------------------------------------------------------------------


def link_grades(
    session: Session,
    *,
    user_id: int,
    platform_id: int,
    chapter_id: str,
    lineitem: str,
    scopes: list[str],
    lms_user_id: str,
    now: datetime | None = None,
) -> LtiGradeLink:
    """Post the learner's total on ``chapter_id`` to ``lineitem`` from now on (a launch with
    the AGS claim); the link of the same line item is updated."""
    _require_url("line item URL", lineitem)
    now = aware(now)
    with write_transaction(session):
        link = locked_row(
            session,
            select(LtiGradeLink).where(
                LtiGradeLink.user_id == user_id,
                LtiGradeLink.platform_id == platform_id,
                LtiGradeLink.lineitem == lineitem,
            ),
        )
        if link is None:
            link = LtiGradeLink(
                user_id=user_id, platform_id=platform_id, lineitem=lineitem, created_at=now
            )
            session.add(link)
        link.chapter_id = chapter_id
        link.scopes = list(scopes)
        link.lms_user_id = lms_user_id
        session.flush()
    return link


# Set in a session's `info` once it queued a grade passback: whoever holds the session (a web
# request) knows there is something to post without asking the database.
GRADES_QUEUED = "lti_grades_queued"


def queue_grade_passback(session: Session, learner_id: int, now: datetime) -> None:
    """In the caller's transaction: note that the learner's scores changed, if any of their
    totals goes to an LMS (one statement, nothing written otherwise); the session's
    ``info[GRADES_QUEUED]`` is then true."""
    linked = exists().where(LtiGradeLink.user_id == learner_id)
    result = session.execute(
        insert(LtiGradeOutbox).from_select(
            ["user_id", "queued_at", "tries"],
            select(
                literal(learner_id), literal(now, LtiGradeOutbox.queued_at.type), literal(0)
            ).where(linked),
        )
    )
    if result.rowcount:  # type: ignore[attr-defined]
        session.info[GRADES_QUEUED] = True


@dataclass(frozen=True)
class PendingGrades:
    """A learner whose totals are to be posted: the outbox rows read, and the links."""

    user_id: int
    outbox_ids: tuple[int, ...]
    links: tuple[LtiGradeLink, ...]


def pending_grades(session: Session, *, limit: int = 100) -> list[PendingGrades]:
    """The learners in the outbox (oldest first, at most ``limit``) with their grade links."""
    rows = session.execute(
        select(LtiGradeOutbox.id, LtiGradeOutbox.user_id).order_by(LtiGradeOutbox.id)
    ).all()
    by_user: dict[int, list[int]] = {}
    for row_id, user_id in rows:
        if user_id in by_user or len(by_user) < limit:
            by_user.setdefault(user_id, []).append(row_id)
    pending = []
    for user_id, ids in by_user.items():
        links = session.scalars(
            select(LtiGradeLink).where(LtiGradeLink.user_id == user_id).order_by(LtiGradeLink.id)
        )
        pending.append(PendingGrades(user_id, tuple(ids), tuple(links)))
    return pending


def has_pending_grades(session: Session) -> bool:
    return session.scalar(select(exists().where(LtiGradeOutbox.id.is_not(None)))) or False


def grades_posted(
    session: Session,
    *,
    outbox_ids: tuple[int, ...],
    posted: dict[int, float],
    now: datetime | None = None,
) -> None:
    """The totals ``posted`` (grade link id -> score) reached the LMS: remember them and
    delete the outbox rows they answer (a row queued since stays for the next flush)."""
    now = aware(now)
    with write_transaction(session):
        for link_id, score in posted.items():
            link = session.get(LtiGradeLink, link_id)
            if link is not None:
                link.posted_score = score
                link.posted_at = now
        session.execute(delete(LtiGradeOutbox).where(LtiGradeOutbox.id.in_(outbox_ids)))


def grades_failed(session: Session, *, outbox_ids: tuple[int, ...], error: str) -> None:
    """Posting failed: the rows stay for the next flush, with the error and one more try."""
    with write_transaction(session):
        for row in session.scalars(select(LtiGradeOutbox).where(LtiGradeOutbox.id.in_(outbox_ids))):
            row.tries += 1
            row.last_error = error[:2000]
