"""The reports page: the item statistics, the gradebook's and the events' columns explained,
and the downloads, streamed."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

from flask import Response, render_template, stream_with_context
from flask_babel import gettext

from quizsvc import reports, store
from quizsvc.bank import Bank
from quizsvc.web.context import bank, db, state
from quizsvc.web.instructor.common import begin_reading, bp
from quizsvc.web.login_session import instructor_required

CSV_MIMETYPE = "text/csv"
JSONL_MIMETYPE = "application/x-ndjson"  # JSON Lines: one JSON object per line, UTF-8


@bp.get("/reports")
@instructor_required
def reports_page():
    begin_reading()
    live = bank()
    return render_template(
        "instructor/reports.html",
        bank=live,
        items=reports.item_statistics(db(), live),
        gradebook_columns=_gradebook_columns(live),
        event_columns=[
            (name, gettext(reports.EVENT_COLUMN_HELP[name])) for name in reports.EVENT_COLUMNS
        ],
    )


def _gradebook_columns(live: Bank) -> list[tuple[str, str]]:
    """(the headers, what they hold) for the gradebook's columns; a group of columns (one
    per chapter question, one per drill skill) is listed by its actual headers."""
    groups = {
        "<question>": [question.id for question in reports.chapter_questions(live)],
        "mastery:<skill>": [reports.MASTERY_PREFIX + skill for skill in reports.drill_skills(live)],
    }
    return [
        (", ".join(groups.get(name, [name])), gettext(help_text))
        for name, help_text in reports.GRADEBOOK_COLUMN_HELP.items()
        if groups.get(name, [name])
    ]


def _download(
    make_chunks: Callable[[Any, Bank], Iterator[bytes]], name: str, suffix: str, mimetype: str
) -> Response:
    """A streamed attachment: the chunks are written while the response is sent.

    The chunks are read through a session of their own, begun read-only when the first
    chunk is asked for and closed after the last one (or when the client goes away and
    the server closes the iterator). The request's session cannot serve: it is closed
    when the view returns, before the body is sent."""
    live = bank()  # the bank of this request, even if a reload swaps it meanwhile
    sessions = state().sessions

    def chunks() -> Iterator[bytes]:
        with sessions() as session:
            store.begin_read_only(session)
            yield from make_chunks(session, live)

    day = datetime.now(UTC).strftime("%Y-%m-%d")
    response = Response(stream_with_context(chunks()), mimetype=mimetype)
    response.headers["Content-Disposition"] = f'attachment; filename="{name}-{day}.{suffix}"'
    response.headers["Cache-Control"] = "no-store"  # students' grades
    return response


@bp.get("/reports/gradebook.csv")
@instructor_required
def gradebook_csv():
    return _download(reports.gradebook_csv_chunks, "gradebook", "csv", CSV_MIMETYPE)


@bp.get("/reports/events.csv")
@instructor_required
def events_csv():
    return _download(reports.events_csv_chunks, "events", "csv", CSV_MIMETYPE)


@bp.get("/reports/events.jsonl")
@instructor_required
def events_jsonl():
    return _download(reports.events_jsonl_chunks, "events", "jsonl", JSONL_MIMETYPE)
