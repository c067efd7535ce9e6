"""Reading a drill's answer grid and rows of numbers sent to the API (quizsvc.grading.grid):
the text the grader reads, and every problem with its code and parameters."""

from __future__ import annotations

import pytest

from quizsvc.grading import (
    MAX_ANSWER_CELLS,
    MAX_ANSWER_CHARS,
    ROWS_REJECTION_PARAMETERS,
    AnswerSource,
    CellProblem,
    GridAnswer,
    GridProblem,
    GridRejected,
    GridRejection,
    RowsRejected,
    RowsRejection,
    cell_problem,
    read_grid,
    rows_text,
    typed_cell,
)


def rejected(cells, pasted=""):
    with pytest.raises(GridRejected) as caught:
        read_grid(cells, pasted)
    return caught.value.problems


# --- the grid and the paste box -----------------------------------------------------------


def test_a_filled_grid_is_read_row_by_row():
    assert read_grid([["1", " 2 "], ["1/3", "-inf"]], "") == GridAnswer(
        "1, 2\n1/3, -inf", AnswerSource.GRID, [["1", "2"], ["1/3", "-inf"]]
    )


def test_a_separator_typed_after_a_cells_number_is_left_out():
    assert typed_cell(" 0.5, ") == "0.5"
    assert typed_cell("0.5；") == "0.5"
    assert typed_cell("0.5 、") == "0.5"
    assert read_grid([["0.5,", "0.25;"]], "").text == "0.5, 0.25"


def test_the_paste_box_is_read_while_the_grid_is_empty():
    answer = read_grid([["", " "], ["", ""]], "  1 2\n3 4 ")
    assert answer == GridAnswer("1 2\n3 4", AnswerSource.PASTE_BOX, [["", ""], ["", ""]])


def test_an_empty_grid_and_an_empty_box_are_no_answer():
    assert rejected([["", ""]], "  ") == [GridProblem(GridRejection.NO_ANSWER)]


def test_a_grid_and_a_box_holding_the_same_numbers_are_read_from_the_grid():
    answer = read_grid([["0.5", "1"], ["2", "3"]], "[[0.5, 1], [2, 3]]")
    assert answer.source is AnswerSource.GRID
    assert answer.text == "0.5, 1\n2, 3"


@pytest.mark.parametrize(
    "cells",
    [
        [["0.5", "1"], ["2", "4"]],  # another number
        [["0.5", "1"], ["2", ""]],  # a cell left empty
        [["0.5", "1", "2", "3"]],  # the same numbers in another shape
    ],
)
def test_text_left_in_the_box_never_silently_overrides_the_grid(cells):
    problems = rejected(cells, "0.5 1\n2 3")
    assert problems == [GridProblem(GridRejection.GRID_AND_PASTE_BOX_DIFFER)]


def test_every_cell_to_fix_is_reported_at_once_with_where_and_what_it_holds():
    problems = rejected([["0,5", "1"], ["", "abc"]])
    assert problems == [
        GridProblem(CellProblem.DECIMAL_COMMA, (0, 0), "0,5"),
        GridProblem(CellProblem.EMPTY, (1, 0), ""),
        GridProblem(CellProblem.NOT_A_NUMBER, (1, 1), "abc"),
    ]


# --- one cell -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cell", "problem"),
    [
        ("", CellProblem.EMPTY),
        ("0,5", CellProblem.DECIMAL_COMMA),
        ("-3，25", CellProblem.DECIMAL_COMMA),
        ("1,250", CellProblem.COMMA_DECIMAL_OR_THOUSANDS),
        ("0.5 0.1", CellProblem.SEVERAL_NUMBERS),
        ("1 000", CellProblem.SEVERAL_NUMBERS),
        ("0.5;", CellProblem.SEVERAL_NUMBERS),  # it would end the row
        (", 0.5", CellProblem.SEVERAL_NUMBERS),  # it would leave a value out
        ("0.5 abc", CellProblem.SEVERAL_NUMBERS),  # its second value is unreadable
        ("abc", CellProblem.NOT_A_NUMBER),
        ("[0.5]", CellProblem.NOT_A_NUMBER),
        ("nan", CellProblem.NAN),
        ("1e999", CellProblem.TOO_LARGE),
        ("1/0", CellProblem.DIVISION_BY_ZERO),
    ],
)
def test_a_cell_that_is_not_one_number_is_named_by_why(cell, problem):
    assert cell_problem(cell) is problem


