"""`quizsvc db`: the database's migrations."""

from __future__ import annotations

import click

from quizsvc.cli.common import fail_on_database_errors


@click.group()
def db() -> None:
    """The database: DATABASE_URL, or instance/quizsvc.sqlite3 when it is unset."""


@db.command("upgrade")
@click.option("--revision", default="head", show_default=True, help="Alembic revision to reach.")
def db_upgrade(revision: str) -> None:
    """Apply the Alembic migrations (creates the SQLite file and instance/ if missing)."""
    from quizsvc.store import database_url, display_url, make_engine, migrate

    with fail_on_database_errors():
        url = database_url()
        migrate.upgrade(url, revision)
        engine = make_engine(url)
        try:
            current = ", ".join(migrate.current_revisions(engine)) or "base"
        finally:
            engine.dispose()
    click.echo(f"database {display_url(url)} is at revision {current}")
