"""Numeric answers as an author writes them: a number, a list of numbers or a rectangular
matrix, ``inf``/``-inf`` for the chapter's masked scores; and the hints for a number written
as text (quoted, in full-width digits, several in one text)."""

from __future__ import annotations

import math
import re
import unicodedata
from typing import Annotated, Any, TypeAlias

from pydantic import PlainSerializer, PlainValidator

from quizsvc.bank.problems import ContentProblem, content_error

Number: TypeAlias = float
NumericValue: TypeAlias = Number | tuple[Number, ...] | tuple[tuple[Number, ...], ...]

_INFINITY_SPELLINGS = {"inf": math.inf, "+inf": math.inf, "-inf": -math.inf}


def _parse_number(raw: object, at: tuple[int, ...]) -> float:
    # bool is an int subclass; a YAML ``yes`` must not become 1.0.
    if isinstance(raw, bool):
        raise content_error(ContentProblem.BOOLEAN_NOT_NUMBER, at, got=repr(raw))
    if isinstance(raw, int | float):
        value = float(raw)
    elif isinstance(raw, str) and raw.strip().lower() in _INFINITY_SPELLINGS:
        value = _INFINITY_SPELLINGS[raw.strip().lower()]
    else:
        code, written = _number_text_hint(raw) if isinstance(raw, str) else (None, "")
        if code is None:
            raise content_error(ContentProblem.NOT_A_NUMBER, at, got=repr(raw))
        raise content_error(code, at, got=repr(raw), written=written)
    if math.isnan(value):
        raise content_error(ContentProblem.NAN_ANSWER, at)
    return value


def _number_text_hint(text: str) -> tuple[ContentProblem | None, str]:
    """How to write a text that holds numbers: quoted, in full-width characters (which a
    Chinese input method types), or several in one text."""
    # NFKC turns full-width digits, points, minus signs and commas into ASCII ones
    parts = [part for part in re.split(r"[,\s]+", unicodedata.normalize("NFKC", text)) if part]
    try:
        numbers = [float(part) for part in parts]
    except ValueError:
        return None, ""
    if not numbers or not all(math.isfinite(number) for number in numbers):
        return None, ""
    written = ", ".join(parts)
    if len(numbers) > 1:
        return ContentProblem.SEVERAL_NUMBERS_IN_TEXT, written
    if unicodedata.normalize("NFKC", text) != text:
        return ContentProblem.FULL_WIDTH_NUMBER, written
    return ContentProblem.QUOTED_NUMBER, written


def _parse_row(raw: list[Any] | tuple[Any, ...], at: tuple[int, ...]) -> tuple[float, ...]:
    if not raw:
        raise content_error(ContentProblem.EMPTY_NUMBER_LIST, at)
    return tuple(_parse_number(item, (*at, index)) for index, item in enumerate(raw))


def parse_numeric_value(raw: object) -> NumericValue:
    """Read an authored answer: a number, a list of numbers, or a rectangular matrix.

    Infinities are written as the strings ``inf``/``-inf`` (the chapter's masked
    scores are ``-∞``); YAML's own ``.inf`` is accepted too.
    """
    # Tuples come from models built in code (or re-validated), lists from YAML.
    if not isinstance(raw, list | tuple):
        return _parse_number(raw, ())
    if raw and all(isinstance(row, list | tuple) for row in raw):
        rows = tuple(_parse_row(row, (index,)) for index, row in enumerate(raw))
        for index, row in enumerate(rows):
            if len(row) != len(rows[0]):
                raise content_error(
                    ContentProblem.RAGGED_MATRIX,
                    (index,),
                    width=len(rows[0]),
                    row=index,
                    count=len(row),
                )
        return rows
    for index, item in enumerate(raw):
        if isinstance(item, list | tuple):
            raise content_error(ContentProblem.NUMBERS_AND_LISTS, (index,))
    return _parse_row(raw, ())


def numeric_value_to_json(value: NumericValue) -> Any:
    # Infinities round-trip as the same strings an author writes, which JSON can carry.
    def number(x: float) -> float | str:
        return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")

    if isinstance(value, float):
        return number(value)
    if value and isinstance(value[0], tuple):
        return [[number(x) for x in row] for row in value]
    return [number(x) for x in value]


NumericAnswer = Annotated[
    NumericValue,
    PlainValidator(parse_numeric_value),
    PlainSerializer(numeric_value_to_json),
]


def numeric_shape(value: NumericValue) -> tuple[int, ...]:
    """``()`` for a number, ``(n,)`` for a list, ``(rows, cols)`` for a matrix."""
    if isinstance(value, float):
        return ()
    if value and isinstance(value[0], tuple):
        return (len(value), len(value[0]))
    return (len(value),)
