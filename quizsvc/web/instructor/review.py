"""The review pages: a list of students' open answers (awaiting review, reviewed, or both; one
question's or all), and one answer's page with its reviews and its neighbours in the list.
Each answer has the rubric points a phrase match suggests, shown beside a form that
suggests nothing: the instructor ticks the key points the answer makes (the score is their
weights' share, computed here again) or types a score, with a comment to the student."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import abort, flash, redirect, render_template, url_for
from flask_babel import gettext
from flask_login import current_user
from markupsafe import Markup
from sqlalchemy import select

from quizsvc import practice, store
from quizsvc.bank import Bank, OpenQuestion, Question, localize, render_markdown
from quizsvc.grading import RubricSuggestion, suggest_open_score
from quizsvc.store import reports_queries
from quizsvc.web.context import bank, db
from quizsvc.web.forms import ReviewForm, ReviewListForm
from quizsvc.web.i18n import negotiated_language, question_title
from quizsvc.web.instructor.common import begin_reading, bp
from quizsvc.web.instructor.review_input import (
    MAX_COMMENT_LENGTH,
    ReviewInputError,
    answer_language,
    highlight,
    parse_comment,
    parse_score,
)
from quizsvc.web.login_session import instructor_required
from quizsvc.web.render import format_percent

REVIEW_QUEUE_LIMIT = 50


def _suggestion(question: Question | None, text: str) -> RubricSuggestion | None:
    if not isinstance(question, OpenQuestion):
        return None
    return suggest_open_score(text, practice.rubric_points(question))


@dataclass(frozen=True)
class ReviewList:
    """The answers the review pages go through: those to `question` (None: every open
    question) in `state` (store.REVIEW_STATES), oldest first."""

    state: str = "awaiting"
    question: str | None = None

    @property
    def args(self) -> dict[str, str]:
        """The list in a review page's address (nothing for the default list)."""
        args = {"state": self.state} if self.state != "awaiting" else {}
        return args | ({"question": self.question} if self.question else {})


def _review_list() -> ReviewList:
    """The list chosen in the page's address; a 400 with the reason for one that is not."""
    form = ReviewListForm()
    state = form.state.data or "awaiting"
    if state not in store.REVIEW_STATES:
        abort(
            400,
            description=gettext(
                "Unknown review state '%(state)s': choose awaiting, reviewed or all.",
                state=state[:40],
            ),
        )
    question = form.question.data or None
    if question is not None and not isinstance(bank().questions.get(question), OpenQuestion):
        abort(
            400,
            description=gettext(
                "There is no open question '%(question)s' to review.", question=question[:100]
            ),
        )
    return ReviewList(state, question)


def _open_questions() -> list[tuple[str, str]]:
    """(id, title) of the live bank's open questions, in the bank's order."""
    return [
        (question_id, question_title(question_id))
        for question_id, question in bank().questions.items()
        if isinstance(question, OpenQuestion)
    ]


def _queue_items(live: Bank, lang: str, listed: ReviewList) -> list[dict[str, Any]]:
    ids = store.answers_for_review(
        db(), state=listed.state, question_id=listed.question, limit=REVIEW_QUEUE_LIMIT
    )
    if not ids:
        return []
    by_id = {
        answer.id: answer
        for answer in db().scalars(select(store.QuizAnswer).where(store.QuizAnswer.id.in_(ids)))
    }
    items = _review_items([by_id[answer_id] for answer_id in ids], live, lang)
    latest = store.latest_reviews(db(), ids)
    for item in items:
        item["latest"] = latest.get(item["answer_id"])
        item["seen_review"] = item["latest"].id if item["latest"] else 0
    return items


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
    errors: dict[int, str] | None = None, form: dict[int, dict[str, Any]] | None = None, status=200
):
    begin_reading()
    listed = _review_list()
    items = _queue_items(bank(), negotiated_language(), listed)
    return render_template(
        "instructor/reviews.html",
        items=items,
        listed=listed,
        questions=_open_questions(),
        states=store.REVIEW_STATES,
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
    answer = _open_answer(answer_id)
    (item,) = _review_items([answer], bank(), negotiated_language())
    reviews = reports_queries.reviews_of(db(), answer_id)
    item["reviews"] = reviews
    item["latest"] = reviews[-1] if reviews else None
    item["seen_review"] = reviews[-1].id if reviews else 0
    return item


def _open_answer(answer_id: int) -> store.QuizAnswer:
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
    return answer


def render_review(
    answer_id: int, error: str | None = None, form: dict[str, Any] | None = None, status=200
):
    begin_reading()
    listed = _review_list()
    item = _review_item(answer_id)
    place = store.review_place(db(), answer_id, state=listed.state, question_id=listed.question)
    return render_template(
        "instructor/review.html",
        item=item,
        listed=listed,
        place=place,
        list_title=question_title(listed.question) if listed.question else None,
        error=error,
        form=form or {},
        max_comment=MAX_COMMENT_LENGTH,
    ), status


@bp.get("/reviews/<int:answer_id>")
@instructor_required
def review_page(answer_id: int):
    return render_review(answer_id)


def _reviewed_score(form: ReviewForm, question: Question | None) -> float:
    """The score the form gives: the typed one if any, else the ticked rubric points'."""
    if (form.score.data or "").strip():
        return parse_score(form.score.data)
    if not form.point.data:
        raise ReviewInputError(
            gettext("Tick the key points the answer makes, or enter a score: nothing was saved.")
        )
    if not isinstance(question, OpenQuestion):
        raise ReviewInputError(
            gettext("This question is no longer in the live bank: enter a score instead.")
        )
    try:
        return practice.score_of_ticked_points(question, form.point.data)
    except ValueError:
        keys = {point.key for point in question.rubric}
        unknown = next(key for key in form.point.data if key not in keys)
        raise ReviewInputError(
            gettext(
                "The question has no key point '%(key)s' (its rubric changed?): reload the "
                "page and tick again.",
                key=unknown[:100],
            )
        ) from None


@bp.post("/reviews/<int:answer_id>")
@instructor_required
def review(answer_id: int):
    form = ReviewForm()
    listed = _review_list()
    typed = {"score": form.score.data, "comment": form.comment.data, "points": form.point.data}

    def refuse(message: str, status: int):
        if form.from_queue:
            return render_reviews({answer_id: message}, {answer_id: typed}, status)
        return render_review(answer_id, message, typed, status)

    question = bank().questions.get(_open_answer(answer_id).question_id)  # 404, 409 first
    try:
        score = _reviewed_score(form, question)
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
        return redirect(url_for("instructor.reviews", **listed.args))
    if form.then.data == "next":
        place = store.review_place(db(), answer_id, state=listed.state, question_id=listed.question)
        if place.next is None:
            flash(gettext("That was the last answer of the list."), "info")
            return redirect(url_for("instructor.reviews", _anchor="main", **listed.args))
        # the page's top (a fragment of its own, not the form's #answer-… the browser keeps)
        return redirect(
            url_for("instructor.review_page", answer_id=place.next, _anchor="main", **listed.args)
        )
    return redirect(url_for("instructor.review_page", answer_id=answer_id, **listed.args))
