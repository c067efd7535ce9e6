"""The coded messages' shared pieces: the N_ marker, and the parameter check that the grader's
rejections make when they are raised."""

from __future__ import annotations

import re

import pytest

from quizsvc.grading import AnswerRejected, Rejection, RowsRejected, RowsRejection
from quizsvc.messages import N_


def test_the_marker_returns_the_template_itself():
    template = "row {row} is empty"
    assert N_(template) is template


def test_a_rejection_with_its_code_s_parameters_says_the_template_filled_in():
    exc = AnswerRejected("row {row} is empty", Rejection.EMPTY_ROW, row=3)
    assert str(exc) == "row 3 is empty"
    assert (exc.template, exc.code, exc.params) == (
        "row {row} is empty",
        Rejection.EMPTY_ROW,
        {"row": 3},
    )


@pytest.mark.parametrize(
    ("raise_it", "expected"),
    [
        # a parameter missing
        (
            lambda: AnswerRejected("{closing}", Rejection.UNMATCHED_CLOSING_BRACKET, closing=")"),
            "AnswerRejected 'unmatched_closing_bracket' takes the parameters "
            "['closing', 'opening', 'position'], got ['closing']",
        ),
        # one too many
        (
            lambda: AnswerRejected("answer is empty", Rejection.EMPTY, row=1),
            "AnswerRejected 'empty' takes the parameters [], got ['row']",
        ),
        (
            lambda: RowsRejected("too long", RowsRejection.TOO_LONG, chars=5000),
            "RowsRejected 'too_long' takes the parameters ['chars', 'max'], got ['chars']",
        ),
    ],
)
def test_a_raise_with_other_parameters_than_its_code_s_is_a_programming_error(raise_it, expected):
    with pytest.raises(TypeError, match=f"^{re.escape(expected)}$"):
        raise_it()


def test_a_caller_s_own_text_has_no_code_and_no_parameters_to_check():
    exc = AnswerRejected("the {braces} stay as written")
    assert str(exc) == "the {braces} stay as written"
    assert exc.code is None
