"""Tests for tolerances, accepted intervals and per-cell numeric grading."""

from __future__ import annotations

import dataclasses
import json
import math
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quizsvc.grading import (
    AnswerRejected,
    CellResult,
    NumericGrade,
    Tolerance,
    accepted_interval,
    expected_matrix,
    grade_numeric,
)

INF = math.inf
DEFAULT = Tolerance()


# --- Tolerance ---------------------------------------------------------------------


def test_tolerance_defaults_to_one_hundredth_absolute() -> None:
    assert Tolerance() == Tolerance(atol=0.01, rtol=0.0)


def test_tolerance_stores_plain_floats() -> None:
    tol = Tolerance(atol=1, rtol=np.float32(0.5))
    assert (tol.atol, tol.rtol) == (1.0, 0.5)
    assert type(tol.atol) is float
    assert type(tol.rtol) is float


@pytest.mark.parametrize(
    "kwargs",
    [{"atol": -0.1}, {"rtol": -1e-9}, {"atol": INF}, {"rtol": INF}, {"atol": math.nan}],
)
def test_tolerance_rejects_negative_or_non_finite_values(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        Tolerance(**kwargs)


@pytest.mark.parametrize("value", [True, "0.1", None])
def test_tolerance_rejects_non_numbers(value: object) -> None:
    with pytest.raises(TypeError):
        Tolerance(atol=value)  # type: ignore[arg-type]


def test_tolerance_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT.atol = 1.0  # type: ignore[misc]


# --- accepted_interval ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "tol", "interval"),
    [
        (2.0, Tolerance(atol=0.5), (1.5, 2.5)),
        (3.0, Tolerance(atol=0.0), (3.0, 3.0)),
        (10.0, Tolerance(atol=0.0, rtol=0.25), (7.5, 12.5)),
        (-10.0, Tolerance(atol=0.5, rtol=0.25), (-13.0, -7.0)),  # rtol uses |expected|
        (0.0, Tolerance(atol=0.25, rtol=0.5), (-0.25, 0.25)),
        (INF, Tolerance(atol=1e300), (INF, INF)),
        (-INF, Tolerance(atol=1e300), (-INF, -INF)),
    ],
)
def test_accepted_interval(expected: float, tol: Tolerance, interval: tuple[float, float]) -> None:
    assert accepted_interval(expected, tol) == interval


def test_accepted_interval_with_decimal_tolerance() -> None:
    low, high = accepted_interval(1.0, DEFAULT)
    assert low == pytest.approx(0.99, abs=1e-15)
    assert high == pytest.approx(1.01, abs=1e-15)


def test_accepted_interval_refuses_nan() -> None:
    with pytest.raises(ValueError):
        accepted_interval(math.nan, DEFAULT)


# --- tolerance boundaries ------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "expected", "tol", "correct"),
    [
        # exactly at atol is correct, just beyond is wrong
        ("1.01", 1.0, DEFAULT, True),
        ("0.99", 1.0, DEFAULT, True),
        ("1.0100001", 1.0, DEFAULT, False),
        ("0.9899999", 1.0, DEFAULT, False),
        ("1", 1.0, DEFAULT, True),
        ("0.25", 0.0, Tolerance(atol=0.25), True),
        ("-0.25", 0.0, Tolerance(atol=0.25), True),
        ("0.2500001", 0.0, Tolerance(atol=0.25), False),
        # rtol scales with |expected|: 200 ± 2
        ("202", 200.0, Tolerance(atol=0.0, rtol=0.01), True),
        ("198", 200.0, Tolerance(atol=0.0, rtol=0.01), True),
        ("202.001", 200.0, Tolerance(atol=0.0, rtol=0.01), False),
        ("197.999", 200.0, Tolerance(atol=0.0, rtol=0.01), False),
        ("-202", -200.0, Tolerance(atol=0.0, rtol=0.01), True),
        ("-202.001", -200.0, Tolerance(atol=0.0, rtol=0.01), False),
        # atol and rtol add up: -50 ± (0.5 + 0.5)
        ("-51", -50.0, Tolerance(atol=0.5, rtol=0.01), True),
        ("-49", -50.0, Tolerance(atol=0.5, rtol=0.01), True),
        ("-51.01", -50.0, Tolerance(atol=0.5, rtol=0.01), False),
        # zero tolerance means exact
        ("0.75", 0.75, Tolerance(atol=0.0), True),
        ("0.7500001", 0.75, Tolerance(atol=0.0), False),
        # decimal bounds whose float sum lands a rounding step inside the typed bound
        ("5.550404", 5.55, Tolerance(atol=0.000404), True),
        ("-5529.15", -5534.3, Tolerance(atol=5.15), True),
        ("-76.7552", 1.3448, Tolerance(atol=78.1), True),
        ("30.489698", 0.089698, Tolerance(atol=30.4), True),
        ("5.5504041", 5.55, Tolerance(atol=0.000404), False),
    ],
)
def test_tolerance_boundaries(answer: str, expected: float, tol: Tolerance, correct: bool) -> None:
    grade = grade_numeric(answer, expected, tol)
    assert grade.cells[0].correct is correct
    assert grade.score == (1.0 if correct else 0.0)


