"""Rules of the content models that the loader tests do not already pin down."""

from __future__ import annotations

import math

import numpy as np
import pytest
from pydantic import TypeAdapter, ValidationError

from quizsvc.bank import MultipleChoiceQuestion, NumericQuestion, Question

QUESTION = TypeAdapter(Question)


def numeric(answer: object, **extra: object) -> dict[str, object]:
    return {
        "id": "n1",
        "type": "numeric",
        "tags": ["softmax"],
        "prompt": {"zh": "算", "en": "Compute"},
        "answer": answer,
        "explanation": {"zh": "解", "en": "Why"},
        **extra,
    }


@pytest.mark.parametrize(
    ("raw", "expected", "shape"),
    [
        (2, 2.0, ()),
        (0.5, 0.5, ()),
        ("-inf", -math.inf, ()),
        ([1, "inf", -2.5], (1.0, math.inf, -2.5), (3,)),
        ([[1, 2], [3, float("-inf")]], ((1.0, 2.0), (3.0, -math.inf)), (2, 2)),
    ],
)
def test_numeric_answers(raw: object, expected: object, shape: tuple[int, ...]) -> None:
    question = QUESTION.validate_python(numeric(raw))
    assert isinstance(question, NumericQuestion)
    assert question.answer == expected
    assert question.answer_shape == shape


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (True, "expected a number, got True"),
        (
            "1.5",
            "expected a number or 'inf'/'-inf', got '1.5':"
            " a number in quotes is text: write it without quotes, 1.5",
        ),
        # what a Chinese input method types: full-width digits, point and comma
        (
            "\uff11.\uff15",
            "expected a number or 'inf'/'-inf', got '\uff11.\uff15':"
            " write the number in ASCII digits, 1.5",
        ),
        (
            "0.471, 0.529\uff0c0",
            "expected a number or 'inf'/'-inf', got '0.471, 0.529\uff0c0':"
            " write several numbers as a list, [0.471, 0.529, 0]",
        ),
        ("一点五", "expected a number or 'inf'/'-inf', got '一点五'"),
        ("nan", "expected a number or 'inf'/'-inf', got 'nan'"),
        (float("nan"), "NaN is not a valid answer"),
        ([], "a list of numbers must not be empty"),
        ([1, [2]], "mix of numbers and lists; write a matrix as a list of rows"),
        ({"a": 1}, "expected a number or 'inf'/'-inf', got {'a': 1}"),
    ],
)
def test_bad_numeric_answers(raw: object, message: str) -> None:
    with pytest.raises(ValidationError) as caught:
        QUESTION.validate_python(numeric(raw))
    assert [error["ctx"]["message"] for error in caught.value.errors()] == [message]


def test_numeric_answer_matrix_matches_the_grader_layout() -> None:
    # parse_answer gives a scalar as (1, 1) and one row as (1, n).
    scalar = QUESTION.validate_python(numeric(3))
    row = QUESTION.validate_python(numeric([1, 2, 3]))
    assert isinstance(scalar, NumericQuestion) and isinstance(row, NumericQuestion)
    np.testing.assert_array_equal(scalar.answer_matrix(), np.array([[3.0]]))
    np.testing.assert_array_equal(row.answer_matrix(), np.array([[1.0, 2.0, 3.0]]))


def test_numeric_defaults() -> None:
    question = QUESTION.validate_python(numeric(1))
    assert isinstance(question, NumericQuestion)
    assert (question.tolerance.atol, question.tolerance.rtol) == (0.01, 0.0)
    assert question.all_or_nothing is False
    assert question.points == 1.0


def test_numeric_answer_survives_a_json_round_trip() -> None:
    question = QUESTION.validate_python(numeric([[1, "-inf"]]))
    dumped = question.model_dump(mode="json")
    assert dumped["answer"] == [[1.0, "-inf"]]
    assert QUESTION.validate_python(dumped) == question


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("tolerance", {"atol": -0.1}),
        ("tolerance", {"atol": "0.01"}),
        ("all_or_nothing", "yes"),
        ("points", 0),
        ("tags", []),
        ("tags", ["Not A Tag"]),
        ("id", "Q1"),
    ],
)
def test_numeric_question_field_rules(field: str, value: object) -> None:
    with pytest.raises(ValidationError) as caught:
        QUESTION.validate_python(numeric(1, **{field: value}))
    assert caught.value.errors()[0]["loc"][:2] == ("numeric", field)


