"""The instructor's pages: content (reload, preview, self-test), the review queue for open
answers, the students' roster and progress, and reports.

Every view is `instructor_required` (login required, 403 for students); every POST carries
the CSRF token like any other form.

Reloading the content swaps the bank of THIS process only: serve with one worker process
(and threads), as `make run` does, or each worker keeps the bank it loaded itself.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    flash,
    redirect,
    render_template,
    request,
    stream_with_context,
    url_for,
)
from flask_login import current_user
from markupsafe import Markup, escape
from sqlalchemy import select

from quizsvc import practice, reports, store
from quizsvc.bank import (
    Bank,
    BankError,
    ContentError,
    DrillQuestion,
    NumericQuestion,
    OpenQuestion,
    Question,
    localize,
    public_question,
    render_markdown,
    solution_view,
)
from quizsvc.drills import Tensor
from quizsvc.grading import RubricSuggestion, suggest_open_score
from quizsvc.selftest import run_selftest
from quizsvc.store import reports_queries
from quizsvc.web.auth import create_account, instructor_required
from quizsvc.web.context import bank, db, load_content, state
from quizsvc.web.i18n import negotiated_language, translate
from quizsvc.web.render import bar_chart_svg, heatmap_svg, line_chart_svg, matrix_table

bp = Blueprint("instructor", __name__, url_prefix="/instructor")

MAX_SEED = 2**63 - 1  # the store keeps seeds in a BIGINT
MAX_COMMENT_LENGTH = 5000
REVIEW_QUEUE_LIMIT = 50
HISTORY_LIMIT = 20
PROMPT_EXCERPT = 160


def _begin_reading() -> None:
    """This request only reads: begin its transaction as a reader (if not yet begun)."""
    if not db().in_transaction():
        store.begin_read_only(db())


@bp.get("/")
@instructor_required
def index():
    _begin_reading()
    waiting = len(store.answers_awaiting_review(db(), limit=REVIEW_QUEUE_LIMIT))
    students = sum(1 for user in store.list_users(db()) if user.role == "student")
    return render_template(
        "instructor/index.html",
        bank=bank(),
        waiting=waiting,
        waiting_more=waiting >= REVIEW_QUEUE_LIMIT,
        students=students,
    )


# --- content -----------------------------------------------------------------------------


def _excerpt(text: str, limit: int = PROMPT_EXCERPT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _question_rows(live: Bank, lang: str) -> list[dict[str, Any]]:
    return [
        {
            "id": question.id,
            "type": question.type,
            "kind": question.kind if isinstance(question, DrillQuestion) else None,
            "tags": question.tags,
            "chapter": live.chapter_of[question.id],
            "source": str(live.source_of[question.id]),
            "prompt": _excerpt(localize(question.prompt, lang)),
        }
        for question in live.questions.values()
    ]


@dataclass(frozen=True)
class DiskCheck:
    """The content directory as it is now: valid (with its version) or its errors."""

    version: str | None
    errors: tuple[ContentError, ...]

    @property
    def valid(self) -> bool:
        return not self.errors


def _check_disk() -> DiskCheck:
    try:
        return DiskCheck(load_content(state().content_dir).version, ())
    except BankError as exc:
        return DiskCheck(None, exc.errors)


def render_content(reload_errors: tuple[ContentError, ...] | None = None, status: int = 200):
    live = bank()  # once: a reload in another thread swaps the whole bank, never a part
    lang = negotiated_language()
    return render_template(
        "instructor/content.html",
        bank=live,
        content_dir=state().content_dir,
        chapters=[
            {"id": c.id, "title": localize(c.title, lang), "order": c.order} for c in live.chapters
        ],
        questions=_question_rows(live, lang),
        disk=_check_disk() if reload_errors is None else DiskCheck(None, reload_errors),
        reload_failed=reload_errors is not None,
    ), status


@bp.get("/content")
@instructor_required
def content():
    return render_content()


@bp.post("/content/reload")
@instructor_required
def reload_content():
    old_version = bank().version
    try:
        new = state().reload_content()
    except BankError as exc:
        # the whole new content is rejected; the live bank is the one it was
        return render_content(exc.errors, 422)
    if new.version == old_version:
        flash(translate("instructor_reload_unchanged", version=new.version[:12]), "info")
    else:
        flash(
            translate(
                "instructor_reloaded",
                old=old_version[:12],
                new=new.version[:12],
                count=len(new.questions),
            ),
            "info",
        )
    return redirect(url_for("instructor.content"))


# --- preview ------------------------------------------------------------------------------


def _parse_seed(raw: str | None) -> int:
    if raw is None or not raw.strip():
        return 0
    text = raw.strip()
    if not re.fullmatch(r"[0-9]+", text):
        abort(400, description=translate("instructor_bad_seed", seed=text[:40], max=MAX_SEED))
    seed = int(text)
    if seed > MAX_SEED:
        abort(400, description=translate("instructor_bad_seed", seed=text[:40], max=MAX_SEED))
    return seed


def _answer_tensor(question: NumericQuestion) -> Tensor:
    matrix = question.answer_matrix()
    rows, cols = matrix.shape
    return Tensor(
        "answer",
        matrix,
        tuple(str(r + 1) for r in range(rows)),
        tuple(str(c + 1) for c in range(cols)),
    )


def _variant_view(question: DrillQuestion, seed: int, lang: str) -> dict[str, Any]:
    """Generated here and now, never stored (a preview is not a learner's variant)."""
    variant = practice.build_variant(question, seed)
    return {
        "seed": seed,
        "skill": variant.skill,
        "params": variant.params,
        "tolerance": variant.tolerance,
        "all_or_nothing": variant.all_or_nothing,
        "prompt": Markup(render_markdown(variant.prompt[lang])),
        "given": [matrix_table(t) for t in variant.given],
        "answer": matrix_table(variant.answer),
        "heatmap": heatmap_svg(variant.heatmap) if variant.heatmap is not None else None,
        "solution": [
            {
                "title": step.title[lang],
                "text": Markup(render_markdown(step.text[lang])),
                "tensors": [matrix_table(t) for t in step.tensors],
            }
            for step in variant.solution
        ],
    }


def _rubric_view(question: OpenQuestion, lang: str) -> list[dict[str, Any]]:
    return [
        {
            "key": point.key,
            "weight": point.weight,
            "description": localize(point.description, lang),
            "phrases": [*point.phrases.zh, *point.phrases.en],
        }
        for point in question.rubric
    ]


@bp.get("/preview")
@instructor_required
def preview():
    live = bank()
    lang = negotiated_language()
    question_id = request.args.get("question", "").strip()
    seed = _parse_seed(request.args.get("seed"))
    selected: dict[str, Any] | None = None
    if question_id:
        question = live.questions.get(question_id)
        if question is None:
            abort(404, description=translate("instructor_no_question", id=question_id[:100]))
        selected = {
            "id": question.id,
            "type": question.type,
            "source": str(live.source_of[question.id]),
            "public": public_question(question, lang),
            "solution": solution_view(question, lang),
            "answer": (
                matrix_table(_answer_tensor(question))
                if isinstance(question, NumericQuestion)
                else None
            ),
            "rubric": _rubric_view(question, lang) if isinstance(question, OpenQuestion) else None,
            "variant": (
                _variant_view(question, seed, lang) if isinstance(question, DrillQuestion) else None
            ),
        }
    return render_template(
        "instructor/preview.html",
        questions=[(q.id, q.type) for q in live.questions.values()],
        question_id=question_id,
        seed=seed,
        selected=selected,
    )


# --- self-test ----------------------------------------------------------------------------


@bp.get("/selftest")
@instructor_required
def selftest():
    return render_template("instructor/selftest.html", report=None, bank=bank())


@bp.post("/selftest")
@instructor_required
def run_selftest_view():
    live = bank()
    report = run_selftest(live)
    return render_template("instructor/selftest.html", report=report, bank=live)


# --- review queue -------------------------------------------------------------------------


class ReviewInputError(ValueError):
    """A reviewer's input that cannot be stored; the message says why."""


def parse_score(raw: str | None) -> float:
    """A score typed by a reviewer, as a fraction in [0, 1].

    "75 %" and "75%" are percentages; a bare number up to 1 is a fraction ("0.75", "1"),
    a bare number above 1 up to 100 is a percentage ("75"). A decimal comma is accepted.
    """
    text = (raw or "").strip().replace(",", ".")
    if not text:
        raise ReviewInputError(translate("instructor_score_missing"))
    percent = text.endswith("%")
    number = text.removesuffix("%").strip()
    if not re.fullmatch(r"[0-9]+(\.[0-9]*)?|\.[0-9]+", number):
        raise ReviewInputError(translate("instructor_score_invalid", score=(raw or "")[:40]))
    value = float(number)
    if not math.isfinite(value):
        raise ReviewInputError(translate("instructor_score_invalid", score=(raw or "")[:40]))
    if percent or value > 1:
        if value > 100:
            raise ReviewInputError(translate("instructor_score_range", score=(raw or "")[:40]))
        value /= 100
    return value


def parse_comment(raw: str | None) -> str:
    comment = (raw or "").strip().replace("\r\n", "\n")
    if len(comment) > MAX_COMMENT_LENGTH:
        raise ReviewInputError(translate("instructor_comment_too_long", max=MAX_COMMENT_LENGTH))
    return comment


def highlight(text: str, spans: tuple[tuple[int, int], ...]) -> Markup:
    """`text` escaped, with each (start, end) span in <mark>; spans sorted, not overlapping."""
    parts: list[str] = []
    position = 0
    for start, end in spans:
        if start < position:  # never re-emit text (spans are merged, but be safe)
            start = position
        if end <= start:
            continue
        parts.append(escape(text[position:start]))
        parts.append(Markup("<mark>") + escape(text[start:end]) + Markup("</mark>"))
        position = end
    parts.append(escape(text[position:]))
    return Markup("").join(parts)


def _suggestion(question: Question | None, text: str) -> RubricSuggestion | None:
    if not isinstance(question, OpenQuestion):
        return None
    return suggest_open_score(text, practice.rubric_points(question))


def _queue_items(live: Bank, lang: str) -> list[dict[str, Any]]:
    waiting = store.answers_awaiting_review(db(), limit=REVIEW_QUEUE_LIMIT)
    if not waiting:
        return []
    rows = (
        db()
        .execute(
            select(store.QuizAnswer, store.User)
            .join(store.User, store.User.id == store.QuizAnswer.learner_id)
            .where(store.QuizAnswer.id.in_([a.answer_id for a in waiting]))
        )
        .all()
    )
    details = {answer.id: (answer, user) for answer, user in rows}
    items = []
    for waiting_answer in waiting:
        answer, learner = details[waiting_answer.answer_id]
        question = live.questions.get(answer.question_id)
        text = answer.text or ""
        suggestion = _suggestion(question, text)
        found = set(suggestion.found) if suggestion else set()
        items.append(
            {
                "answer_id": answer.id,
                "question_id": answer.question_id,
                "question": question,
                "prompt": (
                    Markup(render_markdown(localize(question.prompt, lang))) if question else None
                ),
                "learner": learner,
                "answered_at": answer.answered_at,
                "text": highlight(text, suggestion.highlight_spans if suggestion else ()),
                "reference": (
                    Markup(render_markdown(localize(question.reference_answer, lang)))
                    if isinstance(question, OpenQuestion)
                    else None
                ),
                "points": [
                    {
                        "key": point.key,
                        "description": localize(point.description, lang),
                        "weight": point.weight,
                        "found": point.key in found,
                    }
                    for point in (question.rubric if isinstance(question, OpenQuestion) else ())
                ],
                "suggested": answer.suggested_score,
                "current": suggestion.score if suggestion else None,
            }
        )
    return items


def render_reviews(
    errors: dict[int, str] | None = None, form: dict[int, dict[str, str]] | None = None, status=200
):
    _begin_reading()
    return render_template(
        "instructor/reviews.html",
        items=_queue_items(bank(), negotiated_language()),
        errors=errors or {},
        form=form or {},
        limit=REVIEW_QUEUE_LIMIT,
        max_comment=MAX_COMMENT_LENGTH,
    ), status


@bp.get("/reviews")
@instructor_required
def reviews():
    return render_reviews()


@bp.post("/reviews/<int:answer_id>")
@instructor_required
def review(answer_id: int):
    form = {
        answer_id: {
            "score": request.form.get("score", ""),
            "comment": request.form.get("comment", ""),
        }
    }
    try:
        score = parse_score(request.form.get("score"))
        comment = parse_comment(request.form.get("comment"))
    except ReviewInputError as exc:
        return render_reviews({answer_id: str(exc)}, form, 422)
    try:
        result = store.record_review(
            db(),
            answer_id=answer_id,
            reviewer_id=current_user.id,
            confirmed_score=score,
            comment=comment,
        )
    except store.NotFound:
        abort(404, description=translate("instructor_no_answer", id=answer_id))
    except store.NotAllowed as exc:
        abort(409, description=str(exc))
    flash(translate("instructor_review_saved", id=result.answer_id, score=f"{score:.0%}"), "info")
    return redirect(url_for("instructor.reviews"))


# --- students -----------------------------------------------------------------------------


def _student(user_id: int) -> store.User:
    user = store.user_by_id(db(), user_id)
    if user is None or user.role != "student":
        abort(404, description=translate("instructor_no_student", id=user_id))
    return user


@bp.get("/students")
@instructor_required
def students():
    return render_students()


@bp.post("/students")
@instructor_required
def add_account():
    """Instructors create accounts (students or instructors) with a first password."""
    role = request.form.get("role", "student")
    if role not in store.ROLES:
        abort(400, description=f"unknown role {role!r}")
    try:
        user = create_account(role)
    except store.StoreError as exc:
        db().rollback()
        return render_students(error=str(exc), status=422)
    flash(translate("instructor_account_created", name=user.name, role=role), "info")
    return redirect(url_for("instructor.students"))


def render_students(error: str | None = None, status: int = 200):
    _begin_reading()
    # four queries whatever the number of students
    skills: dict[int, list[str]] = {}
    for learner_id, skill, _mastery in sorted(reports_queries.masteries(db())):
        skills.setdefault(learner_id, []).append(skill)
    activity = reports_queries.last_activity(db())
    roster = [
        {
            "user": user,
            "last_activity": activity.get(user.id),
            "skills": skills.get(user.id, []),
        }
        for user in store.list_users(db())
        if user.role == "student"
    ]
    return render_template("instructor/students.html", roster=roster, error=error), status


def _progress_data(user_id: int) -> dict[str, Any]:
    skills = store.progress_for(db(), user_id)
    history = store.recent_history(db(), user_id, limit=HISTORY_LIMIT)
    scored = [h.score for h in reversed(history) if h.score is not None]
    return {
        "skills": skills,
        "history": history,
        "mastery_chart": bar_chart_svg(
            [(s.skill, s.mastery) for s in skills], label=translate("mastery")
        ),
        "history_chart": line_chart_svg(scored, label=translate("recent_history")),
    }


@bp.get("/students/<int:user_id>")
@instructor_required
def student(user_id: int):
    _begin_reading()
    user = _student(user_id)
    return render_template("instructor/student.html", student=user, **_progress_data(user.id))


# --- reports ------------------------------------------------------------------------------

CSV_MIMETYPE = "text/csv"
JSONL_MIMETYPE = "application/x-ndjson"  # JSON Lines: one JSON object per line, UTF-8


@bp.get("/reports")
@instructor_required
def reports_page():
    _begin_reading()
    live = bank()
    return render_template(
        "instructor/reports.html",
        bank=live,
        items=reports.item_statistics(db(), live),
    )


def _download(
    make_chunks: Callable[[Any, Bank], Iterator[bytes]], name: str, suffix: str, mimetype: str
) -> Response:
    """A streamed attachment: the chunks are written while the response is sent.

    The chunks are read through a session of their own, begun read-only when the first
    chunk is asked for and closed after the last one (or when the client goes away and
    the server closes the iterator). The request's session cannot serve: it is closed
    when the view returns, before the body is sent."""
    live = bank()  # the bank of this request, even if a reload swaps it meanwhile
    sessions = state().sessions

    def chunks() -> Iterator[bytes]:
        with sessions() as session:
            store.begin_read_only(session)
            yield from make_chunks(session, live)

    day = datetime.now(UTC).strftime("%Y-%m-%d")
    response = Response(stream_with_context(chunks()), mimetype=mimetype)
    response.headers["Content-Disposition"] = f'attachment; filename="{name}-{day}.{suffix}"'
    response.headers["Cache-Control"] = "no-store"  # students' grades
    return response


@bp.get("/reports/gradebook.csv")
@instructor_required
def gradebook_csv():
    return _download(reports.gradebook_csv_chunks, "gradebook", "csv", CSV_MIMETYPE)


@bp.get("/reports/events.csv")
@instructor_required
def events_csv():
    return _download(reports.events_csv_chunks, "events", "csv", CSV_MIMETYPE)


@bp.get("/reports/events.jsonl")
@instructor_required
def events_jsonl():
    return _download(reports.events_jsonl_chunks, "events", "jsonl", JSONL_MIMETYPE)


@bp.get("/students/<int:user_id>/report")
@instructor_required
def student_report(user_id: int):
    _begin_reading()
    user = _student(user_id)
    live = bank()
    lang = negotiated_language()
    report = reports.student_report(db(), live, user.id)
    graded = [line for line in report.skills if line.progress is not None]
    drill_scores = [line.score for line in reversed(report.drill_history)]
    return render_template(
        "instructor/report.html",
        report=report,
        student=user,
        generated=datetime.now(UTC),
        bank=live,
        prompts={
            line.question_id: _excerpt(localize(line.question.prompt, lang), 120)
            for line in report.chapter_answers
        },
        mastery_chart=(
            bar_chart_svg(
                [(line.skill, line.progress.mastery) for line in graded],
                label=translate("mastery"),
            )
            if graded
            else None
        ),
        drill_chart=line_chart_svg(drill_scores, label=translate("instructor_drill_scores")),
    )
