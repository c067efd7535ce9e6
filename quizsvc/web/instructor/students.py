"""The students' pages: the roster (where accounts are created), a student's progress and
open answers, their printable report."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from typing import Any

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import force_locale, gettext
from flask_login import current_user
from markupsafe import Markup

from quizsvc import reports, store
from quizsvc.bank import localize
from quizsvc.store import reports_queries
from quizsvc.web.auth import create_account, new_account_problem
from quizsvc.web.context import bank, db
from quizsvc.web.forms import AccountForm, ExtensionForm, first_error
from quizsvc.web.i18n import LANGUAGES, negotiated_language, skill_name
from quizsvc.web.instructor import deadline_extensions
from quizsvc.web.instructor.common import begin_reading, bp, excerpt
from quizsvc.web.login_session import instructor_required
from quizsvc.web.progress import in_bank_order
from quizsvc.web.render import bar_chart_svg, chart_figure, line_chart_svg

HISTORY_LIMIT = 20
# each language's name in itself, as the language toggle shows it
LANGUAGE_NAMES = {"zh": "中文", "en": "English"}
STUDENTS_PER_PAGE = 50


def student_or_404(user_id: int) -> store.User:
    user = store.user_by_id(db(), user_id)
    if user is None or user.role != "student":
        abort(404, description=gettext("There is no student %(id)s.", id=user_id))
    return user


@bp.get("/students")
@instructor_required
def students():
    return render_students(AccountForm())


@bp.post("/students")
@instructor_required
def add_account():
    """Instructors create accounts (students or instructors) with a first password."""
    form = AccountForm()
    valid = form.validate()
    if form.role.errors:  # no page offers another role: the form was not this page's
        abort(400, description=form.role.errors[0])
    if not valid:
        return render_students(form, error=first_error(form), status=422)
    role = form.role.data
    try:
        user = create_account(form, role)
    except store.StoreError as exc:
        db().rollback()
        return render_students(form, error=new_account_problem(exc, form), status=422)
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


def render_students(form: AccountForm, error: str | None = None, status: int = 200):
    """The roster's page, with its form to add an account (as sent, when refused)."""
    begin_reading()
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
        form=form,
        error=error,
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
    begin_reading()
    return render_student(student_or_404(user_id))


def render_student(
    user: store.User,
    deletion_error: str | None = None,
    extension_error: str | None = None,
    extension_form: ExtensionForm | None = None,
):
    """A student's page: their progress, open answers, deadline extensions and account."""
    lang = negotiated_language()
    live = bank()
    open_answers = [
        {
            "id": row.id,
            "question_id": row.question_id,
            "prompt": (
                excerpt(localize(live.questions[row.question_id].prompt, lang), 100)
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
        deletion_error=deletion_error,
        extensions=deadline_extensions.extensions_view(user.id),
        extension_error=extension_error,
        extension_form=extension_form or ExtensionForm(),
        **_progress_data(user.id),
    )


@bp.post("/students/<int:user_id>/extensions")
@instructor_required
def set_extension(user_id: int):
    """Give the student a later close and/or extra minutes on a chapter's quiz or drills
    (the chapter's select sends "chapter/part"); neither removes their extension."""
    student = student_or_404(user_id)
    form = ExtensionForm()
    chapter_id, _, part = (form.chapter.data or "").partition("/")
    if part:
        form.part.data = part
    valid = form.validate()
    offered = {item["value"] for item in deadline_extensions.scheduled_parts()}
    if f"{chapter_id}/{form.part.data}" not in offered:
        error = gettext("Choose a chapter's quiz or drills that has a schedule.")
        return render_student(student, extension_error=error, extension_form=form), 422
    if not valid:
        return render_student(student, extension_error=first_error(form), extension_form=form), 422
    store.set_extension(
        db(),
        learner_id=student.id,
        chapter_id=chapter_id,
        part=form.part.data,
        closes_at=form.closes_at,
        extra_minutes=form.minutes,
        set_by=current_user.id,
    )
    if form.closes_at is None and form.minutes == 0:
        flash(gettext("The extension was removed."), "info")
    else:
        flash(gettext("The extension was saved."), "info")
    return redirect(url_for("instructor.student", user_id=user_id, _anchor="extensions"))


@bp.get("/students/<int:user_id>/report")
@instructor_required
def student_report(user_id: int):
    """The printable report, in the language the student chose (their account's), else the
    instructor's; the page's navigation stays in the instructor's."""
    begin_reading()
    user = student_or_404(user_id)
    live = bank()
    report = reports.student_report(db(), live, user.id, history_limit=HISTORY_LIMIT)
    language_stored = user.language in LANGUAGES
    lang = user.language if language_stored else negotiated_language()
    with force_locale(lang):
        article = Markup(_report_article(report, user, live, lang))
    return render_template(
        "instructor/report.html",
        report=report,
        article=article,
        language_stored=language_stored,
        language_name=LANGUAGE_NAMES[lang],
    )


def _report_article(report: reports.StudentReport, user: store.User, live, lang: str) -> str:
    """The report itself, rendered in the current locale (``lang``)."""
    graded = [line for line in report.skills if line.progress is not None]
    drill_scores = [line.score for line in reversed(report.drill_history)]
    mastery, drills = (
        gettext("Mastery per skill (0 to 100 %)"),
        gettext("Drill scores, oldest first (0 to 100 %)"),
    )
    return render_template(
        "instructor/_student_report.html",
        lang=lang,
        report=report,
        student=user,
        generated=datetime.now(UTC),
        bank=live,
        prompts={
            line.question_id: excerpt(localize(line.question.prompt, lang), 120)
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
