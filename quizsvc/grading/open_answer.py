"""Suggest a score for a free-text answer from a rubric of key phrases.

The suggestion is for a human grader: it says which rubric points the answer
mentions and where, never whether the reasoning is right.
"""

from __future__ import annotations

import math
import numbers
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class RubricPoint:
    """A point is found when any of its phrases (in any language) occurs in the answer."""

    key: str
    weight: float
    phrases: tuple[str, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.key, str) or not self.key:
            raise ValueError(f"rubric point key must be a non-empty string, got {self.key!r}")
        weight = self.weight
        if isinstance(weight, bool) or not isinstance(weight, numbers.Real):
            raise TypeError(f"rubric point {self.key!r}: weight must be a number, got {weight!r}")
        if not math.isfinite(weight) or weight <= 0:
            raise ValueError(f"rubric point {self.key!r}: weight must be positive, got {weight!r}")
        # A bare string would silently become a tuple of one-character phrases.
        if isinstance(self.phrases, str):
            raise TypeError(f"rubric point {self.key!r}: phrases must be a sequence of strings")
        phrases = tuple(self.phrases)
        if not phrases:
            raise ValueError(f"rubric point {self.key!r} has no phrases")
        for phrase in phrases:
            if not isinstance(phrase, str) or not _fold(phrase).text.strip():
                raise ValueError(f"rubric point {self.key!r} has a blank phrase {phrase!r}")
        object.__setattr__(self, "weight", float(weight))
        object.__setattr__(self, "phrases", phrases)


@dataclass(frozen=True)
class PhraseMatch:
    """One occurrence of a rubric phrase; start/end index the original answer text."""

    key: str
    phrase: str
    start: int
    end: int


@dataclass(frozen=True)
class RubricSuggestion:
    """score is found_weight / total_weight, in [0, 1]; max_score is always 1.0.

    max_score is the scale of score (so score / max_score and "score out of
    max_score" both read correctly); multiply by a question's marks to get points.
    found holds the keys of found points in rubric order; matches holds every
    phrase occurrence, sorted by position, for highlighting.
    """

    score: float
    max_score: float
    found: tuple[str, ...]
    matches: tuple[PhraseMatch, ...] = ()
    found_weight: float = 0.0
    total_weight: float = 0.0

    @property
    def highlight_spans(self) -> tuple[tuple[int, int], ...]:
        """(start, end) ranges of the original text to highlight, merged where they overlap."""
        merged: list[tuple[int, int]] = []
        for match in sorted(self.matches, key=lambda m: (m.start, m.end)):
            if merged and match.start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], match.end))
            else:
                merged.append((match.start, match.end))
        return tuple(merged)


def suggest_open_score(text: str, rubric: Sequence[RubricPoint]) -> RubricSuggestion:
    """Find which rubric points the answer mentions.

    Matching is substring matching after Unicode NFKC + casefold (so "ＳｏｆｔＭａｘ"
    matches "softmax") with every run of whitespace treated as a single space.
    """
    if not isinstance(text, str):
        raise TypeError(f"answer text must be a string, got {type(text).__name__}")
    if not rubric:
        raise ValueError("rubric has no points")
    keys = [point.key for point in rubric]
    if len(set(keys)) != len(keys):
        raise ValueError(f"rubric keys must be unique, got {keys}")

    answer = _fold(text)
    found: list[str] = []
    found_weights: list[float] = []
    matches: list[PhraseMatch] = []
    for point in rubric:
        point_matches = [
            PhraseMatch(point.key, phrase, start, end)
            for phrase in point.phrases
            for start, end in _occurrences(answer, _fold(phrase).text.strip())
        ]
        if point_matches:
            found.append(point.key)
            found_weights.append(point.weight)
            matches.extend(point_matches)

    total_weight = math.fsum(point.weight for point in rubric)
    found_weight = math.fsum(found_weights)
    return RubricSuggestion(
        # min() guards against fsum rounding nudging an all-found answer past 1.
        score=min(1.0, found_weight / total_weight),
        max_score=1.0,
        found=tuple(found),
        matches=tuple(sorted(matches, key=lambda m: (m.start, m.end, m.key))),
        found_weight=found_weight,
        total_weight=total_weight,
    )


def score_of_points(rubric: Sequence[RubricPoint], ticked: Sequence[str]) -> float:
    """The score a grader gives by ticking rubric points: the ticked points' weights over
    all the points' weights, in [0, 1]. A key ticked twice counts once; a key the rubric
    does not have raises ValueError naming it."""
    weights = {point.key: point.weight for point in rubric}
    if not weights:
        raise ValueError("rubric has no points")
    unknown = [key for key in ticked if key not in weights]
    if unknown:
        raise ValueError(f"no rubric point {unknown[0]!r}")
    found = math.fsum(weights[key] for key in set(ticked))
    return min(1.0, found / math.fsum(weights.values()))


@dataclass(frozen=True)
class _FoldedText:
    """Folded text plus, per folded character, the original [start, end) it came from."""

    text: str
    starts: tuple[int, ...]
    ends: tuple[int, ...]


def _fold(text: str) -> _FoldedText:
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    for cluster_start, cluster_end in _clusters(text):
        for char in _fold_cluster(text[cluster_start:cluster_end]):
            if char.isspace():
                if chars and chars[-1] == " ":
                    ends[-1] = cluster_end
                    continue
                char = " "
            chars.append(char)
            starts.append(cluster_start)
            ends.append(cluster_end)
    return _FoldedText("".join(chars), tuple(starts), tuple(ends))


def _clusters(text: str) -> list[tuple[int, int]]:
    # Folding character by character keeps the index map simple, but NFKC composes a
    # base letter with the combining marks after it ("e" + U+0301 -> "é"), so those
    # must be folded together to match a phrase typed with the precomposed letter.
    spans: list[tuple[int, int]] = []
    for index, char in enumerate(text):
        if spans and unicodedata.combining(char):
            spans[-1] = (spans[-1][0], index + 1)
        else:
            spans.append((index, index + 1))
    return spans


def _fold_cluster(cluster: str) -> str:
    # NFKC, casefold, NFKC again is Unicode's recipe for caseless matching under
    # compatibility equivalence (casefold can produce non-normalised text).
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", cluster).casefold())


def _occurrences(answer: _FoldedText, phrase: str) -> list[tuple[int, int]]:
    spans = []
    position = answer.text.find(phrase)
    while position != -1:
        last = position + len(phrase) - 1
        spans.append((answer.starts[position], answer.ends[last]))
        position = answer.text.find(phrase, position + len(phrase))
    return spans
