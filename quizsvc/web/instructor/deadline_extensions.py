"""A student's deadline extensions as their page shows them (its "Deadline extensions"
section, whose form `students.set_extension` takes): a later close or extra minutes on a
chapter's quiz or drills."""

from __future__ import annotations

from flask_babel import gettext

from quizsvc import store
from quizsvc.bank import localize
from quizsvc.web.context import bank, db
from quizsvc.web.i18n import negotiated_language


def scheduled_parts() -> list[dict]:
    """The chapters' quizzes and drill sets that have a schedule, as the form offers them."""
    lang = negotiated_language()
    names = {"quiz": gettext("Quiz"), "drills": gettext("Drills")}
    found = []
    for chapter in bank().chapters:
        for part in ("quiz", "drills"):
            schedule = chapter.quiz if part == "quiz" else chapter.drills
            if schedule is not None:
                found.append(
                    {
                        "value": f"{chapter.id}/{part}",
                        "label": f"{localize(chapter.title, lang)} — {names[part]}",
                        "timed": getattr(schedule, "time_limit", None) is not None,
                    }
                )
    return found


def extensions_view(user_id: int) -> dict:
    """The student page's section: their extensions, the parts that may get one, the form."""
    lang = negotiated_language()
    titles = {chapter.id: localize(chapter.title, lang) for chapter in bank().chapters}
    names = {"quiz": gettext("Quiz"), "drills": gettext("Drills")}
    return {
        "parts": scheduled_parts(),
        "current": [
            {
                "chapter": titles.get(extension.chapter_id, extension.chapter_id),
                "part": names.get(extension.part, extension.part),
                "closes_at": extension.closes_at,
                "extra_minutes": extension.extra_minutes,
            }
            for extension in store.extensions_of(db(), user_id)
        ],
    }