def multiple_choice(*scores: float) -> dict[str, object]:
    return {
        "id": "m1",
        "type": "multiple_choice",
        "tags": ["qkv"],
        "prompt": {"zh": "选", "en": "Pick"},
        "choices": [
            {"id": chr(ord("A") + i), "text": {"zh": "项", "en": "option"}, "score": score}
            for i, score in enumerate(scores)
        ],
        "explanation": {"zh": "解", "en": "Why"},
    }


def test_multiple_choice_scores_may_be_rounded_thirds() -> None:
    question = QUESTION.validate_python(multiple_choice(0.333, 0.333, 0.333, -0.5))
    assert isinstance(question, MultipleChoiceQuestion)
    assert question.correct_choice_ids == ("A", "B", "C")


@pytest.mark.parametrize("scores", [(0.5, 0.499), (0.5, 0.501), (0.1,) * 10, (0.999, 0.0)])
def test_multiple_choice_scores_may_miss_one_by_a_thousandth_either_way(scores) -> None:
    # 0.5 + 0.499 lands below 0.999 in binary floating point, 0.5 + 0.501 above 1.001
    question = QUESTION.validate_python(multiple_choice(*scores))
    assert question.correct_choice_ids == tuple("ABCDEFGHIJ"[: sum(s > 0 for s in scores)])


@pytest.mark.parametrize(
    "scores",
    [(0.5, 0.6), (-0.5, -0.5), (0.5, 0.5, 0.1), (0.33, 0.33, 0.33), (0.5, 0.4989), (0.5, 0.5011)],
)
def test_multiple_choice_correct_scores_must_sum_to_one(scores: tuple[float, ...]) -> None:
    with pytest.raises(ValidationError, match="must sum to 1"):
        QUESTION.validate_python(multiple_choice(*scores))


def test_loaded_questions_are_immutable() -> None:
    question = QUESTION.validate_python(numeric(1))
    with pytest.raises(ValidationError):
        question.points = 5  # type: ignore[misc]


@pytest.mark.parametrize(
    ("change", "location", "message"),
    [
        ({"id": "a" * 101}, ("multiple_choice", "id"), "at most 100 characters"),
        ({"tags": ["t" * 51]}, ("multiple_choice", "tags", 0), "at most 50 characters"),
        ({"points": math.inf}, ("multiple_choice", "points"), "finite number"),
    ],
)
def test_identifiers_and_points_have_limits(change, location, message) -> None:
    question = multiple_choice(1.0, -0.5) | change
    with pytest.raises(ValidationError, match=message) as caught:
        QUESTION.validate_python(question)
    assert caught.value.errors()[0]["loc"] == location
    QUESTION.validate_python(multiple_choice(1.0, -0.5) | {"id": "a" * 100, "tags": ["t" * 50]})


def test_choice_ids_and_scores_have_limits() -> None:
    long_id = multiple_choice(1.0, -0.5)
    long_id["choices"][0]["id"] = "A" * 21
    with pytest.raises(ValidationError, match="at most 20 characters"):
        QUESTION.validate_python(long_id)
    for scores, bound in (((1.5, -0.5), "less than or equal to 1"), ((1.0, -1.5), "greater than")):
        with pytest.raises(ValidationError, match=bound):
            QUESTION.validate_python(multiple_choice(*scores))
    QUESTION.validate_python(multiple_choice(1.0, -1.0))


def test_multiple_choice_ids_must_be_unique() -> None:
    question = multiple_choice(0.5, 0.5)
    question["choices"][1]["id"] = "A"
    with pytest.raises(ValidationError, match="duplicate choice id 'A'"):
        QUESTION.validate_python(question)


def test_a_zero_score_choice_is_not_correct() -> None:
    question = QUESTION.validate_python(multiple_choice(1.0, 0.0, -0.5))
    assert question.correct_choice_ids == ("A",)
