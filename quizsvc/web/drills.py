"""The drills pages: choose a drill, answer a variant in a grid, see marks and the solution."""

from __future__ import annotations

import uuid

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask_login import current_user, login_required

from quizsvc import practice, store
from quizsvc.bank import DrillQuestion, render_markdown
from quizsvc.grading import AnswerRejected
from quizsvc.web.context import bank, db
from quizsvc.web.i18n import negotiated_language, translate
from quizsvc.web.render import format_number, heatmap_svg, matrix_table

bp = Blueprint("drills", __name__)


@bp.get("/drills")
@login_required
def index():
    lang = negotiated_language()
    questions = [q for q in bank().questions.values() if isinstance(q, DrillQuestion)]
    return render_template(
        "drills.html",
        drills=[
            {
                "id": q.id,
                "kind": q.kind,
                "skill": practice.drill_skill(q),
                "prompt": render_markdown(getattr(q.prompt, lang)),
            }
            for q in questions
        ],
    )


@bp.post("/drills/recommended")
@login_required
def recommended():
    question_id = practice.recommended_drill(db(), bank(), current_user.id)
    if question_id is None:
        abort(404, description="there are no drills in the question bank")
    return _start(question_id)


@bp.post("/drills/<question_id>/variants")
@login_required
def new_variant(question_id: str):
    return _start(question_id)


def _start(question_id: str):
    try:
        issued = practice.start_drill(db(), bank(), current_user.id, question_id)
    except practice.PracticeError as exc:
        abort(404, description=str(exc))
    return redirect(url_for("drills.variant", variant_id=issued.id))


def _load_state(variant_id: int) -> practice.DrillState:
    try:
        return practice.drill_state(db(), current_user.id, variant_id)
    except (store.NotFound, store.NotYourVariant):
        # the same answer for "not yours" as for "not there": ids are not to be probed
        abort(404, description=f"no drill variant {variant_id}")


def grid_answer(form, rows: int, cols: int) -> str:
    """The answer as text: the pasted matrix if any, else the grid's cells."""
    pasted = form.get("pasted", "").strip()
    if pasted:
        return pasted
    lines = []
    for r in range(rows):
        values = []
        for c in range(cols):
            value = form.get(f"cell-{r}-{c}", "").strip()
            if not value:
                raise AnswerRejected(f"row {r + 1}, column {c + 1} is empty")
            values.append(value)
        lines.append(", ".join(values))
    return "\n".join(lines)


def render_variant(state: practice.DrillState, error: str | None = None, status: int = 200):
    lang = negotiated_language()
    variant = state.variant
    last = state.submissions[-1] if state.submissions else None
    rows, cols = variant.answer.shape
    marks = None
    if last is not None:
        marks = [[None] * cols for _ in range(rows)]
        for cell in last.cells:
            show_interval = state.finished or cell["correct"]
            marks[cell["row"]][cell["col"]] = {
                "correct": cell["correct"],
                "submitted": _shown(cell["submitted"]),
                "interval": (
                    f"[{_shown(cell['low'])}, {_shown(cell['high'])}]" if show_interval else None
                ),
            }
    return render_template(
        "variant.html",
        stored=state.stored,
        variant=variant,
        prompt=render_markdown(variant.prompt[lang]),
        given=[matrix_table(t) for t in variant.given],
        rows=rows,
        cols=cols,
        row_labels=variant.answer.row_labels,
        col_labels=variant.answer.col_labels,
        submissions=state.submissions,
        marks=marks,
        finished=state.finished,
        solved=state.solved,
        expected=matrix_table(variant.answer) if state.finished else None,
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
        heatmap=heatmap_svg(variant.heatmap) if state.finished and variant.heatmap else None,
        error=error,
        idempotency_key=uuid.uuid4().hex,
    ), status


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
        text = grid_answer(request.form, *state.variant.answer.shape)
        practice.submit_drill(
            db(),
            current_user.id,
            variant_id,
            text,
            request.form.get("idempotency_key") or uuid.uuid4().hex,
        )
    except AnswerRejected as exc:
        db().rollback()
        return render_variant(state, translate("invalid_answer", message=str(exc)), 422)
    except store.AttemptsExhausted:
        flash(translate("no_attempts_left"), "error")
    except store.IdempotencyConflict:
        # an old form (e.g. after the back button) sent again with another answer
        db().rollback()
        flash(translate("form_already_sent"), "error")
    return redirect(url_for("drills.variant", variant_id=variant_id))