PLACES = st.integers(0, 6)


@settings(max_examples=200, deadline=None)
@given(
    expected=st.integers(-(10**9), 10**9).flatmap(
        lambda digits: PLACES.map(lambda places: Decimal(digits).scaleb(-places))
    ),
    atol=st.integers(1, 10**6).flatmap(
        lambda digits: PLACES.map(lambda places: Decimal(digits).scaleb(-places))
    ),
)
def test_bounds_typed_in_decimal_are_accepted_and_a_step_past_them_is_not(
    expected: Decimal, atol: Decimal
) -> None:
    tol = Tolerance(atol=float(atol))
    # A step far below the tolerance yet far above float rounding (about 1e-16 relative
    # to the numbers involved), where "just outside" is meaningful.
    step = max(atol / 1000, (abs(expected) + atol) * Decimal("1e-12"))
    for bound, outside in (
        (expected + atol, expected + atol + step),
        (expected - atol, expected - atol - step),
    ):
        assert grade_numeric(str(bound), float(expected), tol).score == 1.0
        assert grade_numeric(str(outside), float(expected), tol).score == 0.0


# --- infinities and NaN ------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "correct"),
    [
        ("inf -inf 1", [True, True, True]),
        ("∞ −∞ 1", [True, True, True]),
        ("∞ ∞ 1", [True, False, True]),
        ("-inf inf 1", [False, False, True]),
        ("1e308 -1e308 inf", [False, False, False]),
    ],
)
def test_infinite_expected_values_must_match_exactly(answer: str, correct: list[bool]) -> None:
    grade = grade_numeric(answer, [INF, -INF, 1.0], Tolerance(atol=1e300))
    assert [cell.correct for cell in grade.cells] == correct


def test_infinite_answer_is_wrong_for_a_finite_expected_value_even_with_huge_atol() -> None:
    assert grade_numeric("inf", 5.0, Tolerance(atol=1e300)).score == 0.0
    assert grade_numeric("1e299", 5.0, Tolerance(atol=1e300)).score == 1.0


def test_nan_in_an_array_answer_is_never_correct() -> None:
    grade = grade_numeric(np.array([math.nan, 0.0]), [0.0, 0.0], Tolerance(atol=1e300))
    assert [cell.correct for cell in grade.cells] == [False, True]
    assert grade.score == 0.5


# --- scores and cells ----------------------------------------------------------------


def test_partial_credit_is_the_share_of_correct_cells() -> None:
    grade = grade_numeric("1 2\n3 5", [[1, 2], [3, 4]], Tolerance(atol=0.5))
    assert grade.score == 0.75
    assert grade.shape == (2, 2)
    assert grade.correct_count == 3
    assert grade.all_correct is False
    assert grade.cells[3] == CellResult(
        row=1, col=1, submitted=5.0, expected=4.0, correct=False, low=3.5, high=4.5
    )


def test_all_or_nothing_gives_zero_unless_every_cell_is_correct() -> None:
    expected = [[1, 2], [3, 4]]
    assert grade_numeric("1 2\n3 5", expected, DEFAULT, all_or_nothing=True).score == 0.0
    assert grade_numeric("1 2\n3 4", expected, DEFAULT, all_or_nothing=True).score == 1.0


def test_all_or_nothing_still_reports_every_cell() -> None:
    grade = grade_numeric("9 2 9", [1, 2, 3], DEFAULT, all_or_nothing=True)
    assert [cell.correct for cell in grade.cells] == [False, True, False]
    assert grade.correct_count == 1


def test_cells_are_row_major_with_zero_based_indices() -> None:
    grade = grade_numeric("1 2 3\n4 5 6", [[1, 2, 3], [4, 5, 6]], DEFAULT)
    assert [(cell.row, cell.col) for cell in grade.cells] == [
        (0, 0),
        (0, 1),
        (0, 2),
        (1, 0),
        (1, 1),
        (1, 2),
    ]
    assert [cell.expected for cell in grade.cells] == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert grade.score == 1.0


