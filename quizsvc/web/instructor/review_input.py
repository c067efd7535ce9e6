"""What a reviewer types (a score, a comment) read or refused in the page's language, and an
open answer's text as the review pages show it (its rubric phrases marked, its language)."""

from __future__ import annotations

import re

from flask_babel import gettext
from markupsafe import Markup, escape

from quizsvc.grading import normalise_typed_number

MAX_COMMENT_LENGTH = 5000


class ReviewInputError(ValueError):
    """A reviewer's input that cannot be stored; the message says why."""


def parse_score(raw: str | None) -> float:
    """A score typed by a reviewer, as a fraction in [0, 1].

    A number is a percentage ("75", "75 %"); "a/b" is a points out of b ("1.5/2"). A
    decimal comma is accepted. A bare number above 0 and at most 1 is refused as
    ambiguous: "0.75" or "1" is far more likely meant as a fraction than as 0.75 % or 1 %
    ("1 %" says so). What a Chinese input method types for these characters ("７５％",
    "１．５／２") reads as their ASCII.
    """
    text = normalise_typed_number(raw or "").strip().replace(",", ".")
    shown = (raw or "")[:40]
    if not text:
        raise ReviewInputError(gettext("Enter a score."))
    number = r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+"
    points = re.fullmatch(rf"({number})\s*/\s*({number})", text)
    if points:
        got, total = float(points[1]), float(points[2])
        if total <= 0 or got > total:
            raise ReviewInputError(
                gettext(
                    "The score '%(score)s' is out of range: points must be from 0 to "
                    "a total above 0.",
                    score=shown,
                )
            )
        return got / total
    percent = text.endswith("%")
    text = text.removesuffix("%").strip()
    if not re.fullmatch(number, text):
        raise ReviewInputError(
            gettext(
                "Cannot read the score '%(score)s': enter a percentage from 0 to "
                "100 (e.g. 75) or points out of the total (e.g. 1.5/2).",
                score=shown,
            )
        )
    value = float(text)
    if value > 100:
        raise ReviewInputError(
            gettext(
                "The score '%(score)s' is out of range: a percentage is at most 100.", score=shown
            )
        )
    if not percent and 0 < value <= 1:
        as_percent = f"{value * 100:g}"
        raise ReviewInputError(
            gettext(
                "The score '%(score)s' is ambiguous: write %(percent)s for a "
                "percentage, or points out of the total such as 1.5/2.",
                score=shown,
                percent=as_percent,
            )
        )
    return value / 100


def parse_comment(raw: str | None) -> str:
    comment = (raw or "").strip().replace("\r\n", "\n")
    if len(comment) > MAX_COMMENT_LENGTH:
        raise ReviewInputError(
            gettext("The comment may be at most %(max)s characters long.", max=MAX_COMMENT_LENGTH)
        )
    return comment


def highlight(text: str, spans: tuple[tuple[int, int], ...]) -> Markup:
    """`text` escaped, with each (start, end) span in <mark>; spans sorted, not overlapping."""
    parts: list[str] = []
    position = 0
    for start, end in spans:
        if start < position:  # never re-emit text (spans are merged, but be safe)
            start = position
        if end <= start:
            continue
        parts.append(escape(text[position:start]))
        parts.append(Markup("<mark>") + escape(text[start:end]) + Markup("</mark>"))
        position = end
    parts.append(escape(text[position:]))
    return Markup("").join(parts)


# Han characters (CJK Unified Ideographs with extensions A to F, compatibility ideographs)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f]")
_LATIN_WORD = re.compile(r"[A-Za-z]+")


def answer_language(text: str) -> str | None:
    """The language an answer is mostly written in: "zh" when it has more Han characters than
    Latin words, "en" when it has more Latin words, None when it has neither or as many of
    each. Words, not letters: a Chinese answer naming W_q, softmax and attention has more
    Latin letters than characters, and is still Chinese (a Han character is about a word)."""
    characters = len(_CJK.findall(text))
    words = len(_LATIN_WORD.findall(text))
    if characters > words:
        return "zh"
    if words > characters:
        return "en"
    return None