@pytest.mark.parametrize("cell", ["0.5", "-1e-3", "1/3", "48.1%", "-inf", "负无穷", "１２．５"])
def test_a_cell_holding_one_number_has_no_problem(cell):
    assert cell_problem(cell) is None


# --- rows of numbers ----------------------------------------------------------------------


def test_rows_of_numbers_are_written_out_with_every_digit():
    assert rows_text([[0.5, 1], [2, "-inf"]]) == "0.5, 1\n2, -inf"
    assert rows_text([[0.1 + 0.2, "inf"]]) == "0.30000000000000004, inf"


def test_rows_written_out_in_exactly_the_characters_read_are_read():
    # 1000 cells would be too many: 40 cells of 248 digits, 39 separators of 2 characters
    cells = 40
    digits = (MAX_ANSWER_CHARS - 2 * (cells - 1)) // cells
    assert (digits, cells * digits + 2 * (cells - 1)) == (248, 9998)
    assert len(rows_text([[int("9" * digits)] * cells])) == 9998


@pytest.mark.parametrize(
    ("rows", "code", "params", "message"),
    [
        (
            [[0] * 16] * 17,
            RowsRejection.TOO_MANY_CELLS,
            {"count": 272, "max": 256},
            "the answer matrix has 272 cells; at most 256 are read",
        ),
        ([[1], []], RowsRejection.EMPTY_ROW, {"row": 2}, "row 2 is empty"),
        (
            [[1, 2], [3, True]],
            RowsRejection.NOT_A_NUMBER,
            {"row": 2, "column": 2, "got": "True"},
            'row 2, column 2: expected a number or "inf"/"-inf", got True',
        ),
        (
            [[None]],
            RowsRejection.NOT_A_NUMBER,
            {"row": 1, "column": 1, "got": "None"},
            'row 1, column 1: expected a number or "inf"/"-inf", got None',
        ),
        (
            [[1, "∞"]],
            RowsRejection.STRING_NOT_INFINITY,
            {"row": 1, "column": 2},
            'row 1, column 2: the only strings allowed are "inf" and "-inf"',
        ),
        (
            [[float("-inf")]],
            RowsRejection.TOO_LARGE,
            {"row": 1, "column": 1},
            'row 1, column 1: the number is too large to be finite; send "inf" or "-inf" '
            "for an infinity",
        ),
        (
            [[10**300] * 40],  # 40 values of 301 digits, 39 separators of 2 characters
            RowsRejection.TOO_LONG,
            {"chars": 12118, "max": MAX_ANSWER_CHARS},
            "the answer matrix's numbers take 12118 characters written out; at most 10000 "
            "are read: send fewer digits",
        ),
    ],
)
def test_rows_that_cannot_be_read_say_why_in_a_code_and_in_english(rows, code, params, message):
    with pytest.raises(RowsRejected) as caught:
        rows_text(rows)
    assert (caught.value.code, caught.value.params, str(caught.value)) == (code, params, message)


def test_a_value_nested_deep_is_quoted_short():
    nested: list = [1]
    for _ in range(200):
        nested = [nested]
    with pytest.raises(RowsRejected) as caught:
        rows_text([[nested]])
    # reprlib writes six levels of a list, and the seventh as [...]
    assert caught.value.params["got"] == "[" * 6 + "[...]" + "]" * 6


def test_the_cells_limit_is_what_the_grader_reads_of_floats_written_out():
    # a float written out in full takes at most 24 characters, 2 more with its separator
    assert len(repr(-2.2250738585072014e-308)) == 24
    assert MAX_ANSWER_CELLS * 26 <= MAX_ANSWER_CHARS


def test_every_rows_rejection_lists_its_parameters():
    assert set(ROWS_REJECTION_PARAMETERS) == set(RowsRejection)
    with pytest.raises(TypeError):
        RowsRejected("row 1 is empty", RowsRejection.EMPTY_ROW, column=1)
