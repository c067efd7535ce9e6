"""Database URLs, engines, and what the store may import."""

from __future__ import annotations

import ast
from pathlib import Path

from quizsvc.store import DEFAULT_SQLITE_PATH, database_url, display_url, make_engine

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
