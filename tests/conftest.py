"""Fixtures several test packages share: the database (each test gets an empty database
holding exactly the models' schema, on SQLite always and on PostgreSQL as well when
``TEST_DATABASE_URL`` is set; ``.ci/run`` starts one, and ``make test``'s parallel test
processes each use a database of their own on it; the PostgreSQL cases carry the
``postgres`` marker) and the written-out drill kinds."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, make_url, text
from sqlalchemy.orm import Session, sessionmaker

from quizsvc.store import Base, make_engine, make_session_factory

BACKENDS = ["sqlite"] + (
    [pytest.param("postgresql", marks=pytest.mark.postgres)]
    if os.environ.get("TEST_DATABASE_URL")
    else []
)


@functools.cache
def postgresql_url() -> str:
    """TEST_DATABASE_URL; under pytest-xdist, a database of this worker's own on the same server
    (its name with the worker's id appended, created on first use), since each test empties the
    schema of the database it runs on."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        return os.environ["TEST_DATABASE_URL"]
    url = make_url(os.environ["TEST_DATABASE_URL"])
    own = url.set(database=f"{url.database}_{worker}")
    server = make_engine(url, isolation_level="AUTOCOMMIT")
    with server.connect() as connection:
        exists = connection.execute(
            text("SELECT 1 FROM pg_database WHERE datname = :name"), {"name": own.database}
        ).first()
        if not exists:
            quoted = server.dialect.identifier_preparer.quote(own.database)
            connection.execute(text(f"CREATE DATABASE {quoted}"))
    server.dispose()
    return own.render_as_string(hide_password=False)


def empty_postgresql_url() -> str:
    """The test database (postgresql_url) with its public schema dropped and recreated."""
    url = postgresql_url()
    engine = make_engine(url)
    with engine.begin() as connection:
        connection.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
        connection.execute(text("CREATE SCHEMA public"))
    engine.dispose()
    return url


@pytest.fixture(params=BACKENDS)
def empty_db_url(request: pytest.FixtureRequest, tmp_path) -> str:
    """A database with no tables at all."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'instance' / 'quizsvc.sqlite3'}"
    return empty_postgresql_url()


@pytest.fixture
def engine(empty_db_url: str) -> Iterator[Engine]:
    """An engine on a database holding exactly the models' schema, and nothing in it."""
    engine = make_engine(empty_db_url)
    Base.metadata.create_all(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def session_factory(engine: Engine) -> sessionmaker[Session]:
    return make_session_factory(engine)


@pytest.fixture(scope="session")
def real_drill_kinds() -> tuple[str, ...]:
    """The drill kinds quizsvc.drills implements, written out here rather than imported, so a
    kind added or renamed there must be added here too (the content, bank and drills tests
    check against this list)."""
    return (
        "embedding_positional",
        "projection",
        "score_row",
        "softmax_row",
        "masked_row",
        "attention_output_row",
        "multi_head",
        "add_norm",
        "ffn_row",
        "cross_attention_row",
        "teacher_forcing_loss",
        "greedy_next_token",
    )
