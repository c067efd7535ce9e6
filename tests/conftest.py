"""Fixtures several test packages share: the database (each test gets an empty database
holding exactly the models' schema, on SQLite always and on PostgreSQL as well when
``TEST_DATABASE_URL`` is set; ``.ci/run`` starts one) and the written-out drill kinds."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.orm import Session, sessionmaker

from quizsvc.store import Base, make_engine, make_session_factory

BACKENDS = ["sqlite"] + (["postgresql"] if os.environ.get("TEST_DATABASE_URL") else [])


def empty_postgresql_url() -> str:
    """TEST_DATABASE_URL with its public schema dropped and recreated."""
    url = os.environ["TEST_DATABASE_URL"]
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
