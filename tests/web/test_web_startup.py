"""The app serves only a database that `quizsvc db upgrade` made and keeps up to date."""

import sqlite3

import pytest

from quizsvc.store import StoreError
from quizsvc.web import create_app


def test_a_missing_database_stops_the_app_and_no_file_is_made(tmp_path):
    path = tmp_path / "misspelt" / "quizsvc.sqlite3"
    with pytest.raises(StoreError, match=r"no database at .*misspelt.*quizsvc db upgrade"):
        create_app({"SECRET_KEY": "s", "DATABASE_URL": f"sqlite:///{path}"})
    assert not path.parent.exists()


def test_a_database_behind_the_migrations_stops_the_app(tmp_path):
    path = tmp_path / "quizsvc.sqlite3"
    sqlite3.connect(path).close()  # a file with no tables: never migrated
    with pytest.raises(StoreError, match=r"not at the latest migration.*quizsvc db upgrade"):
        create_app({"SECRET_KEY": "s", "DATABASE_URL": f"sqlite:///{path}"})


def test_a_migrated_database_serves(database_url):
    app = create_app({"SECRET_KEY": "s", "DATABASE_URL": database_url})
    assert app.test_client().get("/login").status_code == 200
