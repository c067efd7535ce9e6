"""What the command groups share: the settings `main` read, failing with a one-line error, and
the migrated database a command works on."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, NoReturn

import click

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from quizsvc.settings import Settings


def current_settings() -> Settings:
    """The settings `main` read for this command."""
    return click.get_current_context().find_root().obj


def fail(message: str) -> NoReturn:
    click.echo(f"error: {message}", err=True)
    raise SystemExit(1)


def _first_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__


@contextlib.contextmanager
def fail_on_database_errors() -> Iterator[None]:
    """Turn the store's refusals (a database behind the migrations among them) and the database
    driver's errors (unreachable, cannot be opened, permission denied) into a one-line
    error naming the database."""
    from sqlalchemy.exc import DBAPIError

    from quizsvc.store import StoreError, database_url
    from quizsvc.store.db import describe_database

    try:
        yield
    except StoreError as exc:
        fail(_first_line(exc))
    except DBAPIError as exc:
        # The driver's own message ("unable to open database file"), without
        # SQLAlchemy's statement and link, after the database it is about (its URL was
        # parsed before any connection, so database_url() cannot fail here).
        reason = _first_line(exc.orig if exc.orig is not None else exc)
        fail(f"{describe_database(database_url())}: {reason}")


@contextlib.contextmanager
def migrated_database() -> Iterator[Engine]:
    """The database's engine, once its schema is at the latest migration (else a one-line
    error, as any other of the store's refusals or the driver's errors); disposed of after."""
    from quizsvc.store.migrate import require_up_to_date

    with fail_on_database_errors():
        engine = require_up_to_date()
        try:
            yield engine
        finally:
            engine.dispose()
