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
from flask_babel import gettext, ngettext
from flask_login import current_user
from markupsafe import Markup, escape
from sqlalchemy import select

from quizsvc import practice, reports, store
from quizsvc.bank import (
    Bank,
    BankError,
    ContentError,
    DrillQuestion,
    MultipleChoiceQuestion,
    NumericQuestion,
    OpenQuestion,
    Question,
    localize,
    public_question,
    render_markdown,
    solution_view,
)
from quizsvc.grading import RubricSuggestion, normalise_typed_number, suggest_open_score
from quizsvc.selftest import run_selftest
from quizsvc.store import reports_queries
from quizsvc.web.auth import account_problem, create_account, instructor_required
from quizsvc.web.context import bank, db, load_content, state
from quizsvc.web.drills import cell_names, drill_rules, step_tables
from quizsvc.web.i18n import (
    localized_variant,
    negotiated_language,
    question_title,
    skill_name,
)
from quizsvc.web.progress import in_bank_order
from quizsvc.web.quiz import numeric_answer_rules, numeric_answer_tensor
from quizsvc.web.render import (
    bar_chart_svg,
    chart_figure,
    format_number,
    format_percent,
    heatmap_svg,
    line_chart_svg,
    matrix_table,
)

bp = Blueprint("instructor", __name__, url_prefix="/instructor")

MAX_SEED = 2**63 - 1  # the store keeps seeds in a BIGINT
MAX_COMMENT_LENGTH = 5000
REVIEW_QUEUE_LIMIT = 50
HISTORY_LIMIT = 20
STUDENTS_PER_PAGE = 50
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
    students = reports_queries.student_count(db())
    return render_template(
        "instructor/index.html",
        bank=bank(),
        waiting=waiting,
        waiting_more=waiting >= REVIEW_QUEUE_LIMIT,
        students=students,
    )


# --- content -----------------------------------------------------------------------------


def _excerpt(markdown: str, limit: int = PROMPT_EXCERPT) -> str:
    """A prompt's start as plain text on one line: its Markdown rendered and the tags
    stripped (as i18n.question_title does), so no backticks or ** show."""
    text = " ".join(Markup(render_markdown(markdown)).striptags().split())
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
            "file": live.source_of[question.id].file,
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
    disk = _check_disk() if reload_errors is None else DiskCheck(None, reload_errors)
    return render_template(
        "instructor/content.html",
        bank=live,
        content_dir=state().content_dir,
        chapters=[
            {"id": c.id, "title": localize(c.title, lang), "order": c.order} for c in live.chapters
        ],
        questions=_question_rows(live, lang),
        disk=disk,
        files_with_errors={error.file for error in disk.errors},
        reload_failed=reload_errors is not None,
    ), status


@bp.get("/content")
@instructor_required
def content():
    return render_content()


def _dropped_with_records(live: Bank, new: Bank) -> list[tuple[str, int]]:
    """Questions of the live bank missing from the new one, for which work is recorded."""
    gone = set(live.questions) - set(new.questions)
    if not gone:
        return []
    _begin_reading()
    recorded = reports_queries.recorded_work_by_question(db())
    return sorted((question_id, recorded[question_id]) for question_id in gone & set(recorded))


@bp.get("/content/reload")
@instructor_required
def reload_content_page():
    """The confirmation page's address, reloaded or bookmarked: back to the content page."""
    return redirect(url_for("instructor.content"))


@bp.post("/content/reload")
@instructor_required
def reload_content():
    live = bank()
    old_version = live.version
    try:
        candidate = load_content(state().content_dir)
    except BankError as exc:
        # the whole new content is rejected; the live bank is the one it was
        return render_content(exc.errors, 422)
    dropped = _dropped_with_records(live, candidate)
    # A confirmation holds for the content it was shown for, not for what is on disk now.
    confirmed = request.form.get("confirmed_version") == candidate.version
    if dropped and not confirmed:
        return render_template(
            "instructor/reload_confirm.html",
            dropped=dropped,
            version=candidate.version,
            changed_again="confirmed_version" in request.form,
        ), 409
    new = state().install(candidate)
    if new.version == old_version:
        flash(
            gettext(
                "Reloaded: the content has not changed (version %(version)s).",
                version=new.version[:12],
            ),
            "info",
        )
    else:
        flash(
            ngettext(
                "Reloaded: version %(old)s → %(new)s (%(num)s question).",
                "Reloaded: version %(old)s → %(new)s (%(num)s questions).",
                len(new.questions),
                old=old_version[:12],
                new=new.version[:12],
            ),
            "info",
        )
    return redirect(url_for("instructor.content"))


