"""A chapter's trained model (``<chapter>/model/``) is loaded with the bank and checked
against its corpus: a corpus or weights file that cannot be used is a content error naming
the file (and the line), so that a bank with a broken model is never served; a retrained
model is a new content version."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from bank_samples import OPEN_QUESTION

from quizsvc.bank import BankError, load_bank

MODEL = Path(__file__).resolve().parents[2] / "content" / "transformer-by-hand" / "model"


def model_files(**replaced: bytes) -> dict[str, bytes]:
    """The shipped model's three files under ``ch/model/``, some replaced."""
    files = {
        name: (MODEL / name).read_bytes() for name in ("corpus.tsv", "vocab.json", "model.npz")
    }
    files.update({name.replace("_", "."): data for name, data in replaced.items()})
    return {f"ch/model/{name}": data for name, data in files.items()}


def errors_of(make_content, drill_kinds, files) -> list[str]:
    with pytest.raises(BankError) as caught:
        load_bank(make_content(files), drill_kinds)
    return [str(error) for error in caught.value.errors]


def test_a_chapter_with_a_model_folder_has_its_model(make_content, drill_kinds):
    bank = load_bank(make_content({"ch/q.yaml": OPEN_QUESTION, **model_files()}), drill_kinds)
    model = bank.models["ch"]
    # the chapter's vocabulary: 我 爱 你 and I love you at the ids the chapter gives them
    assert model.source_vocab[1:4] == ("我", "爱", "你")
    assert model.target_vocab[:6] == ("<pad>", "<s>", "<eos>", "I", "love", "you")
    # and the corpus it was trained on, its first pair the chapter's sentence
    corpus = bank.corpora["ch"]
    assert len(corpus.pairs) == 40 and corpus.sha256 == model.corpus_sha256
    assert (corpus.pairs[0].source, corpus.pairs[0].target) == (
        ("我", "爱", "你"),
        ("I", "love", "you"),
    )
    without = load_bank(make_content({"ch/q.yaml": OPEN_QUESTION}), drill_kinds)
    assert without.models == {} and without.corpora == {}


def test_a_retrained_model_is_a_new_version(make_content, drill_kinds):
    files = {"ch/q.yaml": OPEN_QUESTION, **model_files()}
    before = load_bank(make_content(files), drill_kinds).version
    without = load_bank(make_content({"ch/q.yaml": OPEN_QUESTION}), drill_kinds).version
    # the same weights with the log's last loss changed: still a loadable model
    with np.load(MODEL / "model.npz") as archive:
        arrays = dict(archive)
    arrays["losses"] = arrays["losses"].copy()
    arrays["losses"][-1] *= 0.5
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    retrained = {**files, "ch/model/model.npz": buffer.getvalue()}
    after = load_bank(make_content(retrained), drill_kinds).version
    assert len({before, without, after}) == 3


def test_a_corpus_with_an_unknown_word_names_its_file_and_line(make_content, drill_kinds):
    corpus = (MODEL / "corpus.tsv").read_bytes().split(b"\n")
    corpus[2] = "我 爱 独角兽\tI love unicorns".encode()
    files = {"ch/q.yaml": OPEN_QUESTION, **model_files(corpus_tsv=b"\n".join(corpus))}
    [error] = errors_of(make_content, drill_kinds, files)
    assert error.startswith("ch/model/corpus.tsv:3: <document>: the trained model's corpus")
    assert "独角兽" in error


def test_a_corpus_other_than_the_models_is_refused(make_content, drill_kinds):
    corpus = (MODEL / "corpus.tsv").read_bytes()
    files = {"ch/q.yaml": OPEN_QUESTION, **model_files(corpus_tsv=corpus + corpus)}
    [error] = errors_of(make_content, drill_kinds, files)
    assert error.startswith("ch/model/model.npz:?: <document>: the trained model cannot be used")
    assert "trained on another corpus" in error


@pytest.mark.parametrize(
    "weights",
    [b"", b"PK\x03\x04 not a zip", (MODEL / "model.npz").read_bytes()[:5000]],
    ids=["empty", "not-a-zip", "truncated"],
)
def test_a_corrupt_weights_file_is_refused(make_content, drill_kinds, weights):
    files = {"ch/q.yaml": OPEN_QUESTION, **model_files(model_npz=weights)}
    [error] = errors_of(make_content, drill_kinds, files)
    assert error.startswith("ch/model/model.npz:?: <document>: the trained model cannot be used")


def test_a_model_folder_without_weights_is_refused(make_content, drill_kinds):
    files = {"ch/q.yaml": OPEN_QUESTION, **model_files()}
    del files["ch/model/model.npz"]
    [error] = errors_of(make_content, drill_kinds, files)
    assert error.startswith("ch/model/model.npz:?: <document>: the trained model cannot be used")
