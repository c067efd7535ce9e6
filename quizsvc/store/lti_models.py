"""The tables of the LMS launch (LTI 1.3), as SQLAlchemy 2.0 typed models beside
``quizsvc.store.models`` (the same ``Base``, so the migrations' check covers them).

A platform (an LMS registration) is the issuer with the client id it gave the tool; the
tool's own RSA keys sign what it sends to platforms; an LMS user is mapped to a quizsvc account
by (issuer, sub); launch values are pylti1p3's state, nonces and launch data, kept here so that
every worker process sees them; a grade link is where a learner's quiz total goes (the AGS line
item of the launch), and the grade outbox the learners whose scores changed since.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from quizsvc.store.models import Base

URL_LENGTH = 2000


class LtiPlatform(Base):
    """An LMS that may launch the tool: its issuer, the client id it gave the tool, the
    deployments it may launch from, and its OIDC login, token and key set URLs."""

    __tablename__ = "lti_platforms"
    __table_args__ = (UniqueConstraint("issuer", "client_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    issuer: Mapped[str] = mapped_column(String(URL_LENGTH))
    client_id: Mapped[str] = mapped_column(String(255))
    deployment_ids: Mapped[list[str]] = mapped_column(JSON(none_as_null=True))
    auth_login_url: Mapped[str] = mapped_column(String(URL_LENGTH))
    auth_token_url: Mapped[str] = mapped_column(String(URL_LENGTH))
    key_set_url: Mapped[str] = mapped_column(String(URL_LENGTH))
    auth_audience: Mapped[str | None] = mapped_column(String(URL_LENGTH))
    created_at: Mapped[datetime]


class LtiToolKey(Base):
    """One of the tool's RSA key pairs (PEM): the newest signs, every one is in the JWKS."""

    __tablename__ = "lti_tool_keys"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kid: Mapped[str] = mapped_column(String(64), unique=True)
    private_pem: Mapped[str] = mapped_column(Text)
    public_pem: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime]


class LtiAccount(Base):
    """The quizsvc account of an LMS user: ``sub`` is the user's id at the ``issuer``."""

    __tablename__ = "lti_accounts"
    __table_args__ = (UniqueConstraint("issuer", "sub"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    issuer: Mapped[str] = mapped_column(String(URL_LENGTH))
    sub: Mapped[str] = mapped_column(String(255))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    created_at: Mapped[datetime]


class LtiLaunchValue(Base):
    """A value pylti1p3 keeps between the OIDC login and the launch, or after the launch
    (state, nonce, launch data, the platform's key set): JSON under its key until it expires."""

    __tablename__ = "lti_launch_values"
    __table_args__ = (Index(None, "expires_at"),)

    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    value: Mapped[Any]
    expires_at: Mapped[datetime]


class LtiGradeLink(Base):
    """Where a learner's total on a chapter's quiz is posted: the AGS line item of the launch
    (``lineitem``, with the ``scopes`` the platform granted) for the LMS user ``lms_user_id``.
    ``posted_score`` is the last total posted (None before the first)."""

    __tablename__ = "lti_grade_links"
    __table_args__ = (UniqueConstraint("user_id", "platform_id", "lineitem"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    platform_id: Mapped[int] = mapped_column(ForeignKey("lti_platforms.id"))
    chapter_id: Mapped[str] = mapped_column(String(100))
    lineitem: Mapped[str] = mapped_column(String(URL_LENGTH))
    scopes: Mapped[list[str]] = mapped_column(JSON(none_as_null=True))
    lms_user_id: Mapped[str] = mapped_column(String(255))
    posted_score: Mapped[float | None] = mapped_column(Float)
    posted_at: Mapped[datetime | None]
    created_at: Mapped[datetime]


class LtiGradeOutbox(Base):
    """A learner whose scores changed since their grade links were last posted: written in
    the transaction that changed the score, deleted once the totals are posted."""

    __tablename__ = "lti_grade_outbox"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    queued_at: Mapped[datetime]
    tries: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(Text)
