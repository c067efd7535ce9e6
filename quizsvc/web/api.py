"""The JSON API under /api: what the pages do, for scripts and in-page JavaScript.

Described in docs/api.md and docs/openapi.yaml.  Authentication is the session cookie (with
the X-CSRFToken header on writes, checked app-wide in `login_session`) or
`Authorization: Bearer <token>` (`quizsvc user token NAME`), which alone decides when it is
sent, cookie or not (`login_session.BearerAwareSessionInterface`); anything else gets a 401
JSON error, never a redirect.
Errors use the one JSON format of `errors.error_response`.

What a learner may see is decided by naming the fields that are sent, never by deleting
secret ones from a bigger dict: a question before it is answered is `public_question`, after
it `solution_view`; a drill variant is `api_json.variant_json`, which shows its expected
answer, worked solution and heatmap only once it is finished (solved or out of attempts), and
until then the accepted interval of a cell only if that cell was answered correctly (as
`drills.render_variant` does).
"""

from __future__ import annotations

import re
import uuid
from typing import Any

from flask import Blueprint, Response, abort, current_app, jsonify, request, url_for
from flask_babel import force_locale
from flask_login import current_user

from quizsvc import deadlines, practice, store
from quizsvc.bank import (
    DrillQuestion,
    MultipleChoiceQuestion,
    Question,
    SingleChoiceQuestion,
    localize,
    public_question,
    solution_view,
)
from quizsvc.bank.schedule import Refusal
from quizsvc.grading import AnswerRejected, RowsRejected, rows_text
from quizsvc.quiz_standing import QuestionStanding, chapter_standings, chapter_totals
from quizsvc.web.api_json import (
    chapter_question_json,
    learner_answer_json,
    markdown_json,
    progress_json,
    submission_json,
    variant_json,
)
from quizsvc.web.context import bank, db
from quizsvc.web.deadline_pages import refusal_in
from quizsvc.web.drill_feedback import cells_with_diagnosis
from quizsvc.web.errors import error_response
from quizsvc.web.i18n import LANGUAGES, answer_problem, negotiated_language
from quizsvc.web.quiz import chapter_questions, in_learner_order

bp = Blueprint("api", __name__, url_prefix="/api")

MAX_TEXT_ANSWER_CHARS = 10_000  # the chapter page's textarea allows as much
DEFAULT_HISTORY = 20
MAX_HISTORY = 100


