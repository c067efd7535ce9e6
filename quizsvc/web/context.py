"""Per-application state (database sessions, the question bank) and per-request access."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from flask import current_app, g
from sqlalchemy.orm import Session, sessionmaker

from quizsvc import store
from quizsvc.bank import Bank, load_bank
from quizsvc.drills import drill_param_models
from quizsvc.store import migrate


@dataclass
class AppState:
    sessions: sessionmaker[Session]
    content_dir: Path
    bank: Bank  # replaced whole by a reload, never modified

    @classmethod
    def create(cls, database_url: str | None, content_dir: Path) -> AppState:
        """StoreError if the database is missing or behind the migrations: the app never
        creates one (a mistyped URL would otherwise serve an empty, unmigrated file)."""
        engine = migrate.require_up_to_date(database_url)
        return cls(store.make_session_factory(engine), content_dir, load_content(content_dir))

    def install(self, new_bank: Bank) -> Bank:
        """Make a bank already loaded (hence valid: `load_content` raises BankError listing
        every problem otherwise) the live one, in one assignment, so a request sees the old
        bank or the new one, never a mixture. This swaps the bank of this process only:
        serve with one worker process (and threads, as `make run` does), or other workers
        keep their old bank."""
        self.bank = new_bank
        return new_bank


def load_content(content_dir: Path) -> Bank:
    return load_bank(content_dir, drill_param_models())


def state() -> AppState:
    return current_app.extensions["quizsvc"]


def bank() -> Bank:
    """The bank this request started with: a reload meanwhile never mixes two banks."""
    if "bank" not in g:
        g.bank = state().bank
    return g.bank


def db() -> Session:
    """This request's session (one per request, closed at teardown)."""
    if "db" not in g:
        g.db = state().sessions()
    return g.db


def close_db(_exc: BaseException | None = None) -> None:
    session = g.pop("db", None)
    if session is not None:
        session.close()
