"""Which question bank every worker process serves: the versions made live (``ContentLoad``,
the newest one wins) and the version each worker says it serves (``ContentWorker``).

Each worker reads the newest load (one row by its primary key) at most once a second, and
loads that version from the content directory when it is not the one it serves.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from quizsvc.store.models import ContentLoad, ContentWorker
from quizsvc.store.transactions import write_transaction

# A worker's row not renewed for this long is deleted (the process is long gone).
FORGET_WORKER_AFTER = timedelta(days=1)


@dataclass(frozen=True)
class LoadedContent:
    """A bank version made live: ``id`` orders them (the highest is the live one)."""

    id: int
    version: str
    loaded_at: datetime


@dataclass(frozen=True)
class ServedContent:
    """The version a worker process (``host:pid``) serves, as it last said at ``seen_at``."""

    worker: str
    version: str
    load_id: int | None
    seen_at: datetime


def _loaded(row: ContentLoad) -> LoadedContent:
    return LoadedContent(row.id, row.version, row.loaded_at)


def record_content_load(
    session: Session, version: str, *, now: datetime | None = None
) -> LoadedContent:
    """Make ``version`` (of a bank that validated) the one every worker serves."""
    with write_transaction(session):
        row = ContentLoad(version=version, loaded_at=now or datetime.now(UTC))
        session.add(row)
        session.flush()
        loaded = _loaded(row)
    return loaded


def record_first_content_load(
    session: Session, version: str, *, now: datetime | None = None
) -> LoadedContent:
    """The newest content load; if there is none yet, ``version`` recorded as the first."""
    with write_transaction(session):
        row = session.scalar(select(ContentLoad).order_by(ContentLoad.id.desc()).limit(1))
        if row is None:
            row = ContentLoad(version=version, loaded_at=now or datetime.now(UTC))
            session.add(row)
            session.flush()
        loaded = _loaded(row)
    return loaded


def latest_content_load(session: Session) -> LoadedContent | None:
    """The version every worker should serve (None before any was recorded)."""
    row = session.execute(
        select(ContentLoad.id, ContentLoad.version, ContentLoad.loaded_at)
        .order_by(ContentLoad.id.desc())
        .limit(1)
    ).first()
    return None if row is None else LoadedContent(*row)


def record_served_content(
    session: Session,
    worker: str,
    version: str,
    load_id: int | None,
    *,
    now: datetime | None = None,
) -> None:
    """``worker`` serves ``version``, having acted on the content load ``load_id``. Also
    deletes the rows of workers silent for FORGET_WORKER_AFTER."""
    now = now or datetime.now(UTC)
    values = {"worker": worker, "version": version, "load_id": load_id, "seen_at": now}
    dialect = session.get_bind().dialect.name
    with write_transaction(session):
        if dialect in ("sqlite", "postgresql"):
            insert = sqlite_insert if dialect == "sqlite" else postgresql_insert
            statement = insert(ContentWorker).values(**values)
            session.execute(
                statement.on_conflict_do_update(
                    index_elements=["worker"],
                    set_={name: statement.excluded[name] for name in values if name != "worker"},
                )
            )
        else:
            session.merge(ContentWorker(**values))
        session.execute(
            delete(ContentWorker).where(ContentWorker.seen_at < now - FORGET_WORKER_AFTER)
        )


def served_content(session: Session, *, since: datetime) -> list[ServedContent]:
    """What every worker seen at ``since`` or later serves, by worker."""
    rows = session.execute(
        select(
            ContentWorker.worker,
            ContentWorker.version,
            ContentWorker.load_id,
            ContentWorker.seen_at,
        )
        .where(ContentWorker.seen_at >= since)
        .order_by(ContentWorker.worker)
    ).all()
    return [ServedContent(*row) for row in rows]
