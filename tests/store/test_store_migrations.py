"""The Alembic migrations produce exactly the models' schema, and go down and up again."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Column, Integer, MetaData, String, Table, inspect

from quizsvc.store import Base, StoreError, make_engine, migrate


def schema_differences(engine, metadata=Base.metadata) -> list:
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return compare_metadata(context, metadata)


def check_constraints(engine) -> dict[str, set[str]]:
    inspector = inspect(engine)
    return {
        table: {c["name"] for c in inspector.get_check_constraints(table)}
        for table in Base.metadata.tables
    }


def model_check_constraints() -> dict[str, set[str]]:
    return {
        name: {c.name for c in table.constraints if c.__class__.__name__ == "CheckConstraint"}
        for name, table in Base.metadata.tables.items()
    }


def tables(engine) -> set[str]:
    return set(inspect(engine).get_table_names())


def test_every_migration_gives_the_models_schema_and_downgrades_to_nothing(empty_db_url):
    engine = make_engine(empty_db_url)
    try:
        migrate.upgrade(empty_db_url)
        assert tables(engine) == set(Base.metadata.tables) | {"alembic_version"}
        assert schema_differences(engine) == []
        assert check_constraints(engine) == model_check_constraints()
        assert migrate.is_up_to_date(engine)

        migrate.downgrade(empty_db_url, "base")
        assert tables(engine) == {"alembic_version"}
        assert migrate.current_revisions(engine) == ()
        assert not migrate.is_up_to_date(engine)

        migrate.upgrade(empty_db_url)
        assert schema_differences(engine) == []
        assert migrate.current_revisions(engine) == migrate.head_revisions()
    finally:
        engine.dispose()


def test_the_comparison_notices_a_schema_that_differs(empty_db_url):
    # The test above would be worthless if compare_metadata could not see a difference.
    engine = make_engine(empty_db_url)
    try:
        migrate.upgrade(empty_db_url)
        changed = MetaData()
        for table in Base.metadata.tables.values():
            table.to_metadata(changed)
        Table("extra", changed, Column("id", Integer, primary_key=True))
        changed.tables["users"].append_column(Column("nickname", String(20)))
        kinds = {diff[0] for diff in schema_differences(engine, changed)}
        assert {"add_table", "add_column"} <= kinds
    finally:
        engine.dispose()


def test_upgrading_twice_is_harmless(empty_db_url):
    migrate.upgrade(empty_db_url)
    migrate.upgrade(empty_db_url)
    engine = make_engine(empty_db_url)
    try:
        assert schema_differences(engine) == []
    finally:
        engine.dispose()


def test_the_migrations_are_found_from_any_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert (migrate.migrations_dir() / "env.py").is_file()
    url = f"sqlite:///{tmp_path / 'x.sqlite3'}"
    migrate.upgrade(url)
    engine = make_engine(url)
    try:
        assert migrate.is_up_to_date(engine)
    finally:
        engine.dispose()


def test_a_missing_migrations_directory_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("QUIZSVC_MIGRATIONS_DIR", str(tmp_path))
    with pytest.raises(StoreError, match="QUIZSVC_MIGRATIONS_DIR"):
        migrate.upgrade(f"sqlite:///{tmp_path / 'x.sqlite3'}")
