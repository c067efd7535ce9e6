"""A chapter's trained model: ``<chapter>/model/`` with the corpus it was trained on
(``corpus.tsv``, ``vocab.json``) and the weights (``model.npz``), loaded with the bank and
checked against that corpus, so that a bank never serves a model it could not run or one
trained on other data. A chapter without a ``model/`` folder has no trained model."""

from __future__ import annotations

import re
from pathlib import Path

from engine.corpus import Corpus, CorpusError, read_corpus
from engine.trained import TrainedModel, TrainedModelError, load_trained
from quizsvc.bank.problems import ContentError, ContentProblem

MODEL_DIR = "model"
CORPUS_FILE, VOCAB_FILE, WEIGHTS_FILE = "corpus.tsv", "vocab.json", "model.npz"
MODEL_FILES = (VOCAB_FILE, CORPUS_FILE, WEIGHTS_FILE)


def model_files(directory: Path, chapter_dir: str) -> dict[str, bytes]:
    """The model folder's files that exist, by their path relative to the content
    directory (for the bank's version: a retrained model is new content)."""
    found = {}
    for name in MODEL_FILES:
        path = directory / chapter_dir / MODEL_DIR / name
        if path.is_file():
            try:
                found[f"{chapter_dir}/{MODEL_DIR}/{name}"] = path.read_bytes()
            except OSError:
                continue  # load_chapter_model reports it
    return found


def load_chapter_model(
    directory: Path, chapter_dir: str, errors: list[ContentError]
) -> tuple[TrainedModel, Corpus] | None:
    """The chapter's trained model and the corpus it was trained on; None if it has no model
    folder, or (with the reason added to ``errors``) if the model or its corpus cannot be
    used."""
    folder = directory / chapter_dir / MODEL_DIR
    if not folder.is_dir():
        return None
    corpus, vocab, weights = (folder / name for name in (CORPUS_FILE, VOCAB_FILE, WEIGHTS_FILE))
    try:
        trained_on = read_corpus(corpus, vocab)
    except CorpusError as exc:
        errors.append(_error(directory, exc, ContentProblem.CORPUS_INVALID))
        return None
    try:
        return load_trained(weights, corpus_hash=trained_on.sha256), trained_on
    except TrainedModelError as exc:
        errors.append(_error(directory, exc, ContentProblem.MODEL_INVALID))
        return None


def _error(directory: Path, exc: ValueError, code: ContentProblem) -> ContentError:
    """The engine's "PATH[:LINE]: reason" as a content error of the file PATH names."""
    message = str(exc)
    match = re.match(r"(?P<path>/.+?)(?::(?P<line>\d+))?: (?P<reason>.*)", message, re.DOTALL)
    if match is None or not Path(match["path"]).is_relative_to(directory):
        return ContentError.of(".", "", None, code, reason=message)
    file = Path(match["path"]).relative_to(directory).as_posix()
    line = int(match["line"]) if match["line"] else None
    return ContentError.of(file, "", line, code, reason=match["reason"])
