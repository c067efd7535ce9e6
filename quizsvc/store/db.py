"""Engines and sessions: SQLite under ``instance/`` by default, ``DATABASE_URL`` for another.

SQLite connections get WAL, foreign keys and a busy timeout, and SQLAlchemy (not the
``sqlite3`` module) emits ``BEGIN``: ``BEGIN IMMEDIATE`` unless the session was opened with
:func:`begin_read_only`.  A deferred transaction that reads and then writes has to upgrade
its lock, and SQLite refuses that at once with "database is locked" (the busy timeout does
not apply) when another writer got there first; taking the write lock at ``BEGIN`` makes
writers queue on the busy timeout instead.  This is SQLAlchemy's documented recipe
("Using SQLAlchemy to emit BEGIN in lieu of SQLite's transaction control").
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.orm import Session, sessionmaker

# The repository's instance/ (git-ignored), next to the quizsvc package, like content/.
INSTANCE_DIR = Path(__file__).resolve().parents[2] / "instance"
DEFAULT_SQLITE_PATH = INSTANCE_DIR / "quizsvc.sqlite3"

# How long a SQLite writer waits for another one to commit before giving up.
DEFAULT_BUSY_TIMEOUT_MS = 30_000

# Execution option that makes a SQLite transaction begin DEFERRED (see begin_read_only).
_READ_ONLY = "quizsvc_read_only"


def database_url(environ: dict[str, str] | None = None) -> str:
    """``DATABASE_URL`` if set, else the SQLite file ``instance/quizsvc.sqlite3``."""
    environ = os.environ if environ is None else environ
    url = environ.get("DATABASE_URL", "").strip()
    if not url:
        return f"sqlite:///{DEFAULT_SQLITE_PATH}"
    return normalize_url(url)


def normalize_url(url: str | URL) -> str:
    """Point bare ``postgres://`` / ``postgresql://`` URLs at psycopg 3, the driver we install."""
    parsed = make_url(url)
    if parsed.drivername in {"postgres", "postgresql"}:
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed.render_as_string(hide_password=False)


def display_url(url: str | URL) -> str:
    """The URL with its password masked, for messages."""
    return make_url(url).render_as_string(hide_password=True)


def make_engine(
    url: str | URL | None = None,
    *,
    busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
    **kwargs: Any,
) -> Engine:
    """An engine for ``url`` (default: :func:`database_url`), set up as described above.

    For a SQLite file the parent directory is created if it is missing.  Extra keyword
    arguments go to :func:`sqlalchemy.create_engine`.
    """
    parsed = make_url(normalize_url(url if url is not None else database_url()))
    if parsed.get_backend_name() != "sqlite":
        kwargs.setdefault("pool_pre_ping", True)
        return create_engine(parsed, **kwargs)

    database = parsed.database or ""
    if database and database != ":memory:" and not database.startswith("file:"):
        Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(parsed, **kwargs)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Stop the sqlite3 module from issuing BEGIN itself; _on_begin does it.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            cursor.execute("PRAGMA foreign_keys = ON")
            cursor.execute("PRAGMA journal_mode = WAL")
            # Safe with WAL (a crash loses at most the last transactions, never corrupts).
            cursor.execute("PRAGMA synchronous = NORMAL")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        if connection.get_execution_options().get(_READ_ONLY):
            connection.exec_driver_sql("BEGIN DEFERRED")
        else:
            connection.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def make_session_factory(engine: Engine) -> sessionmaker[Session]:
    """Sessions whose objects stay readable after commit (``expire_on_commit=False``)."""
    return sessionmaker(engine, expire_on_commit=False)


def begin_read_only(session: Session) -> None:
    """Start ``session``'s transaction as a reader.

    On SQLite the transaction begins DEFERRED, so it neither waits for nor blocks
    writers (WAL).  The store's write functions refuse such a session.  Call it before
    anything else in the transaction; elsewhere it has no effect on the database.
    """
    if session.in_transaction():
        raise RuntimeError("begin_read_only must be called before the transaction begins")
    session.connection(execution_options={_READ_ONLY: True})


def is_read_only(session: Session) -> bool:
    """True if ``session``'s current transaction was begun with :func:`begin_read_only`."""
    if not session.in_transaction():
        return False
    return bool(session.connection().get_execution_options().get(_READ_ONLY))
