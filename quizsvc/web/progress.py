"""The progress page: per-skill mastery from the drills, each chapter's test score, and recent
history, with server-rendered charts."""

from __future__ import annotations

from flask import Blueprint, render_template, url_for
from flask_babel import gettext
from flask_login import current_user, login_required

from quizsvc import reports, store
from quizsvc.bank import localize
from quizsvc.quiz_standing import chapter_totals
from quizsvc.web.context import bank, db
from quizsvc.web.i18n import negotiated_language, skill_name
from quizsvc.web.render import (
    bar_chart_svg,
    chart_figure,
    format_number,
    format_whole_percent,
    line_chart_svg,
)

bp = Blueprint("progress", __name__)

PERFECT_RUN = 4  # how many perfect answers in a row the page's explanation of mastery walks


@bp.get("/progress")
@login_required
def index():
    session = db()
    store.begin_read_only(session)
    skills = in_bank_order(store.progress_for(session, current_user.id))
    history = store.recent_history(session, current_user.id, limit=20)
    lang = negotiated_language()
    quiz = [
        {
            "title": localize(chapter.title, lang),
            "url": url_for("quiz.chapter", chapter_id=chapter.id),
            "total": total,
            "earned": format_number(total.earned, 2),
            "possible": format_number(total.possible, 2),
        }
        for chapter, total in chapter_totals(session, bank(), current_user.id)
    ]
    scored = [h.score for h in reversed(history) if h.score is not None]
    mastery, recent = (
        gettext("Mastery per skill (0 to 100 %)"),
        gettext("Your recent scores, oldest first (0 to 100 %)"),
    )
    return render_template(
        "progress.html",
        skills=skills,
        quiz=quiz,
        history=history,
        history_links={(h.kind, h.record_id): _history_link(h) for h in history},
        mastery_chart=chart_figure(
            bar_chart_svg([(skill_name(s.skill), s.mastery) for s in skills], label=mastery),
            mastery,
        ),
        history_chart=chart_figure(line_chart_svg(scored, label=recent), recent),
        mastery_help=mastery_help(),
    )


def in_bank_order(skills: list[store.SkillProgress]) -> list[store.SkillProgress]:
    """The skills in the order the bank's drills come (the chapter's order, as the reports
    have them), then any other skill by name."""
    key = reports.skill_order(bank())
    return sorted(skills, key=lambda s: key(s.skill))


def _history_link(entry: store.HistoryEntry) -> str | None:
    """Where the learner sees this entry again: the variant, or the question in its chapter."""
    if entry.variant_id is not None:
        return url_for("drills.variant", variant_id=entry.variant_id)
    chapter_id = bank().chapter_of.get(entry.question_id)
    if chapter_id is None:
        return None  # the question has left the bank
    return url_for("quiz.chapter", chapter_id=chapter_id, _anchor=f"q-{entry.question_id}")


def mastery_help() -> str:
    """How mastery moves, with the store's own rule worked through a run of perfect answers
    (a single perfect answer shows as 50 %, which looks like under-crediting unexplained)."""
    mastery, steps = 0.0, []
    for _ in range(PERFECT_RUN):
        mastery = store.next_mastery(mastery, 1.0)
        steps.append(format_whole_percent(mastery))
    return gettext(
        "Mastery is an average that favours recent answers: it starts at "
        "0, and every graded answer on the skill moves it %(weight)s of "
        "the way to that answer's score, so perfect answers in a row "
        "give %(series)s. Each exercise of a drill counts once, at your "
        "best attempt at it, so correcting a mistake never lowers your "
        "mastery. Attempts counts every graded try, Best is the best of "
        "them, and Last is your newest answer's score. A skill counts "
        "drills only: the chapter's questions have their own score.",
        weight=format_whole_percent(store.MASTERY_WEIGHT),
        series=" → ".join(steps),
    )
