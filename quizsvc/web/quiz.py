"""The chapter pages: the chapter's questions, answered one at a time."""

from __future__ import annotations

import math
import uuid

from flask import Blueprint, abort, redirect, render_template, request, session, url_for
from flask_babel import gettext, ngettext
from flask_login import current_user, login_required
from markupsafe import Markup

from quizsvc import deadlines, practice, store
from quizsvc.bank import (
    Chapter,
    DrillQuestion,
    MultipleChoiceQuestion,
    NumericQuestion,
    SingleChoiceQuestion,
    localize,
    public_question,
    render_markdown,
    solution_view,
)
from quizsvc.drills import Tensor
from quizsvc.grading import AnswerRejected, Tolerance
from quizsvc.quiz_standing import (
    QuestionStanding,
    chapter_standings,
    choice_labels,
    choice_order,
    quiz_total,
)
from quizsvc.web.context import bank, db
from quizsvc.web.deadline_pages import refusal_message, schedule_view
from quizsvc.web.drill_parts import cell_marks, tolerance_rule
from quizsvc.web.forms import ChapterAnswerForm, first_error
from quizsvc.web.i18n import answer_problem, as_sentence, negotiated_language
from quizsvc.web.model_page import served_model
from quizsvc.web.render import format_number, format_whole_percent, matrix_table
from quizsvc.web.worked_page import worked_example_page

bp = Blueprint("quiz", __name__)


@bp.get("/")
def index():
    """The start page: the login form for a visitor (with no "please log in" notice: they
    asked for nothing else), the instructor's overview, or a learner's first chapter."""
    if not current_user.is_authenticated:
        return redirect(url_for("auth.login"))
    if current_user.is_instructor:
        return redirect(url_for("instructor.index"))
    chapters = bank().chapters
    if len(chapters) == 1:
        return redirect(url_for("quiz.chapter", chapter_id=chapters[0].id))
    # every chapter of the bank, or a learner would never find any but the first
    lang = negotiated_language()
    return render_template(
        "chapters.html",
        chapters=[
            {
                "id": chapter.id,
                "title": localize(chapter.title, lang),
                "intro": chapter_intro(chapter, lang),
                "question_count": len(chapter_questions(chapter.id)),
            }
            for chapter in chapters
        ],
    )


def chapter_intro(chapter: Chapter, lang: str) -> Markup | None:
    return Markup(render_markdown(localize(chapter.intro, lang))) if chapter.intro else None


def chapter_questions(chapter_id: str) -> list:
    try:
        questions = bank().questions_in(chapter_id)
    except KeyError:
        abort(404, description=gettext("There is no chapter '%(id)s'.", id=chapter_id))
    return [q for q in questions if not isinstance(q, DrillQuestion)]


def answer_shape_rule(shape: list[int]) -> str:
    """What a numeric answer is made of (a public view's `answer_shape`), and how to type it.

    As the grader reads answers (a number is 1 × 1, a list one row), a list of one number is
    a number and a matrix of one row is a row."""
    if math.prod(shape) == 1:
        return gettext("The answer is one number (write -inf for −∞).")
    if len(shape) == 1 or shape[0] == 1:
        return gettext(
            "The answer is a row of %(count)s numbers, separated by commas "
            "or spaces (write -inf for −∞).",
            count=shape[-1],
        )
    rows, cols = shape
    return gettext(
        "The answer is a %(rows)s × %(cols)s matrix (rows × columns): "
        "one row per line (or rows separated by ;), the numbers of a row "
        "separated by commas or spaces (write -inf for −∞).",
        rows=rows,
        cols=cols,
    )


def numeric_answer_rules(public_view: dict) -> list[str]:
    """What a learner is told before answering a numeric question (docs/authoring.md): the
    answer's shape and how close it must be. Read from the public view, which holds nothing
    secret; the instructor's preview shows the same list as its public view."""
    shape = public_view["answer_shape"]
    rules = [
        answer_shape_rule(shape),
        tolerance_rule(
            Tolerance(public_view["tolerance"]["atol"], public_view["tolerance"]["rtol"])
        ),
    ]
    if public_view["all_or_nothing"] and math.prod(shape) > 1:
        rules.append(gettext("Every cell must be right to score: one wrong cell scores 0."))
    return rules


def numeric_answer_tensor(question: NumericQuestion) -> Tensor:
    """The key of a numeric question as a table, rows and columns numbered from 1."""
    matrix = question.answer_matrix()
    rows, cols = matrix.shape
    return Tensor(
        gettext("Correct answer"),
        matrix,
        tuple(str(r + 1) for r in range(rows)),
        tuple(str(c + 1) for c in range(cols)),
    )


