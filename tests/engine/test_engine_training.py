"""The shipped toy model: it learned the corpus (loss, greedy decoding of every pair), its
cross-attention aligns the chapter's sentence word by word, and training it again with its seed
gives the same weights; the two commands that train it."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import engine.train
from engine.corpus import corpus_hash, read_corpus
from engine.decoding import greedy_decode
from engine.model import forward, teacher_forcing_loss
from engine.optim import leaves
from engine.trace import Trace
from engine.train import CORPUS_FILE, MODEL_DIR, MODEL_FILE, VOCAB_FILE, train_and_save
from engine.trained import load_trained
from engine.training import SEED, STEPS, labels_per_step, train
from quizsvc.cli import main

CORPUS = read_corpus(MODEL_DIR / CORPUS_FILE, MODEL_DIR / VOCAB_FILE)
MODEL = load_trained(MODEL_DIR / MODEL_FILE, corpus_hash=CORPUS.sha256)
ROOT = Path(__file__).resolve().parents[2]


def test_the_training_loss_ends_below_0_05():
    assert MODEL.losses[-1] < 0.05
    # recomputed from the weights by the plain forward pass: the mean -log p(label) per pair
    for pair in CORPUS.pairs:
        src = np.array(CORPUS.vocab.source_ids(pair.source))
        loss, _, _ = teacher_forcing_loss(
            src, [CORPUS.vocab.target_ids(pair.target)], MODEL.params, MODEL.config
        )
        assert loss < 0.05, pair
    # it started from a guess: about ln(36) for 36 target tokens
    assert abs(MODEL.losses[0] - np.log(len(CORPUS.vocab.target))) < 1.0


@pytest.mark.parametrize("pair", CORPUS.pairs, ids=lambda p: " ".join(p.source))
def test_greedy_decoding_reproduces_every_training_pair(pair):
    src = np.array([MODEL.source_vocab.index(t) for t in pair.source])
    tokens = greedy_decode(src, MODEL.params, MODEL.config, max_len=8).tokens[0]
    words = [MODEL.target_vocab[i] for i in tokens]
    assert words == [*pair.target, "<eos>"]


def test_the_chapter_s_sentence_decodes_to_i_love_you():
    src = np.array([[MODEL.source_vocab.index(t) for t in ("我", "爱", "你")]])
    for use_cache in (True, False):
        result = greedy_decode(src, MODEL.params, MODEL.config, max_len=8, use_cache=use_cache)
        assert [MODEL.target_vocab[i] for i in result.tokens[0]] == ["I", "love", "you", "<eos>"]


def test_cross_attention_aligns_each_english_word_with_its_chinese_word():
    """The query that produces a word is at the decoder's input token before it, as the
    chapter decodes: <s> produces I, I produces love, love produces you (teacher forcing's
    <s> I love -> I love you). That position's decoder state is what the output layer turns
    into the word, so it is the one that has to look up the source word it translates. The
    weights are averaged over the heads of the last (here the only) decoder layer."""
    source = ("我", "爱", "你")
    src = np.array([[MODEL.source_vocab.index(t) for t in source]])
    decoder_input = np.array([[MODEL.target_vocab.index(t) for t in ("<s>", "I", "love")]])
    trace = Trace()
    forward(src, decoder_input, MODEL.params, MODEL.config, trace)
    last = MODEL.config.n_decoder_layers - 1
    weights = trace[f"decoder.{last}.cross_attn.weights"][0].mean(axis=0)  # (queries, keys)
    produced = {"I": "我", "love": "爱", "you": "你"}
    for query, (word, translated) in enumerate(produced.items()):
        assert source[int(np.argmax(weights[query]))] == translated, (word, weights[query])


def test_a_step_is_scored_on_every_target_word_and_its_eos():
    result = train(CORPUS, steps=1)
    assert result.tokens_per_step == labels_per_step(CORPUS) == 3 * 40 + 40


def test_the_same_seed_trains_the_same_model_and_another_seed_another():
    first, again, other = (train(CORPUS, steps=3, seed=s).params for s in (5, 5, 6))
    for a, b in zip(leaves(first), leaves(again), strict=True):
        np.testing.assert_array_equal(a, b)
    assert not np.allclose(leaves(first)[0], leaves(other)[0])


@pytest.mark.slow  # a full training run, a few seconds
def test_training_again_with_the_seed_reproduces_the_shipped_model(tmp_path):
    out = tmp_path / "model.npz"
    start = time.perf_counter()
    train_and_save(MODEL_DIR, out, seed=MODEL.seed, steps=len(MODEL.losses), progress=False)
    assert time.perf_counter() - start < 120
    again = load_trained(out, corpus_hash=CORPUS.sha256)
    assert again.config == MODEL.config
    np.testing.assert_allclose(again.losses, MODEL.losses, rtol=1e-6, atol=1e-9)
    for retrained, shipped in zip(leaves(again.params), leaves(MODEL.params), strict=True):
        np.testing.assert_allclose(retrained, shipped, rtol=1e-6, atol=1e-6)


def tiny_corpus(folder: Path, corpus: str) -> Path:
    folder.mkdir()
    (folder / CORPUS_FILE).write_text(corpus, encoding="utf-8")
    (folder / VOCAB_FILE).write_bytes((MODEL_DIR / VOCAB_FILE).read_bytes())
    return folder


def test_quizsvc_model_train_writes_a_model_of_the_corpus(tmp_path):
    folder = tiny_corpus(tmp_path / "c", "我 爱 你\tI love you\n他 爱 我\the loves me\n")
    out = tmp_path / "m.npz"
    args = ["model", "train", "--corpus", str(folder), "--out", str(out), "--steps", "3"]
    result = CliRunner().invoke(main, [*args, "--quiet"])
    assert result.exit_code == 0, result.output
    assert "trained 3 steps" in result.output and str(out) in result.output
    model = load_trained(out, corpus_hash=corpus_hash(folder / CORPUS_FILE, folder / VOCAB_FILE))
    assert len(model.losses) == 3 and model.seed == 0


def test_the_progress_bar_shows_the_step_the_loss_and_tokens_per_second(tmp_path, capsys):
    folder = tiny_corpus(tmp_path / "c", "我 爱 你\tI love you\n")
    result = train_and_save(folder, tmp_path / "m.npz", steps=3, progress=True)
    bar = capsys.readouterr().err.split("\r")[-1]
    assert re.search(rf"3/3 .*loss {result.losses[-1]:.4f}, [\d,]+ tokens/s", bar), bar


def test_quizsvc_model_train_defaults_to_the_engine_s_seed_and_steps():
    command = main.commands["model"].commands["train"]
    defaults = {param.name: param.default for param in command.params}
    assert (defaults["seed"], defaults["steps"]) == (SEED, STEPS) == (MODEL.seed, len(MODEL.losses))


def test_quizsvc_model_train_refuses_a_bad_corpus_with_its_line(tmp_path):
    folder = tiny_corpus(tmp_path / "c", "我 爱 你\tI love you\n我 爱 狮子\tI love lions\n")
    out = tmp_path / "m.npz"
    result = CliRunner().invoke(
        main, ["model", "train", "--corpus", str(folder), "--out", str(out)]
    )
    assert result.exit_code == 1
    assert f"error: {folder / CORPUS_FILE}:2: 狮子 not in the zh vocabulary" in result.output
    assert not out.exists()


def test_quizsvc_model_train_refuses_an_out_folder_that_does_not_exist_before_training(
    tmp_path, monkeypatch
):
    def no_training(*args, **kwargs):
        raise AssertionError("trained before finding that the model cannot be written")

    monkeypatch.setattr(engine.train, "train", no_training)
    out = tmp_path / "no" / "m.npz"
    result = CliRunner().invoke(main, ["model", "train", "--out", str(out), "--quiet"])
    assert result.exit_code == 1
    assert f"error: {out}: cannot write: no such folder" in result.output


@pytest.mark.slow  # a subprocess
def test_python_m_engine_train_refuses_a_bad_corpus_with_its_line(tmp_path):
    folder = tiny_corpus(tmp_path / "c", "我 爱 你\tI love you\n\n")
    run = subprocess.run(
        [sys.executable, "-m", "engine.train", "--corpus", str(folder), "--steps", "2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 1
    assert run.stderr.strip() == f"error: {folder / CORPUS_FILE}:2: empty line"
