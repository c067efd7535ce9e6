"""One write = one transaction: commit on success, roll back everything on any error; the rows
a write reads to decide locked for the rest of it; a write retried with its idempotency key
found, so that it answers with what it wrote the first time."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from quizsvc.store.db import is_read_only
from quizsvc.store.errors import IdempotencyConflict


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


def locked_row(session: Session, query: Select[tuple[Any]]) -> Any:
    """The query's row (or None), locked for the rest of the transaction and read afresh.

    FOR UPDATE on PostgreSQL holds off any other writer of the row until this transaction
    ends (SQLite's BEGIN IMMEDIATE already serialises writers); the row is read again from
    the database rather than taken from the session, which may hold it as it was before
    another transaction changed it.
    """
    return session.scalar(query.with_for_update().execution_options(populate_existing=True))


def earlier_answer(
    session: Session,
    model: Any,
    *,
    learner_id: int,
    idempotency_key: str,
    same: Callable[[Any], bool],
) -> Any:
    """The learner's ``model`` row (a quiz answer, a submission) recorded with
    ``idempotency_key``, or None: a request retried after its response was lost.

    IdempotencyConflict if the key recorded another answer (``same`` is false for the row).
    """
    earlier = session.scalar(
        select(model).where(
            model.learner_id == learner_id, model.idempotency_key == idempotency_key
        )
    )
    if earlier is not None and not same(earlier):
        raise IdempotencyConflict(
            f"idempotency key {idempotency_key!r} was already used for another answer"
        )
    return earlier
