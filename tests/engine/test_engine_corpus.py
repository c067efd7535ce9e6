"""The toy model's corpus: the shipped files read as the chapter numbers its words, and every
kind of bad line refused with its file and line."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from engine.chapter_model import SOURCE_IDS, TARGET_IDS, TARGET_VOCAB
from engine.corpus import CorpusError, corpus_hash, read_corpus, read_vocabulary
from engine.train import CORPUS_FILE, MODEL_DIR, VOCAB_FILE

VOCAB = {
    "specials": ["<pad>", "<s>", "<eos>"],
    "zh": ["我", "爱", "你"],
    "en": ["I", "love", "you"],
}


def files(tmp_path: Path, corpus: str | bytes, vocab: object = VOCAB) -> tuple[Path, Path]:
    corpus_path, vocab_path = tmp_path / "corpus.tsv", tmp_path / "vocab.json"
    if isinstance(corpus, str):
        corpus = corpus.encode("utf-8")
    corpus_path.write_bytes(corpus)
    vocab_text = vocab if isinstance(vocab, str) else json.dumps(vocab, ensure_ascii=False)
    vocab_path.write_text(vocab_text, encoding="utf-8")
    return corpus_path, vocab_path


def test_the_shipped_corpus_starts_with_the_chapter_s_sentence_in_the_chapter_s_ids():
    corpus = read_corpus(MODEL_DIR / CORPUS_FILE, MODEL_DIR / VOCAB_FILE)
    first = corpus.pairs[0]
    assert (first.source, first.target) == (("我", "爱", "你"), ("I", "love", "you"))
    # the ids engine.chapter_model gives the same words, and the engine's <pad> <s> <eos>
    assert corpus.source_ids()[0] == list(SOURCE_IDS) == [1, 2, 3]
    assert corpus.target_ids()[0] == list(TARGET_IDS) == [3, 4, 5]
    assert corpus.vocab.target[:6] == TARGET_VOCAB == ("<pad>", "<s>", "<eos>", "I", "love", "you")
    assert corpus.vocab.source[0] == "<pad>"
    assert 30 <= len(corpus.pairs) <= 60
    # every pair distinct, every declared word used
    assert len({(p.source, p.target) for p in corpus.pairs}) == len(corpus.pairs)
    used_zh = {t for p in corpus.pairs for t in p.source}
    used_en = {t for p in corpus.pairs for t in p.target}
    assert used_zh == set(corpus.vocab.source[1:])
    assert used_en == set(corpus.vocab.target[3:])


def test_the_hash_covers_the_vocabulary_then_the_corpus(tmp_path):
    corpus_path, vocab_path = files(tmp_path, "我 爱 你\tI love you\n")
    expected = hashlib.sha256(vocab_path.read_bytes() + corpus_path.read_bytes()).hexdigest()
    assert corpus_hash(corpus_path, vocab_path) == expected
    assert read_corpus(corpus_path, vocab_path).sha256 == expected
    corpus_path.write_text("你 爱 我\tyou love I\n", encoding="utf-8")
    assert corpus_hash(corpus_path, vocab_path) != expected


def test_a_good_corpus_reads_with_or_without_the_final_newline(tmp_path):
    for text in ("我 爱 你\tI love you\n你 爱 我\tyou love I", "我 爱 你\tI  love you\r\n"):
        corpus = read_corpus(*files(tmp_path, text))
        assert corpus.pairs[0].target == ("I", "love", "you")
        assert corpus.pairs[0].line == 1


@pytest.mark.parametrize(
    "text, line, message",
    [
        ("我 爱 你\tI love you\n\n你 爱 我\tyou love I\n", 2, "empty line"),
        ("我 爱 你\tI love you\n   \n", 2, "empty line"),
        ("我 爱 你 I love you\n", 1, "found 0 tabs"),
        ("我 爱 你\tI love\tyou\n", 1, "found 2 tabs"),
        ("我 爱 你\tI love you\n\tI love you\n", 2, "the zh side is empty"),
        ("我 爱 你\t  \n", 1, "the en side is empty"),
        ("我 爱 你\tI love you\n我 喜欢 你\tI like you\n", 2, "喜欢 not in the zh vocabulary"),
        ("我 爱 你\tI love cats\n", 1, "cats not in the en vocabulary"),
        ("我 爱 你\t<s> I love you\n", 1, "<s> not in the en vocabulary"),
        ("我 爱 你\tI Love you\n", 1, "Love not in the en vocabulary"),
    ],
)
def test_a_bad_line_is_refused_with_its_file_and_line(tmp_path, text, line, message):
    corpus_path, vocab_path = files(tmp_path, text)
    with pytest.raises(CorpusError) as error:
        read_corpus(corpus_path, vocab_path)
    assert str(error.value).startswith(f"{corpus_path}:{line}: ")
    assert message in str(error.value)


@pytest.mark.parametrize(
    "corpus, message",
    [
        ("", "no pairs"),
        (b"\xff\xfe\tI\n", "not UTF-8"),
    ],
)
def test_an_empty_or_undecodable_corpus_is_refused(tmp_path, corpus, message):
    corpus_path, vocab_path = files(tmp_path, corpus)
    with pytest.raises(CorpusError, match=re.escape(f"{corpus_path}: {message}")):
        read_corpus(corpus_path, vocab_path)


@pytest.mark.parametrize(
    "vocab, message",
    [
        ("{", "vocab.json:1: not JSON"),
        ({"zh": ["我"], "en": ["I"]}, "expected an object"),
        ({**VOCAB, "specials": ["<pad>", "<bos>", "<eos>"]}, "specials must be"),
        ({**VOCAB, "zh": []}, '"zh" must be a non-empty list'),
        ({**VOCAB, "en": ["I", "I love"]}, "not a token without spaces"),
        ({**VOCAB, "en": ["I", "<eos>"]}, "the special token <eos>"),
        ({**VOCAB, "zh": ["我", "你", "我"]}, "lists 我 more than once"),
    ],
)
def test_a_bad_vocabulary_is_refused_with_its_file(tmp_path, vocab, message):
    _, vocab_path = files(tmp_path, "我 爱 你\tI love you\n", vocab)
    with pytest.raises(CorpusError) as error:
        read_vocabulary(vocab_path)
    assert str(error.value).startswith(str(vocab_path))
    assert message in str(error.value)


def test_a_missing_file_is_a_corpus_error(tmp_path):
    with pytest.raises(CorpusError, match="cannot read"):
        read_corpus(tmp_path / "none.tsv", MODEL_DIR / VOCAB_FILE)
