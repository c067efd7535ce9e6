"""Grade a numeric (scalar, row or matrix) answer cell by cell against a tolerance."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from quizsvc.grading.errors import AnswerRejected, Rejection
from quizsvc.grading.parse import parse_answer
from quizsvc.messages import N_

# Answers within this many machine epsilons (relative to the numbers involved) of an
# interval bound count as inside it.  Without this slack a learner who types a bound
# exactly in decimal can be marked wrong, because the decimal bound and the computed
# float bound may round to neighbouring floats (and the textbook formula is worse:
# 1.01 - 1.0 is 0.010000000000000009 > 0.01).  The slack is a few units in the last
# place, far below any tolerance a question uses.
_ROUNDING_SLACK_EPSILONS = 4.0
_EPSILON = float(np.finfo(np.float64).eps)


@dataclass(frozen=True)
class Tolerance:
    """A cell is correct when |submitted - expected| <= atol + rtol * |expected|."""

    atol: float = 1e-2
    rtol: float = 0.0

    def __post_init__(self) -> None:
        for name in ("atol", "rtol"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise TypeError(f"Tolerance.{name} must be a real number, got {value!r}")
            value = float(value)
            if not math.isfinite(value) or value < 0.0:
                raise ValueError(f"Tolerance.{name} must be finite and non-negative, got {value!r}")
            # Store plain floats so equal tolerances compare and hash equal whatever
            # numeric type the question author's YAML loader produced.
            object.__setattr__(self, name, value)


@dataclass(frozen=True)
class CellResult:
    """One graded cell; row and col are 0-based (row-major, like NumPy)."""

    row: int
    col: int
    submitted: float
    expected: float
    correct: bool
    low: float
    high: float

    def to_json_dict(self) -> dict[str, object]:
        return {
            "row": self.row,
            "col": self.col,
            "submitted": _json_number(self.submitted),
            "expected": _json_number(self.expected),
            "correct": self.correct,
            "low": _json_number(self.low),
            "high": _json_number(self.high),
        }


@dataclass(frozen=True)
class NumericGrade:
    """score is in [0, 1]; cells are row-major; shape is the expected (rows, cols)."""

    score: float
    cells: tuple[CellResult, ...]
    shape: tuple[int, int]

    @property
    def correct_count(self) -> int:
        return sum(cell.correct for cell in self.cells)

    @property
    def all_correct(self) -> bool:
        return all(cell.correct for cell in self.cells)

    def to_json_dict(self) -> dict[str, object]:
        """A dict that json.dumps accepts even with allow_nan=False ("inf", "-inf")."""
        return {
            "score": self.score,
            "shape": list(self.shape),
            "correct_count": self.correct_count,
            "cells": [cell.to_json_dict() for cell in self.cells],
        }


def accepted_interval(expected: float, tol: Tolerance) -> tuple[float, float]:
    """The closed interval of answers accepted for one expected value.

    An infinite expected value only accepts itself: (inf, inf) or (-inf, -inf).
    """
    expected = float(expected)
    if math.isnan(expected):
        raise ValueError("expected value is NaN; a question cannot expect NaN")
    if math.isinf(expected):
        return (expected, expected)
    half_width = tol.atol + tol.rtol * abs(expected)
    return (expected - half_width, expected + half_width)


def expected_matrix(expected: np.ndarray | float | Sequence) -> np.ndarray:
    """The expected answer as a 2-D float64 array: scalar -> (1, 1), 1-D of n -> (1, n).

    Raises ValueError for values a question must not contain (NaN, text, empty,
    ragged or more than 2-D), since those are authoring mistakes, not learner ones.
    """
    try:
        array = np.asarray(expected)
    except ValueError as exc:
        raise ValueError(f"expected answer is not a rectangular table: {exc}") from None
    if array.dtype.kind not in "iuf":
        raise ValueError(f"expected answer must be numeric, got {expected!r}")
    matrix = _as_2d(array.astype(np.float64))
    if matrix is None:
        raise ValueError(f"expected answer has {array.ndim} dimensions; at most 2 are allowed")
    if matrix.size == 0:
        raise ValueError("expected answer is empty")
    if np.isnan(matrix).any():
        raise ValueError("expected answer contains NaN")
    return matrix


def grade_numeric(
    answer: str | np.ndarray,
    expected: np.ndarray | float | Sequence,
    tol: Tolerance,
    *,
    all_or_nothing: bool = False,
) -> NumericGrade:
    """Grade each cell of answer against expected; score is the share of correct cells.

    With all_or_nothing the score is 1.0 only when every cell is correct, else 0.0.
    A text answer is read with parse_answer.  AnswerRejected is raised, before any
    grading, for unreadable text or a shape that differs from the expected one.
    """
    if not isinstance(tol, Tolerance):
        raise TypeError(f"tol must be a Tolerance, got {tol!r}")
    wanted = expected_matrix(expected)
    if isinstance(answer, str):
        submitted = parse_shaped_answer(answer, wanted)
    else:
        submitted = _submitted_matrix(answer)
        _require_shape(submitted, wanted)

    cells = tuple(
        _grade_cell(row, col, float(submitted[row, col]), float(wanted[row, col]), tol)
        for row, col in np.ndindex(wanted.shape)
    )
    correct = sum(cell.correct for cell in cells)
    score = correct / len(cells)
    if all_or_nothing:
        score = 1.0 if correct == len(cells) else 0.0
    rows, cols = wanted.shape
    return NumericGrade(score=score, cells=cells, shape=(rows, cols))


def _grade_cell(
    row: int, col: int, submitted: float, expected: float, tol: Tolerance
) -> CellResult:
    low, high = accepted_interval(expected, tol)
    return CellResult(
        row=row,
        col=col,
        submitted=submitted,
        expected=expected,
        correct=_is_accepted(submitted, expected, low, high),
        low=low,
        high=high,
    )


def _is_accepted(submitted: float, expected: float, low: float, high: float) -> bool:
    if math.isnan(submitted):
        return False
    if math.isinf(expected) or math.isinf(submitted):
        return submitted == expected
    slack = _ROUNDING_SLACK_EPSILONS * _EPSILON * (abs(expected) + (high - expected))
    return low - slack <= submitted <= high + slack


def _submitted_matrix(answer: object) -> np.ndarray:
    # Arrays come from code (drills, the API layer), but they still carry learner
    # values, so problems are reported the same way as for typed answers.
    try:
        array = np.asarray(answer)
    except ValueError:
        raise AnswerRejected(
            N_("answer is not a rectangular table of numbers"), Rejection.NOT_RECTANGULAR
        ) from None
    if array.dtype.kind not in "iuf":
        raise AnswerRejected(N_("answer must contain only numbers"), Rejection.NOT_NUMBERS)
    matrix = _as_2d(array.astype(np.float64))
    if matrix is None:
        raise AnswerRejected(
            N_("answer must be a number, a row of numbers or a matrix"),
            Rejection.TOO_MANY_DIMENSIONS,
        )
    if matrix.size == 0:
        raise AnswerRejected(N_("answer is empty"), Rejection.EMPTY)
    return matrix


def _as_2d(array: np.ndarray) -> np.ndarray | None:
    if array.ndim == 0:
        return array.reshape(1, 1)
    if array.ndim == 1:
        return array.reshape(1, -1)
    if array.ndim == 2:
        return array
    return None


def parse_shaped_answer(text: str, expected: np.ndarray | float | Sequence) -> np.ndarray:
    """The answer ``text`` read as `parse_answer` reads it, refused unless it has the shape of
    ``expected``: rows of different lengths as WRONG_SHAPE_RAGGED (naming the first row whose
    length differs from row 1's), any other shape as WRONG_SHAPE, both naming the shape due."""
    wanted = expected_matrix(expected)
    try:
        submitted = parse_answer(text)
    except AnswerRejected as exc:
        if exc.code is not Rejection.RAGGED_ROWS:
            raise
        rows, cols = wanted.shape
        count = exc.params["count"]
        raise AnswerRejected(
            N_(
                "expected {rows} × {cols} values (rows × columns), but the rows differ in "
                "length: row {row} has {count} value, row 1 has {width}"
            )
            if count == 1
            else N_(
                "expected {rows} × {cols} values (rows × columns), but the rows differ in "
                "length: row {row} has {count} values, row 1 has {width}"
            ),
            Rejection.WRONG_SHAPE_RAGGED,
            rows=rows,
            cols=cols,
            row=exc.params["row"],
            count=count,
            width=exc.params["width"],
        ) from None
    _require_shape(submitted, wanted)
    return submitted


def _require_shape(submitted: np.ndarray, expected: np.ndarray) -> None:
    """Refuse another shape, naming both: a number is 1 × 1 and a row 1 × n, as
    `expected_matrix` and the reader take them."""
    if submitted.shape == expected.shape:
        return
    rows, cols = expected.shape
    got_rows, got_cols = submitted.shape
    raise AnswerRejected(
        N_("expected {rows} × {cols} values (rows × columns), got {got_rows} × {got_cols}"),
        Rejection.WRONG_SHAPE,
        rows=rows,
        cols=cols,
        got_rows=got_rows,
        got_cols=got_cols,
    )


def _json_number(value: float) -> float | str:
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value
