"""The names other packages import from quizsvc.grading."""

from __future__ import annotations

import inspect

import quizsvc.grading as grading

REQUIRED_NAMES = {
    "AnswerRejected",
    "Tolerance",
    "parse_answer",
    "accepted_interval",
    "CellResult",
    "NumericGrade",
    "grade_numeric",
    "grade_single_choice",
    "grade_multiple_choice",
    "RubricPoint",
    "RubricSuggestion",
    "suggest_open_score",
    "score_after_attempts",
}


def test_required_names_are_exported() -> None:
    assert set(grading.__all__) >= REQUIRED_NAMES
    for name in grading.__all__:
        assert hasattr(grading, name), name


def test_all_or_nothing_is_keyword_only() -> None:
    parameter = inspect.signature(grading.grade_numeric).parameters["all_or_nothing"]
    assert parameter.kind is inspect.Parameter.KEYWORD_ONLY
    assert parameter.default is False