def tries_rules(standing: QuestionStanding) -> list[str]:
    """A question's points and tries, as the learner reads them before answering."""
    points = standing.question.points
    rules = [
        ngettext(
            "Worth %(points)s point.",
            "Worth %(points)s points.",
            1 if points == 1 else 2,  # the plural form: 1.5 points too
            points=format_number(points, 2),
        )
    ]
    if standing.attempts == 1:
        rules.append(gettext("One try: your answer is final once you submit it."))
        return rules
    rules.append(
        ngettext(
            "%(num)s try left of %(total)s.",
            "%(num)s tries left of %(total)s.",
            standing.attempts_left,
            total=standing.attempts,
        )
    )
    rules.append(gettext("The answer is shown once a try is right or none is left."))
    if standing.penalty > 0:
        rules.append(
            gettext(
                "Each further attempt takes %(penalty)s off the score.",
                penalty=format_whole_percent(standing.penalty),
            )
        )
    rules.append(gettext("Your latest try's score counts."))
    return rules


def question_rules(standing: QuestionStanding, view: dict) -> list[str]:
    """What the chapter page states with a question (the instructor's preview the same,
    before a first answer): a numeric answer's shape and tolerance, from its view, and while
    tries are left, the question's points and tries."""
    rules = numeric_answer_rules(view) if isinstance(standing.question, NumericQuestion) else []
    if not standing.finished:
        rules += tries_rules(standing)
    return rules


def status_names() -> dict[str, str]:
    """The navigator's word for each state of a question (`QuestionStanding.status`)."""
    return {
        "not_answered": gettext("Not answered"),
        "try_again": gettext("Try again"),
        "awaiting_review": gettext("Awaiting review"),
        "answered": gettext("Answered"),
    }


def in_learner_order(view: dict, learner_id: int) -> dict:
    """A choice question's view with its choices in the order this learner sees them, each
    with its ``label``: its letter in that order (A, B, C, ... down the page)."""
    if "choices" in view:
        by_id = {choice["id"]: choice for choice in view["choices"]}
        order = choice_order(learner_id, view["id"], list(by_id))
        labels = choice_labels(order)
        view = {
            **view,
            "choices": [{**by_id[choice_id], "label": labels[choice_id]} for choice_id in order],
        }
    return view


def choices_as_shown(view: dict, choice_ids: list[str] | None) -> str:
    """Chosen (or correct) choices as the learner's page names them: their letters, in the
    page's order. An id the question no longer has (changed since) is shown as it is."""
    ids = choice_ids or []
    choices = view.get("choices", [])
    known = {choice["id"] for choice in choices}
    shown = [choice["label"] for choice in choices if choice["id"] in ids]
    return ", ".join(shown + [choice_id for choice_id in ids if choice_id not in known])


def answer_fits(question, answer: store.AnsweredQuestion) -> bool:
    """Whether the recorded answer is of the kind the question now asks for. A reload may
    change a question's type under the same id (an open answer awaiting review under what is
    now a numeric question): such an answer is shown as recorded, not as the new type."""
    if isinstance(question, SingleChoiceQuestion | MultipleChoiceQuestion):
        return answer.choices is not None and answer.score is not None
    if isinstance(question, NumericQuestion):
        return answer.text is not None and answer.score is not None and answer.reviewed_at is None
    return answer.text is not None and (answer.awaiting_review or answer.reviewed_at is not None)


def numeric_feedback(question: NumericQuestion, answer: store.AnsweredQuestion) -> dict:
    """An answered numeric question's marks per cell and its key, shown after answering (as
    for choice questions). The store keeps the typed text, so the cells are graded again,
    against the key as it is now: when the instructor has changed it since (its values, its
    tolerance, its shape), the marks disagree with the recorded score, and `key_changed`
    says so."""
    key = numeric_answer_tensor(question)
    feedback = {"expected": matrix_table(key), "marks": None, "key_changed": True}
    try:
        grade = practice.grade_numeric_answer(question, answer.text or "")
    except AnswerRejected:
        # the key's shape was changed (and reloaded) after this answer: its cells no longer
        # line up with the key's, so there is nothing to mark them against
        return feedback
    # the same text graded by the same code: only a changed key moves the score
    feedback["key_changed"] = not math.isclose(grade.score, answer.score, abs_tol=1e-9)
    rows, cols = grade.shape
    feedback["marks"] = {
        # the key is shown beside them, so a wrong cell's accepted interval may be shown too
        "marks": cell_marks(grade.to_json_dict()["cells"], rows, cols, reveal_wrong=True),
        "rows": rows,
        "cols": cols,
        "row_labels": key.row_labels,
        "col_labels": key.col_labels,
    }
    return feedback


# the question answered by the POST that redirected here: its result takes the keyboard's focus
# once, as a drill's result does (without it the focus stays at the top of the page, or the
# next Tab goes past the result into the next question)
_JUST_ANSWERED = "chapter_just_answered"


