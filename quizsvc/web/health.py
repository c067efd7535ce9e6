"""`GET /healthz`, for a load balancer or a process supervisor: 200 `{"status": "ok"}` once
the database answered a trivial query, 503 `{"status": "unavailable"}` when it did not (this
worker cannot serve anyone then, so the balancer should send requests elsewhere). No login,
no throttle, no cookie read or set; never cached (`Cache-Control: no-store`, as every
response but the static files)."""

from __future__ import annotations

import logging

from flask import Blueprint, Response, jsonify
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from quizsvc import store
from quizsvc.web.context import state

log = logging.getLogger(__name__)

bp = Blueprint("health", __name__)


@bp.get("/healthz")
def healthz() -> tuple[Response, int]:
    try:
        # a session of its own, closed at once: the check never holds a connection; read
        # only (on SQLite a plain transaction would queue for the write lock)
        with state().sessions() as session:
            store.begin_read_only(session)
            session.execute(text("SELECT 1")).scalar_one()
    except SQLAlchemyError as exc:
        log.warning("health check: the database did not answer: %s", exc)
        return jsonify(status="unavailable", reason="the database did not answer"), 503
    return jsonify(status="ok"), 200
