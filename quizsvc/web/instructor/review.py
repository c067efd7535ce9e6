"""The review queue: open answers awaiting an instructor's score, with the rubric points a
phrase match suggests, and one answer's page with its reviews."""

from __future__ import annotations

import re
from typing import Any

from flask import abort, flash, redirect, render_template, url_for
from flask_babel import gettext
from flask_login import current_user
from markupsafe import Markup, escape
from sqlalchemy import select

from quizsvc import practice, store
from quizsvc.bank import Bank, OpenQuestion, Question, localize, render_markdown
from quizsvc.grading import RubricSuggestion, normalise_typed_number, suggest_open_score
from quizsvc.store import reports_queries
from quizsvc.web.context import bank, db
from quizsvc.web.forms import ReviewForm
from quizsvc.web.i18n import negotiated_language, question_title
from quizsvc.web.instructor.common import begin_reading, bp
from quizsvc.web.login_session import instructor_required
from quizsvc.web.render import format_percent

MAX_COMMENT_LENGTH = 5000
REVIEW_QUEUE_LIMIT = 50


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
    begin_reading()
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
    begin_reading()
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
    form = ReviewForm()
    typed = {"score": form.score.data, "comment": form.comment.data}

    def refuse(message: str, status: int):
        if form.from_queue:
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
            seen_review_id=form.seen_review_id,
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
    if form.from_queue:
        return redirect(url_for("instructor.reviews"))
    return redirect(url_for("instructor.review_page", answer_id=answer_id))
