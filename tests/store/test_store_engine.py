"""Database URLs, engines, and what the store may import."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from sqlalchemy.engine import URL
from sqlalchemy.exc import OperationalError

from quizsvc.settings import SettingsError
from quizsvc.store import (
    DEFAULT_SQLITE_PATH,
    database_url,
    display_url,
    make_engine,
)
from quizsvc.store.db import describe_database

STORE = Path(__file__).resolve().parents[2] / "quizsvc" / "store"


def test_the_default_database_is_a_sqlite_file_under_instance():
    assert database_url({}) == f"sqlite:///{DEFAULT_SQLITE_PATH}"
    assert database_url({"DATABASE_URL": "  "}) == f"sqlite:///{DEFAULT_SQLITE_PATH}"
    assert DEFAULT_SQLITE_PATH.parent.name == "instance"
    assert DEFAULT_SQLITE_PATH.parent.parent == STORE.parents[1]


def test_database_url_selects_another_database_and_psycopg_3():
    assert database_url({"DATABASE_URL": "sqlite:////tmp/x.db"}) == "sqlite:////tmp/x.db"
    for scheme in ("postgres", "postgresql"):
        assert (
            database_url({"DATABASE_URL": f"{scheme}://u:p@db:5432/quiz"})
            == "postgresql+psycopg://u:p@db:5432/quiz"
        )
    assert (
        display_url("postgresql+psycopg://u:secret@db/quiz") == "postgresql+psycopg://u:***@db/quiz"
    )


def test_a_sqlite_files_directory_is_created(tmp_path):
    path = tmp_path / "a" / "b" / "quiz.sqlite3"
    engine = make_engine(f"sqlite:///{path}")
    try:
        with engine.connect():
            pass
    finally:
        engine.dispose()
    assert path.is_file()


def test_the_store_imports_neither_flask_nor_the_web_layer_nor_the_cli():
    for path in STORE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert name.split(".")[0] not in {"flask", "flask_login"}, (path, name)
                assert not name.startswith(("quizsvc.web", "quizsvc.cli")), (path, name)


def test_an_engine_that_must_not_create_the_database_creates_nothing(tmp_path):
    path = tmp_path / "a" / "quiz.sqlite3"
    engine = make_engine(f"sqlite:///{path}", create_if_missing=False)
    try:
        with pytest.raises(OperationalError, match="unable to open database file"):
            engine.connect()
    finally:
        engine.dispose()
    assert list(tmp_path.iterdir()) == []


def test_an_engine_that_must_not_create_the_database_opens_an_existing_one(tmp_path):
    # Characters that a file: URI must percent-encode (URL.create quotes them in the URL).
    path = tmp_path / "a b%3F#?.sqlite3"
    url = URL.create("sqlite", database=str(path))
    creating = make_engine(url)
    with creating.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE t (x INTEGER)")
        connection.exec_driver_sql("INSERT INTO t VALUES (42)")
    creating.dispose()
    engine = make_engine(url, create_if_missing=False)
    try:
        with engine.connect() as connection:
            assert connection.exec_driver_sql("SELECT x FROM t").scalar_one() == 42
    finally:
        engine.dispose()
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]


def test_a_database_url_that_does_not_parse_is_refused_without_quoting_it():
    with pytest.raises(SettingsError) as caught:
        database_url({"DATABASE_URL": "postgresql://u:s3cret@db:port/quiz"})
    assert str(caught.value) == (
        "DATABASE_URL is not a database URL of the form"
        " dialect+driver://user:password@host:port/database"
        " (e.g. sqlite:///path/to/quizsvc.sqlite3 or postgresql://user@host/quizsvc)"
    )
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_messages_name_a_sqlite_file_or_the_url_without_its_password(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert describe_database("sqlite:///quiz.sqlite3") == f"SQLite database {tmp_path}/quiz.sqlite3"
    assert describe_database("sqlite://") == "database sqlite://"
    assert (
        describe_database("postgresql+psycopg://u:s3cret@db/quiz")
        == "database postgresql+psycopg://u:***@db/quiz"
    )
