"""The progress page: per-skill mastery and recent history, with server-rendered charts."""

from __future__ import annotations

from flask import Blueprint, render_template
from flask_login import current_user, login_required

from quizsvc import store
from quizsvc.web.context import db
from quizsvc.web.render import bar_chart_svg, line_chart_svg

bp = Blueprint("progress", __name__)


@bp.get("/progress")
@login_required
def index():
    session = db()
    store.begin_read_only(session)
    skills = store.progress_for(session, current_user.id)
    history = store.recent_history(session, current_user.id, limit=20)
    scored = [h.score for h in reversed(history) if h.score is not None]
    return render_template(
        "progress.html",
        skills=skills,
        history=history,
        mastery_chart=bar_chart_svg([(s.skill, s.mastery) for s in skills], label="mastery"),
        history_chart=line_chart_svg(scored, label="recent scores"),
    )
