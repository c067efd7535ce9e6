"""The answer grid of a drill's page: its inputs' names, a problem found in them at its
input with what to fix in the page's language, and what the grid holds when the page opens.
Collecting what the inputs hold is `quizsvc.web.forms.DrillAnswerForm`'s, reading the cells
as an answer `quizsvc.grading.read_grid`'s."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from flask_babel import gettext

from quizsvc import store
from quizsvc.drills import Tensor
from quizsvc.grading import CellProblem, GridProblem, GridRejection


@dataclass(frozen=True)
class FieldProblem:
    """One thing to fix before the answer can be read. ``field`` is the input's name and id
    (None: no one input to point at); ``label`` is what the learner calls that input (the
    cell's row and column headers, the box's title), or None when ``message`` says it."""

    field: str | None
    label: str | None
    message: str

    @property
    def error_id(self) -> str:
        """The id of the message, which the field's aria-describedby names."""
        return f"error-{self.field}" if self.field else "error-answer"


def cell_field(row: int, col: int) -> str:
    """The name (and id) of the grid's input for a cell, rows and columns counted from 0."""
    return f"cell-{row}-{col}"


PASTE_BOX_FIELD = "pasted"  # the text box's name (and id), which an error links to


def field_problem(problem: GridProblem, names: list[list[str]]) -> FieldProblem:
    """A problem of the grid as the page shows it: at its input, a cell named by ``names``
    (its row and column headers as the page shows them)."""
    match problem.code:
        case GridRejection.NO_ANSWER:
            return FieldProblem(cell_field(0, 0), None, gettext("No answer was entered."))
        case GridRejection.GRID_AND_PASTE_BOX_DIFFER:
            message = gettext(
                "The grid and the “%(box)s” box hold different answers: empty "
                "one of them, then submit again.",
                box=gettext("Paste a matrix"),
            )
            return FieldProblem(PASTE_BOX_FIELD, None, message)
    row, col = problem.cell
    return FieldProblem(
        cell_field(row, col), names[row][col], cell_problem_text(problem.code, problem.text)
    )


# Longest cell quoted back in a message, as the grader shortens what it quotes
_MAX_QUOTED_CHARS = 30


def cell_problem_text(problem: CellProblem, cell: str) -> str:
    """What is wrong with a cell, in the page's language, quoting what was typed."""
    text = cell if len(cell) <= _MAX_QUOTED_CHARS else cell[: _MAX_QUOTED_CHARS - 1] + "…"
    match problem:
        case CellProblem.EMPTY:
            return gettext("empty")
        case CellProblem.DECIMAL_COMMA:
            fixed = text.replace(",", ".").replace("，", ".")
            return gettext(
                "“%(text)s” has a decimal comma: write %(fixed)s", text=text, fixed=fixed
            )
        case CellProblem.COMMA_DECIMAL_OR_THOUSANDS:
            return gettext(
                "“%(text)s”: is the comma a decimal point or a thousands "
                "separator? Write %(decimal)s or %(whole)s",
                text=text,
                decimal=text.replace(",", ".").replace("，", "."),
                whole=text.replace(",", "").replace("，", ""),
            )
        case CellProblem.SEVERAL_NUMBERS:
            return gettext("“%(text)s” is more than one number: type just one", text=text)
        case CellProblem.NAN:
            return gettext("NaN is not a number you can be graded on")
        case CellProblem.TOO_LARGE:
            return gettext(
                "“%(text)s” is too large to be a finite number (write inf if you mean infinity)",
                text=text,
            )
        case CellProblem.DIVISION_BY_ZERO:
            return gettext("“%(text)s” divides by zero", text=text)
        case _:
            return gettext("“%(text)s” is not a number", text=text)


def typed_value(value: float | str) -> str:
    """A graded cell's value (from stored JSON: infinities as "inf"/"-inf") as a learner would
    type it back: every digit that was read (the shortest text that reads as the same
    number), a whole number without ".0", never rounded (a rounded value could turn a right
    cell wrong)."""
    number = float(value)
    if math.isinf(number):
        return "-inf" if number < 0 else "inf"
    if number.is_integer() and abs(number) < 1e15:
        return str(int(number))
    return repr(number)


def grid_prefill(
    last: store.SubmissionResult | None, rows: int, cols: int, remembered: dict | None
) -> list[list[str]]:
    """What the answer grid holds when the page opens without a form to show again: the
    latest attempt's answer, so that a retry changes only the cells to fix.

    As the learner typed it into the grid when this browser sent it; otherwise (an answer
    pasted into the box, or sent from another browser or long ago) its values as read. A
    pasted answer goes into the grid rather than back into the box: the cells marked wrong
    are in the grid, and the box is read only while the grid is empty, so the grid is where
    the learner fixes them (as static/drill.js copies a pasted matrix into the grid)."""
    if last is None:
        return [["" for _ in range(cols)] for _ in range(rows)]
    typed = remembered.get("cells") if remembered else None
    if (
        isinstance(typed, list)
        and len(typed) == rows
        and all(isinstance(row, list) and len(row) == cols for row in typed)
    ):
        return [[str(value) for value in row] for row in typed]
    values = [["" for _ in range(cols)] for _ in range(rows)]
    for cell in last.cells:
        values[cell["row"]][cell["col"]] = typed_value(cell["submitted"])
    return values


def answer_may_be_minus_infinity(answer: Tensor) -> bool:
    """Whether a drill's grid gets a −∞ button beside each cell: when its answer holds minus
    infinity (the masked cells of a masked score row). Beside every cell, not only the
    masked ones, or the buttons would tell which cells those are."""
    return bool(np.isneginf(answer.values).any())
