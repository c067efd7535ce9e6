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
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["csv", "xlsx"]),
    default="csv",
    show_default=True,
    help="CSV (UTF-8 with a BOM) or XLSX (one worksheet).",
)
@click.option(
    "--exact",
    is_flag=True,
    help="The values unrounded, as fractions from 0 to 1 (default: percentages rounded to"
    " --decimals places).",
)
@click.option(
    "--decimals",
    type=click.IntRange(0, 6),
    default=1,
    show_default=True,
    help="Decimals of the rounded percentages (not with --exact).",
)
@_out_option
@_content_option
def report_gradebook(
    output_format: str, exact: bool, decimals: int, out: str, content_dir: Path | None
) -> None:
    """Write the gradebook: one row per student, with the chapter questions' scores, the best
    score and mastery per drill kind, the chapter and drill totals and the last activity
    (columns: quizsvc/reports/gradebook.py)."""
    from quizsvc.reports import gradebook_csv_chunks, gradebook_xlsx_chunks

    output = output_for(out)
    bank = load_bank_or_exit(content_dir or default_content_dir())
    export = gradebook_csv_chunks if output_format == "csv" else gradebook_xlsx_chunks
    _read_reports(
        lambda session: write_chunks(output, export(session, bank, exact=exact, decimals=decimals))
    )


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
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "csv"]),
    default="text",
    show_default=True,
    help="A plain-text table, or CSV (UTF-8 with a BOM) with a line per choice and per drill cell.",
)
@_out_option
@_content_option
def report_items(output_format: str, out: str, content_dir: Path | None) -> None:
    """Each question's students, attempts, mean score, facility and discrimination index
    (Moodle's definitions: the discrimination index is the correlation of the item score with
    the rest of the test; see quizsvc/reports/items.py); the CSV adds per-choice counts and
    per-cell error rates of drills."""
    from quizsvc.reports import format_item_table, item_statistics, items_csv_chunks

    output = output_for(out)
    bank = load_bank_or_exit(content_dir or default_content_dir())
    if output_format == "csv":
        _read_reports(lambda session: write_chunks(output, items_csv_chunks(session, bank)))
    else:
        _read_reports(
            lambda session: write_chunks(
                output, [(format_item_table(item_statistics(session, bank)) + "\n").encode()]
            )
        )
