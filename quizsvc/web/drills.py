"""The drills pages: choose a drill, answer a variant in a grid, see marks and the solution."""

from __future__ import annotations

import uuid

from flask import (
    Blueprint,
    abort,
    flash,
    redirect,
    render_template,
    session,
    url_for,
)
from flask_babel import gettext
from flask_login import current_user, login_required

from quizsvc import deadlines, practice, store
from quizsvc.bank import DrillQuestion, localize, render_markdown
from quizsvc.grading import AnswerRejected, AnswerSource, GridRejected, read_grid
from quizsvc.web import drill_feedback, drill_list
from quizsvc.web.answer_grid import (
    PASTE_BOX_FIELD,
    FieldProblem,
    answer_may_be_minus_infinity,
    field_problem,
    grid_prefill,
)
from quizsvc.web.context import bank, db
from quizsvc.web.deadline_pages import refusal_message, schedule_view
from quizsvc.web.drill_parts import (
    attention_heatmap,
    cell_marks,
    cell_names,
    drill_rules,
    step_tables,
)
from quizsvc.web.forms import DrillAnswerForm, drill_answer_form, first_error
from quizsvc.web.i18n import (
    answer_problem,
    drill_title,
    localized_tensor,
    localized_variant,
    negotiated_language,
    skill_name,
)
from quizsvc.web.render import format_whole_percent, matrix_table

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
    drills = []
    for q in questions:
        standing = standings.get(q.id)
        state = drill_list.drill_state(standing)
        drills.append(
            {
                "id": q.id,
                "kind": q.kind,
                "title": drill_title(q.kind),
                "skill_tag": practice.drill_skill(q),
                "skill": skill_name(practice.drill_skill(q)),
                "prompt": render_markdown(localize(q.prompt, lang)),
                "resumes": standing is not None and standing.unfinished > 0,
                "state": state.value,
                "state_label": drill_list.state_label(state),
                "status": drill_list.drill_status(standing),
                "suggested": recommendation is not None and recommendation.question_id == q.id,
            }
        )
    return render_template(
        "drills.html",
        schedules=_drill_schedules(),
        sections=drill_list.sectioned(drills),
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


def _drill_schedules() -> list[dict]:
    """Each chapter's drills schedule as the learner reads it (chapters without one: none),
    headed by the chapter's title when several chapters have one."""
    lang = negotiated_language()
    found = []
    for chapter in bank().chapters:
        found_standing = deadlines.standing(db(), bank(), current_user.id, chapter.id, "drills")
        view = schedule_view(found_standing, chapter.id)
        if view is not None:
            found.append({**view, "chapter": localize(chapter.title, lang)})
    return found


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
    except deadlines.DeadlineRefused as refused:
        db().rollback()
        abort(refused.status, description=refusal_message(refused.verdict))
    return redirect(url_for("drills.variant", variant_id=issued.id))


def _resume_or_start(question_id: str):
    try:
        variant_id = practice.resume_or_start_drill(db(), bank(), current_user.id, question_id)
    except practice.PracticeError:
        abort(404, description=gettext("There is no drill '%(id)s'.", id=question_id))
    except deadlines.DeadlineRefused as refused:
        db().rollback()
        abort(refused.status, description=refusal_message(refused.verdict))
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


def render_variant(
    state: practice.DrillState,
    problems: list[FieldProblem] | None = None,
    status: int = 200,
    sent: DrillAnswerForm | None = None,
):
    """The variant's page; ``sent``: the answer form refused (``problems`` says why), shown
    again as the learner left it."""
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
    if sent is not None:
        values, pasted = sent.cells(), sent.paste_box.data
        remembered = None
    else:
        remembered = _remembered_answer(state.stored.id, last.attempt) if last else None
        values, pasted = grid_prefill(last, rows, cols, remembered), ""
    # the cells the latest attempt got wrong, flagged in the grid (never with what was
    # expected: the grid is shown only while attempts remain)
    wrong = (
        {(cell["row"], cell["col"]) for cell in last.cells if not cell["correct"]}
        if last
        else set()
    )
    problems = problems or []
    names = cell_names(answer)
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
        cell_names=names,
        minus_infinity=answer_may_be_minus_infinity(answer),
        values=values,
        pasted=pasted,
        wrong=wrong,
        submissions=state.submissions,
        last=last,
        # beside each wrong cell of the latest attempt, the mistake behind it or how far off
        # it is; before the next, what it may score; after a worse retry, which score counts
        cell_notes=drill_feedback.latest_notes(state, names),
        attempt_cost=drill_feedback.next_attempt_cost(state.stored),
        counted_score=drill_feedback.score_that_counts(state.submissions),
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
        heatmap=attention_heatmap(variant.heatmap) if state.finished and variant.heatmap else None,
        problems=problems,
        field_problems={p.field: p for p in problems if p.field},
        idempotency_key=uuid.uuid4().hex,
    ), status


@bp.get("/variants/<int:variant_id>")
@login_required
def variant(variant_id: int):
    store.begin_read_only(db())
    return render_variant(_load_state(variant_id))


@bp.post("/variants/<int:variant_id>/submissions")
@login_required
def submit(variant_id: int):
    # read as a reader, so that SQLite's write lock (BEGIN IMMEDIATE) is taken only to record
    # the graded answer, as the API does
    store.begin_read_only(db())
    state = _load_state(variant_id)
    db().commit()
    form = drill_answer_form(*state.variant.answer.shape)()
    if not form.validate():
        problem = FieldProblem(None, None, first_error(form))
        return render_variant(state, [problem], 400, sent=form)
    try:
        answer = read_grid(form.cells(), form.paste_box.data)
    except GridRejected as rejected:
        db().rollback()
        # problems named by the headers the page shows, in its language
        names = cell_names(localized_tensor(state.variant.answer))
        problems = [field_problem(p, names) for p in rejected.problems]
        return render_variant(state, problems, 422, sent=form)
    try:
        outcome = practice.submit_drill(
            db(),
            current_user.id,
            variant_id,
            answer.text,
            form.idempotency_key.data,
            state=state,
            bank=bank(),
        )
    except deadlines.DeadlineRefused as refused:
        db().rollback()
        problem = FieldProblem(None, None, refusal_message(refused.verdict))
        return render_variant(state, [problem], refused.status, sent=form)
    except AnswerRejected as exc:
        db().rollback()
        # every cell has been read on its own, so what is left is the whole text's (too long)
        if answer.source is AnswerSource.PASTE_BOX:
            problem = FieldProblem(PASTE_BOX_FIELD, gettext("Paste a matrix"), answer_problem(exc))
        else:
            message = gettext(
                "Could not read the answer in the grid: %(message)s", message=answer_problem(exc)
            )
            problem = FieldProblem(None, None, message)
        return render_variant(state, [problem], 422, sent=form)
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
