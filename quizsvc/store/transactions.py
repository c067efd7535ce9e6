"""One write = one transaction: commit on success, roll back everything on any error."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.orm import Session

from quizsvc.store.db import is_read_only


@contextmanager
def write_transaction(session: Session) -> Iterator[None]:
    """Run the block in ``session``'s transaction, then commit it; on error roll it back.

    Whatever the caller had pending in the session commits (or rolls back) with it, so
    give each request its own session.  A session begun with ``begin_read_only`` is
    refused: on SQLite its deferred transaction could not safely take the write lock.
    """
    if is_read_only(session):
        raise RuntimeError("this session was begun read-only; use a new session to write")
    try:
        yield
        session.commit()
    except BaseException:
        session.rollback()
        raise
