"""Every worker process serves the bank version the database records as live.

An instructor's reload records the new bank's version (`publish`), only after the bank
validated, and swaps it in the process that served the reload. Every process reads the
record (one row, by its primary key) before a request, at most once every CHECK_INTERVAL
seconds (`follow`): when a newer version was recorded, it loads the content directory and
swaps its bank, so that a request that begins CHECK_INTERVAL seconds or more after a reload
was recorded is served the new bank. A process whose content directory does not give that
version (invalid there, or edited again since) keeps its bank and logs why; each process
records the version it serves (`ContentWorker`), and the instructor's content page shows
them when they differ (`served_versions`).
"""

from __future__ import annotations

import logging
import os
import socket
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from flask import Flask
from sqlalchemy.exc import SQLAlchemyError

from quizsvc import store
from quizsvc.bank import Bank
from quizsvc.web.context import AppState, load_content, state

log = logging.getLogger(__name__)

CHECK_INTERVAL = 1.0  # seconds between two reads of the record, per process
REPORT_INTERVAL = 60.0  # seconds between two records of the same served version
# A worker not heard from for this long is not listed (it checks before its next request).
SEEN_WITHIN = timedelta(minutes=10)


def worker_id() -> str:
    """This process, as the content page names it: host:pid."""
    return f"{socket.gethostname()}:{os.getpid()}"


def follow() -> None:
    """Before a request: swap in the bank recorded as live if it is newer than this
    process's (at most one read every CHECK_INTERVAL seconds). A request arriving while
    another thread loads the new bank waits for it."""
    started = time.monotonic()
    live = state()
    if started - live.checked_at < CHECK_INTERVAL:
        return
    with live.sync_lock:
        # another thread's check, begun less than CHECK_INTERVAL before this request, saw
        # every version recorded until CHECK_INTERVAL before it
        if started - live.checked_at < CHECK_INTERVAL:
            return
        checking = time.monotonic()
        try:
            with live.sessions() as session:
                store.begin_read_only(session)
                latest = store.latest_content_load(session)
        except SQLAlchemyError:
            log.exception("cannot read which content version is live; keeping this one")
            return  # checked_at unchanged: the next request tries again
        if latest is not None and latest.id > live.followed_load:
            _follow(live, latest)
        live.checked_at = checking
        _report(live)


def _follow(live: AppState, latest: store.LoadedContent) -> None:
    if latest.version != live.bank.version:
        try:
            candidate = load_content(live.content_dir)
        except Exception as exc:  # BankError with its problems, or anything a load raises
            log.error(
                "content version %s was made live, but the content in %s does not load in"
                " this process (%s); still serving version %s",
                latest.version[:12],
                live.content_dir,
                exc,
                live.bank.version[:12],
            )
        else:
            if candidate.version == latest.version:
                live.install(candidate)
                log.info("content version %s is live in this process", latest.version[:12])
            else:
                log.error(
                    "content version %s was made live, but the content in %s is version %s"
                    " now; still serving version %s until it is reloaded",
                    latest.version[:12],
                    live.content_dir,
                    candidate.version[:12],
                    live.bank.version[:12],
                )
    live.followed_load = latest.id  # tried once: the next reload is the next chance


def _report(live: AppState, *, force: bool = False) -> None:
    """Record the version this process serves, when it changed or every REPORT_INTERVAL."""
    now = time.monotonic()
    served = (worker_id(), live.bank.version, live.followed_load)
    if not force and served == live.reported and now - live.reported_at < REPORT_INTERVAL:
        return
    try:
        with live.sessions() as session:
            store.record_served_content(session, *served)
    except SQLAlchemyError:
        log.exception("cannot record the content version this process serves")
        return
    live.reported, live.reported_at = served, now


def publish(candidate: Bank) -> Bank:
    """Make a bank that validated the live one: recorded for every process, swapped in
    this one."""
    live = state()
    with live.sync_lock:
        with live.sessions() as session:
            loaded = store.record_content_load(session, candidate.version)
        live.install(candidate)
        live.followed_load = loaded.id
        _report(live, force=True)
    return candidate


@dataclass(frozen=True)
class ServedVersions:
    """The version recorded as live (None before any) and, by worker, the version each
    process heard from lately serves (this one's as it is now)."""

    live: str | None
    workers: tuple[store.ServedContent, ...]

    @property
    def differ(self) -> bool:
        versions = {worker.version for worker in self.workers}
        if self.live is not None:
            versions.add(self.live)
        return len(versions) > 1


def served_versions() -> ServedVersions:
    live = state()
    now = datetime.now(UTC)
    with live.sessions() as session:
        store.begin_read_only(session)
        latest = store.latest_content_load(session)
        workers = {
            worker.worker: worker
            for worker in store.served_content(session, since=now - SEEN_WITHIN)
        }
    me = worker_id()
    workers[me] = store.ServedContent(me, live.bank.version, live.followed_load, now)
    return ServedVersions(
        None if latest is None else latest.version,
        tuple(workers[name] for name in sorted(workers)),
    )


def init_app(app: Flask) -> None:
    app.before_request(follow)
