"""The drills pages: choose a drill, answer a variant in a grid, see marks and the solution."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask_login import current_user, login_required

from quizsvc import practice, store
from quizsvc.bank import DrillQuestion, localize, render_markdown
from quizsvc.grading import AnswerRejected, Rejection, Tolerance, parse_answer
from quizsvc.web.context import bank, db
from quizsvc.web.i18n import (
    answer_problem,
    drill_title,
    negotiated_language,
    skill_name,
    translate,
)
from quizsvc.web.render import format_number, heatmap_svg, matrix_table

bp = Blueprint("drills", __name__)

TIME_FORMAT = "%Y-%m-%d %H:%M"  # times are stored and shown in UTC, and labelled so


@bp.get("/drills")
@login_required
def index():
    lang = negotiated_language()
    store.begin_read_only(db())
    unfinished = store.unfinished_variants(db(), current_user.id)
    waiting = {u.question_id for u in unfinished}
    questions = [q for q in bank().questions.values() if isinstance(q, DrillQuestion)]
    return render_template(
        "drills.html",
        drills=[
            {
                "id": q.id,
                "kind": q.kind,
                "title": drill_title(q.kind),
                "skill": skill_name(practice.drill_skill(q)),
                "prompt": render_markdown(localize(q.prompt, lang)),
                "resumes": q.id in waiting,
            }
            for q in questions
        ],
        unfinished=[
            {
                "variant_id": u.variant_id,
                "title": drill_title(u.kind),
                "started": u.created_at.strftime(TIME_FORMAT),
                "attempts_left": u.attempts_left,
            }
            for u in unfinished
        ],
    )


@bp.post("/drills/recommended")
@login_required
def recommended():
    question_id = practice.recommended_drill(db(), bank(), current_user.id)
    if question_id is None:
        abort(404, description=translate("error_no_drills"))
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
        abort(404, description=translate("error_no_drill", id=question_id))
    return redirect(url_for("drills.variant", variant_id=issued.id))


def _resume_or_start(question_id: str):
    try:
        variant_id = practice.resume_or_start_drill(db(), bank(), current_user.id, question_id)
    except practice.PracticeError:
        abort(404, description=translate("error_no_drill", id=question_id))
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
        abort(404, description=translate("error_no_drill_variant", id=variant_id))


class AnswerSource(StrEnum):
    GRID = "grid"
    PASTE_BOX = "pasted"  # the text box's field name, which the page focuses on an error


@dataclass(frozen=True)
class FormAnswer:
    text: str
    source: AnswerSource


class FormProblem(Exception):
    """The form cannot be read as one answer; ``field`` is the input to fix."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


def answer_from_form(form, rows: int, cols: int) -> FormAnswer:
    """The answer as text, from the grid or from the paste box.

    The paste box is read only while the grid is empty: text left in it after an error must
    never silently replace what the learner has since typed into the grid. When both hold
    an answer they must agree (e.g. the grid was filled from the box), or the learner is
    asked to empty one of them.
    """
    cells = [[form.get(f"cell-{r}-{c}", "").strip() for c in range(cols)] for r in range(rows)]
    pasted = form.get("pasted", "").strip()
    grid_used = any(value for row in cells for value in row)
    if pasted and not grid_used:
        return FormAnswer(pasted, AnswerSource.PASTE_BOX)
    empty = [(r, c) for r, row in enumerate(cells) for c, value in enumerate(row) if not value]
    grid_text = "\n".join(", ".join(row) for row in cells)
    if pasted and (empty or not _same_numbers(grid_text, pasted)):
        raise FormProblem(
            translate("grid_and_paste_box_differ", box=translate("paste_matrix")),
            AnswerSource.PASTE_BOX,
        )
    if empty:
        r, c = empty[0]
        problem = translate("grid_cell_empty", row=r + 1, column=c + 1)
        raise FormProblem(translate("invalid_answer_in_grid", message=problem), cell_field(r, c))
    _require_one_value_per_cell(cells)
    return FormAnswer(grid_text, AnswerSource.GRID)


def _require_one_value_per_cell(cells: list[list[str]]) -> None:
    """Raise FormProblem for the first cell holding more than one value: read as the grid's
    text, it would shift every value after it, and the grader would blame the whole matrix
    ("expected 1 × 3 values, got 4")."""
    for r, row in enumerate(cells):
        for c, value in enumerate(row):
            if not _holds_several_values(value):
                continue
            if _DECIMAL_COMMA.fullmatch(value):
                problem = translate("grid_cell_decimal_comma", row=r + 1, column=c + 1)
            else:
                problem = translate("grid_cell_several_numbers", row=r + 1, column=c + 1)
            message = translate("invalid_answer_in_grid", message=problem)
            raise FormProblem(message, cell_field(r, c))


def cell_field(row: int, col: int) -> str:
    """The name of the grid's input for a cell, rows and columns counted from 0."""
    return f"cell-{row}-{col}"


# "0,5" as a continental European or a spreadsheet writes one half (also with a full-width
# comma): the grader reads two numbers
_DECIMAL_COMMA = re.compile(r"[+-]?[0-9]+[,，][0-9]+")


