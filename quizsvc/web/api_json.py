"""The JSON documents the API sends of a learner's work: an answer to a chapter question, a
drill variant with its submissions, each naming the fields a learner may see (a variant's
expected answer, worked solution and heatmap once it is finished, a wrong cell's accepted
interval only then).

A variant is sent whole, so that a client knows what is asked without another request: its
stored document gives the numbers, the prompt that names them, the answer grid and the
tolerance; the drill question in the bank gives the task (what to compute, how to round, how
to write a masked cell) and the attempts; the drill kind gives the same rounding, ε and
masked-cell value as data (``variant_conventions``)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from quizsvc import practice, store
from quizsvc.bank import Chapter, DrillQuestion, localize, markdown_text, render_markdown
from quizsvc.drills import Tensor, number_to_json, variant_conventions
from quizsvc.quiz_standing import QuestionStanding, QuizTotal


def iso_time(value: datetime | None) -> str | None:
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.isoformat()


def markdown_json(text: str) -> dict[str, str]:
    return {"markdown": text, "html": render_markdown(text)}


def text_json(text: str) -> dict[str, str]:
    """Markdown with its HTML and its plain text, for a client that shows neither."""
    return {**markdown_json(text), "text": markdown_text(text)}


def chapter_question_json(
    standing: QuestionStanding, question_view: dict[str, Any]
) -> dict[str, Any]:
    """A chapter question with the learner's latest answer and tries: ``question_view`` is its
    solution view once ``finished``, else its public view."""
    answer = standing.answer
    return {
        "question": question_view,
        "learner_answer": learner_answer_json(answer) if answer else None,
        "attempts_left": standing.attempts_left,
        "finished": standing.finished,
    }


def learner_answer_json(answer: store.AnsweredQuestion) -> dict[str, Any]:
    if answer.reviewed_at is not None:
        status = "reviewed"
    elif answer.awaiting_review:
        status = "awaiting_review"
    else:
        status = "graded"
    return {
        "id": answer.answer_id,
        "attempt": answer.attempt,
        "choices": answer.choices,
        "text": answer.text,
        "raw_score": answer.raw_score,
        "score": answer.score,
        "status": status,
        "answered_at": iso_time(answer.answered_at),
        "review": None
        if answer.reviewed_at is None
        else {"comment": answer.review_comment, "reviewed_at": iso_time(answer.reviewed_at)},
    }


def _whole_as_integer(value: Any) -> Any:
    """A number given for a token id, as an integer where it is a whole one (4.0 is 4); any
    other (4.5, "inf") as it was."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _cell_json(cell: dict[str, Any], finished: bool, token_ids: bool) -> dict[str, Any]:
    def number(key: str) -> Any:
        return _whole_as_integer(cell[key]) if token_ids else cell[key]

    view = {
        "row": cell["row"],
        "col": cell["col"],
        "correct": cell["correct"],
        "submitted": number("submitted"),
    }
    # The interval around a wrong cell would give its answer away until the end.
    if finished or cell["correct"]:
        view["low"] = number("low")
        view["high"] = number("high")
    return view


def submission_json(
    submission: store.SubmissionResult, state: practice.DrillState
) -> dict[str, Any]:
    token_ids = state.variant.answer.token_ids
    answer = submission.parsed_value
    if token_ids:
        answer = [[_whole_as_integer(value) for value in row] for row in answer]
    return {
        "id": submission.submission_id,
        "attempt": submission.attempt,
        "attempts_left": submission.attempts_left,
        "raw_score": submission.raw_score,
        "penalty_applied": submission.penalty_applied,
        "score": submission.score,
        "answer": answer,
        "cells": [_cell_json(cell, state.finished, token_ids) for cell in submission.cells],
        "submitted_at": iso_time(submission.submitted_at),
    }


def variant_json(
    state: practice.DrillState, lang: str, question: DrillQuestion | None
) -> dict[str, Any]:
    """The variant in ``lang``; ``question``: its drill in the bank, None if it has left."""
    stored, variant = state.stored, state.variant
    answer: Tensor = variant.answer
    conventions = variant_conventions(variant)
    rounding = None if conventions is None else conventions.rounding
    view: dict[str, Any] = {
        "id": stored.id,
        "question_id": stored.question_id,
        "kind": stored.kind,
        "skill": stored.skill,
        "task": None if question is None else text_json(localize(question.prompt, lang)),
        "prompt": text_json(variant.prompt[lang]),
        "given": [tensor.to_json() for tensor in variant.given],
        "answer": {
            "name": answer.name,
            "shape": list(answer.shape),
            "row_labels": list(answer.row_labels),
            "col_labels": list(answer.col_labels),
            "token_ids": answer.token_ids,
        },
        "rounding": None
        if rounding is None
        else {
            "answer": rounding.answer,
            "intermediate": rounding.intermediate,
            "exponentials": rounding.exponentials,
        },
        "eps": None if conventions is None else conventions.eps,
        "masked_cell": None
        if conventions is None or conventions.masked_cell is None
        else number_to_json(conventions.masked_cell),
        "tolerance": {"atol": variant.tolerance.atol, "rtol": variant.tolerance.rtol},
        "all_or_nothing": variant.all_or_nothing,
        "attempts_allowed": stored.attempts_allowed,
        "attempts_left": stored.attempts_left,
        "penalty": stored.penalty,
        "created_at": iso_time(stored.created_at),
        "submissions": [submission_json(s, state) for s in state.submissions],
        "solved": state.solved,
        "finished": state.finished,
    }
    if state.finished:
        view["expected_answer"] = answer.to_json()
        view["solution"] = [
            {
                "title": step.title[lang],
                "text": markdown_json(step.text[lang]),
                "tensors": [tensor.to_json() for tensor in step.tensors],
            }
            for step in variant.solution
        ]
        view["heatmap"] = None if variant.heatmap is None else variant.heatmap.to_json()
    return view


def quiz_total_json(chapter_id: str, total: QuizTotal) -> dict[str, Any]:
    return {
        "chapter_id": chapter_id,
        "questions": total.questions,
        "answered": total.answered,
        "awaiting_review": total.awaiting_review,
        "unfinished": total.unfinished,
        "earned": total.earned,
        "possible": total.possible,
        "final": total.final,
    }


def progress_json(
    skills: list[store.SkillProgress],
    history: list[store.HistoryEntry],
    quiz: list[tuple[Chapter, QuizTotal]],
) -> dict[str, Any]:
    return {
        "skills": [
            {
                "skill": s.skill,
                "attempts": s.attempts,
                "best_score": s.best_score,
                "last_score": s.last_score,
                "mastery": s.mastery,
                "last_activity": iso_time(s.last_activity),
            }
            for s in skills
        ],
        "quiz": [quiz_total_json(chapter.id, total) for chapter, total in quiz],
        "history": [
            {
                "kind": h.kind,
                "id": h.record_id,
                "question_id": h.question_id,
                "skill": h.skill,
                "attempt": h.attempt,
                "score": h.score,
                "at": iso_time(h.at),
                "variant_id": h.variant_id,
            }
            for h in history
        ],
    }
