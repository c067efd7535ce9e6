"""The gradebook: one row per student.

Columns, in order (:func:`gradebook_header`):

``student_id``, ``name``, ``display_name``
    The user's id, login name and display name.  Every user with the role ``student``,
    by login name, whether or not they did anything.
one column per chapter question, headed by the question id
    Every question of the bank that is not a drill, in bank order (chapters by order,
    then as written).  The value is the score of the student's latest answer to it
    (highest attempt), a fraction from 0 to 1 as the store keeps it (multiply by the
    question's ``points`` for points).  Empty if the student never answered, and empty
    while that latest answer is an open answer awaiting review: the rubric's suggested
    score is only a suggestion, and an instructor has not confirmed it.
one column per drill skill, headed ``mastery:<skill>``
    The skills the bank's drill questions train (``DRILL_KINDS[kind].skill``), in bank
    order, each once.  The value is the student's mastery from ``skill_progress`` (see
    ``quizsvc.store.progress``: the student's drills on that skill); empty if the student
    has never submitted an answer to one of its drills.
``total``
    The chapter grade, a fraction from 0 to 1: the points-weighted mean of the chapter
    questions' scores, sum(points x score) / sum(points), where unanswered questions and
    answers awaiting review count 0.  Drills do not count (they are practice).  Empty if
    the student has answered none of the bank's chapter questions (not started, which a 0
    would misstate; drills alone do not start the chapter), or if the bank has none.
``last_activity``
    The latest time the student submitted a drill answer or answered a question (ISO 8601
    UTC); empty if never.

Numbers are written by :func:`quizsvc.reports.formats.number_text` rounded to 10 decimal
places (removing float noise such as 0.30000000000000004 from totals).  The CSV is UTF-8
with a byte order mark (see :mod:`quizsvc.reports.formats`).

Reading costs five queries whatever the number of students, and holds one number per
(student, question) and (student, skill) in memory.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import BinaryIO

from sqlalchemy.orm import Session

from quizsvc.bank import Bank, DrillQuestion, Question
from quizsvc.drills import DRILL_KINDS
from quizsvc.reports.formats import csv_chunks, iso_utc, number_text
from quizsvc.store import reports_queries as queries

MASTERY_PREFIX = "mastery:"
NUMBER_DECIMALS = 10


def chapter_questions(bank: Bank) -> list[Question]:
    """The bank's questions that are not drills, in bank order."""
    return [q for q in bank.questions.values() if not isinstance(q, DrillQuestion)]


def drill_questions(bank: Bank) -> list[DrillQuestion]:
    """The bank's drill questions, in bank order."""
    return [q for q in bank.questions.values() if isinstance(q, DrillQuestion)]


def drill_skills(bank: Bank) -> list[str]:
    """The skills the bank's drills train, in bank order, each once."""
    return list(dict.fromkeys(DRILL_KINDS[q.kind].skill for q in drill_questions(bank)))


def skill_order(bank: Bank) -> Callable[[str], tuple[int, str]]:
    """A sort key for skills, as reports and pages list them: the bank's drill skills in
    bank order, then any other skill (a chapter question's tag) by name."""
    order = {skill: i for i, skill in enumerate(drill_skills(bank))}
    return lambda skill: (order.get(skill, len(order)), skill)


def chapter_total(bank_questions: list[Question], scores: dict[str, float | None]) -> float | None:
    """sum(points x score) / sum(points) over ``bank_questions``; ``scores`` holds the
    answered questions only (None: awaiting review), a missing or None score counts 0.
    None if there are no questions or none of them is answered (not started)."""
    if not any(q.id in scores for q in bank_questions):
        return None
    earned = math.fsum(q.points * (scores.get(q.id) or 0.0) for q in bank_questions)
    return earned / math.fsum(q.points for q in bank_questions)


@dataclass(frozen=True)
class GradebookRow:
    """One student's line, with values as numbers (None: empty cell)."""

    student_id: int
    name: str
    display_name: str
    scores: dict[str, float | None]  # chapter question id -> latest score (every question)
    mastery: dict[str, float | None]  # drill skill -> mastery (every skill)
    total: float | None
    last_activity: datetime | None


def gradebook_header(bank: Bank) -> list[str]:
    return [
        "student_id",
        "name",
        "display_name",
        *(q.id for q in chapter_questions(bank)),
        *(MASTERY_PREFIX + skill for skill in drill_skills(bank)),
        "total",
        "last_activity",
    ]


def iter_gradebook(session: Session, bank: Bank) -> Iterator[GradebookRow]:
    """One :class:`GradebookRow` per student, by login name (five queries in all)."""
    questions = chapter_questions(bank)
    question_ids = {q.id for q in questions}
    skills = drill_skills(bank)
    skill_set = set(skills)

    latest: dict[int, dict[str, float | None]] = {}
    for learner_id, question_id, score in queries.student_latest_quiz_scores(session):
        if question_id in question_ids:
            latest.setdefault(learner_id, {})[question_id] = score
    mastery: dict[int, dict[str, float]] = {}
    for learner_id, skill, value in queries.masteries(session):
        if skill in skill_set:
            mastery.setdefault(learner_id, {})[skill] = value
    activity = queries.last_activity(session)

    for student_id, name, display_name in queries.students(session):
        scores = latest.get(student_id, {})
        skill_values = mastery.get(student_id, {})
        yield GradebookRow(
            student_id=student_id,
            name=name,
            display_name=display_name,
            scores={q.id: scores.get(q.id) for q in questions},
            mastery={skill: skill_values.get(skill) for skill in skills},
            total=chapter_total(questions, scores),
            last_activity=activity.get(student_id),
        )


def gradebook_rows(session: Session, bank: Bank) -> Iterator[list[str]]:
    """The gradebook's rows as CSV cells, in :func:`gradebook_header`'s order."""
    for row in iter_gradebook(session, bank):
        yield [
            str(row.student_id),
            row.name,
            row.display_name,
            *(_number(score) for score in row.scores.values()),
            *(_number(value) for value in row.mastery.values()),
            _number(row.total),
            iso_utc(row.last_activity),
        ]


def gradebook_csv_chunks(session: Session, bank: Bank) -> Iterator[bytes]:
    """The gradebook CSV (BOM, header, rows) as UTF-8 chunks, e.g. for a streamed response."""
    return csv_chunks(gradebook_header(bank), gradebook_rows(session, bank))


def write_gradebook_csv(session: Session, bank: Bank, binary_out: BinaryIO) -> None:
    """Write the gradebook CSV, starting with the UTF-8 BOM, to a binary stream."""
    for chunk in gradebook_csv_chunks(session, bank):
        binary_out.write(chunk)


def _number(value: float | None) -> str:
    return number_text(value, decimals=NUMBER_DECIMALS)
