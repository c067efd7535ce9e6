"""The instructor's start page: the class at a glance (`reports.dashboard`), each figure
linking to its details."""

from __future__ import annotations

from flask import render_template
from flask_babel import gettext

from quizsvc.reports.dashboard import (
    BUCKETS,
    CELL_SAMPLE,
    MISTAKE_SAMPLE,
    ItemGlance,
    class_glance,
)
from quizsvc.web.context import bank, db
from quizsvc.web.drill_feedback import mistake_message
from quizsvc.web.i18n import drill_title, question_title
from quizsvc.web.instructor.common import begin_reading, bp
from quizsvc.web.login_session import instructor_required
from quizsvc.web.render import histogram_svg


def _bucket_names() -> list[str]:
    step = 100 // BUCKETS
    return [f"{low}–{low + step}%" for low in range(0, 100, step)]


def _row(item: ItemGlance, names: list[str]) -> dict:
    title = question_title(item.question_id)
    return {
        "item": item,
        "title": title,
        "histogram": histogram_svg(
            item.histogram,
            gettext("Students per score, %(item)s", item=title),
            names,
        ),
    }


@bp.get("/")
@instructor_required
def index():
    begin_reading()
    glance = class_glance(db(), bank())
    names = _bucket_names()
    return render_template(
        "instructor/index.html",
        bank=bank(),
        glance=glance,
        questions=[_row(item, names) for item in glance.questions],
        drill_kinds=[_row(item, names) for item in glance.drill_kinds],
        hardest=[_row(item, names) for item in glance.hardest],
        cell_sample=CELL_SAMPLE,
        mistake_sample=MISTAKE_SAMPLE,
        misses=[
            {
                "misses": misses,
                "title": drill_title(misses.kind),
                "mistake": mistake_message(misses.mistake) if misses.mistake else None,
            }
            for misses in glance.misses
        ],
    )
