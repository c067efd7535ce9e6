"""A host's SQLite writers queue on a lock of the process and an flock of the database file
(store.sqlite_writers): the next writer's BEGIN IMMEDIATE, in the same process or another, is
sent once the last writer has committed, not sent to wait on SQLite's busy handler; and a
queue that cannot be had within the busy timeout leaves the writer to SQLite's own wait, as
without the queue."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest
from sqlalchemy import event, text
from sqlalchemy.exc import OperationalError

from quizsvc import store


@pytest.fixture
def engine_for(tmp_path):
    engines = []

    def make(busy_timeout_ms: int):
        engine = store.make_engine(
            f"sqlite:///{tmp_path / 'writers.sqlite3'}", busy_timeout_ms=busy_timeout_ms
        )
        with engine.begin() as connection:
            connection.execute(text("CREATE TABLE IF NOT EXISTS t (x INTEGER)"))
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        engine.dispose()


def test_the_next_writer_begins_once_the_last_has_committed(engine_for):
    engine = engine_for(busy_timeout_ms=10_000)
    sessions = store.make_session_factory(engine)
    order: list[str] = []
    first_began = threading.Event()

    def remember(conn, cursor, statement, parameters, context, executemany):
        if statement == "BEGIN IMMEDIATE":
            order.append(f"{threading.current_thread().name} begins")

    event.listen(engine, "before_cursor_execute", remember)

    def first() -> None:
        with sessions() as session:
            session.execute(text("INSERT INTO t VALUES (1)"))
            first_began.set()
            time.sleep(0.3)  # the second writer asks meanwhile
            order.append("first commits")
            session.commit()

    def second() -> None:
        first_began.wait()
        with sessions() as session:
            session.execute(text("INSERT INTO t VALUES (2)"))
            session.commit()

    threads = [threading.Thread(target=f, name=f.__name__) for f in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert order == ["first begins", "first commits", "second begins"]
    with engine.connect() as connection:
        assert connection.scalar(text("SELECT group_concat(x) FROM t ORDER BY x")) == "1,2"


def test_a_second_writer_of_the_same_thread_fails_on_the_busy_timeout(engine_for):
    engine = engine_for(busy_timeout_ms=100)
    sessions = store.make_session_factory(engine)
    with sessions() as holding:
        holding.execute(text("INSERT INTO t VALUES (1)"))
        with sessions() as second, pytest.raises(OperationalError, match="locked"):
            second.execute(text("INSERT INTO t VALUES (2)"))
        holding.rollback()
    # the queue was left free by both: the next writer writes
    with sessions() as session:
        session.execute(text("INSERT INTO t VALUES (3)"))
        session.commit()
    with engine.connect() as connection:
        assert connection.scalar(text("SELECT group_concat(x) FROM t")) == "3"


WRITER_IN_ANOTHER_PROCESS = """
import sys, time
from sqlalchemy import event, text
from quizsvc import store

engine = store.make_engine(sys.argv[1], busy_timeout_ms=10_000)

@event.listens_for(engine, "before_cursor_execute")
def remember(conn, cursor, statement, parameters, context, executemany):
    if statement == "BEGIN IMMEDIATE":
        print(time.time(), flush=True)

with store.make_session_factory(engine)() as session:
    session.execute(text("INSERT INTO t VALUES (2)"))
    session.commit()
"""


def test_a_writer_in_another_process_begins_once_the_last_has_committed(engine_for):
    engine = engine_for(busy_timeout_ms=10_000)
    sessions = store.make_session_factory(engine)
    url = engine.url.render_as_string(hide_password=False)
    with sessions() as session:
        session.execute(text("INSERT INTO t VALUES (1)"))
        other = subprocess.Popen(
            [sys.executable, "-c", WRITER_IN_ANOTHER_PROCESS, url],
            stdout=subprocess.PIPE,
            text=True,
        )
        time.sleep(1.5)  # the other process starts and asks meanwhile
        commits_at = time.time()
        session.commit()
    out, _ = other.communicate(timeout=60)
    assert other.returncode == 0
    # without the host's queue the other's BEGIN IMMEDIATE is sent at once, to wait in
    # SQLite's busy handler
    assert float(out) >= commits_at
    with engine.connect() as connection:
        assert connection.scalar(text("SELECT group_concat(x) FROM t ORDER BY x")) == "1,2"
