"""The `quizsvc` command line."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from quizsvc.bank import Bank, DrillKinds


@click.group()
def main() -> None:
    """quizsvc: quizzes and drills for 'Transformer by hand'."""


@main.group()
def content() -> None:
    """Validate and self-test the question bank under content/."""


# The repository's content/, next to the quizsvc package (an editable install).
DEFAULT_CONTENT_DIR = Path(__file__).resolve().parents[1] / "content"


def _drill_kinds() -> DrillKinds:
    """Each drill kind's params model, looked up only when a command needs them."""
    from quizsvc.drills import drill_param_models

    return drill_param_models()


def _bank_summary(bank: Bank, directory: Path) -> str:
    from quizsvc.bank import QUESTION_TYPES

    lines = [f"content OK: {directory}", f"version: {bank.version}"]
    lines.append(f"chapters: {len(bank.chapters)}")
    for chapter in bank.chapters:
        count = len(bank.questions_in(chapter.id))
        lines.append(f"  {chapter.id}: {chapter.title.en} ({count} questions)")
    by_type = {question_type: 0 for question_type in QUESTION_TYPES}
    for question in bank.questions.values():
        by_type[question.type] += 1
    counts = ", ".join(f"{question_type}: {n}" for question_type, n in by_type.items())
    lines.append(f"questions: {len(bank.questions)} ({counts})")
    return "\n".join(lines)


@content.command("validate")
@click.argument(
    "directory",
    metavar="[DIR]",
    required=False,
    type=click.Path(path_type=Path, file_okay=False, exists=True),
)
def validate_content(directory: Path | None) -> None:
    """Check every file of the question bank in DIR (default: the repository's content/).

    Prints each problem as FILE:LINE: PATH: MESSAGE and exits with status 1 if there
    is any; otherwise prints a summary of the bank.
    """
    from quizsvc.bank import BankError, load_bank

    directory = directory or DEFAULT_CONTENT_DIR
    try:
        bank = load_bank(directory, _drill_kinds())
    except BankError as exc:
        for error in exc.errors:
            click.echo(str(error))
        # The count goes to stderr so stdout stays one error per line for tools.
        click.echo(f"{len(exc.errors)} content error(s) in {directory}", err=True)
        raise SystemExit(1) from None
    click.echo(_bank_summary(bank, directory))


@main.command()
@click.option("--errata", is_flag=True, help="Print docs/errata.md instead (Markdown).")
def chapter(errata: bool) -> None:
    """Print the chapter's worked example, computed by the engine."""
    if errata:
        from engine.chapter import errata_markdown

        click.echo(errata_markdown(), nl=False)
    else:
        from quizsvc.worked_example import worked_example_text

        click.echo(worked_example_text())