def test_one_wrong_cell_of_three_scores_two_thirds() -> None:
    assert grade_numeric("[0.1, 0.2, 0.9]", [0.1, 0.2, 0.7], DEFAULT).score == 2 / 3


def test_grade_is_frozen() -> None:
    grade = grade_numeric("1", 1.0, DEFAULT)
    assert isinstance(grade, NumericGrade)
    with pytest.raises(dataclasses.FrozenInstanceError):
        grade.score = 0.0  # type: ignore[misc]


def test_json_dict_encodes_infinities_as_strings() -> None:
    grade = grade_numeric("inf 2 -inf", [INF, 1.0, 3.0], Tolerance(atol=0.5))
    assert grade.to_json_dict() == {
        "score": 1 / 3,
        "shape": [1, 3],
        "correct_count": 1,
        "cells": [
            {
                "row": 0,
                "col": 0,
                "submitted": "inf",
                "expected": "inf",
                "correct": True,
                "low": "inf",
                "high": "inf",
            },
            {
                "row": 0,
                "col": 1,
                "submitted": 2.0,
                "expected": 1.0,
                "correct": False,
                "low": 0.5,
                "high": 1.5,
            },
            {
                "row": 0,
                "col": 2,
                "submitted": "-inf",
                "expected": 3.0,
                "correct": False,
                "low": 2.5,
                "high": 3.5,
            },
        ],
    }


def test_json_dict_survives_strict_json_even_with_nan() -> None:
    grade = grade_numeric(np.array([math.nan]), [-INF], DEFAULT)
    encoded = json.dumps(grade.to_json_dict(), allow_nan=False)
    cell = json.loads(encoded)["cells"][0]
    assert (cell["submitted"], cell["expected"], cell["low"]) == ("nan", "-inf", "-inf")


# --- shapes --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "shape"),
    [
        (2.5, (1, 1)),
        (np.float64(2.5), (1, 1)),
        ([1, 2, 3], (1, 3)),
        ((1.0, 2.0), (1, 2)),
        ([[1], [2]], (2, 1)),
        (np.zeros((3, 4)), (3, 4)),
        (np.arange(5), (1, 5)),
    ],
)
def test_expected_answers_are_shaped_as_2d(expected: object, shape: tuple[int, int]) -> None:
    assert expected_matrix(expected).shape == shape  # type: ignore[arg-type]
    assert grade_numeric(np.zeros(shape), expected, DEFAULT).shape == shape  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "expected",
    [np.zeros((2, 2, 2)), [1.0, math.nan], [], [[1, 2], [3]], ["1", "2"], [True, False]],
    ids=["3-d", "nan", "empty", "ragged", "text", "bool"],
)
def test_invalid_expected_answers_are_authoring_errors(expected: object) -> None:
    with pytest.raises(ValueError) as caught:
        grade_numeric("1", expected, DEFAULT)  # type: ignore[arg-type]
    assert not isinstance(caught.value, AnswerRejected)


@pytest.mark.parametrize(
    ("answer", "expected", "message"),
    [
        ("1 2 3 4", [1, 2, 3], "expected 1 × 3 values (rows × columns), got 1 × 4"),
        ("1 2", 7.0, "expected 1 × 1 values (rows × columns), got 1 × 2"),
        ("1 2 3 4", [[1, 2, 3], [4, 5, 6]], "expected 2 × 3 values (rows × columns), got 1 × 4"),
        (
            "1 2\n3 4\n5 6",
            [[1, 2, 3], [4, 5, 6]],
            "expected 2 × 3 values (rows × columns), got 3 × 2",
        ),
        ("1 2 3", [[1], [2], [3]], "expected 3 × 1 values (rows × columns), got 1 × 3"),
        ("1\n2\n3", [1, 2, 3], "expected 1 × 3 values (rows × columns), got 3 × 1"),
        ("[[1, 2], [3, 4]]", [1, 2, 3, 4], "expected 1 × 4 values (rows × columns), got 2 × 2"),
        (np.zeros((2, 3)), [1, 2, 3], "expected 1 × 3 values (rows × columns), got 2 × 3"),
        (np.zeros(3), [[1], [2], [3]], "expected 3 × 1 values (rows × columns), got 1 × 3"),
        (
            "1 2 3\n4 5",
            [[1, 2, 3], [4, 5, 6]],
            "expected 2 × 3 values (rows × columns), but the rows differ in length: "
            "row 2 has 2 values, row 1 has 3",
        ),
        (
            "1 2\n3 4\n5",
            [[1, 2], [3, 4], [5, 6]],
            "expected 3 × 2 values (rows × columns), but the rows differ in length: "
            "row 3 has 1 value, row 1 has 2",
        ),
    ],
)
def test_wrong_shape_is_rejected_with_both_shapes(
    answer: object, expected: object, message: str
) -> None:
    with pytest.raises(AnswerRejected) as caught:
        grade_numeric(answer, expected, DEFAULT)  # type: ignore[arg-type]
    assert str(caught.value) == message


