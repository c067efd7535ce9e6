"""The toy model's parallel corpus and its declared vocabulary, read strictly.

Two files, shipped in content/transformer-by-hand/model/:

- ``vocab.json``: ``{"specials": ["<pad>", "<s>", "<eos>"], "zh": [...], "en": [...]}``. The
  source vocabulary is <pad> then the zh words, the target's <pad>, <s>, <eos> then the en
  words: the ids `engine.chapter_model` gives the chapter's words (我 爱 你 = 1 2 3,
  I love you = 3 4 5) and the engine's default pad/bos/eos ids 0, 1, 2.
- ``corpus.tsv``: one pair a line, ``zh tokens<TAB>en tokens``, tokens separated by spaces.

Anything else is refused with a `CorpusError` naming the file and, in the corpus, the line: an
empty line, a line without exactly one tab, an empty side, a token not in the vocabulary.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

SPECIALS = ("<pad>", "<s>", "<eos>")  # the target's ids 0, 1, 2; the source has <pad> only


class CorpusError(ValueError):
    """A vocabulary or corpus file that cannot be trained on; the message names the file
    (and the line)."""


@dataclass(frozen=True)
class Vocabulary:
    source: tuple[str, ...]  # <pad>, then the zh words
    target: tuple[str, ...]  # <pad>, <s>, <eos>, then the en words

    def source_ids(self, tokens: list[str] | tuple[str, ...]) -> list[int]:
        return [self.source.index(t) for t in tokens]

    def target_ids(self, tokens: list[str] | tuple[str, ...]) -> list[int]:
        return [self.target.index(t) for t in tokens]


@dataclass(frozen=True)
class Pair:
    line: int
    source: tuple[str, ...]  # zh tokens
    target: tuple[str, ...]  # en tokens


@dataclass(frozen=True)
class Corpus:
    vocab: Vocabulary
    pairs: tuple[Pair, ...]
    sha256: str  # `corpus_hash` of the two files

    def source_ids(self) -> list[list[int]]:
        return [self.vocab.source_ids(p.source) for p in self.pairs]

    def target_ids(self) -> list[list[int]]:
        return [self.vocab.target_ids(p.target) for p in self.pairs]


def _read_text(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise CorpusError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise CorpusError(f"{path}: not UTF-8 ({exc.reason} at byte {exc.start})") from None


def read_vocabulary(path: str | Path) -> Vocabulary:
    path = Path(path)
    try:
        data = json.loads(_read_text(path))
    except json.JSONDecodeError as exc:
        raise CorpusError(f"{path}:{exc.lineno}: not JSON: {exc.msg}") from None
    if not isinstance(data, dict) or set(data) != {"specials", "zh", "en"}:
        raise CorpusError(f'{path}: expected an object with "specials", "zh" and "en" lists')
    if data["specials"] != list(SPECIALS):
        raise CorpusError(f"{path}: specials must be {list(SPECIALS)}, got {data['specials']!r}")
    for side in ("zh", "en"):
        words = data[side]
        if not isinstance(words, list) or not words:
            raise CorpusError(f'{path}: "{side}" must be a non-empty list of tokens')
        for word in words:
            if not isinstance(word, str) or not word or word.split() != [word]:
                raise CorpusError(f'{path}: "{side}" has {word!r}, not a token without spaces')
            if word in SPECIALS:
                raise CorpusError(f'{path}: "{side}" lists the special token {word}')
        if len(set(words)) != len(words):
            twice = sorted({w for w in words if words.count(w) > 1})
            raise CorpusError(f'{path}: "{side}" lists {", ".join(twice)} more than once')
    return Vocabulary(source=("<pad>", *data["zh"]), target=(*SPECIALS, *data["en"]))


def read_corpus(corpus_path: str | Path, vocab_path: str | Path) -> Corpus:
    """The pairs of `corpus_path` in the vocabulary of `vocab_path`; `CorpusError` on the first
    bad line."""
    corpus_path = Path(corpus_path)
    vocab = read_vocabulary(vocab_path)
    known = {"zh": set(vocab.source[1:]), "en": set(vocab.target[3:])}
    pairs = []
    lines = _read_text(corpus_path).split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final newline
    for number, line in enumerate(lines, start=1):
        where = f"{corpus_path}:{number}"
        line = line.removesuffix("\r")
        if not line.strip():
            raise CorpusError(f"{where}: empty line")
        if line.count("\t") != 1:
            found = line.count("\t")
            raise CorpusError(
                f"{where}: expected 'zh tokens<TAB>en tokens' (one tab), found {found} tabs"
            )
        sides = dict(zip(("zh", "en"), (s.split() for s in line.split("\t")), strict=True))
        for side, tokens in sides.items():
            if not tokens:
                raise CorpusError(f"{where}: the {side} side is empty")
            unknown = [t for t in tokens if t not in known[side]]
            if unknown:
                raise CorpusError(
                    f"{where}: {', '.join(unknown)} not in the {side} vocabulary of {vocab_path}"
                )
        pairs.append(Pair(number, tuple(sides["zh"]), tuple(sides["en"])))
    if not pairs:
        raise CorpusError(f"{corpus_path}: no pairs")
    return Corpus(vocab, tuple(pairs), corpus_hash(corpus_path, vocab_path))


def corpus_hash(corpus_path: str | Path, vocab_path: str | Path) -> str:
    """sha256 (hex) of the vocabulary file's bytes followed by the corpus file's bytes: what a
    trained model records of the data it was trained on."""
    digest = hashlib.sha256()
    for path in (Path(vocab_path), Path(corpus_path)):
        try:
            digest.update(path.read_bytes())
        except OSError as exc:
            raise CorpusError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return digest.hexdigest()
