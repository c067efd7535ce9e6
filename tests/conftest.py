"""Fixtures several test packages share: the database (each test gets an empty database
holding exactly the models' schema, on SQLite always and on PostgreSQL as well when
``TEST_DATABASE_URL`` is set; ``.ci/run`` starts one, and ``make test``'s parallel test
processes each use a database of their own on it; the PostgreSQL cases carry the
``postgres`` marker; on SQLite a copy of a template made once per test process), a fresh
migrated SQLite file, cheap password hashes, and the written-out drill kinds."""

from __future__ import annotations

import functools
import itertools
import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path

import pytest
from cheap_hashes import hash_passwords_cheaply
from content_trees import write_content
from sqlalchemy import Engine, make_url, text
from sqlalchemy.orm import Session, sessionmaker

from quizsvc.store import Base, make_engine, make_session_factory, migrate

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
def migrated_db_url(empty_db_url: str, new_migrated_sqlite: Callable[[Path], str]) -> str:
    """A database the migrations brought to head, with nothing in it: on SQLite a copy of
    the migrated template, on PostgreSQL migrated afresh."""
    url = make_url(empty_db_url)
    if url.get_backend_name() == "sqlite":
        return new_migrated_sqlite(Path(url.database))
    migrate.upgrade(empty_db_url)
    return empty_db_url


@pytest.fixture
def engine(empty_db_url: str, models_sqlite_template: Path) -> Iterator[Engine]:
    """An engine on a database holding exactly the models' schema, and nothing in it."""
    url = make_url(empty_db_url)
    if url.get_backend_name() == "sqlite":
        engine = make_engine(_copy_sqlite(models_sqlite_template, Path(url.database)))
    else:
        engine = make_engine(empty_db_url)
        Base.metadata.create_all(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def session_factory(engine: Engine) -> sessionmaker[Session]:
    return make_session_factory(engine)


# SQLite templates, made once per test process and copied for each test that asks: creating
# the schema (or running Alembic) for every test would cost more than most tests do.


def _copy_sqlite(source: Path, target: Path) -> str:
    """Copy the SQLite database at ``source`` to ``target`` (its directories created); the
    copy's URL."""
    target.parent.mkdir(parents=True, exist_ok=True)
    # SQLite's backup copies the database whole, whatever its write-ahead log holds.
    with closing(sqlite3.connect(source)) as original, closing(sqlite3.connect(target)) as copy:
        original.backup(copy)
    return f"sqlite:///{target}"


@pytest.fixture(scope="session")
def copy_sqlite() -> Callable[[Path, Path], str]:
    """``copy_sqlite(source, target)``: a copy of the SQLite database ``source`` at
    ``target`` (its directories created); the copy's URL. For templates of one's own."""
    return _copy_sqlite


@pytest.fixture(scope="session")
def models_sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file holding the models' schema (create_all), for the ``engine`` fixture."""
    path = tmp_path_factory.mktemp("models") / "template.sqlite3"
    engine = make_engine(f"sqlite:///{path}")
    Base.metadata.create_all(engine)
    engine.dispose()
    return path


@pytest.fixture(scope="session")
def migrated_sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file the real migrations brought to head (the migration tests migrate
    empty databases of their own)."""
    path = tmp_path_factory.mktemp("migrated") / "template.sqlite3"
    migrate.upgrade(f"sqlite:///{path}")
    return path


@pytest.fixture(scope="session")
def new_migrated_sqlite(migrated_sqlite_template: Path) -> Callable[[Path], str]:
    """``new_migrated_sqlite(path)`` writes a copy of the migrated template to ``path`` and
    returns its URL: a fresh database per call."""
    return functools.partial(_copy_sqlite, migrated_sqlite_template)


@pytest.fixture
def make_content(tmp_path: Path) -> Callable[[dict[str, str | bytes]], Path]:
    """``make_content(files)`` writes ``{relative path: text or bytes}`` under a fresh
    content directory and returns it; a ``ch/chapter.yaml`` is added when the tree uses
    ``ch/`` without one, so each test spells out only the files it is about."""
    counter = itertools.count()
    return lambda files: write_content(tmp_path / f"content{next(counter)}", files)


@pytest.fixture
def cheap_password_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Users created during the test get cheap password hashes (see cheap_hashes.py): the
    web and store tests use this throughout, the reports tests for their seeded users."""
    hash_passwords_cheaply(monkeypatch)


@pytest.fixture(scope="session")
def real_drill_kinds() -> tuple[str, ...]:
    """The drill kinds quizsvc.drills implements, written out here rather than imported, so a
    kind added or renamed there must be added here too (the content, bank and drills tests
    check against this list)."""
    return (
        "embedding_positional",
        "projection",
        "score_row",
        "masked_score_row",
        "softmax_row",
        "masked_row",
        "attention_output_row",
        "multi_head",
        "add_norm",
        "ffn_row",
        "cross_attention_row",
        "teacher_forcing_loss",
        "logit_gradient",
        "greedy_next_token",
    )