def _holds_several_values(cell: str) -> bool:
    """Whether the grader, reading the grid as one text (cells joined by ", ", rows by new
    lines), would take this cell for more than one value ("0.5 0.1", the decimal comma of
    "0,5") or split its row at it ("0.5;" ends the row, ", 0.5" leaves a value out).

    Asked of the grader's own parser, with the cell where the grid text puts it: between two
    values of a row, which must then read as three values. A cell whose one value cannot be
    read ("abc") is left to the grading, whose message names its row and column."""
    try:
        values = parse_answer(f"0, {cell}, 0")
    except AnswerRejected as exc:
        if "column" in exc.params:  # a value it could not read: is it the cell's first?
            return (exc.params["row"], exc.params["column"]) != (1, 2)
        # a separator inside the cell splits its row; brackets and the like are the
        # grader's to explain, for the whole grid
        return exc.code in (Rejection.RAGGED_ROWS, Rejection.EMPTY_BETWEEN_COMMAS)
    return values.shape != (1, 3)


def rejected_cell(rejection: AnswerRejected) -> str | None:
    """The grid cell a rejection of the grid's text names, if it names one.

    The grader counts rows and values from 1; `answer_from_form` has made sure that every
    cell holds exactly one value, so the grader's value number is the grid's column."""
    if "row" in rejection.params and "column" in rejection.params:
        return cell_field(int(rejection.params["row"]) - 1, int(rejection.params["column"]) - 1)
    return None


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
        return translate("tolerance_exact")
    if tolerance.rtol == 0:
        return translate("tolerance_absolute", atol=atol)
    return translate("tolerance_relative", atol=atol, rtol=rtol)


def render_variant(
    state: practice.DrillState,
    error: str | None = None,
    status: int = 200,
    error_field: str | None = None,
):
    lang = negotiated_language()
    variant = state.variant
    last = state.submissions[-1] if state.submissions else None
    rows, cols = variant.answer.shape
    # never an interval around a wrong cell while attempts remain: it would give the
    # answer away
    marks = cell_marks(last.cells, rows, cols, state.finished) if last is not None else None
    question = bank().questions.get(state.stored.question_id)
    rules = [tolerance_rule(variant.tolerance)]
    if variant.all_or_nothing and variant.answer.values.size > 1:
        rules.append(translate("all_or_nothing_rule"))
    if state.stored.attempts_allowed > 1 and state.stored.penalty > 0:
        rules.append(translate("retry_penalty", penalty=f"{state.stored.penalty:.0%}"))
    answer = variant.answer
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
        row_labels=answer.row_labels,
        col_labels=answer.col_labels,
        cell_names=[
            [
                ", ".join(label for label in (answer.row_labels[r], answer.col_labels[c]) if label)
                or answer.name
                for c in range(cols)
            ]
            for r in range(rows)
        ],
        submissions=state.submissions,
        marks=marks,
        finished=state.finished,
        solved=state.solved,
        expected=matrix_table(answer) if state.finished else None,
        solution=[
            {
                "title": step.title[lang],
                "text": render_markdown(step.text[lang]),
                "tensors": [matrix_table(t) for t in step.tensors],
            }
            for step in variant.solution
        ]
        if state.finished
        else None,
        heatmap=heatmap_svg(
            variant.heatmap,
            label=translate("heatmap_description", name=variant.heatmap.name),
        )
        if state.finished and variant.heatmap
        else None,
        error=error,
        error_field=error_field,
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
            if low == high:  # an exact answer (a token id): one value, not an interval
                mark |= {"interval": low, "interval_title": translate("accepted_value")}
            else:
                mark |= {
                    "interval": f"[{low}, {high}]",
                    "interval_title": translate("accepted_interval"),
                }
        marks[cell["row"]][cell["col"]] = mark
    return marks


def _shown(value: float | str) -> str:
    """A cell value from stored JSON, where infinities are the strings "inf" and "-inf"."""
    return format_number(float(value), 4)


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
        answer = answer_from_form(request.form, *state.variant.answer.shape)
    except FormProblem as problem:
        db().rollback()
        return render_variant(state, problem.message, 422, problem.field)
    try:
        practice.submit_drill(
            db(),
            current_user.id,
            variant_id,
            answer.text,
            request.form.get("idempotency_key") or uuid.uuid4().hex,
        )
    except AnswerRejected as exc:
        db().rollback()
        if answer.source is AnswerSource.PASTE_BOX:
            message = translate(
                "invalid_answer_in_paste_box",
                box=translate("paste_matrix"),
                message=answer_problem(exc),
            )
        else:
            message = translate("invalid_answer_in_grid", message=answer_problem(exc))
        # the paste box is one field to go back to; in the grid, the cell the grader names
        field = "pasted" if answer.source is AnswerSource.PASTE_BOX else rejected_cell(exc)
        return render_variant(state, message, 422, field)
    except store.AttemptsExhausted:
        db().rollback()
        # solved meanwhile (say in another tab) is no failure: say so, not "no attempts left"
        if _load_state(variant_id).solved:
            flash(translate("already_solved"), "info")
        else:
            flash(translate("no_attempts_left"), "error")
    except store.IdempotencyConflict:
        # an old form (e.g. after the back button) sent again with another answer
        db().rollback()
        flash(translate("form_already_sent"), "error")
    return redirect(url_for("drills.variant", variant_id=variant_id))