class ApiError(Exception):
    """A refusal with its own error code (the HTTP status alone would say less); ``reason``:
    the grader's finer code of an answer it refused."""

    def __init__(self, status: int, code: str, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.reason = reason


@bp.errorhandler(ApiError)
def _api_error(exc: ApiError):
    return error_response(exc.status, exc.code, exc.message, reason=exc.reason)


def _answer_refused(exc: AnswerRejected, lang: str) -> ApiError:
    """The grader's refusal of an answer, said in the request's language (a learner reads it
    to fix the answer), with its code as ``reason`` for a program."""
    with force_locale(lang):
        message = answer_problem(exc)
    reason = None if exc.code is None else exc.code.value
    return ApiError(422, "invalid_answer", message, reason=reason)


@bp.errorhandler(deadlines.DeadlineRefused)
def _deadline_refused(refused: deadlines.DeadlineRefused):
    """The chapter's schedule refusing an answer or a start: 403 not_open or closed, 409
    not_started or time_up, said with its moments in the request's language."""
    db().rollback()
    return error_response(refused.status, refused.refusal.value, refusal_in(refused, _lang()))


@bp.before_request
def _answer_options() -> Response | None:
    """OPTIONS: 204 with the Allow header, for anyone. Which methods a URL takes is no secret
    (openapi.yaml lists them), and Flask-Login's login_required never asks OPTIONS to log in
    either."""
    if request.method == "OPTIONS":
        response = current_app.make_default_options_response()
        response.status_code = 204
        del response.headers["Content-Type"]  # there is no content
        return response
    return None


@bp.before_request
def _require_login() -> None:
    if not current_user.is_authenticated:
        abort(
            401,
            description="log in first: send the session cookie, or "
            "'Authorization: Bearer <token>' (quizsvc user token NAME)",
        )


@bp.before_request
def _check_lang() -> None:
    _lang()  # a bad ?lang is 400 on every route, even one without texts to translate


@bp.after_request
def _private(response):
    # Every answer here is one learner's own work: never cached by anyone in between.
    response.headers["Cache-Control"] = "private, no-store"
    if response.status_code == 401:
        response.headers["WWW-Authenticate"] = 'Bearer realm="quizsvc"'
    return response


# --- request helpers ----------------------------------------------------------------------


def _lang() -> str:
    """The texts' language: ``?lang=``, else the request's own Accept-Language (a client
    asks per request), else the page's (the session's choice, the account's, English)."""
    lang = request.args.get("lang")
    if lang is None:
        asked = request.accept_languages.best_match(LANGUAGES)
        return asked or negotiated_language()
    if lang not in LANGUAGES:
        raise ApiError(400, "bad_request", f"lang must be one of {', '.join(LANGUAGES)}")
    return lang


def _whole_number(name: str, default: int, low: int, high: int) -> int:
    """A query parameter holding a whole number from low to high, else 400."""
    text = request.args.get(name, str(default))
    # ASCII digits only: str.isdigit() also passes "²" and "①", which int() refuses. At most
    # nine: int() refuses over 4300 digits, and no range here needs more.
    if not re.fullmatch(r"[0-9]{1,9}", text) or not low <= int(text) <= high:
        raise ApiError(400, "bad_request", f"{name} must be a whole number from {low} to {high}")
    return int(text)


def _body() -> dict[str, Any]:
    """The request's JSON object (read by extensions.StrictJSONProvider: JSON and only JSON)."""
    if not request.is_json:
        raise ApiError(
            400, "bad_request", "send a JSON object with the header Content-Type: application/json"
        )
    try:
        data = current_app.json.loads(request.get_data())
    except ValueError as exc:  # also bytes that are not UTF-8 (UnicodeDecodeError)
        raise ApiError(400, "bad_request", f"the body is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ApiError(400, "bad_request", 'the body must be a JSON object, e.g. {"answer": ...}')
    return data


def _require_storable(field: str, text: str, code: str) -> None:
    """Refuse text no database can hold as sent (store.unstorable_text)."""
    problem = store.unstorable_text(text)
    if problem is not None:
        raise ApiError(422, code, f"{field} {store.UNSTORABLE_TEXT[problem]}")


def _idempotency_key(body: dict[str, Any]) -> str:
    """The client's key, so that a retried request is recorded once; else a fresh one."""
    key = body.get("idempotency_key")
    if key is None:
        return uuid.uuid4().hex
    if not isinstance(key, str) or not key.strip() or len(key) > store.MAX_IDEMPOTENCY_KEY_LENGTH:
        raise ApiError(
            422,
            "invalid_request",
            f"idempotency_key must be a non-blank string of at most "
            f"{store.MAX_IDEMPOTENCY_KEY_LENGTH} characters",
        )
    _require_storable("idempotency_key", key, "invalid_request")
    return key


def _drill_answer_text(body: dict[str, Any]) -> str:
    """The answer as the text the grader reads: as sent, or the rows of a JSON matrix."""
    answer = body.get("answer")
    if isinstance(answer, str):
        _require_storable("answer", answer, "invalid_answer")
        return answer
    if not isinstance(answer, list) or not answer or not all(isinstance(r, list) for r in answer):
        raise ApiError(
            422,
            "invalid_answer",
            'answer must be a string or a list of rows of numbers ("inf"/"-inf" for ±∞), '
            'e.g. [[0.5, 1], [2, "-inf"]]',
        )
    try:
        return rows_text(answer)
    except RowsRejected as exc:
        raise ApiError(422, "invalid_answer", str(exc)) from None


def _variant_json(state: practice.DrillState, lang: str) -> dict[str, Any]:
    """The variant with its drill's task, if the drill is still in the bank."""
    question = bank().questions.get(state.stored.question_id)
    return variant_json(state, lang, question if isinstance(question, DrillQuestion) else None)


def _load_state(variant_id: int) -> practice.DrillState:
    try:
        return practice.drill_state(db(), current_user.id, variant_id)
    except (store.NotFound, store.NotYourVariant):
        # the same answer for "not yours" as for "not there": ids are not to be probed
        abort(404, description=f"no drill variant {variant_id}")


# --- chapters and their questions ---------------------------------------------------------


@bp.get("/chapters")
def chapters():
    lang = _lang()
    return {
        "chapters": [
            {
                "id": chapter.id,
                "title": localize(chapter.title, lang),
                "intro": markdown_json(localize(chapter.intro, lang)) if chapter.intro else None,
                "question_count": len(chapter_questions(chapter.id)),
            }
            for chapter in bank().chapters
        ]
    }


@bp.get("/chapters/<chapter_id>/questions")
def questions(chapter_id: str):
    lang = _lang()
    try:
        chapter = bank().chapter(chapter_id)
    except KeyError:
        # before chapter_questions, whose 404 is the chapter page's, in the page's language
        abort(404, description=f"no chapter {chapter_id!r}")
    store.begin_read_only(db())
    # as the chapter page: no questions before the quiz opens, or before a timed one starts
    verdict = deadlines.standing(db(), bank(), current_user.id, chapter_id, "quiz").verdict
    if verdict.refusal in (Refusal.NOT_OPEN, Refusal.NOT_STARTED):
        raise deadlines.DeadlineRefused(verdict, "quiz")
    items = [
        chapter_question_json(standing, _question_view(standing, lang))
        for standing in chapter_standings(db(), bank(), current_user.id, chapter_id)
    ]
    return {
        "chapter": {"id": chapter.id, "title": localize(chapter.title, lang)},
        "questions": items,
    }


@bp.post("/chapters/<chapter_id>/quiz/start")
def start_quiz(chapter_id: str):
    """Start the chapter's timed quiz (again: the first start stands)."""
    try:
        bank().chapter(chapter_id)
    except KeyError:
        abort(404, description=f"no chapter {chapter_id!r}")
    started = deadlines.start_quiz(db(), bank(), current_user.id, chapter_id)
    found = deadlines.standing(db(), bank(), current_user.id, chapter_id, "quiz")
    ends = found.verdict.ends
    return jsonify(
        {
            "chapter_id": chapter_id,
            "started_at": started.isoformat(),
            "ends": None if ends is None else ends.isoformat(),
        }
    ), 201


@bp.post("/questions/<question_id>/answers")
def answer_question(question_id: str):
    lang = _lang()
    question = bank().questions.get(question_id)
    if question is None or isinstance(question, DrillQuestion):
        abort(404, description=f"no chapter question {question_id!r}")
    body = _body()
    key = _idempotency_key(body)
    _require_answer_field(question, body)
    choices, text = body.get("choices"), body.get("text")
    if choices is not None and (
        not isinstance(choices, list) or not all(isinstance(c, str) for c in choices)
    ):
        raise ApiError(422, "invalid_answer", "choices must be a list of choice ids (strings)")
    if text is not None and not isinstance(text, str):
        raise ApiError(422, "invalid_answer", "text must be a string")
    if text is not None:
        _require_storable("text", text, "invalid_answer")
    if text is not None and len(text) > MAX_TEXT_ANSWER_CHARS:
        raise ApiError(
            422, "invalid_answer", f"the answer is longer than {MAX_TEXT_ANSWER_CHARS} characters"
        )
    try:
        outcome = practice.answer_question(
            db(),
            bank(),
            current_user.id,
            question_id,
            idempotency_key=key,
            choices=choices,
            text=text,
        )
    except AnswerRejected as exc:
        db().rollback()
        raise _answer_refused(exc, lang) from None
    except store.AttemptsExhausted:
        raise ApiError(
            409,
            "already_answered",
            f"question {question_id!r} is answered for good (right, or no try left); its "
            f"key is shown by GET /api/chapters/<chapter>/questions",
        ) from None
    except store.IdempotencyConflict as exc:
        raise ApiError(409, "idempotency_conflict", str(exc)) from None
    store.begin_read_only(db())
    answer = store.latest_quiz_answers(db(), current_user.id)[question_id]
    standing = QuestionStanding(question, answer)
    result = {
        "question_id": question_id,
        "score": outcome.score,
        "replayed": outcome.answer.replayed,
        "learner_answer": learner_answer_json(answer),
        "attempts_left": standing.attempts_left,
        "finished": standing.finished,
        "question": _question_view(standing, lang),
    }
    return jsonify(result), 200 if outcome.answer.replayed else 201


def _question_view(standing: QuestionStanding, lang: str) -> dict[str, Any]:
    """The key only once the question is answered for good; the choices in the order the
    learner's page shows them."""
    question = standing.question
    view = (solution_view if standing.finished else public_question)(question, lang)
    return in_learner_order(view, current_user.id)


# The fields that hold an answer: a chapter question takes one of the first two, a drill
# submission the third.
ANSWER_FIELDS = ("choices", "text", "answer")


def _require_answer_field(question: Question, body: dict[str, Any]) -> None:
    """Refuse an answer sent in a field this question does not read, naming the one it does:
    left unread, it would be refused as no answer at all."""
    takes = (
        "choices" if isinstance(question, SingleChoiceQuestion | MultipleChoiceQuestion) else "text"
    )
    wrong = [field for field in ANSWER_FIELDS if field != takes and field in body]
    if wrong:
        example = '{"choices": ["A"]}' if takes == "choices" else '{"text": "..."}'
        raise ApiError(
            422,
            "invalid_answer",
            f'question {question.id!r} takes its answer in "{takes}", e.g. {example},'
            f' not in "{wrong[0]}"',
        )


# --- drills -------------------------------------------------------------------------------


@bp.get("/drills")
def drills():
    lang = _lang()
    return {
        "drills": [
            {**public_question(q, lang), "skill": practice.drill_skill(q)}
            for q in bank().questions.values()
            if isinstance(q, DrillQuestion)
        ]
    }


@bp.post("/drills/recommended/variants")
def recommended_variant():
    question_id = practice.recommended_drill(db(), bank(), current_user.id)
    if question_id is None:
        abort(404, description="there are no drills in the question bank")
    return _start(question_id)


@bp.post("/drills/<question_id>/variants")
def new_variant(question_id: str):
    return _start(question_id)


def _start(question_id: str):
    lang = _lang()
    try:
        issued = practice.start_drill(db(), bank(), current_user.id, question_id)
    except practice.PracticeError as exc:
        abort(404, description=str(exc))
    # the new variant as a read would give it, without reading it back
    response = jsonify(_variant_json(practice.issued_state(issued), lang))
    response.status_code = 201
    response.headers["Location"] = url_for("api.variant", variant_id=issued.id)
    return response


@bp.get("/variants/<int:variant_id>")
def variant(variant_id: int):
    lang = _lang()
    store.begin_read_only(db())
    return _variant_json(_load_state(variant_id), lang)


@bp.post("/variants/<int:variant_id>/submissions")
def submit(variant_id: int):
    lang = _lang()
    # 404 before anything about the body; read as a reader, so that the write lock (SQLite's
    # BEGIN IMMEDIATE) is taken only for recording the graded answer
    store.begin_read_only(db())
    state = _load_state(variant_id)
    db().commit()
    body = _body()
    key = _idempotency_key(body)
    text = _drill_answer_text(body)
    try:
        outcome = practice.submit_drill(
            db(), current_user.id, variant_id, text, key, state=state, bank=bank()
        )
    except AnswerRejected as exc:
        db().rollback()
        raise _answer_refused(exc, lang) from None
    except store.AttemptsExhausted as exc:
        raise ApiError(409, "attempts_exhausted", str(exc)) from None
    except store.IdempotencyConflict as exc:
        raise ApiError(409, "idempotency_conflict", str(exc)) from None
    except (store.NotFound, store.NotYourVariant):
        abort(404, description=f"no drill variant {variant_id}")
    replayed = outcome.submission.replayed
    submission = submission_json(outcome.submission, outcome.state)
    # each wrong cell with the known mistakes that explain it and how far off it is
    submission["cells"] = cells_with_diagnosis(submission["cells"], outcome.diagnosis, lang)
    return jsonify(
        {
            "submission": submission,
            "replayed": replayed,
            "variant": _variant_json(outcome.state, lang),
        }
    ), 200 if replayed else 201


# --- progress -----------------------------------------------------------------------------


@bp.get("/progress")
def progress():
    limit = _whole_number("limit", DEFAULT_HISTORY, 1, MAX_HISTORY)
    session = db()
    store.begin_read_only(session)
    skills = store.progress_for(session, current_user.id)
    history = store.recent_history(session, current_user.id, limit=limit)
    return progress_json(skills, history, chapter_totals(session, bank(), current_user.id))
