"""The JSON documents the API sends of a learner's work: an answer to a chapter question, a
drill variant with its submissions, each naming the fields a learner may see (a variant's
expected answer, worked solution and heatmap once it is finished, a wrong cell's accepted
interval only then)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from quizsvc import practice, store
from quizsvc.bank import Chapter, render_markdown
from quizsvc.drills import Tensor
from quizsvc.quiz_standing import QuestionStanding, QuizTotal


def iso_time(value: datetime | None) -> str | None:
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.isoformat()


def markdown_json(text: str) -> dict[str, str]:
    return {"markdown": text, "html": render_markdown(text)}


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


def _cell_json(cell: dict[str, Any], finished: bool) -> dict[str, Any]:
    view = {
        "row": cell["row"],
        "col": cell["col"],
        "correct": cell["correct"],
        "submitted": cell["submitted"],
    }
    # The interval around a wrong cell would give its answer away until the end.
    if finished or cell["correct"]:
        view["low"] = cell["low"]
        view["high"] = cell["high"]
    return view


def submission_json(submission: store.SubmissionResult, finished: bool) -> dict[str, Any]:
    return {
        "id": submission.submission_id,
        "attempt": submission.attempt,
        "attempts_left": submission.attempts_left,
        "raw_score": submission.raw_score,
        "penalty_applied": submission.penalty_applied,
        "score": submission.score,
        "answer": submission.parsed_value,
        "cells": [_cell_json(cell, finished) for cell in submission.cells],
        "submitted_at": iso_time(submission.submitted_at),
    }


def variant_json(state: practice.DrillState, lang: str) -> dict[str, Any]:
    stored, variant = state.stored, state.variant
    answer: Tensor = variant.answer
    view: dict[str, Any] = {
        "id": stored.id,
        "question_id": stored.question_id,
        "kind": stored.kind,
        "skill": stored.skill,
        "prompt": markdown_json(variant.prompt[lang]),
        "given": [tensor.to_json() for tensor in variant.given],
        "answer": {
            "name": answer.name,
            "shape": list(answer.shape),
            "row_labels": list(answer.row_labels),
            "col_labels": list(answer.col_labels),
        },
        "tolerance": {"atol": variant.tolerance.atol, "rtol": variant.tolerance.rtol},
        "all_or_nothing": variant.all_or_nothing,
        "attempts_allowed": stored.attempts_allowed,
        "attempts_left": stored.attempts_left,
        "penalty": stored.penalty,
        "created_at": iso_time(stored.created_at),
        "submissions": [submission_json(s, state.finished) for s in state.submissions],
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
