"""Alembic, driven from Python: ``quizsvc db upgrade`` and the tests use these.

The Alembic environment is the repository's ``migrations/`` (found next to the quizsvc
package, so any working directory works; ``QUIZSVC_MIGRATIONS_DIR`` points elsewhere,
e.g. for an install that is not an editable checkout).  The database URL reaches
``migrations/env.py`` through ``Config.attributes``, never through the ini parser.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import Engine

from quizsvc import settings
from quizsvc.store.db import database_url, make_engine, normalize_url, sqlite_file
from quizsvc.store.errors import StoreError

REPOSITORY_MIGRATIONS_DIR = Path(__file__).resolve().parents[2] / "migrations"


def migrations_dir() -> Path:
    directory = settings.migrations_dir_from() or REPOSITORY_MIGRATIONS_DIR
    if not (directory / "env.py").is_file():
        raise StoreError(
            f"no Alembic environment at {directory} (set QUIZSVC_MIGRATIONS_DIR to the"
            " repository's migrations/ directory)"
        )
    return directory


def alembic_config(url: str | None = None) -> Config:
    """A Config for ``migrations/`` and ``url`` (default: the environment's, or SQLite)."""
    config = Config()
    # ConfigParser interpolates '%', so a path containing one must be escaped.
    config.set_main_option("script_location", str(migrations_dir()).replace("%", "%%"))
    config.attributes["database_url"] = normalize_url(url or database_url())
    return config


def upgrade(url: str | None = None, revision: str = "head") -> None:
    """Migrate up to ``revision``; StoreError for a revision Alembic cannot reach.

    A SQLite database this call would create is left uncreated when the upgrade fails:
    neither its file nor the directories made for it remain.
    """
    config = alembic_config(url)
    missing_before = _missing_paths(sqlite_file(config.attributes["database_url"]))
    try:
        command.upgrade(config, revision)
    except CommandError as exc:
        _remove_if_created(missing_before)
        raise StoreError(f"cannot upgrade to revision {revision!r}: {exc}") from None


def _missing_paths(path: Path | None) -> list[Path]:
    """``path`` and those of its ancestors that do not exist yet, deepest first."""
    missing = []
    while path is not None and not path.exists() and path != path.parent:
        missing.append(path)
        path = path.parent
    return missing


def _remove_if_created(missing: list[Path]) -> None:
    """Remove what was missing before: the database file, then its new directories."""
    if not missing:
        return
    file, *directories = missing
    file.unlink(missing_ok=True)
    for directory in directories:
        try:
            directory.rmdir()
        except OSError:  # not empty, or gone: either way not ours to remove
            return


def downgrade(url: str | None = None, revision: str = "base") -> None:
    """Migrate down to ``revision``; StoreError for a revision Alembic cannot reach."""
    config = alembic_config(url)
    try:
        command.downgrade(config, revision)
    except CommandError as exc:
        raise StoreError(f"cannot downgrade to revision {revision!r}: {exc}") from None


def head_revisions() -> tuple[str, ...]:
    return tuple(ScriptDirectory.from_config(alembic_config("sqlite://")).get_heads())


def current_revisions(engine: Engine) -> tuple[str, ...]:
    with engine.connect() as connection:
        return tuple(MigrationContext.configure(connection).get_current_heads())


def is_up_to_date(engine: Engine) -> bool:
    return set(current_revisions(engine)) == set(head_revisions())


def require_up_to_date(url: str | None = None) -> Engine:
    """An engine for ``url`` (default: the environment's), or StoreError if there is no
    database yet or its schema is not at the latest migration.

    Creates nothing: only ``quizsvc db upgrade`` (:func:`upgrade`) makes a database.
    """
    url = normalize_url(url or database_url())
    path = sqlite_file(url)
    if path is not None and not path.exists():
        raise StoreError(f"no database at {path}: run `quizsvc db upgrade`")
    engine = make_engine(url, create_if_missing=False)
    try:
        up_to_date = is_up_to_date(engine)
    except BaseException:
        engine.dispose()
        raise
    if not up_to_date:
        engine.dispose()
        raise StoreError("the database is not at the latest migration: run `quizsvc db upgrade`")
    return engine
