"""The reports page: the item statistics (with per-choice counts and per-cell error rates), the
downloads' columns explained, and the downloads, streamed: the gradebook (CSV or XLSX,
rounded for display or exact), the item statistics (CSV), the events (CSV, JSON Lines)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from functools import partial
from typing import Any

from flask import Response, abort, render_template, request, stream_with_context
from flask_babel import gettext

from quizsvc import reports, store
from quizsvc.bank import Bank
from quizsvc.web.context import bank, db, state
from quizsvc.web.instructor.common import begin_reading, bp
from quizsvc.web.login_session import instructor_required

CSV_MIMETYPE = "text/csv"
JSONL_MIMETYPE = "application/x-ndjson"  # JSON Lines: one JSON object per line, UTF-8
XLSX_MIMETYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


@bp.get("/reports")
@instructor_required
def reports_page():
    begin_reading()
    live = bank()
    items = reports.item_statistics(db(), live)
    return render_template(
        "instructor/reports.html",
        bank=live,
        items=items,
        grids={item.question_id: _cell_grid(item.cells) for item in items},
        decimals=_decimals(),
        max_decimals=reports.MAX_DECIMALS,
        gradebook_columns=_gradebook_columns(live),
        item_columns=[
            (name, gettext(reports.ITEM_COLUMN_HELP[name])) for name in reports.ITEM_COLUMNS
        ],
        event_columns=[
            (name, gettext(reports.EVENT_COLUMN_HELP[name])) for name in reports.EVENT_COLUMNS
        ],
    )


def _cell_grid(cells: tuple[reports.CellErrors, ...]) -> list[list[reports.CellErrors | None]]:
    """The cells' error rates laid out as the answer grid (rows of cells, None where no
    submission graded a cell)."""
    if not cells:
        return []
    at = {(cell.row, cell.col): cell for cell in cells}
    rows, cols = max(cell.row for cell in cells), max(cell.col for cell in cells)
    return [[at.get((row, col)) for col in range(1, cols + 1)] for row in range(1, rows + 1)]


def _gradebook_columns(live: Bank) -> list[tuple[str, str]]:
    """(the headers, what they hold) for the gradebook's columns; a group of columns (one
    per chapter question, one per drill skill) is listed by its actual headers."""
    groups = {
        "<question>": [question.id for question in reports.chapter_questions(live)],
        "best:<kind>": [reports.BEST_PREFIX + kind for kind in reports.drill_kinds(live)],
        "mastery:<kind>": [reports.MASTERY_PREFIX + kind for kind in reports.drill_kinds(live)],
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


def _decimals() -> int:
    """The ``decimals`` asked for (the default when none); 400 with a message otherwise."""
    raw = request.args.get("decimals", "")
    if not raw:
        return reports.DEFAULT_DECIMALS
    if not re.fullmatch(r"[0-9]", raw) or int(raw) > reports.MAX_DECIMALS:
        abort(
            400,
            description=gettext(
                "The decimals must be a whole number from 0 to %(most)s, not '%(decimals)s'.",
                most=reports.MAX_DECIMALS,
                decimals=raw[:40],
            ),
        )
    return int(raw)


def _exact() -> bool:
    """Whether the exact values are asked for (``exact=1``); 400 for anything but 0 or 1."""
    raw = request.args.get("exact", "")
    if raw not in ("", "0", "1"):
        abort(
            400, description=gettext("The exact option is 1 or 0, not '%(exact)s'.", exact=raw[:40])
        )
    return raw == "1"


def _gradebook(suffix: str, make: Callable[..., Iterator[bytes]], mimetype: str) -> Response:
    exact, decimals = _exact(), _decimals()
    return _download(
        partial(make, exact=exact, decimals=decimals),
        "gradebook-exact" if exact else "gradebook",
        suffix,
        mimetype,
    )


@bp.get("/reports/gradebook.csv")
@instructor_required
def gradebook_csv():
    return _gradebook("csv", reports.gradebook_csv_chunks, CSV_MIMETYPE)


@bp.get("/reports/gradebook.xlsx")
@instructor_required
def gradebook_xlsx():
    return _gradebook("xlsx", reports.gradebook_xlsx_chunks, XLSX_MIMETYPE)


@bp.get("/reports/items.csv")
@instructor_required
def items_csv():
    return _download(reports.items_csv_chunks, "items", "csv", CSV_MIMETYPE)


@bp.get("/reports/events.csv")
@instructor_required
def events_csv():
    return _download(reports.events_csv_chunks, "events", "csv", CSV_MIMETYPE)


@bp.get("/reports/events.jsonl")
@instructor_required
def events_jsonl():
    return _download(reports.events_jsonl_chunks, "events", "jsonl", JSONL_MIMETYPE)