# --- preview ------------------------------------------------------------------------------


def _parse_seed(raw: str | None) -> int:
    """The seed asked for (0 when none); ValueError with a message for anything else."""
    if raw is None or not raw.strip():
        return 0
    text = raw.strip()
    if not re.fullmatch(r"[0-9]{1,19}", text) or int(text) > MAX_SEED:
        raise ValueError(
            gettext(
                "The seed must be a whole number from 0 to %(max)s, not '%(seed)s'.",
                seed=text[:40],
                max=MAX_SEED,
            )
        )
    return int(text)


def _param_value(value: object) -> str:
    """A drill parameter as its YAML would write it (null: drawn or not used)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _variant_view(question: DrillQuestion, seed: int, lang: str) -> dict[str, Any]:
    """Generated here and now, never stored (a preview is not a learner's variant). What the
    learner sees before answering comes from the drill page's own functions (its rules, its
    cells' names), so the preview cannot misstate it."""
    variant = localized_variant(practice.build_variant(question, seed))
    answer = variant.answer
    rows, cols = answer.shape
    return {
        "seed": seed,
        "skill": variant.skill,
        "params": [(name, _param_value(value)) for name, value in variant.params.items()],
        "rules": drill_rules(variant, question.attempts, question.penalty),
        "attempts": question.attempts,
        "prompt": Markup(render_markdown(variant.prompt[lang])),
        "given": [matrix_table(t) for t in variant.given],
        "grid": {
            "name": answer.name,
            "rows": rows,
            "cols": cols,
            "scalar": (rows, cols) == (1, 1),
            "row_labels": answer.row_labels,
            "col_labels": answer.col_labels,
            "cell_names": cell_names(answer),
        },
        "answer": matrix_table(
            variant.answer,
            region_label=gettext("Correct answer") + gettext(": ") + variant.answer.name,
        ),
        "heatmap": heatmap_svg(
            variant.heatmap,
            label=gettext(
                "Attention weights %(name)s: one row per query, one column per "
                "key; the darker the square, the larger the weight, and each "
                "square shows its value.",
                name=variant.heatmap.name,
            ),
        )
        if variant.heatmap is not None
        else None,
        "solution": [
            {
                "title": step.title[lang],
                "text": Markup(render_markdown(step.text[lang])),
                "tensors": step_tables(step, number, lang),
            }
            for number, step in enumerate(variant.solution, start=1)
        ],
    }


def _choice_scores(question: MultipleChoiceQuestion, lang: str) -> list[dict[str, Any]]:
    """Every choice with what ticking it scores (a negative score is a penalty)."""
    return [
        {
            "id": choice.id,
            "text": Markup(render_markdown(localize(choice.text, lang), inline=True)),
            "score": format_number(choice.score, 6),
            "penalty": choice.score < 0,
        }
        for choice in question.choices
    ]


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
    seed_error = None
    try:
        # only a drill has a seed; the field is ignored for any other question
        is_drill = isinstance(live.questions.get(question_id), DrillQuestion)
        seed = _parse_seed(request.args.get("seed")) if is_drill or not question_id else 0
    except ValueError as exc:
        seed, seed_error = 0, str(exc)
    selected: dict[str, Any] | None = None
    if question_id and seed_error is None:
        question = live.questions.get(question_id)
        if question is None:
            abort(404, description=gettext("There is no question '%(id)s'.", id=question_id[:100]))
        public = public_question(question, lang)
        selected = {
            "id": question.id,
            "type": question.type,
            "source": str(live.source_of[question.id]),
            "public": public,
            # the list the chapter page shows learners, so the preview cannot misstate it
            "answer_rules": (
                numeric_answer_rules(public) if isinstance(question, NumericQuestion) else None
            ),
            "solution": solution_view(question, lang),
            "answer": (
                matrix_table(numeric_answer_tensor(question))
                if isinstance(question, NumericQuestion)
                else None
            ),
            "choice_scores": (
                _choice_scores(question, lang)
                if isinstance(question, MultipleChoiceQuestion)
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
        seed=request.args.get("seed", "")[:40] if seed_error else seed,
        seed_error=seed_error,
        selected=selected,
    ), (400 if seed_error else 200)


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

    A number is a percentage ("75", "75 %"); "a/b" is a points out of b ("1.5/2"). A
    decimal comma is accepted. A bare number above 0 and at most 1 is refused as
    ambiguous: "0.75" or "1" is far more likely meant as a fraction than as 0.75 % or 1 %
    ("1 %" says so). What a Chinese input method types for these characters ("７５％",
    "１．５／２") reads as their ASCII.
    """
    text = normalise_typed_number(raw or "").strip().replace(",", ".")
    shown = (raw or "")[:40]
    if not text:
        raise ReviewInputError(gettext("Enter a score."))
    number = r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+"
    points = re.fullmatch(rf"({number})\s*/\s*({number})", text)
    if points:
        got, total = float(points[1]), float(points[2])
        if total <= 0 or got > total:
            raise ReviewInputError(
                gettext(
                    "The score '%(score)s' is out of range: points must be from 0 to "
                    "a total above 0.",
                    score=shown,
                )
            )
        return got / total
    percent = text.endswith("%")
    text = text.removesuffix("%").strip()
    if not re.fullmatch(number, text):
        raise ReviewInputError(
            gettext(
                "Cannot read the score '%(score)s': enter a percentage from 0 to "
                "100 (e.g. 75) or points out of the total (e.g. 1.5/2).",
                score=shown,
            )
        )
    value = float(text)
    if value > 100:
        raise ReviewInputError(
            gettext(
                "The score '%(score)s' is out of range: a percentage is at most 100.", score=shown
            )
        )
    if not percent and 0 < value <= 1:
        as_percent = f"{value * 100:g}"
        raise ReviewInputError(
            gettext(
                "The score '%(score)s' is ambiguous: write %(percent)s for a "
                "percentage, or points out of the total such as 1.5/2.",
                score=shown,
                percent=as_percent,
            )
        )
    return value / 100


def parse_comment(raw: str | None) -> str:
    comment = (raw or "").strip().replace("\r\n", "\n")
    if len(comment) > MAX_COMMENT_LENGTH:
        raise ReviewInputError(
            gettext("The comment may be at most %(max)s characters long.", max=MAX_COMMENT_LENGTH)
        )
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


# Han characters (CJK Unified Ideographs with extensions A to F, compatibility ideographs)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f]")
_LATIN_WORD = re.compile(r"[A-Za-z]+")


def answer_language(text: str) -> str | None:
    """The language an answer is mostly written in: "zh" when it has more Han characters than
    Latin words, "en" when it has more Latin words, None when it has neither or as many of
    each. Words, not letters: a Chinese answer naming W_q, softmax and attention has more
    Latin letters than characters, and is still Chinese (a Han character is about a word)."""
    characters = len(_CJK.findall(text))
    words = len(_LATIN_WORD.findall(text))
    if characters > words:
        return "zh"
    if words > characters:
        return "en"
    return None


def _suggestion(question: Question | None, text: str) -> RubricSuggestion | None:
    if not isinstance(question, OpenQuestion):
        return None
    return suggest_open_score(text, practice.rubric_points(question))


def _queue_items(live: Bank, lang: str) -> list[dict[str, Any]]:
    waiting = store.answers_awaiting_review(db(), limit=REVIEW_QUEUE_LIMIT)
    if not waiting:
        return []
    answers = db().scalars(
        select(store.QuizAnswer).where(store.QuizAnswer.id.in_([a.answer_id for a in waiting]))
    )
    by_id = {answer.id: answer for answer in answers}
    return _review_items([by_id[a.answer_id] for a in waiting], live, lang)


def _review_items(answers: list[store.QuizAnswer], live: Bank, lang: str) -> list[dict[str, Any]]:
    """Open answers with their learner, prompt, reference, rubric points and suggestion."""
    learners = {
        user.id: user
        for user in db().scalars(
            select(store.User).where(store.User.id.in_({a.learner_id for a in answers}))
        )
    }
    items = []
    for answer in answers:
        learner = learners[answer.learner_id]
        question = live.questions.get(answer.question_id)
        text = answer.text or ""
        suggestion = _suggestion(question, text)
        found = set(suggestion.found) if suggestion else set()
        reference_lang = answer_language(text) or lang
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
                # in the answer's language, to read beside it (the page's when unclear)
                "reference_lang": reference_lang,
                "reference": (
                    Markup(render_markdown(localize(question.reference_answer, reference_lang)))
                    if isinstance(question, OpenQuestion)
                    else None
                ),
                "points": [
                    {
                        "key": point.key,
                        "description": localize(point.description, reference_lang),
                        "weight": point.weight,
                        "found": point.key in found,
                    }
                    for point in (question.rubric if isinstance(question, OpenQuestion) else ())
                ],
                "suggested": answer.suggested_score,
                "current": suggestion.score if suggestion else None,
                "score": answer.score,
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


def _review_item(answer_id: int) -> dict[str, Any]:
    """One open answer (reviewed or not) as the review pages show it, with its reviews."""
    answer = db().get(store.QuizAnswer, answer_id)
    if answer is None:
        abort(404, description=gettext("There is no answer %(id)s.", id=answer_id))
    if not store.is_open_answer(db(), answer):
        abort(
            409,
            description=gettext(
                "Answer %(id)s is not an open answer: its score is the automatic grader's.",
                id=answer_id,
            ),
        )
    (item,) = _review_items([answer], bank(), negotiated_language())
    reviews = reports_queries.reviews_of(db(), answer_id)
    item["reviews"] = reviews
    item["seen_review"] = reviews[-1].id if reviews else 0
    return item


def render_review(
    answer_id: int, error: str | None = None, form: dict[str, str] | None = None, status=200
):
    _begin_reading()
    item = _review_item(answer_id)
    return render_template(
        "instructor/review.html",
        item=item,
        error=error,
        form=form or {},
        max_comment=MAX_COMMENT_LENGTH,
    ), status


@bp.get("/reviews/<int:answer_id>")
@instructor_required
def review_page(answer_id: int):
    return render_review(answer_id)


@bp.post("/reviews/<int:answer_id>")
@instructor_required
def review(answer_id: int):
    from_queue = request.form.get("return_to") != "answer"
    typed = {"score": request.form.get("score", ""), "comment": request.form.get("comment", "")}
    seen = request.form.get("seen_review", "")

    def refuse(message: str, status: int):
        if from_queue:
            return render_reviews({answer_id: message}, {answer_id: typed}, status)
        return render_review(answer_id, message, typed, status)

    try:
        score = parse_score(typed["score"])
        comment = parse_comment(typed["comment"])
    except ReviewInputError as exc:
        return refuse(str(exc), 422)
    try:
        result = store.record_review(
            db(),
            answer_id=answer_id,
            reviewer_id=current_user.id,
            confirmed_score=score,
            comment=comment,
            # ASCII digits, and few: int() refuses over 4300 digits (a tampered form)
            seen_review_id=int(seen) if re.fullmatch(r"[0-9]{1,10}", seen) else None,
        )
    except store.NotFound:
        abort(404, description=gettext("There is no answer %(id)s.", id=answer_id))
    except store.StaleReview:
        db().rollback()
        reviews = reports_queries.reviews_of(db(), answer_id)
        message = (
            gettext(
                "%(reviewer)s reviewed this answer after you opened this page "
                "(it is now %(score)s). Check the reviews above and review again "
                "if needed.",
                reviewer=reviews[-1].reviewer,
                score=format_percent(reviews[-1].score),
            )
            if reviews
            else gettext(
                "This answer's reviews changed after you opened this page. Check "
                "the reviews above and review again if needed."
            )  # a form from another page state
        )
        return render_review(answer_id, message, typed, 409)
    except store.NotAllowed:
        abort(
            409,
            description=gettext(
                "Answer %(id)s is not an open answer: its score is the automatic grader's.",
                id=answer_id,
            ),
        )
    answer = db().get(store.QuizAnswer, result.answer_id)
    learner = db().get(store.User, answer.learner_id)
    flash(
        gettext(
            "Reviewed %(learner)s's answer (%(id)s) to “%(question)s”: %(score)s.",
            id=result.answer_id,
            learner=learner.display_name,
            question=question_title(answer.question_id),
            score=format_percent(score),
        ),
        "info",
    )
    if from_queue:
        return redirect(url_for("instructor.reviews"))
    return redirect(url_for("instructor.review_page", answer_id=answer_id))


# --- students -----------------------------------------------------------------------------


def _student(user_id: int) -> store.User:
    user = store.user_by_id(db(), user_id)
    if user is None or user.role != "student":
        abort(404, description=gettext("There is no student %(id)s.", id=user_id))
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
        abort(400, description=gettext("Unknown role '%(role)s'.", role=role))
    try:
        user = create_account(role)
    except store.StoreError as exc:
        db().rollback()
        return render_students(error=account_problem(exc), status=422)
    flash(gettext("Account %(name)s (%(role)s) created.", name=user.name, role=role), "info")
    return redirect(url_for("instructor.students"))


def _page_number() -> int:
    """The ``page`` asked for (1 when none); 400 with a message for anything but a page
    number."""
    raw = request.args.get("page", "")
    if not raw:
        return 1
    if not re.fullmatch(r"[0-9]{1,9}", raw) or int(raw) < 1:
        abort(
            400,
            description=gettext(
                "The page must be a whole number from 1, not '%(page)s'.", page=raw[:40]
            ),
        )
    return int(raw)


def render_students(error: str | None = None, status: int = 200):
    _begin_reading()
    # one page of the roster, in six queries whatever the number of students
    page = _page_number()
    total = reports_queries.student_count(db())
    pages = max(1, math.ceil(total / STUDENTS_PER_PAGE))
    if page > pages:
        abort(
            404,
            description=gettext(
                "There is no page %(page)s: the last page is %(last)s.", page=page, last=pages
            ),
        )
    offset = (page - 1) * STUDENTS_PER_PAGE
    shown = reports_queries.students_page(db(), offset=offset, limit=STUDENTS_PER_PAGE)
    ids = [student.id for student in shown]
    skills: dict[int, list[str]] = {}
    for learner_id, skill, _mastery in sorted(reports_queries.masteries(db(), ids)):
        skills.setdefault(learner_id, []).append(skill)
    activity = reports_queries.last_activity(db(), ids)
    roster = [
        {
            "user": student,
            "last_activity": activity.get(student.id),
            "skills": skills.get(student.id, []),
        }
        for student in shown
    ]
    return render_template(
        "instructor/students.html",
        roster=roster,
        total=total,
        first=offset + 1,
        page=page,
        pages=pages,
        instructors=store.list_users(db(), role="instructor"),
        error=error,
        role=request.form.get("role", "student"),
    ), status


def _progress_data(user_id: int) -> dict[str, Any]:
    skills = in_bank_order(store.progress_for(db(), user_id))
    history = store.recent_history(db(), user_id, limit=HISTORY_LIMIT)
    scored = [h.score for h in reversed(history) if h.score is not None]
    mastery, recent = (
        gettext("Mastery per skill (0 to 100 %)"),
        gettext("Recent scores, oldest first (0 to 100 %)"),
    )
    return {
        "skills": skills,
        "history": history,
        "mastery_chart": chart_figure(
            bar_chart_svg([(skill_name(s.skill), s.mastery) for s in skills], label=mastery),
            mastery,
        ),
        "history_chart": chart_figure(line_chart_svg(scored, label=recent), recent),
    }


@bp.get("/students/<int:user_id>")
@instructor_required
def student(user_id: int):
    _begin_reading()
    user = _student(user_id)
    lang = negotiated_language()
    live = bank()
    open_answers = [
        {
            "id": row.id,
            "question_id": row.question_id,
            "prompt": (
                _excerpt(localize(live.questions[row.question_id].prompt, lang), 100)
                if row.question_id in live.questions
                else None
            ),
            "score": row.score,
            "answered_at": row.answered_at,
        }
        for row in reports_queries.open_answers_of(db(), user.id)
    ]
    return render_template(
        "instructor/student.html",
        student=user,
        open_answers=open_answers,
        **_progress_data(user.id),
    )


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
        gradebook_columns=_gradebook_columns(live),
        event_columns=[
            (name, gettext(reports.EVENT_COLUMN_HELP[name])) for name in reports.EVENT_COLUMNS
        ],
    )


def _gradebook_columns(live: Bank) -> list[tuple[str, str]]:
    """(the headers, what they hold) for the gradebook's columns; a group of columns (one
    per chapter question, one per drill skill) is listed by its actual headers."""
    groups = {
        "<question>": [question.id for question in reports.chapter_questions(live)],
        "mastery:<skill>": [reports.MASTERY_PREFIX + skill for skill in reports.drill_skills(live)],
    }
    return [
        (", ".join(groups.get(name, [name])), gettext(help_text))
        for name, help_text in reports.GRADEBOOK_COLUMN_HELP.items()
        if groups.get(name, [name])
    ]


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
    report = reports.student_report(db(), live, user.id, history_limit=HISTORY_LIMIT)
    graded = [line for line in report.skills if line.progress is not None]
    drill_scores = [line.score for line in reversed(report.drill_history)]
    mastery, drills = (
        gettext("Mastery per skill (0 to 100 %)"),
        gettext("Drill scores, oldest first (0 to 100 %)"),
    )
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
            chart_figure(
                bar_chart_svg(
                    [(skill_name(line.skill), line.progress.mastery) for line in graded],
                    label=mastery,
                ),
                mastery,
            )
            if graded
            else None
        ),
        drill_chart=chart_figure(line_chart_svg(drill_scores, label=drills), drills),
    )
