"""`quizsvc model`: the chapter's trained toy model."""

from __future__ import annotations

from pathlib import Path

import click

from quizsvc.cli.common import current_settings, fail


@click.group()
def model() -> None:
    """The toy Transformer trained on the chapter's sentences."""


@model.command("train")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the initial weights.")
@click.option(
    "--steps", type=click.IntRange(min=1), default=300, show_default=True, help="Training steps."
)
@click.option(
    "--corpus",
    "corpus_dir",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    default=None,
    help="Folder of corpus.tsv and vocab.json [default: transformer-by-hand/model/ of the "
    "content directory].",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="The .npz to write [default: model.npz in the corpus folder, the shipped model].",
)
@click.option("--quiet", is_flag=True, help="No progress bar.")
def train(seed: int, steps: int, corpus_dir: Path | None, out: Path | None, quiet: bool) -> None:
    """Train the toy model on the corpus (as `python -m engine.train`) and save it."""
    from engine.corpus import CorpusError
    from engine.train import MODEL_FILE, summary, train_and_save

    if corpus_dir is None:
        corpus_dir = current_settings().content_dir / "transformer-by-hand" / "model"
    out = out if out is not None else corpus_dir / MODEL_FILE
    try:
        result = train_and_save(corpus_dir, out, seed, steps, progress=not quiet)
    except CorpusError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"{out}: cannot write: {exc.strerror or exc}")
    click.echo(summary(result, out))
