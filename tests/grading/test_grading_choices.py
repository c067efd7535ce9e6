"""Tests for single- and multiple-choice grading."""

from __future__ import annotations

import math

import pytest

from quizsvc.grading import AnswerRejected, grade_multiple_choice, grade_single_choice


@pytest.mark.parametrize(
    ("selected", "correct", "score"),
    [("b", "b", 1.0), ("a", "b", 0.0), (None, "b", 0.0), ("B", "b", 0.0), ("", "b", 0.0)],
)
def test_single_choice(selected: str | None, correct: str, score: float) -> None:
    assert grade_single_choice(selected, correct) == score


def test_single_choice_needs_a_correct_id() -> None:
    with pytest.raises(ValueError):
        grade_single_choice("a", "")


def test_single_choice_refuses_a_list_of_choices() -> None:
    with pytest.raises(TypeError):
        grade_single_choice(["a"], "a")  # type: ignore[arg-type]


HALF_AND_HALF = {"a": 0.5, "b": 0.5, "c": -0.5, "d": -0.5}


@pytest.mark.parametrize(
    ("selected", "score"),
    [
        ({"a", "b"}, 1.0),
        ({"a"}, 0.5),
        ({"a", "b", "c"}, 0.5),
        ({"a", "c"}, 0.0),
        ({"c"}, 0.0),  # floor: never negative
        ({"c", "d"}, 0.0),
        ({"a", "b", "c", "d"}, 0.0),
        (set(), 0.0),
        (["a", "a"], 0.5),  # the same choice twice counts once
        (("b", "a"), 1.0),
    ],
)
def test_multiple_choice_sums_selected_scores(selected: set[str], score: float) -> None:
    assert grade_multiple_choice(selected, HALF_AND_HALF) == score


def test_multiple_choice_is_capped_at_one() -> None:
    assert grade_multiple_choice({"a", "b"}, {"a": 0.7, "b": 0.7}) == 1.0


def test_thirds_add_up_to_exactly_one() -> None:
    assert grade_multiple_choice({"a", "b", "c"}, {"a": 1 / 3, "b": 1 / 3, "c": 1 / 3}) == 1.0


def test_unknown_choice_is_rejected() -> None:
    with pytest.raises(AnswerRejected) as caught:
        grade_multiple_choice({"a", "z"}, HALF_AND_HALF)
    assert str(caught.value) == "'z' is not one of the choices"


def test_several_unknown_choices_are_listed_in_order() -> None:
    with pytest.raises(AnswerRejected) as caught:
        grade_multiple_choice(["z", "y", "a"], HALF_AND_HALF)
    assert str(caught.value) == "'y', 'z' are not among the choices"


def test_a_bare_string_is_not_a_selection() -> None:
    with pytest.raises(TypeError):
        grade_multiple_choice("ab", HALF_AND_HALF)


@pytest.mark.parametrize("bad_score", [math.nan, math.inf, "0.5", True])
def test_invalid_choice_scores_are_authoring_errors(bad_score: object) -> None:
    with pytest.raises(ValueError):
        grade_multiple_choice({"a"}, {"a": bad_score})  # type: ignore[dict-item]
