"""`quizsvc chapter`: the chapter's worked example, or its errata."""

from __future__ import annotations

import click


@click.command()
@click.option("--errata", is_flag=True, help="Print docs/errata.md instead (Markdown).")
def chapter(errata: bool) -> None:
    """Print the chapter's worked example, computed by the engine."""
    if errata:
        from engine.chapter import errata_markdown

        click.echo(errata_markdown(), nl=False)
    else:
        from quizsvc.worked_example import worked_example_text

        click.echo(worked_example_text())
