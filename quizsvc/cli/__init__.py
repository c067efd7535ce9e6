"""The `quizsvc` command line: `main`, and one module per command group."""

from __future__ import annotations

import click

from quizsvc.cli import chapter, content, db, lti, model, report, user
from quizsvc.cli.content import test_content, validate_content

__all__ = ["main", "test_content", "validate_content"]


@click.group()
@click.pass_context
def main(context: click.Context) -> None:
    """quizsvc: quizzes and drills for 'Transformer by hand'.

    Settings come from the environment, read as the app reads them (docs/settings.md).
    """
    from quizsvc.settings import SettingsError, from_environment

    try:
        context.obj = from_environment()
    except SettingsError as exc:
        for problem in str(exc).splitlines():
            click.echo(f"error: {problem}", err=True)
        raise SystemExit(1) from None


for command in (
    content.content,
    chapter.chapter,
    model.model,
    db.db,
    user.user,
    report.report,
    lti.lti,
):
    main.add_command(command)
