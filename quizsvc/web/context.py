"""Per-application state (database sessions, the question bank) and per-request access."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from flask import current_app, g
from sqlalchemy.orm import Session, sessionmaker

from quizsvc import store
from quizsvc.bank import Bank, load_bank
from quizsvc.drills import drill_param_models
from quizsvc.store import migrate

log = logging.getLogger(__name__)


@dataclass
class AppState:
    """What a process holds for its app. The bank is derived state: the version the
    database records as live (`store.latest_content_load`), loaded from `content_dir`;
    `content_sync` keeps it so (`followed_load`: the newest recorded load this process has
    acted on; `checked_at`: when, on `time.monotonic`'s clock, it last read the record)."""

    sessions: sessionmaker[Session]
    content_dir: Path
    bank: Bank  # replaced whole by a reload, never modified
    followed_load: int = 0
    checked_at: float = field(default_factory=time.monotonic)
    reported: tuple[str, str, int] | None = None  # (worker, version, load) last recorded
    reported_at: float = 0.0
    # held while the record is read and a bank loaded, so that a request waits for a swap
    # under way rather than start on the bank it replaces
    sync_lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def create(cls, database_url: str | None, content_dir: Path) -> AppState:
        """StoreError if the database is missing or behind the migrations: the app never
        creates one (a mistyped URL would otherwise serve an empty, unmigrated file).

        The bank is the content directory's. Into an empty record it goes as the first
        live version; if another version is recorded as live, the directory holds other
        content than the last reload made live (edited since, or deployed with a restart):
        it is served, logged, and the instructor's content page shows the difference."""
        engine = migrate.require_up_to_date(database_url)
        sessions = store.make_session_factory(engine)
        bank = load_content(content_dir)
        with sessions() as session:
            live = store.record_first_content_load(session, bank.version)
        # no connection left in the pool: a server that forks its workers from this
        # process (gunicorn --preload) must not have them share one
        engine.dispose()
        if live.version != bank.version:
            log.warning(
                "content in %s is version %s, not the version last made live (%s): serving"
                " it; an instructor's reload makes it the live one for every worker",
                content_dir,
                bank.version[:12],
                live.version[:12],
            )
        return cls(sessions, content_dir, bank, followed_load=live.id)

    def install(self, new_bank: Bank) -> Bank:
        """Make a bank already loaded (hence valid: `load_content` raises BankError listing
        every problem otherwise) this process's live one, in one assignment, so a request
        sees the old bank or the new one, never a mixture. Other processes follow through
        the database (`content_sync.publish`)."""
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
