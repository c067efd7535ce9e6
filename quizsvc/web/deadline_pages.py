"""A chapter's schedule as the pages and the API say it: what the chapter page and the
drills page state before a learner starts (opens, closes, the time limit, the late policy,
their extension, the time left), a refusal in the learner's language, and the quiz's
"Start" step."""

from __future__ import annotations

from datetime import UTC, datetime

from flask import Blueprint, abort, redirect, url_for
from flask_babel import force_locale, gettext, ngettext
from flask_login import current_user, login_required

from quizsvc import deadlines
from quizsvc.bank.schedule import REFUSAL_MESSAGES, Refusal, Verdict
from quizsvc.web.context import bank, db
from quizsvc.web.i18n import format_when
from quizsvc.web.render import format_whole_percent

bp = Blueprint("deadlines", __name__)


def moment(value: datetime | None) -> str:
    """A moment as the pages write one, with the zone they are written in."""
    return "" if value is None else gettext("%(when)s UTC", when=format_when(value))


def refusal_message(verdict: Verdict) -> str:
    """Why the schedule refuses, with its moments, in the page's language."""
    assert verdict.refusal is not None
    return gettext(REFUSAL_MESSAGES[verdict.refusal]).format(
        opens=moment(verdict.opens), closes=moment(verdict.closes), ends=moment(verdict.ends)
    )


def refusal_in(refused: deadlines.DeadlineRefused, lang: str) -> str:
    with force_locale(lang):
        return refusal_message(refused.verdict)


def minutes(count: int) -> str:
    return ngettext("%(num)s minute", "%(num)s minutes", count)


def schedule_view(standing: deadlines.Standing, chapter_id: str) -> dict | None:
    """What a page states of a chapter's quiz or drills schedule for the learner (None when
    there is none): ``facts`` before starting, ``notice`` when answers are refused now,
    ``must_start`` with the form that starts a timed quiz, ``ends`` (ISO 8601) and
    ``remaining`` for a started one's countdown, ``answerable``."""
    schedule, verdict = standing.schedule, standing.verdict
    if schedule is None:
        return None
    facts = []
    if schedule.opens is not None:
        facts.append(gettext("Opens: %(when)s.", when=moment(schedule.opens)))
    if schedule.closes is not None:
        facts.append(gettext("Closes: %(when)s.", when=moment(schedule.closes)))
    if standing.extension is not None and verdict.closes != schedule.closes:
        facts.append(gettext("For you it closes: %(when)s.", when=moment(verdict.closes)))
    if standing.time_limit is not None:
        facts.append(
            gettext(
                "Time limit: %(limit)s, counted from when you start the quiz.",
                limit=minutes(standing.time_limit),
            )
        )
        extra = standing.extension.extra_minutes if standing.extension else 0
        if extra:
            facts.append(gettext("Your extra time: %(extra)s.", extra=minutes(extra)))
    if schedule.closes is not None:
        late = schedule.late
        if late.policy == "refuse":
            facts.append(gettext("Late answers are not accepted."))
        elif late.until is not None:
            facts.append(
                gettext(
                    "Late answers are accepted until %(when)s, with %(penalty)s taken off "
                    "their score.",
                    when=moment(late.until),
                    penalty=format_whole_percent(late.penalty or 0.0),
                )
            )
        else:
            facts.append(
                gettext(
                    "Late answers are accepted, with %(penalty)s taken off their score.",
                    penalty=format_whole_percent(late.penalty or 0.0),
                )
            )
    view: dict = {
        "facts": facts,
        "notice": None,
        "answerable": verdict.refusal is None,
        "before_opening": verdict.refusal is Refusal.NOT_OPEN,
        "must_start": False,
        "late": verdict.late,
        "ends": None,
        "remaining": None,
    }
    if verdict.refusal is Refusal.NOT_STARTED:
        view["must_start"] = True
        view["start_url"] = url_for("deadlines.start_quiz", chapter_id=chapter_id)
    elif verdict.refusal is not None:
        view["notice"] = refusal_message(verdict)
    if verdict.late:
        view["notice"] = gettext(
            "The deadline has passed: an answer now loses %(penalty)s of its score.",
            penalty=format_whole_percent(verdict.late_penalty),
        )
    if verdict.ends is not None and verdict.refusal is None:
        left = max(0, int((verdict.ends - datetime.now(UTC)).total_seconds()))
        view["ends"] = verdict.ends.isoformat()
        view["remaining"] = {
            "clock": f"{left // 60}:{left % 60:02d}",
            "until": gettext("(until %(when)s)", when=moment(verdict.ends)),
        }
    return view


@bp.post("/chapters/<chapter_id>/start")
@login_required
def start_quiz(chapter_id: str):
    """Start the chapter's timed quiz: its clock counts from now (a form that is only a
    button: its CSRF token is checked before the view)."""
    try:
        bank().chapter(chapter_id)
    except KeyError:
        abort(404, description=gettext("There is no chapter '%(id)s'.", id=chapter_id))
    try:
        deadlines.start_quiz(db(), bank(), current_user.id, chapter_id)
    except deadlines.DeadlineRefused as refused:
        db().rollback()
        abort(refused.status, description=refusal_message(refused.verdict))
    return redirect(url_for("quiz.chapter", chapter_id=chapter_id))
