"""`quizsvc content`: validate and self-test the question bank."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from quizsvc.cli.common import current_settings

if TYPE_CHECKING:
    from quizsvc.bank import Bank, DrillKinds


@click.group()
def content() -> None:
    """Validate and self-test the question bank under content/."""


def default_content_dir() -> Path:
    """$QUIZSVC_CONTENT_DIR, as the web app reads it, else the repository's content/: so a
    report and the server it sits beside use the same bank."""
    return current_settings().content_dir


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
        if (model := bank.models.get(chapter.id)) is not None:
            config = model.config
            lines.append(
                f"    trained model: d_model {config.d_model}, {config.n_heads} heads,"
                f" {config.n_encoder_layers} + {config.n_decoder_layers} layers,"
                f" final loss {model.losses[-1]:.5f}"
            )
    by_type = {question_type: 0 for question_type in QUESTION_TYPES}
    for question in bank.questions.values():
        by_type[question.type] += 1
    counts = ", ".join(f"{question_type}: {n}" for question_type, n in by_type.items())
    lines.append(f"questions: {len(bank.questions)} ({counts})")
    return "\n".join(lines)


# The bank's folder, for the content commands: $QUIZSVC_CONTENT_DIR or content/ when omitted.
_content_dir_argument = click.argument(
    "directory",
    metavar="[DIR]",
    required=False,
    type=click.Path(path_type=Path, file_okay=False, exists=True),
)


@content.command("validate")
@_content_dir_argument
def validate_content(directory: Path | None) -> None:
    """Check every file of the question bank in DIR (default: $QUIZSVC_CONTENT_DIR, else the
    repository's content/).

    Prints each problem as FILE:LINE: PATH: MESSAGE and exits with status 1 if there
    is any; otherwise prints a summary of the bank.
    """
    directory = directory or default_content_dir()
    bank = load_bank_or_exit(directory)
    click.echo(_bank_summary(bank, directory))


def load_bank_or_exit(directory: Path) -> Bank:
    """The bank in ``directory``; if it does not load, print its errors and exit with 1."""
    from quizsvc.bank import BankError, load_bank

    try:
        return load_bank(directory, _drill_kinds())
    except BankError as exc:
        for error in exc.errors:
            click.echo(str(error))
        # The count goes to stderr so stdout stays one error per line for tools.
        click.echo(f"{len(exc.errors)} content error(s) in {directory}", err=True)
        raise SystemExit(1) from None


@content.command("test")
@_content_dir_argument
@click.option(
    "--seeds",
    type=click.IntRange(min=1),
    default=5,
    show_default=True,
    help="Seeds per drill question (0, 1, ..., N-1).",
)
def test_content(directory: Path | None, seeds: int) -> None:
    """Self-test every numeric and drill question of the bank in DIR (default:
    $QUIZSVC_CONTENT_DIR, else content/).

    The expected answer must grade 100%, an answer with a few cells off by a plausible
    mistake must lose exactly those cells, and malformed answers must be rejected; drills
    are tested for several seeds.  Prints one line per question (failures indented below
    it) and a summary; exits with status 1 if any check fails, or, listing its errors as
    `content validate` does, if the bank does not load.
    """
    from quizsvc.selftest import run_selftest

    directory = directory or default_content_dir()
    bank = load_bank_or_exit(directory)
    report = run_selftest(bank, seeds=tuple(range(seeds)))
    width = max((len(question.question_id) for question in report.questions), default=0)
    for question in report.questions:
        what = question.question_type + (f" {question.kind}" if question.kind else "")
        count = len(question.seeds)
        seeds_text = f", {count} seed{'' if count == 1 else 's'}" if count else ""
        if question.passed:
            status = f"{len(question.checks)} checks{seeds_text}"
            click.echo(f"ok    {question.question_id:<{width}}  {what}: {status}")
        else:
            status = f"{len(question.failures)} of {len(question.checks)} checks failed"
            click.echo(
                f"FAIL  {question.question_id:<{width}}  {what} at {question.source}: {status}"
            )
            for check in question.failures:
                click.echo(f"      {check}")
        for note in question.notes:
            click.echo(f"      note: {note}")
    click.echo(f"content test: {report.summary()}")
    if not report.passed:
        raise SystemExit(1)
