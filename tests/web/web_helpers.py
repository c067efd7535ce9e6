"""Helpers the web tests share: read-only looks at the database behind the app."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from quizsvc import store

PASSWORD = "correct horse battery"  # every fixture user's


@contextmanager
def reading(sessions) -> Iterator[Session]:
    """A read-only session (no write lock taken), closed at the end."""
    with sessions() as session:
        store.begin_read_only(session)
        yield session


def user_id(sessions, name: str) -> int:
    with reading(sessions) as session:
        return session.scalar(select(store.User.id).where(store.User.name == name))


def count(sessions, model) -> int:
    with reading(sessions) as session:
        return session.scalar(select(func.count()).select_from(model))
