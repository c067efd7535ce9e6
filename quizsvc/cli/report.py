"""`quizsvc report`: instructor reports on the students' work."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from quizsvc.cli.common import migrated_database
from quizsvc.cli.content import default_content_dir, load_bank_or_exit
from quizsvc.cli.output import output_for, write_chunks

if TYPE_CHECKING:
    from collections.abc import Callable

    from sqlalchemy.orm import Session


@click.group()
def report() -> None:
    """Instructor reports on the students' work (read-only; see quizsvc/reports/)."""


def _content_option(command: Callable) -> Callable:
    return click.option(
        "--content",
        "content_dir",
        type=click.Path(path_type=Path, file_okay=False, exists=True),
        help="The question bank's directory (default: $QUIZSVC_CONTENT_DIR, else the "
        "repository's content/).",
    )(command)


def _out_option(command: Callable) -> Callable:
    return click.option(
        "--out",
        metavar="FILE",
        default="-",
        show_default=True,
        help=(
            "Where to write: - for stdout; a file (replaced only once complete; through a"
            " symlink, its target); a FIFO or a character device (written as it goes)."
        ),
    )(command)


def _read_reports(work: Callable[[Session], None]) -> None:
    """Run ``work`` in a read-only session on DATABASE_URL (which must be migrated)."""
    from quizsvc.store import begin_read_only, make_session_factory

    with migrated_database() as engine, make_session_factory(engine)() as session:
        begin_read_only(session)
        work(session)


@report.command("gradebook")
@_out_option
@_content_option
def report_gradebook(out: str, content_dir: Path | None) -> None:
    """Write the gradebook as CSV (UTF-8 with a BOM): one row per student, with the chapter
    questions' scores, each drill skill's mastery, the total and the last activity."""
    from quizsvc.reports import gradebook_csv_chunks

    output = output_for(out)
    bank = load_bank_or_exit(content_dir or default_content_dir())
    _read_reports(lambda session: write_chunks(output, gradebook_csv_chunks(session, bank)))


@report.command("events")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["csv", "jsonl"]),
    default="csv",
    show_default=True,
    help="CSV (UTF-8 with a BOM) or JSON Lines.",
)
@_out_option
@_content_option
def report_events(output_format: str, out: str, content_dir: Path | None) -> None:
    """Write every drill submission and quiz answer of the students, one row each
    (streamed: any number of rows in constant memory)."""
    from quizsvc.reports import events_csv_chunks, events_jsonl_chunks

    output = output_for(out)
    bank = load_bank_or_exit(content_dir or default_content_dir())
    export = events_csv_chunks if output_format == "csv" else events_jsonl_chunks
    _read_reports(lambda session: write_chunks(output, export(session, bank)))


@report.command("items")
@_content_option
def report_items(content_dir: Path | None) -> None:
    """Print each question's students, attempts, mean score, facility and discrimination
    index (Moodle's definitions; see quizsvc/reports/items.py)."""
    from quizsvc.reports import format_item_table, item_statistics

    bank = load_bank_or_exit(content_dir or default_content_dir())
    _read_reports(lambda session: click.echo(format_item_table(item_statistics(session, bank))))
