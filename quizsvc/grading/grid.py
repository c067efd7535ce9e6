"""Reading an answer grid: the cells a learner typed into a drill's page (or the matrix pasted
into its box), or the rows of numbers a script sent, as the one text `parse_answer` reads.

Every cell is checked on its own, so that every cell to fix can be named at once. What is
wrong comes as a code and its parameters; the interface says it in its own words.
"""

from __future__ import annotations

import math
import re
import reprlib
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from quizsvc.grading.errors import AnswerRejected, Rejection
from quizsvc.grading.parse import MAX_ANSWER_CHARS, parse_answer
from quizsvc.messages import require_parameters

# A drill's answer grid is at most a few dozen cells. A matrix sent as rows of numbers
# becomes text for the grader, which reads at most MAX_ANSWER_CHARS: this many cells of
# floats written out in full (at most 26 characters with their separator) always fit.
MAX_ANSWER_CELLS = 256


class AnswerSource(StrEnum):
    GRID = "grid"
    PASTE_BOX = "paste_box"


@dataclass(frozen=True)
class GridAnswer:
    text: str
    source: AnswerSource
    cells: list[list[str]]  # the grid's cells as typed (stripped); all empty for the paste box


class CellProblem(StrEnum):
    """Why one cell of the grid cannot be read as one number."""

    EMPTY = "empty"
    DECIMAL_COMMA = "decimal_comma"
    COMMA_DECIMAL_OR_THOUSANDS = "comma_decimal_or_thousands"
    SEVERAL_NUMBERS = "several_numbers"
    NOT_A_NUMBER = "not_a_number"
    NAN = "nan"
    TOO_LARGE = "too_large"
    DIVISION_BY_ZERO = "division_by_zero"


class GridRejection(StrEnum):
    """Why the grid and the paste box together hold no one answer."""

    NO_ANSWER = "no_answer"  # both are empty
    GRID_AND_PASTE_BOX_DIFFER = "grid_and_paste_box_differ"  # one of them is to be emptied


@dataclass(frozen=True)
class GridProblem:
    """One thing to fix before the answer can be read: a cell's (``cell`` is its row and
    column, counted from 0, ``text`` what it holds as read), or the whole answer's
    (``cell`` None)."""

    code: CellProblem | GridRejection
    cell: tuple[int, int] | None = None
    text: str = ""


class GridRejected(ValueError):
    """The grid and the paste box cannot be read as one answer: every problem found."""

    def __init__(self, problems: list[GridProblem]) -> None:
        super().__init__("; ".join(_problem_summary(p) for p in problems))
        self.problems = problems


def _problem_summary(problem: GridProblem) -> str:
    if problem.cell is None:
        return problem.code.value
    row, col = problem.cell
    return f"cell ({row}, {col}) {problem.text!r}: {problem.code.value}"


def read_grid(cells: Sequence[Sequence[str]], pasted: str) -> GridAnswer:
    """The answer as text, from the grid's cells (rows of what each input holds) or from
    the paste box.

    The paste box is read only while the grid is empty: text left in it after an error must
    never silently replace what the learner has since typed into the grid. When both hold
    an answer they must agree (e.g. the grid was filled from the box), or the learner is
    asked to empty one of them.
    """
    typed = [[typed_cell(value) for value in row] for row in cells]
    pasted = pasted.strip()
    grid_used = any(value for row in typed for value in row)
    if pasted and not grid_used:
        return GridAnswer(pasted, AnswerSource.PASTE_BOX, typed)
    if not grid_used:
        raise GridRejected([GridProblem(GridRejection.NO_ANSWER)])
    empty = any(not value for row in typed for value in row)
    grid_text = "\n".join(", ".join(row) for row in typed)
    if pasted and (empty or not _same_numbers(grid_text, pasted)):
        raise GridRejected([GridProblem(GridRejection.GRID_AND_PASTE_BOX_DIFFER)])
    problems = [
        GridProblem(problem, (r, c), value)
        for r, row in enumerate(typed)
        for c, value in enumerate(row)
        if (problem := cell_problem(value)) is not None
    ]
    if problems:
        raise GridRejected(problems)
    return GridAnswer(grid_text, AnswerSource.GRID, typed)


# A separator typed after a cell's number ("0.5," as in a list, then Tab to the next cell)
# separates it from nothing: it is left out rather than read as a missing second number.
_TRAILING_SEPARATORS = ",;，；、"


def typed_cell(value: str) -> str:
    """A cell's text as read: without surrounding space or a trailing separator."""
    return value.strip().rstrip(_TRAILING_SEPARATORS).rstrip()


# "0,5" as a continental European or a spreadsheet writes one half (also with a full-width
# comma): the grader reads two numbers
_DECIMAL_COMMA = re.compile(r"[+-]?[0-9]+[,，][0-9]+")
# "1,250": a decimal comma (1.25) or a thousands separator (1250), which the grid cannot tell
_DECIMAL_OR_THOUSANDS_COMMA = re.compile(r"[+-]?[1-9][0-9]{0,2}[,，][0-9]{3}")

_UNREADABLE_VALUE = {
    Rejection.NAN: CellProblem.NAN,
    Rejection.TOO_LARGE: CellProblem.TOO_LARGE,
    Rejection.DIVISION_BY_ZERO: CellProblem.DIVISION_BY_ZERO,
}


