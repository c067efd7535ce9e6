"""Item statistics per question, as Moodle's quiz statistics report defines them.

The items are the bank's chapter questions (bank order), then its drill questions (bank
order).  Only students count.

Each student's score on an item (a fraction from 0 to 1, as the store keeps it):

- chapter question: the score of the student's latest answer (highest attempt); none
  while that answer is an open answer awaiting review;
- drill question: the student's best submission score (after the attempts penalty) over
  every variant of that drill they were given.  A drill is practice with fresh numbers
  each time, so the best result is what the student has shown they can do; the last
  one would mostly measure whether they stopped after a success or in the middle of a
  fresh variant.

For each item, over the ``students`` who have a score on it:

``attempts``
    Answers (chapter question, every attempt, reviewed or not) or submissions (drill)
    that students recorded for it.
``mean_score``
    The mean of those students' item scores (0 to 1).
``facility``
    Facility index: mean score / maximum score x 100 %.  Scores are fractions, so the
    maximum is 1 and this is ``mean_score`` as a percentage.
``discrimination``
    Discrimination index: the Pearson correlation, x 100 %, between the item score and
    the rest-of-test score (the student's total minus this item) across those students.
    The student's total is sum(points x score) over every item of this report, an item
    without a score counting 0 (as an unanswered question does in Moodle); the item's
    own mark is points x score.  None with fewer than 2 students or when either score
    does not vary.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.orm import Session

from quizsvc.bank import Bank, DrillQuestion, Question
from quizsvc.reports.gradebook import chapter_questions, drill_questions
from quizsvc.store import reports_queries as queries

MAX_SCORE = 1.0


@dataclass(frozen=True)
class ItemStats:
    question_id: str
    question_type: str  # "single_choice", "multiple_choice", "numeric", "open", "drill"
    kind: str | None  # the drill kind, for a drill
    points: float
    students: int  # students with a score on the item
    attempts: int  # answers or submissions recorded
    mean_score: float | None  # 0 to 1; None without students
    facility: float | None  # percent
    discrimination: float | None  # percent


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """The Pearson correlation of two equally long samples; None with fewer than 2 pairs
    or when either sample is constant."""
    if len(xs) != len(ys):
        raise ValueError("the samples must have the same length")
    n = len(xs)
    if n < 2 or min(xs) == max(xs) or min(ys) == max(ys):
        return None
    mean_x = math.fsum(xs) / n
    mean_y = math.fsum(ys) / n
    sxy = math.fsum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True))
    sxx = math.fsum((x - mean_x) ** 2 for x in xs)
    syy = math.fsum((y - mean_y) ** 2 for y in ys)
    if sxx <= 0.0 or syy <= 0.0:
        return None
    return max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))


def item_statistics(session: Session, bank: Bank) -> list[ItemStats]:
    """Statistics of every chapter question, then every drill question, in bank order
    (three queries)."""
    quiz_items = chapter_questions(bank)
    drill_items = drill_questions(bank)
    items: list[Question] = [*quiz_items, *drill_items]
    scores: dict[str, dict[int, float]] = {q.id: {} for q in items}
    quiz_ids = {q.id for q in quiz_items}
    drill_ids = {q.id for q in drill_items}
    for learner_id, question_id, score in queries.student_latest_quiz_scores(session):
        if question_id in quiz_ids and score is not None:
            scores[question_id][learner_id] = score
    drill_counts: dict[str, int] = {}
    for learner_id, question_id, best, count in queries.student_best_drill_scores(session):
        if question_id in drill_ids:
            scores[question_id][learner_id] = best
            drill_counts[question_id] = drill_counts.get(question_id, 0) + count
    quiz_counts = queries.student_quiz_answer_counts(session)

    # Each student's marks (points x score) per item; the rest-of-test score is summed
    # afresh (not total minus the item), so equal rests compare equal exactly.
    marks: dict[int, dict[str, float]] = {}
    for question in items:
        for learner_id, score in scores[question.id].items():
            marks.setdefault(learner_id, {})[question.id] = question.points * score

    stats = []
    for question in items:
        by_student = scores[question.id]
        learners = sorted(by_student)
        item = [by_student[learner] for learner in learners]
        rest = [
            math.fsum(mark for qid, mark in marks[learner].items() if qid != question.id)
            for learner in learners
        ]
        mean = math.fsum(item) / len(item) if item else None
        r = pearson(item, rest)
        is_drill = isinstance(question, DrillQuestion)
        stats.append(
            ItemStats(
                question_id=question.id,
                question_type=question.type,
                kind=question.kind if isinstance(question, DrillQuestion) else None,
                points=question.points,
                students=len(item),
                attempts=(drill_counts if is_drill else quiz_counts).get(question.id, 0),
                mean_score=mean,
                facility=None if mean is None else mean / MAX_SCORE * 100.0,
                discrimination=None if r is None else r * 100.0,
            )
        )
    return stats


def format_item_table(stats: Sequence[ItemStats]) -> str:
    """A plain-text table of the statistics, one item per line ("-" for none)."""
    header = ("question", "type", "points", "students", "attempts", "mean", "facility", "discr.")
    rows = [
        (
            s.question_id,
            s.kind or s.question_type,
            f"{s.points:g}",
            str(s.students),
            str(s.attempts),
            "-" if s.mean_score is None else f"{s.mean_score:.3f}",
            "-" if s.facility is None else f"{s.facility:.1f}%",
            "-" if s.discrimination is None else f"{s.discrimination:.1f}%",
        )
        for s in stats
    ]
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]
    lines = []
    for row in (header, *rows):
        cells = [
            cell.ljust(width) if i < 2 else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)
