"""Users: creation with a hashed password, listing, and password checks. A new password ends
every login session of its user (``login_sessions``)."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from werkzeug.security import check_password_hash, generate_password_hash

from quizsvc.store.errors import (
    CommonPassword,
    DuplicateUser,
    InvalidPassword,
    InvalidUser,
    WrongPassword,
)
from quizsvc.store.login_sessions import end_live_login_sessions
from quizsvc.store.models import LANGUAGES, ROLES, User
from quizsvc.store.text import UNSTORABLE_TEXT, unstorable_text
from quizsvc.store.tokens import new_token, token_digest
from quizsvc.store.transactions import write_transaction

MIN_PASSWORD_LENGTH = 8
MAX_PASSWORD_LENGTH = 1024
# Lower case only, so "Alice" and "alice" can never be two different accounts.
USER_NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")

# Hashed once, so that checking a password for an unknown user costs what a known one does.
_DUMMY_HASH: str | None = None


def validate_user_name(name: str) -> str:
    if not isinstance(name, str) or not USER_NAME_PATTERN.fullmatch(name):
        raise InvalidUser(
            f"invalid user name {name!r}: use 1 to 64 lower-case letters, digits, '.', '_'"
            " or '-', starting with a letter or digit"
        )
    return name


def validate_password(password: str) -> str:
    if not isinstance(password, str) or not password:
        raise InvalidPassword("the password is empty")
    if not password.strip():
        raise InvalidPassword("the password is only spaces")
    if len(password) < MIN_PASSWORD_LENGTH:
        raise InvalidPassword(
            f"the password is too short: use at least {MIN_PASSWORD_LENGTH} characters"
        )
    if len(password) > MAX_PASSWORD_LENGTH:
        raise InvalidPassword(f"the password is longer than {MAX_PASSWORD_LENGTH} characters")
    if is_common_password(password):
        raise CommonPassword(
            "the password is one of the most common passwords, which are guessed first:"
            " choose another"
        )
    return password


def is_common_password(password: str) -> bool:
    """True for a password on zxcvbn's list of the 30,000 most common passwords (from leaked
    password sets; NIST SP 800-63B asks to refuse such ones), compared case-insensitively:
    "Password1" is guessed as early as "password1"."""
    from zxcvbn.matching import RANKED_DICTIONARIES  # its lists load on first use

    return password.lower() in RANKED_DICTIONARIES["passwords"]


def hash_password(password: str) -> str:
    """Werkzeug's default salted hash (scrypt), after :func:`validate_password`."""
    return generate_password_hash(validate_password(password))


def verify_password(password_hash: str, password: str) -> bool:
    """True if ``password`` matches ``password_hash`` (a :func:`hash_password` result)."""
    if not isinstance(password, str) or not password_hash:
        return False
    return check_password_hash(password_hash, password)


def user_exists(session: Session, name: str) -> bool:
    return session.scalar(select(User.id).where(User.name == name)) is not None


def create_user(
    session: Session,
    *,
    name: str,
    role: str,
    password: str,
    display_name: str | None = None,
    now: datetime | None = None,
) -> User:
    """Create and commit a user; ``display_name`` defaults to ``name``.

    Raises InvalidUser (bad name or role), DuplicateUser or InvalidPassword.
    """
    validate_user_name(name)
    if role not in ROLES:
        raise InvalidUser(f"invalid role {role!r}: use one of {', '.join(ROLES)}")
    display_name = name if display_name is None else display_name.strip()
    problem = unstorable_text(display_name)
    if problem is not None:
        raise InvalidUser(f"the display name {UNSTORABLE_TEXT[problem]}")
    if not display_name or len(display_name) > 200:
        raise InvalidUser("the display name must have 1 to 200 characters")
    password_hash = hash_password(password)
    with write_transaction(session):
        if user_exists(session, name):
            raise DuplicateUser(f"a user named {name!r} already exists")
        user = User(
            name=name,
            display_name=display_name,
            role=role,
            password_hash=password_hash,
            created_at=now or datetime.now(UTC),
        )
        session.add(user)
        try:
            session.flush()
        except IntegrityError:
            # Someone created the same name between our check and our insert.
            raise DuplicateUser(f"a user named {name!r} already exists") from None
    return user


def list_users(session: Session, role: str | None = None) -> list[User]:
    """Every user, by name; with ``role``, every user with that role."""
    query = select(User).order_by(User.name)
    if role is not None:
        query = query.where(User.role == role)
    return list(session.scalars(query))


def authenticate(session: Session, name: str, password: str) -> User | None:
    """The user if ``password`` is theirs, else None (taking as long either way)."""
    global _DUMMY_HASH
    # a name no database can hold (NUL: PostgreSQL refuses it) names nobody
    user = (
        None
        if unstorable_text(name) is not None
        else session.scalar(select(User).where(User.name == name))
    )
    if user is None:
        if _DUMMY_HASH is None:
            _DUMMY_HASH = generate_password_hash("not a password of anyone")
        verify_password(_DUMMY_HASH, password)
        return None
    return user if verify_password(user.password_hash, password) else None


def user_by_id(session: Session, user_id: int) -> User | None:
    return session.get(User, user_id)


def issue_api_token(session: Session, name: str) -> str:
    """A new API token for the user (replacing any earlier one); only its digest is stored."""
    with write_transaction(session):
        user = session.scalar(select(User).where(User.name == name))
        if user is None:
            raise InvalidUser(f"no user named {name!r}")
        token = new_token()
        user.api_token_hash = token_digest(token)
    return token


def user_by_api_token(session: Session, token: str) -> User | None:
    """The user of an API token; None for no token, an unknown one or a deactivated account."""
    if not token:
        return None
    return session.scalar(
        select(User).where(
            User.api_token_hash == token_digest(token), User.deactivated_at.is_(None)
        )
    )


def set_password(
    session: Session, name: str, password: str, *, now: datetime | None = None
) -> None:
    """A new password for ``name``, set by an administrator (no old password needed); every
    login session of the user ends."""
    validate_password(password)
    with write_transaction(session):
        user = session.scalar(select(User).where(User.name == name))
        if user is None:
            raise InvalidUser(f"no user named {name!r}")
        user.password_hash = hash_password(password)
        end_live_login_sessions(session, user.id, "password_change", now or datetime.now(UTC))


def change_password(
    session: Session, user_id: int, current: str, new: str, *, now: datetime | None = None
) -> User:
    """The user's own change: ``current`` must be their password. Every login session of
    the user ends, the one they changed it in too (the caller begins them a new one).
    Returns the user."""
    with write_transaction(session):
        user = session.get(User, user_id)
        if user is None:
            raise InvalidUser(f"no user with id {user_id}")
        if not verify_password(user.password_hash, current):
            raise WrongPassword("the current password is wrong")
        user.password_hash = hash_password(validate_password(new))
        end_live_login_sessions(session, user.id, "password_change", now or datetime.now(UTC))
    return user


def set_language(session: Session, user_id: int, language: str) -> None:
    """Keep ``language`` ("zh" or "en") as the user's choice, for every browser they log in
    from."""
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, got {language!r}")
    with write_transaction(session):
        user = session.get(User, user_id)
        if user is None:
            raise InvalidUser(f"no user with id {user_id}")
        user.language = language