def cell_problem(cell: str) -> CellProblem | None:
    """Why the grader could not take this cell (stripped) as one number, or None if it can.

    Asked of the grader's own parser, with the cell where the grid's text puts it (cells
    joined by ", ", rows by new lines): between two values of a row, which must then read as
    three values. So a cell the grader would take for more than one value ("0.5 0.1", the
    decimal comma of "0,5"), or at which it would split its row ("0.5;" ends the row,
    ", 0.5" leaves a value out), holds several numbers; one it cannot read is named by what
    the grader says of it."""
    if not cell:
        return CellProblem.EMPTY
    if _DECIMAL_OR_THOUSANDS_COMMA.fullmatch(cell):
        several = CellProblem.COMMA_DECIMAL_OR_THOUSANDS
    elif _DECIMAL_COMMA.fullmatch(cell):
        several = CellProblem.DECIMAL_COMMA
    else:
        several = CellProblem.SEVERAL_NUMBERS
    try:
        values = parse_answer(f"0, {cell}, 0")
    except AnswerRejected as exc:
        if "column" in exc.params:  # a value it could not read: is it the cell's first?
            if (exc.params["row"], exc.params["column"]) != (1, 2):
                return several
            return _UNREADABLE_VALUE.get(exc.code, CellProblem.NOT_A_NUMBER)
        if exc.code in (Rejection.RAGGED_ROWS, Rejection.EMPTY_BETWEEN_COMMAS):
            return several  # a separator inside the cell splits its row
        return CellProblem.NOT_A_NUMBER  # brackets, a control character: not one number
    return None if values.shape == (1, 3) else several


def _same_numbers(first: str, second: str) -> bool:
    try:
        a, b = parse_answer(first), parse_answer(second)
    except AnswerRejected:
        return False
    return a.shape == b.shape and bool(np.array_equal(a, b))


# --- a matrix sent as rows of numbers -----------------------------------------------------


class RowsRejection(StrEnum):
    """Why rows of numbers cannot be read as an answer; the parameters each code carries
    are in ``ROWS_REJECTION_PARAMETERS`` (row and column numbers count from 1)."""

    TOO_MANY_CELLS = "too_many_cells"
    EMPTY_ROW = "empty_row"
    NOT_A_NUMBER = "not_a_number"  # "got": the value, shortened as Python writes it
    STRING_NOT_INFINITY = "string_not_infinity"
    TOO_LARGE = "too_large"  # a number read as an infinity (JSON's 1e999)
    TOO_LONG = "too_long"  # the numbers written out exceed what the grader reads


ROWS_REJECTION_PARAMETERS: dict[RowsRejection, frozenset[str]] = {
    RowsRejection.TOO_MANY_CELLS: frozenset({"count", "max"}),
    RowsRejection.EMPTY_ROW: frozenset({"row"}),
    RowsRejection.NOT_A_NUMBER: frozenset({"row", "column", "got"}),
    RowsRejection.STRING_NOT_INFINITY: frozenset({"row", "column"}),
    RowsRejection.TOO_LARGE: frozenset({"row", "column"}),
    RowsRejection.TOO_LONG: frozenset({"chars", "max"}),
}


class RowsRejected(ValueError):
    """Rows of numbers that cannot be read as an answer. ``str(exc)`` says why in English
    (as the JSON API sends it), ``code`` and ``params`` the same for another language."""

    def __init__(self, message: str, code: RowsRejection, **params: str | int) -> None:
        super().__init__(message)
        require_parameters("RowsRejected", code, params, ROWS_REJECTION_PARAMETERS)
        self.code = code
        self.params = params


def rows_text(rows: Sequence[Sequence[object]]) -> str:
    """Rows of numbers (each a number, or "inf"/"-inf" for an infinity) as the text the
    grader reads: a row per line, its values separated by ", "."""
    cell_count = sum(len(row) for row in rows)
    if cell_count > MAX_ANSWER_CELLS:
        raise RowsRejected(
            f"the answer matrix has {cell_count} cells; at most {MAX_ANSWER_CELLS} are read",
            RowsRejection.TOO_MANY_CELLS,
            count=cell_count,
            max=MAX_ANSWER_CELLS,
        )
    lines = [", ".join(_row_values(r, row)) for r, row in enumerate(rows, start=1)]
    text = "\n".join(lines)
    if len(text) > MAX_ANSWER_CHARS:  # only whole numbers of hundreds of digits get here
        raise RowsRejected(
            f"the answer matrix's numbers take {len(text)} characters written out; "
            f"at most {MAX_ANSWER_CHARS} are read: send fewer digits",
            RowsRejection.TOO_LONG,
            chars=len(text),
            max=MAX_ANSWER_CHARS,
        )
    return text


def _row_values(r: int, row: Sequence[object]) -> list[str]:
    """The values of row r, each as the grader reads a value."""
    if not row:
        raise RowsRejected(f"row {r} is empty", RowsRejection.EMPTY_ROW, row=r)
    values = []
    for c, value in enumerate(row, start=1):
        where = f"row {r}, column {c}"
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            # reprlib: a value may be a list nested hundreds deep, or very long
            got = reprlib.repr(value)
            raise RowsRejected(
                f'{where}: expected a number or "inf"/"-inf", got {got}',
                RowsRejection.NOT_A_NUMBER,
                row=r,
                column=c,
                got=got,
            )
        if isinstance(value, str) and value not in ("inf", "-inf"):
            raise RowsRejected(
                f'{where}: the only strings allowed are "inf" and "-inf"',
                RowsRejection.STRING_NOT_INFINITY,
                row=r,
                column=c,
            )
        if isinstance(value, float) and not math.isfinite(value):
            # json reads 1e999 as inf: the client sent a number, not the string "inf"
            raise RowsRejected(
                f'{where}: the number is too large to be finite; send "inf" or "-inf" '
                f"for an infinity",
                RowsRejection.TOO_LARGE,
                row=r,
                column=c,
            )
        # repr keeps every digit of a float
        values.append(repr(value) if isinstance(value, float) else str(value))
    return values
