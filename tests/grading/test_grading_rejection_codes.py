"""Every rejection carries a code and the parameters its message needs, so an interface can
say the same thing in the learner's language (the English message stays in str(exc))."""

from __future__ import annotations

import numpy as np
import pytest

from quizsvc.grading import (
    MAX_ANSWER_CHARS,
    REJECTION_PARAMETERS,
    AnswerRejected,
    Rejection,
    Tolerance,
    grade_multiple_choice,
    grade_numeric,
    parse_answer,
)


def numeric(answer, expected=(1.0, 2.0, 3.0)):
    return lambda: grade_numeric(answer, list(expected), Tolerance())


CASES = [
    (lambda: parse_answer("1" * (MAX_ANSWER_CHARS + 1)), Rejection.TOO_LONG,
     {"max": MAX_ANSWER_CHARS}),
    (lambda: parse_answer("1\x00"), Rejection.CONTROL_CHARACTER, {}),
    (lambda: parse_answer("  \n "), Rejection.EMPTY, {}),
    (lambda: parse_answer(" ; ;"), Rejection.EMPTY, {}),
    (lambda: parse_answer("1,,2"), Rejection.EMPTY_BETWEEN_COMMAS, {"row": 1}),
    (lambda: parse_answer("[[1, 2]], [3]"), Rejection.SEVERAL_OUTER_BRACKETS, {}),
    (lambda: parse_answer("[1; 2]"), Rejection.SEMICOLON_IN_BRACKETS, {}),
    (lambda: parse_answer("[[1, 2], []]"), Rejection.EMPTY_ROW, {"row": 2}),
    (lambda: parse_answer("[[[1]]]"), Rejection.BRACKETS_TOO_DEEP, {"max": 2}),
    (
        lambda: parse_answer("1 2]"),
        Rejection.UNMATCHED_CLOSING_BRACKET,
        {"position": 4, "closing": "]", "opening": "["},
    ),
    (
        lambda: parse_answer("1 2)"),
        Rejection.UNMATCHED_CLOSING_BRACKET,
        {"position": 4, "closing": ")", "opening": "("},
    ),
    (lambda: parse_answer("[1, 2"), Rejection.UNCLOSED_BRACKET, {"opening": "["}),
    (lambda: parse_answer("(1, 2"), Rejection.UNCLOSED_BRACKET, {"opening": "("}),
    (lambda: parse_answer("[1, 2] x"), Rejection.TEXT_OUTSIDE_BRACKETS, {"text": "x"}),
    (lambda: parse_answer("[[1, 2] y [3, 4]]"), Rejection.TEXT_BETWEEN_BRACKETED_ROWS,
     {"text": "y"}),
    (lambda: parse_answer("1 nan"), Rejection.NAN, {"row": 1, "column": 2}),
    (lambda: parse_answer("1\n2 1/0"), Rejection.DIVISION_BY_ZERO,
     {"text": "1/0", "row": 2, "column": 2}),
    (lambda: parse_answer("1 abc"), Rejection.NOT_A_NUMBER, {"text": "abc", "row": 1, "column": 2}),
    (lambda: parse_answer("x" * 40), Rejection.NOT_A_NUMBER,
     {"text": "x" * 29 + "…", "row": 1, "column": 1}),  # a pasted essay is not echoed whole
    (lambda: parse_answer("1e999"), Rejection.TOO_LARGE, {"text": "1e999", "row": 1, "column": 1}),
    (lambda: parse_answer("1 2\n3"), Rejection.RAGGED_ROWS, {"row": 2, "count": 1, "width": 2}),
    (numeric([[1.0, 2.0], [3.0]]), Rejection.NOT_RECTANGULAR, {}),
    (numeric(np.array(["a", "b", "c"])), Rejection.NOT_NUMBERS, {}),
    (numeric(np.zeros((1, 1, 3))), Rejection.TOO_MANY_DIMENSIONS, {}),
    (numeric("1 2"), Rejection.WRONG_SHAPE, {"rows": 1, "cols": 3, "got_rows": 1, "got_cols": 2}),
    (numeric("1\n2\n3"), Rejection.WRONG_SHAPE,
     {"rows": 1, "cols": 3, "got_rows": 3, "got_cols": 1}),
    (numeric("1 2 3\n4 5"), Rejection.WRONG_SHAPE_RAGGED,
     {"rows": 1, "cols": 3, "row": 2, "count": 2, "width": 3}),
    (lambda: grade_multiple_choice(["z"], {"a": 1.0}), Rejection.UNKNOWN_CHOICE, {"choice": "z"}),
    (lambda: grade_multiple_choice(["z", "y"], {"a": 1.0}), Rejection.UNKNOWN_CHOICES,
     {"choices": "'y', 'z'"}),
]  # fmt: skip

# Raised by quizsvc.practice for a chapter question's form or for text no database can hold
# (tests/web), not by the grading functions.
QUIZ_FORM_CODES = {
    Rejection.NO_CHOICE,
    Rejection.SEVERAL_CHOICES,
    Rejection.NO_TEXT,
    Rejection.LONE_SURROGATE,
}


@pytest.mark.parametrize(("call", "code", "params"), CASES)
def test_a_rejection_names_its_code_and_parameters(call, code, params):
    with pytest.raises(AnswerRejected) as caught:
        call()
    assert caught.value.code is code, str(caught.value)
    assert caught.value.params == params
    assert set(params) == REJECTION_PARAMETERS[code]


def test_every_code_the_grading_functions_raise_is_checked_above():
    assert set(Rejection) - {code for _, code, _ in CASES} == QUIZ_FORM_CODES


def test_the_english_message_is_kept_for_the_logs():
    with pytest.raises(AnswerRejected) as caught:
        grade_numeric("1 2", [1.0, 2.0, 3.0], Tolerance())
    assert str(caught.value) == "expected 1 × 3 values (rows × columns), got 1 × 2"


def test_a_code_with_missing_or_extra_parameters_is_a_programming_error():
    with pytest.raises(TypeError, match="row"):
        AnswerRejected("row 1 is empty", Rejection.EMPTY_ROW)
    with pytest.raises(TypeError):
        AnswerRejected("answer is empty", Rejection.EMPTY, row=1)
    # a caller's own message needs no code
    assert AnswerRejected("no").code is None