def render_chapter(
    chapter_id: str,
    errors: dict[str, str] | None = None,
    status: int = 200,
    focus_result: str | None = None,
    sent: ChapterAnswerForm | None = None,
    refusal: str | None = None,
):
    """The chapter's page; ``sent``: the answer form refused (``errors`` says why), whose
    text is shown again to be corrected; ``refusal``: why the schedule refused it, said
    with the schedule too (the question may not be shown)."""
    lang = negotiated_language()
    chapter_questions(chapter_id)  # 404 for an unknown chapter, in the page's language
    store.begin_read_only(db())
    schedule = schedule_view(
        deadlines.standing(db(), bank(), current_user.id, chapter_id, "quiz"), chapter_id
    )
    standings = chapter_standings(db(), bank(), current_user.id, chapter_id)
    if schedule is not None and (schedule["must_start"] or schedule["before_opening"]):
        standings = []  # the questions are shown once the quiz is open and started
    if schedule is not None and refusal:
        schedule["notice"] = refusal
    items = []
    for standing in standings:
        question, answer = standing.question, standing.answer
        view = (solution_view if standing.finished else public_question)(question, lang)
        shown = in_learner_order(view, current_user.id)
        item = {
            "question": shown,
            "answer": answer,
            "chosen": choices_as_shown(shown, answer.choices) if answer else "",
            "correct": choices_as_shown(shown, view.get("correct")),
            "standing": standing,
            "key": uuid.uuid4().hex,
            "fits": answer is None or answer_fits(question, answer),
            "rules": question_rules(standing, view),
        }
        if isinstance(question, NumericQuestion) and answer and item["fits"]:
            item["numeric"] = numeric_feedback(question, answer)
        items.append(item)
    chapter = bank().chapter(chapter_id)
    total = quiz_total(standings)
    return render_template(
        "chapter.html",
        chapter=chapter,
        intro=chapter_intro(chapter, lang),
        items=items,
        total=total,
        total_points={
            "earned": format_number(total.earned, 2),
            "possible": format_number(total.possible, 2),
        },
        status_names=status_names(),
        errors=errors or {},
        lang=lang,
        focus_result=focus_result,
        sent=sent,
        schedule=schedule,
    ), status


@bp.get("/worked-example")
@login_required
def worked_example():
    """The chapter's data flow step by step, computed by the engine, with the chapter's
    misprints marked; with ?model=trained, every step with the trained toy model's numbers."""
    choice = request.args.get("model", "chapter")
    if choice not in ("chapter", "trained"):
        abort(400, description=gettext("The model is either 'chapter' or 'trained'."))
    if choice == "chapter":
        return render_template("worked_example.html", **worked_example_page())
    model, _pairs = served_model()
    return render_template("worked_example.html", **worked_example_page(model))


@bp.get("/chapters/<chapter_id>")
@login_required
def chapter(chapter_id: str):
    return render_chapter(chapter_id, focus_result=session.pop(_JUST_ANSWERED, None))


@bp.post("/chapters/<chapter_id>/questions/<question_id>")
@login_required
def answer(chapter_id: str, question_id: str):
    if question_id not in {q.id for q in chapter_questions(chapter_id)}:
        abort(
            404,
            description=gettext(
                "There is no question '%(id)s' in chapter '%(chapter)s'.",
                id=question_id,
                chapter=chapter_id,
            ),
        )
    form = ChapterAnswerForm()
    if not form.validate():
        return render_chapter(chapter_id, {question_id: first_error(form)}, 400, sent=form)
    try:
        practice.answer_question(
            db(),
            bank(),
            current_user.id,
            question_id,
            idempotency_key=form.idempotency_key.data,
            choices=form.choices,
            text=form.text.data,
        )
    except AnswerRejected as exc:
        db().rollback()
        problem = as_sentence(answer_problem(exc))
        return render_chapter(chapter_id, {question_id: problem}, 422, sent=form)
    except deadlines.DeadlineRefused as refused:
        db().rollback()
        problem = refusal_message(refused.verdict)
        return render_chapter(
            chapter_id, {question_id: problem}, refused.status, sent=form, refusal=problem
        )
    except (store.AttemptsExhausted, store.IdempotencyConflict):
        # already answered (a conflict is an old form, e.g. after the back button, sent
        # with another choice): the page shows the recorded answer and the key
        db().rollback()
    session[_JUST_ANSWERED] = question_id
    return redirect(url_for("quiz.chapter", chapter_id=chapter_id, _anchor=f"q-{question_id}"))


@bp.get("/chapters/<chapter_id>/questions/<question_id>")
@login_required
def answer_form_address(chapter_id: str, question_id: str):
    """The address bar after a rejected answer (a 422 served at the form's POST URL): typed,
    reloaded or bookmarked, it leads to the question on its page, not to a 405."""
    return redirect(url_for("quiz.chapter", chapter_id=chapter_id, _anchor=f"q-{question_id}"))