def test_unreadable_text_is_rejected_not_graded() -> None:
    with pytest.raises(AnswerRejected, match="could not read 'abc'"):
        grade_numeric("1 abc", [1, 2], DEFAULT)


@pytest.mark.parametrize(
    "answer",
    [np.zeros((1, 1, 1)), np.array(["a", "b"]), np.array([]), [[1, 2], [3]]],
    ids=["3-d", "text", "empty", "ragged"],
)
def test_unusable_array_answers_are_rejected(answer: object) -> None:
    with pytest.raises(AnswerRejected):
        grade_numeric(answer, [1, 2], DEFAULT)  # type: ignore[arg-type]


def test_array_answers_are_shaped_like_expected_answers() -> None:
    assert grade_numeric(np.array([1.0, 2.0]), [1, 2], DEFAULT).score == 1.0
    assert grade_numeric(np.float64(3.0), 3, DEFAULT).score == 1.0
    assert grade_numeric(np.array([[1], [2]]), [[1], [2]], DEFAULT).score == 1.0


def test_tolerance_must_be_a_tolerance() -> None:
    with pytest.raises(TypeError):
        grade_numeric("1", 1.0, 0.01)  # type: ignore[arg-type]


# --- edges the other tests do not reach (found by mutation testing) -----------------


def _ulps_above(value: float, steps: int) -> float:
    for _ in range(steps):
        value = float(np.nextafter(value, INF))
    return value


def test_the_rounding_slack_is_four_ulps_past_the_bound_and_not_five() -> None:
    # expected 1, atol 0.01: the slack is 4 eps x 1.01, which at 1.01 (ulp = eps) reaches
    # exactly four representable steps past the upper bound.
    _, high = accepted_interval(1.0, DEFAULT)
    assert grade_numeric(np.array(_ulps_above(high, 4)), 1.0, DEFAULT).score == 1.0
    assert grade_numeric(np.array(_ulps_above(high, 5)), 1.0, DEFAULT).score == 0.0


def test_an_exact_answer_is_right_with_zero_tolerance() -> None:
    exact = Tolerance(atol=0.0)
    assert grade_numeric("0", 0.0, exact).score == 1.0
    assert grade_numeric("-0", 0.0, exact).score == 1.0
    assert grade_numeric("0.25", 0.25, exact).score == 1.0
    assert grade_numeric("0.2500001", 0.25, exact).score == 0.0


def test_an_infinity_is_wrong_for_the_largest_finite_values_even_when_their_bound_overflows():
    # 1e308 + 1e308 overflows to inf: the bound must not let an infinity in
    for answer, expected in (("inf", 1e308), ("-inf", -1e308)):
        assert grade_numeric(answer, expected, Tolerance(atol=1e308)).score == 0.0
    for answer, expected in (("1e308", INF), ("-1e308", -INF)):
        assert grade_numeric(answer, expected, Tolerance(atol=1e308)).score == 0.0


def test_an_empty_array_answer_is_rejected_as_empty() -> None:
    with pytest.raises(AnswerRejected) as rejected:
        grade_numeric(np.array([]), 1.0, DEFAULT)
    assert rejected.value.code == "empty"


def test_accepted_interval_of_a_numpy_scalar_is_plain_floats() -> None:
    low, high = accepted_interval(np.float32(0.5), DEFAULT)
    assert (low, high) == (0.49, 0.51)
    assert type(low) is float and type(high) is float


def test_a_cell_result_is_frozen_and_hashable() -> None:
    cell = grade_numeric("1", 1.0, DEFAULT).cells[0]
    assert hash(cell) == hash(dataclasses.replace(cell))
    with pytest.raises(dataclasses.FrozenInstanceError):
        cell.correct = False  # type: ignore[misc]
