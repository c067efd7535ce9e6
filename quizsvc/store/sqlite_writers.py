"""One writer at a time in a process, queued on a Python lock before SQLite's write lock.

SQLite lets one connection write at a time; another that asks (``BEGIN IMMEDIATE``) while it
does is turned away and retries on its busy handler, which sleeps between tries (1, 2, 5,
10 ... up to 100 ms) and wakes to find the lock taken again as often as not. Under a class's
load the threads of one worker then wait far longer than the writes they wait for (a p99 of
seconds for writes of a millisecond). Queued on a lock of the process instead, the next
writer starts as soon as the last one commits. Writers in other processes still meet on
SQLite's lock and its busy handler. A thread that cannot have the lock within the busy
timeout goes on to SQLite's own wait, as it would without this queue (so a thread that
begins a second writer while holding the first fails as before, on the busy timeout, rather
than waiting for itself for ever).
"""

from __future__ import annotations

import threading
from typing import Any

from sqlalchemy import Engine


class WriterQueue:
    def __init__(self, timeout_s: float) -> None:
        self._lock = threading.Lock()
        self._timeout_s = timeout_s
        self._holder: int | None = None  # id() of the DB-API connection holding the lock

    def begin_immediate(self, connection: Any) -> None:
        """BEGIN IMMEDIATE on ``connection`` (SQLAlchemy's), once this process's earlier
        writer has ended."""
        dbapi_connection = connection.connection.dbapi_connection
        queued = self._lock.acquire(timeout=self._timeout_s)
        try:
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        except BaseException:
            if queued:
                self._lock.release()
            raise
        if queued:
            self._holder = id(dbapi_connection)

    def ended(self, dbapi_connection: Any) -> None:
        """The connection's transaction has committed or rolled back (``dbapi_connection``:
        the DB-API connection, or the pool's proxy of it, as SQLAlchemy passes it)."""
        dbapi_connection = getattr(dbapi_connection, "dbapi_connection", dbapi_connection)
        if self._holder is not None and self._holder == id(dbapi_connection):
            self._holder = None
            self._lock.release()

    def install(self, engine: Engine) -> None:
        """Release the lock once a writer's COMMIT or ROLLBACK has run (SQLAlchemy's
        ``commit`` and ``rollback`` events come before it)."""
        dialect = engine.dialect  # each engine has a dialect object of its own
        commit, rollback = dialect.do_commit, dialect.do_rollback

        def do_commit(dbapi_connection: Any) -> None:
            try:
                commit(dbapi_connection)
            finally:
                self.ended(dbapi_connection)

        def do_rollback(dbapi_connection: Any) -> None:
            try:
                rollback(dbapi_connection)
            finally:
                self.ended(dbapi_connection)

        dialect.do_commit = do_commit
        dialect.do_rollback = do_rollback
