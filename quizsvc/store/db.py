"""Engines and sessions: SQLite under ``instance/`` by default, ``DATABASE_URL`` (or
``QUIZSVC_DATABASE_URL``, read by :mod:`quizsvc.settings`) for another.

SQLite connections get WAL with ``synchronous=FULL`` (every commit on disk before it
returns), foreign keys and a busy timeout, and SQLAlchemy (not the
``sqlite3`` module) emits ``BEGIN``: ``BEGIN IMMEDIATE`` unless the session was opened with
:func:`begin_read_only`.  A deferred transaction that reads and then writes has to upgrade
its lock, and SQLite refuses that at once with "database is locked" (the busy timeout does
not apply) when another writer got there first; taking the write lock at ``BEGIN`` makes
writers queue on the busy timeout instead.  This is SQLAlchemy's documented recipe
("Using SQLAlchemy to emit BEGIN in lieu of SQLite's transaction control").
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError
from sqlalchemy.orm import Session, sessionmaker

from quizsvc import settings
from quizsvc.store.errors import StoreError
from quizsvc.store.sqlite_writers import WriterQueue

# The repository's instance/ (git-ignored), next to the quizsvc package, like content/.
INSTANCE_DIR = Path(__file__).resolve().parents[2] / "instance"
DEFAULT_SQLITE_PATH = INSTANCE_DIR / "quizsvc.sqlite3"

# How long a SQLite writer waits for another one to commit before giving up.
DEFAULT_BUSY_TIMEOUT_MS = 30_000

# Execution option that makes a SQLite transaction begin DEFERRED (see begin_read_only).
_READ_ONLY = "quizsvc_read_only"


def database_url(environ: Mapping[str, str] | None = None) -> str:
    """The URL the environment names (``settings.database_url_from``), else the SQLite file
    ``instance/quizsvc.sqlite3``.

    SettingsError if the environment's URL does not parse, or its two names for it disagree.
    """
    url = settings.database_url_from(environ)
    if url is None:
        return f"sqlite:///{DEFAULT_SQLITE_PATH}"
    return normalize_url(url)


def normalize_url(url: str | URL) -> str:
    """Point bare ``postgres://`` / ``postgresql://`` URLs at psycopg 3, the driver we install.

    StoreError if ``url`` is not a database URL.
    """
    return _normalized(_parse_url(url))


def _parse_url(url: str | URL) -> URL:
    try:
        return make_url(url)
    except (ArgumentError, ValueError):
        # SQLAlchemy's message may quote the whole URL, password included, and so would
        # a chained traceback: the message names the problem without the URL.
        raise StoreError(
            f"the database URL is not a database URL of the form {settings.URL_FORM}"
        ) from None


def _normalized(parsed: URL) -> str:
    if parsed.drivername in {"postgres", "postgresql"}:
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed.render_as_string(hide_password=False)


def display_url(url: str | URL) -> str:
    """The URL with its password masked, for messages."""
    return make_url(url).render_as_string(hide_password=True)


def sqlite_file(url: str | URL) -> Path | None:
    """The absolute path of a SQLite database file; None for another database, an
    in-memory one, or a ``file:`` URI (whose path and options SQLite interprets)."""
    parsed = _parse_url(url)
    database = parsed.database or ""
    if parsed.get_backend_name() != "sqlite" or not database or database == ":memory:":
        return None
    if database.startswith("file:"):
        return None
    # As the sqlite3 driver opens it: relative to the working directory, no ``~``.
    return Path(os.path.abspath(database))


def describe_database(url: str | URL) -> str:
    """``SQLite database PATH`` or ``database URL`` (password masked), for messages."""
    path = sqlite_file(url)
    return f"SQLite database {path}" if path is not None else f"database {display_url(url)}"


def make_engine(
    url: str | URL | None = None,
    *,
    busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
    create_if_missing: bool = True,
    **kwargs: Any,
) -> Engine:
    """An engine for ``url`` (default: :func:`database_url`), set up as described above.

    For a SQLite file the parent directory is created if it is missing, and SQLite
    creates the file on the first connection; with ``create_if_missing=False`` neither
    happens (connecting to a missing file fails).  StoreError if the URL does not
    parse, names no dialect SQLAlchemy knows, or needs a driver that is not installed.
    Extra keyword arguments go to :func:`sqlalchemy.create_engine`.
    """
    parsed = make_url(normalize_url(url if url is not None else database_url()))
    if parsed.get_backend_name() != "sqlite":
        kwargs.setdefault("pool_pre_ping", True)
        return _create_engine(parsed, kwargs)

    path = sqlite_file(parsed)
    if path is not None and create_if_missing:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot create the directory {path.parent} for the SQLite database {path}:"
                f" {exc.strerror or exc}"
            ) from None
    engine = _create_engine(parsed, kwargs)

    if path is not None and not create_if_missing:

        @event.listens_for(engine, "do_connect")
        def _open_existing_file_only(
            _dialect: Any, _record: Any, cargs: list[Any], cparams: dict[str, Any]
        ) -> None:
            # SQLite creates a missing file when it opens it read-write; its URI form
            # with mode=rw opens only an existing one (as_uri percent-encodes the path).
            cargs[0] = f"{path.as_uri()}?mode=rw"
            cparams["uri"] = True

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Stop the sqlite3 module from issuing BEGIN itself; _on_begin does it.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            cursor.execute("PRAGMA foreign_keys = ON")
            cursor.execute("PRAGMA journal_mode = WAL")
            # FULL: a commit returns once the WAL is synced to disk, so an acknowledged
            # answer survives a power loss (NORMAL syncs only at checkpoints and could
            # lose the last transactions). It costs one fsync per commit (docs/performance.md).
            cursor.execute("PRAGMA synchronous = FULL")
        finally:
            cursor.close()

    # the host's writers, one at a time (an in-memory database is this process's alone)
    writers = WriterQueue(busy_timeout_ms / 1000, path)
    writers.install(engine)

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        if connection.get_execution_options().get(_READ_ONLY):
            connection.exec_driver_sql("BEGIN DEFERRED")
        else:
            writers.begin_immediate(connection)

    return engine


def _create_engine(parsed: URL, kwargs: dict[str, Any]) -> Engine:
    """create_engine, with an unknown dialect or a missing driver as a StoreError."""
    try:
        return create_engine(parsed, **kwargs)
    except NoSuchModuleError:
        raise StoreError(
            f"cannot use the database URL {display_url(parsed)}: SQLAlchemy knows no"
            f" database dialect or driver named {parsed.drivername!r}"
        ) from None
    except ImportError as exc:
        raise StoreError(
            f"cannot use the database URL {display_url(parsed)}: its driver is not"
            f" installed ({exc})"
        ) from None


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
