"""The drills pages: choose a drill, answer a variant in a grid, see marks and the solution."""

from __future__ import annotations

import math
import re
import uuid
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
from flask import (
    Blueprint,
    abort,
    flash,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import gettext, ngettext
from flask_login import current_user, login_required
from markupsafe import Markup

from quizsvc import practice, store
from quizsvc.bank import DrillQuestion, localize, render_markdown
from quizsvc.drills import Step, Variant
from quizsvc.grading import AnswerRejected, Rejection, Tolerance, parse_answer
from quizsvc.web.context import bank, db
from quizsvc.web.i18n import (
    answer_problem,
    drill_title,
    localized_tensor,
    localized_variant,
    negotiated_language,
    skill_name,
)
from quizsvc.web.render import format_number, format_whole_percent, heatmap_svg, matrix_table

bp = Blueprint("drills", __name__)


@bp.get("/drills")
@login_required
def index():
    lang = negotiated_language()
    store.begin_read_only(db())
    unfinished = store.unfinished_variants(db(), current_user.id)
    standings = store.drill_standings(db(), current_user.id)  # one query for every drill
    questions = [q for q in bank().questions.values() if isinstance(q, DrillQuestion)]
    recommendation = practice.drill_recommendation(db(), bank(), current_user.id)
    drills = [
        {
            "id": q.id,
            "kind": q.kind,
            "title": drill_title(q.kind),
            "skill": skill_name(practice.drill_skill(q)),
            "prompt": render_markdown(localize(q.prompt, lang)),
            "resumes": q.id in standings and standings[q.id].unfinished > 0,
            "status": drill_status(standings.get(q.id)),
        }
        for q in questions
    ]
    return render_template(
        "drills.html",
        drills=drills,
        recommended=_recommended_view(recommendation, drills),
        unfinished=[
            {
                "variant_id": u.variant_id,
                "title": drill_title(u.kind),
                "started": u.created_at,
                "attempts_left": u.attempts_left,
            }
            for u in unfinished
        ],
    )


def drill_status(standing: store.DrillStanding | None) -> list[str]:
    """What the learner has done with a drill, as short phrases in the page's language:
    its unfinished variants (which Continue resumes), its finished ones, its best score."""
    if standing is None:
        return [gettext("Not tried yet")]
    status = []
    if standing.unfinished:
        status.append(
            ngettext(
                "%(num)s unfinished variant, Continue opens it",
                "%(num)s unfinished variants, Continue opens the newest",
                standing.unfinished,
            )
        )
    if standing.finished:
        status.append(
            ngettext("%(num)s variant finished", "%(num)s variants finished", standing.finished)
        )
    if standing.best is not None:
        status.append(
            gettext(
                "best score %(score)s (each variant at its best attempt)",
                score=format_whole_percent(standing.best),
            )
        )
    return status


def _recommended_view(
    recommendation: practice.Recommendation | None, drills: list[dict]
) -> dict | None:
    """The recommended drill as the list shows it, with why it is recommended."""
    if recommendation is None:
        return None
    drill = next(d for d in drills if d["id"] == recommendation.question_id)
    skill = skill_name(recommendation.skill)
    return {
        **drill,
        "why": gettext("It practises a skill you have not practised yet: %(skill)s.", skill=skill)
        if recommendation.mastery is None
        else gettext(
            "It practises your weakest skill so far: %(skill)s (mastery %(mastery)s).",
            skill=skill,
            mastery=format_whole_percent(recommendation.mastery),
        ),
    }


@bp.post("/drills/recommended")
@login_required
def recommended():
    question_id = practice.recommended_drill(db(), bank(), current_user.id)
    if question_id is None:
        abort(404, description=gettext("There are no drills in the question bank."))
    return _resume_or_start(question_id)


@bp.post("/drills/<question_id>/start")
@login_required
def start(question_id: str):
    """The drill's unfinished variant if the learner has one, else a new one."""
    return _resume_or_start(question_id)


@bp.post("/drills/<question_id>/variants")
@login_required
def new_variant(question_id: str):
    """Always a fresh variant (the learner asked for other numbers)."""
    try:
        issued = practice.start_drill(db(), bank(), current_user.id, question_id)
    except practice.PracticeError:
        abort(404, description=gettext("There is no drill '%(id)s'.", id=question_id))
    return redirect(url_for("drills.variant", variant_id=issued.id))


def _resume_or_start(question_id: str):
    try:
        variant_id = practice.resume_or_start_drill(db(), bank(), current_user.id, question_id)
    except practice.PracticeError:
        abort(404, description=gettext("There is no drill '%(id)s'.", id=question_id))
    return redirect(url_for("drills.variant", variant_id=variant_id))


# A form's URL typed, bookmarked or reloaded after a rejected answer (the 422 page is served
# at the POST's URL) is a GET: lead to the page the form belongs to rather than a 405.
@bp.get("/drills/recommended")
@bp.get("/drills/<question_id>/start")
@bp.get("/drills/<question_id>/variants")
@login_required
def drill_form_address(question_id: str | None = None):
    return redirect(url_for("drills.index"))


@bp.get("/variants/<int:variant_id>/submissions")
@login_required
def submission_form_address(variant_id: int):
    return redirect(url_for("drills.variant", variant_id=variant_id))


def _load_state(variant_id: int) -> practice.DrillState:
    try:
        return practice.drill_state(db(), current_user.id, variant_id)
    except (store.NotFound, store.NotYourVariant):
        # the same answer for "not yours" as for "not there": ids are not to be probed
        abort(
            404, description=gettext("You have no drill exercise numbered %(id)s.", id=variant_id)
        )


class AnswerSource(StrEnum):
    GRID = "grid"
    PASTE_BOX = "pasted"  # the text box's field name (and id), which an error links to


@dataclass(frozen=True)
class FormAnswer:
    text: str
    source: AnswerSource
    cells: list[list[str]]  # the grid's cells as typed (stripped); all empty for the paste box


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


class FormProblem(Exception):
    """The form cannot be read as one answer: every problem found, each with its field."""

    def __init__(self, problems: list[FieldProblem]) -> None:
        super().__init__("; ".join(p.message for p in problems))
        self.problems = problems


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


def answer_from_form(form, rows: int, cols: int, names: list[list[str]]) -> FormAnswer:
    """The answer as text, from the grid or from the paste box.

    The paste box is read only while the grid is empty: text left in it after an error must
    never silently replace what the learner has since typed into the grid. When both hold
    an answer they must agree (e.g. the grid was filled from the box), or the learner is
    asked to empty one of them.

    Every cell of the grid is checked on its own, so that every cell to fix is reported at
    once, named by ``names`` (its row and column headers as the page shows them).
    """
    cells = [[typed_cell(form.get(cell_field(r, c), "")) for c in range(cols)] for r in range(rows)]
    pasted = form.get("pasted", "").strip()
    grid_used = any(value for row in cells for value in row)
    if pasted and not grid_used:
        return FormAnswer(pasted, AnswerSource.PASTE_BOX, cells)
    if not grid_used:
        first = cell_field(0, 0)
        raise FormProblem([FieldProblem(first, None, gettext("No answer was entered."))])
    empty = any(not value for row in cells for value in row)
    grid_text = "\n".join(", ".join(row) for row in cells)
    if pasted and (empty or not _same_numbers(grid_text, pasted)):
        message = gettext(
            "The grid and the “%(box)s” box hold different answers: empty "
            "one of them, then submit again.",
            box=gettext("Paste a matrix"),
        )
        raise FormProblem([FieldProblem(AnswerSource.PASTE_BOX.value, None, message)])
    problems = [
        FieldProblem(cell_field(r, c), names[r][c], cell_problem_text(problem, value))
        for r, row in enumerate(cells)
        for c, value in enumerate(row)
        if (problem := cell_problem(value)) is not None
    ]
    if problems:
        raise FormProblem(problems)
    return FormAnswer(grid_text, AnswerSource.GRID, cells)


# A separator typed after a cell's number ("0.5," as in a list, then Tab to the next cell)
# separates it from nothing: it is left out rather than read as a missing second number.
_TRAILING_SEPARATORS = ",;，；、"


def typed_cell(value: str) -> str:
    """A cell's text as read: without surrounding space or a trailing separator."""
    return value.strip().rstrip(_TRAILING_SEPARATORS).rstrip()


def cell_field(row: int, col: int) -> str:
    """The name (and id) of the grid's input for a cell, rows and columns counted from 0."""
    return f"cell-{row}-{col}"


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


def _same_numbers(first: str, second: str) -> bool:
    try:
        a, b = parse_answer(first), parse_answer(second)
    except AnswerRejected:
        return False
    return a.shape == b.shape and bool(np.array_equal(a, b))


def tolerance_rule(tolerance: Tolerance) -> str:
    """How close an answer must be, as the learner reads it before answering."""
    atol, rtol = format_number(tolerance.atol, 6), format_number(tolerance.rtol, 6)
    if tolerance.atol == 0 and tolerance.rtol == 0:
        return gettext("Only the exact value counts as correct.")
    if tolerance.rtol == 0:
        return gettext("Answers within ±%(atol)s of the exact value count as correct.", atol=atol)
    return gettext(
        "Answers within ±(%(atol)s + %(rtol)s × |exact value|) of the "
        "exact value count as correct.",
        atol=atol,
        rtol=rtol,
    )


def drill_rules(variant: Variant, attempts_allowed: int, penalty: float) -> list[str]:
    """The rules a drill's page states before answering: how close, all or nothing, what a
    retry costs (the instructor's preview shows the same list)."""
    rules = [tolerance_rule(variant.tolerance)]
    if variant.all_or_nothing and variant.answer.values.size > 1:
        rules.append(gettext("Every cell must be right to score: one wrong cell scores 0."))
    if attempts_allowed > 1 and penalty > 0:
        rules.append(
            gettext(
                "Each further attempt takes %(penalty)s off the score.",
                penalty=format_whole_percent(penalty),
            )
        )
    return rules


def cell_names(answer) -> list[list[str]]:
    """What the learner calls each cell of the answer: its row and column headers as the page
    shows them ("我, d1"), a header left out where it is empty, the answer's name for a
    single number."""
    rows, cols = answer.shape
    if (rows, cols) == (1, 1):  # its one input is labelled with the answer's name
        return [[answer.name]]
    return [
        [
            ", ".join(label for label in (answer.row_labels[r], answer.col_labels[c]) if label)
            or answer.name
            for c in range(cols)
        ]
        for r in range(rows)
    ]


# Where the browser keeps what the learner typed into the grid for their latest graded
# attempt: {"variant": id, "attempt": n, "cells": rows of text, "unseen": bool}. The store
# keeps the answer's text, but the page reads only the graded values, and those lose the
# learner's own writing ("1/3", "0.50"). "unseen": the page after the redirect has not been
# shown yet, so it moves the focus to the result.
_LAST_ANSWER = "drill_last_answer"
# A cookie holds the session: a grid too large for it is shown from the graded values
_MAX_REMEMBERED_CHARS = 600


def _remember_answer(variant_id: int, attempt: int, cells: list[list[str]] | None) -> None:
    if cells is not None and sum(len(value) for row in cells for value in row) > (
        _MAX_REMEMBERED_CHARS
    ):
        cells = None
    session[_LAST_ANSWER] = {
        "variant": variant_id,
        "attempt": attempt,
        "cells": cells,
        "unseen": True,
    }


def _remembered_answer(variant_id: int, attempt: int) -> dict | None:
    """The remembered answer if it is this variant's latest attempt; marks it seen."""
    remembered = session.get(_LAST_ANSWER)
    if not isinstance(remembered, dict):
        return None
    if (remembered.get("variant"), remembered.get("attempt")) != (variant_id, attempt):
        return None
    if remembered.get("unseen"):
        session[_LAST_ANSWER] = {**remembered, "unseen": False}
    return remembered


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


def render_variant(
    state: practice.DrillState,
    problems: list[FieldProblem] | None = None,
    status: int = 200,
):
    lang = negotiated_language()
    variant = localized_variant(state.variant)
    last = state.submissions[-1] if state.submissions else None
    rows, cols = variant.answer.shape
    # never an interval around a wrong cell while attempts remain: it would give the
    # answer away
    marks = cell_marks(last.cells, rows, cols, state.finished) if last is not None else None
    question = bank().questions.get(state.stored.question_id)
    rules = drill_rules(variant, state.stored.attempts_allowed, state.stored.penalty)
    answer = variant.answer
    if problems is not None:  # the form sent back: the grid as the learner left it
        values = [
            [request.form.get(cell_field(r, c), "") for c in range(cols)] for r in range(rows)
        ]
        remembered = None
    else:
        remembered = _remembered_answer(state.stored.id, last.attempt) if last else None
        values = grid_prefill(last, rows, cols, remembered)
    # the cells the latest attempt got wrong, flagged in the grid (never with what was
    # expected: the grid is shown only while attempts remain)
    wrong = (
        {(cell["row"], cell["col"]) for cell in last.cells if not cell["correct"]}
        if last
        else set()
    )
    problems = problems or []
    return render_template(
        "variant.html",
        stored=state.stored,
        variant=variant,
        title=drill_title(variant.kind),
        # the drill's own prompt says what to compute and how many decimals to give; a
        # question that has left the bank since leaves the variant's prompt alone
        task=render_markdown(localize(question.prompt, lang))
        if isinstance(question, DrillQuestion)
        else None,
        prompt=render_markdown(variant.prompt[lang]),
        rules=rules,
        given=[matrix_table(t) for t in variant.given],
        rows=rows,
        cols=cols,
        scalar=(rows, cols) == (1, 1),
        row_labels=answer.row_labels,
        col_labels=answer.col_labels,
        cell_names=cell_names(answer),
        values=values,
        wrong=wrong,
        submissions=state.submissions,
        last=last,
        # after the redirect from a graded attempt: the keyboard starts at its result
        focus_result=bool(remembered and remembered.get("unseen")),
        marks=marks,
        finished=state.finished,
        solved=state.solved,
        expected=matrix_table(
            answer, region_label=gettext("Correct answer") + gettext(": ") + answer.name
        )
        if state.finished
        else None,
        solution=[
            {
                "title": step.title[lang],
                "text": render_markdown(step.text[lang]),
                "tensors": step_tables(step, number, lang),
            }
            for number, step in enumerate(variant.solution, start=1)
        ]
        if state.finished
        else None,
        heatmap=heatmap_svg(
            variant.heatmap,
            label=gettext(
                "Attention weights %(name)s: one row per query, one column per "
                "key; the darker the square, the larger the weight, and each "
                "square shows its value.",
                name=variant.heatmap.name,
            ),
        )
        if state.finished and variant.heatmap
        else None,
        problems=problems,
        field_problems={p.field: p for p in problems if p.field},
        idempotency_key=uuid.uuid4().hex,
    ), status


def cell_marks(
    cells: list[dict], rows: int, cols: int, reveal_wrong: bool
) -> list[list[dict[str, object]]]:
    """Graded cells (as `NumericGrade.to_json_dict()` writes them, infinities as strings),
    as the marks table shows them: right or wrong, the value given and, for a right cell or
    once `reveal_wrong`, the values that were accepted."""
    marks: list[list[dict[str, object]]] = [[{} for _ in range(cols)] for _ in range(rows)]
    for cell in cells:
        mark: dict[str, object] = {
            "correct": cell["correct"],
            "submitted": _shown(cell["submitted"]),
        }
        if reveal_wrong or cell["correct"]:
            low, high = _shown(cell["low"]), _shown(cell["high"])
            if low == high:  # an exact answer (a token id): one value, not an interval,
                if not cell["correct"]:  # and only where it is not the value given
                    mark |= {"interval": low, "interval_title": gettext("Accepted value")}
            else:
                mark |= {
                    "interval": f"[{low}, {high}]",
                    "interval_title": gettext("Accepted interval"),
                }
        marks[cell["row"]][cell["col"]] = mark
    return marks


def _shown(value: float | str) -> str:
    """A cell value from stored JSON, where infinities are the strings "inf" and "-inf"."""
    return format_number(float(value), 4)


def step_tables(step: Step, number: int, lang: str) -> list[Markup]:
    """A worked solution step's tensors, each box named after the step too: a step shows
    again what the drill gave (X', W_q), and two regions of one name cannot be told apart."""
    return [
        matrix_table(
            tensor, region_label=f"{number}. {step.title[lang]}{gettext(': ')}{tensor.name}"
        )
        for tensor in step.tensors
    ]


@bp.get("/variants/<int:variant_id>")
@login_required
def variant(variant_id: int):
    store.begin_read_only(db())
    return render_variant(_load_state(variant_id))


@bp.post("/variants/<int:variant_id>/submissions")
@login_required
def submit(variant_id: int):
    state = _load_state(variant_id)
    try:
        # problems named by the headers the page shows, in its language
        shown = localized_tensor(state.variant.answer)
        answer = answer_from_form(request.form, *shown.shape, cell_names(shown))
    except FormProblem as problem:
        db().rollback()
        return render_variant(state, problem.problems, 422)
    try:
        outcome = practice.submit_drill(
            db(),
            current_user.id,
            variant_id,
            answer.text,
            request.form.get("idempotency_key") or uuid.uuid4().hex,
        )
    except AnswerRejected as exc:
        db().rollback()
        # every cell has been read on its own, so what is left is the whole text's (too long)
        if answer.source is AnswerSource.PASTE_BOX:
            problem = FieldProblem(
                AnswerSource.PASTE_BOX.value, gettext("Paste a matrix"), answer_problem(exc)
            )
        else:
            message = gettext(
                "Could not read the answer in the grid: %(message)s", message=answer_problem(exc)
            )
            problem = FieldProblem(None, None, message)
        return render_variant(state, [problem], 422)
    except store.AttemptsExhausted:
        db().rollback()
        # solved meanwhile (say in another tab) is no failure: say so, not "no attempts left"
        if _load_state(variant_id).solved:
            flash(
                gettext(
                    "You have already solved this variant (perhaps in another tab), "
                    "so it takes no more answers; its marks and solution are below."
                ),
                "info",
            )
        else:
            flash(gettext("No attempts left."), "error")
    except store.IdempotencyConflict:
        # an old form (e.g. after the back button) sent again with another answer
        db().rollback()
        flash(
            gettext("This form was already sent, so the changed answer was not recorded."), "error"
        )
    else:
        typed = answer.cells if answer.source is AnswerSource.GRID else None
        _remember_answer(variant_id, outcome.submission.attempt, typed)
    return redirect(url_for("drills.variant", variant_id=variant_id))
