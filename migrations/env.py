"""Alembic environment for quizsvc's store (``quizsvc/store/models.py``).

The URL comes from ``config.attributes["database_url"]`` when run through
``quizsvc.store.migrate`` (``quizsvc db upgrade``), else from the environment
(``DATABASE_URL`` or ``QUIZSVC_DATABASE_URL``, read by ``quizsvc.settings``) or the default
SQLite file, as for the application.  The engine is the application's own
(``make_engine``), so SQLite gets the same pragmas and BEGIN IMMEDIATE.
"""

from __future__ import annotations

from logging.config import fileConfig

from alembic import context
from sqlalchemy import Connection
from sqlalchemy.pool import NullPool

from quizsvc.store.db import database_url, make_engine, normalize_url
from quizsvc.store.models import Base

config = context.config
if config.config_file_name is not None and config.attributes.get("configure_logger", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = Base.metadata


def _url() -> str:
    return normalize_url(config.attributes.get("database_url") or database_url())


def _configure(**kwargs) -> None:
    context.configure(
        target_metadata=target_metadata,
        # SQLite cannot ALTER most things: autogenerate "move and copy" batch operations.
        render_as_batch=True,
        compare_type=True,
        **kwargs,
    )


def run_migrations_offline() -> None:
    _configure(url=_url(), literal_binds=True, dialect_opts={"paramstyle": "named"})
    with context.begin_transaction():
        context.run_migrations()


def _run(connection: Connection) -> None:
    _configure(connection=connection)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    engine = make_engine(_url(), poolclass=NullPool)
    try:
        with engine.connect() as connection:
            if connection.dialect.name != "sqlite":
                _run(connection)
                return
            # A batch migration copies tables; with foreign keys enforced, dropping the old
            # copy would cascade or fail.  The pragma only takes effect outside a
            # transaction, so it is set on the raw connection before Alembic begins one.
            raw = connection.connection.driver_connection
            raw.execute("PRAGMA foreign_keys = OFF")
            try:
                _run(connection)
                problems = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                connection.commit()
                if problems:
                    raise RuntimeError(f"foreign key violations after migrating: {problems}")
            finally:
                raw.execute("PRAGMA foreign_keys = ON")
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
