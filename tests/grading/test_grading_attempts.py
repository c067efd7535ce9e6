"""Tests for the per-attempt penalty."""

from __future__ import annotations

import math

import numpy as np
import pytest

from quizsvc.grading import score_after_attempts


@pytest.mark.parametrize(
    ("raw", "attempt", "penalty", "score"),
    [
        (1.0, 1, 0.1, 1.0),  # first try is free
        (1.0, 2, 0.1, 0.9),
        (1.0, 3, 0.1, 0.8),
        (0.5, 2, 0.25, 0.25),
        (0.75, 3, 0.25, 0.25),
        (0.3, 5, 0.1, 0.0),  # floor at zero
        (1.0, 11, 0.1, 0.0),
        (1.0, 100, 0.5, 0.0),
        (0.0, 1, 0.5, 0.0),
        (0.6, 7, 0.0, 0.6),  # no penalty configured
    ],
)
def test_penalty_per_extra_try(raw: float, attempt: int, penalty: float, score: float) -> None:
    assert score_after_attempts(raw, attempt, penalty) == pytest.approx(score, abs=1e-12)
    assert score_after_attempts(raw, attempt, penalty) >= 0.0


@pytest.mark.parametrize("attempt", [0, -1])
def test_attempts_are_one_based(attempt: int) -> None:
    with pytest.raises(ValueError):
        score_after_attempts(1.0, attempt, 0.1)


@pytest.mark.parametrize("attempt", [1.0, 2.5, True, "2"])
def test_attempt_must_be_an_integer(attempt: object) -> None:
    with pytest.raises(TypeError):
        score_after_attempts(1.0, attempt, 0.1)  # type: ignore[arg-type]


@pytest.mark.parametrize("raw", [-0.1, 1.1, math.nan, math.inf])
def test_raw_score_must_be_between_zero_and_one(raw: float) -> None:
    with pytest.raises(ValueError):
        score_after_attempts(raw, 1, 0.1)


@pytest.mark.parametrize("penalty", [-0.1, 1.5, math.nan])
def test_penalty_must_be_between_zero_and_one(penalty: float) -> None:
    with pytest.raises(ValueError):
        score_after_attempts(1.0, 2, penalty)


@pytest.mark.parametrize(("raw", "penalty"), [(True, 0.1), (1.0, False), ("1", 0.1), (1.0, None)])
def test_score_and_penalty_must_be_numbers(raw: object, penalty: object) -> None:
    with pytest.raises(TypeError):
        score_after_attempts(raw, 1, penalty)  # type: ignore[arg-type]


def test_numpy_numbers_give_a_plain_float() -> None:
    score = score_after_attempts(np.float64(1.0), np.int64(3), np.float32(0.25))
    assert score == 0.5 and type(score) is float
