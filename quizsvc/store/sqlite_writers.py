"""One writer at a time on a host, queued on a lock of the process and then on an ``flock``
of the database file, before SQLite's write lock.

SQLite lets one connection write at a time; another that asks (``BEGIN IMMEDIATE``) while it
does is turned away and retries on its busy handler, which sleeps between tries (1, 2, 5,
10 ... up to 100 ms) and wakes to find the lock taken again as often as not. Under a class's
load the writers then wait far longer than the writes they wait for (a p99 of seconds for
writes of a millisecond), and more so with several worker processes. Queued instead, the
next writer starts as soon as the last one commits: the threads of a process on a Python
lock, the processes on an ``flock`` of the database file. SQLite's own locks on the file are
POSIX record locks, which on Linux are independent of ``flock``; and a WAL database is only
ever used from one host (its shared memory needs a local file system), so the kernel's lock
covers every writer. Each process opens the file for the lock itself (after a fork too),
since a file description shared across a fork would let both sides hold the lock at once,
and never closes it (closing a descriptor of the file would drop the process's POSIX locks,
SQLite's included).

A writer that cannot have the queue within the busy timeout goes on to SQLite's own wait,
as it would without the queue (so a thread that begins a second writer while holding the
first fails as before, on the busy timeout, rather than waiting for itself for ever).
"""

from __future__ import annotations

import fcntl
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

log = logging.getLogger(__name__)

# Between two tries for the file's lock: short, since only one thread of each process asks.
_POLL_S = (0.0001, 0.0002, 0.0005, 0.001)


class WriterQueue:
    def __init__(self, timeout_s: float, database: Path | None = None) -> None:
        self._lock = threading.Lock()
        self._timeout_s = timeout_s
        self._holder: int | None = None  # id() of the DB-API connection holding the queue
        self._database = database  # the file to flock; None: this process's queue alone
        self._file: int | None = None  # this process's descriptor of it
        self._file_pid: int | None = None
        self._file_held = False

    def begin_immediate(self, connection: Any) -> None:
        """BEGIN IMMEDIATE on ``connection`` (SQLAlchemy's), once the host's earlier writer
        has ended."""
        dbapi_connection = connection.connection.dbapi_connection
        deadline = time.monotonic() + self._timeout_s
        queued = self._lock.acquire(timeout=self._timeout_s)
        try:
            if queued:
                self._file_held = self._lock_file(deadline)
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        except BaseException:
            if queued:
                self._release()
            raise
        if queued:
            self._holder = id(dbapi_connection)

    def ended(self, dbapi_connection: Any) -> None:
        """The connection's transaction has committed or rolled back (``dbapi_connection``:
        the DB-API connection, or the pool's proxy of it, as SQLAlchemy passes it)."""
        dbapi_connection = getattr(dbapi_connection, "dbapi_connection", dbapi_connection)
        if self._holder is not None and self._holder == id(dbapi_connection):
            self._holder = None
            self._release()

    def _release(self) -> None:
        if self._file_held:
            self._file_held = False
            fcntl.flock(self._file, fcntl.LOCK_UN)
        self._lock.release()

    def _lock_file(self, deadline: float) -> bool:
        """Whether this process now holds the file's lock (False: no file, or not in time)."""
        descriptor = self._descriptor()
        if descriptor is None:
            return False
        tries = 0
        while True:
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    return False
                time.sleep(_POLL_S[min(tries, len(_POLL_S) - 1)])
                tries += 1

    def _descriptor(self) -> int | None:
        if self._database is None:
            return None
        if self._file_pid != os.getpid():
            try:
                self._file = os.open(self._database, os.O_RDONLY)
            except OSError as exc:  # tried again by the next writer
                log.warning("writers queue without %s (%s)", self._database, exc)
                return None
            self._file_pid = os.getpid()
        return self._file

    def install(self, engine: Engine) -> None:
        """Release the queue once a writer's COMMIT or ROLLBACK has run (SQLAlchemy's
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
