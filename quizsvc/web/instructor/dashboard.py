"""The instructor's overview: the content, the students and the review queue at a glance."""

from __future__ import annotations

from flask import render_template

from quizsvc import store
from quizsvc.store import reports_queries
from quizsvc.web.context import bank, db
from quizsvc.web.instructor import review
from quizsvc.web.instructor.common import begin_reading, bp
from quizsvc.web.login_session import instructor_required


@bp.get("/")
@instructor_required
def index():
    begin_reading()
    waiting = len(store.answers_awaiting_review(db(), limit=review.REVIEW_QUEUE_LIMIT))
    students = reports_queries.student_count(db())
    return render_template(
        "instructor/index.html",
        bank=bank(),
        waiting=waiting,
        waiting_more=waiting >= review.REVIEW_QUEUE_LIMIT,
        students=students,
    )
