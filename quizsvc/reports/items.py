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
    does not vary.  This is the first of Moodle's two definitions (the correlation of
    the item with the rest of the test), not the difference between the upper and lower
    27 % of the class.
``choices`` (choice questions)
    Per choice, in the question's order: how many of the item's students chose it in
    their latest answer, and that as a percentage of them (a multiple-choice answer
    picks several, so the percentages may add up to more than 100), with the choice's
    credit (single choice: 1 for the correct one, else 0; multiple choice: its score).
``cells`` (drills)
    Per cell of the answer grid (row and column, counted from 1), over every submission
    students made to the drill: how many graded that cell (variants of other sizes
    have other cells), how many had it wrong, and the error rate (wrong / graded x 100 %),
    by row then column.

:func:`items_csv_chunks` writes one line per item, then one per choice or cell of it
(see :data:`ITEM_COLUMNS`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session

from quizsvc.bank import Bank, DrillQuestion, Question
from quizsvc.reports.formats import csv_chunks, number_text
from quizsvc.reports.gradebook import chapter_questions, drill_questions
from quizsvc.store import reports_queries as queries

MAX_SCORE = 1.0
NUMBER_DECIMALS = 10  # the CSV's numbers, rounded to remove float noise
ITEM_COLUMNS = (
    "question_id",
    "type",
    "points",
    "students",
    "attempts",
    "mean_score",
    "facility",
    "discrimination",
    "part",
    "count",
    "of",
    "percent",
    "credit",
)


@dataclass(frozen=True)
class ChoiceCount:
    choice_id: str
    credit: float  # single choice: 1 if correct, else 0; multiple choice: the choice's score
    count: int  # the item's students whose latest answer chose it
    percent: float | None  # count / the item's students x 100; None without students


@dataclass(frozen=True)
class CellErrors:
    row: int  # from 1
    col: int  # from 1
    graded: int  # submissions that graded this cell
    wrong: int
    percent: float  # wrong / graded x 100


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
    choices: tuple[ChoiceCount, ...] = field(default=())  # choice questions
    cells: tuple[CellErrors, ...] = field(default=())  # drills


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
    (four queries; the drills' cells are streamed)."""
    quiz_items = chapter_questions(bank)
    drill_items = drill_questions(bank)
    items: list[Question] = [*quiz_items, *drill_items]
    scores: dict[str, dict[int, float]] = {q.id: {} for q in items}
    quiz_ids = {q.id for q in quiz_items}
    drill_ids = {q.id for q in drill_items}
    chosen: dict[str, dict[str, int]] = {q.id: {} for q in quiz_items}
    for learner_id, question_id, score, choices in queries.student_latest_quiz_answers(session):
        if question_id in quiz_ids and score is not None:
            scores[question_id][learner_id] = score
            for choice_id in set(choices or ()):
                chosen[question_id][choice_id] = chosen[question_id].get(choice_id, 0) + 1
    drill_counts: dict[str, int] = {}
    for learner_id, question_id, best, count in queries.student_best_drill_scores(session):
        if question_id in drill_ids:
            scores[question_id][learner_id] = best
            drill_counts[question_id] = drill_counts.get(question_id, 0) + count
    quiz_counts = queries.student_quiz_answer_counts(session)
    cells = _cell_errors(session, drill_ids)

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
                choices=_choice_counts(question, chosen.get(question.id, {}), len(item)),
                cells=cells.get(question.id, ()),
            )
        )
    return stats


def _choice_counts(question: Question, chosen: dict[str, int], students: int):
    if question.type == "single_choice":
        credits = {c.id: 1.0 if c.id == question.correct else 0.0 for c in question.choices}
    elif question.type == "multiple_choice":
        credits = {c.id: c.score for c in question.choices}
    else:
        return ()
    return tuple(
        ChoiceCount(
            choice_id,
            credit,
            chosen.get(choice_id, 0),
            chosen.get(choice_id, 0) / students * 100.0 if students else None,
        )
        for choice_id, credit in credits.items()
    )


def _cell_errors(session: Session, drill_ids: set[str]) -> dict[str, tuple[CellErrors, ...]]:
    """question id -> the error rate of each cell over the students' submissions."""
    counts: dict[str, dict[tuple[int, int], list[int]]] = {}
    for question_id, cells in queries.stream_rows(session, queries.drill_cells_query()):
        if question_id not in drill_ids:
            continue
        by_cell = counts.setdefault(question_id, {})
        for cell in cells or ():
            place = _cell_place(cell)
            if place is None:
                continue
            graded_wrong = by_cell.setdefault(place, [0, 0])
            graded_wrong[0] += 1
            graded_wrong[1] += not cell["correct"]
    return {
        question_id: tuple(
            CellErrors(row + 1, col + 1, graded, wrong, wrong / graded * 100.0)
            for (row, col), (graded, wrong) in sorted(by_cell.items())
        )
        for question_id, by_cell in counts.items()
    }


def _cell_place(cell: Any) -> tuple[int, int] | None:
    """(row, col) of a stored cell result (``CellResult.to_json_dict``), 0-based; None for
    anything else."""
    if not isinstance(cell, dict) or not isinstance(cell.get("correct"), bool):
        return None
    row, col = cell.get("row"), cell.get("col")
    if type(row) is not int or type(col) is not int or row < 0 or col < 0:
        return None
    return row, col


def _csv_number(value: float | int | None) -> str:
    return number_text(value, decimals=NUMBER_DECIMALS)


def item_rows(stats: Sequence[ItemStats]) -> Iterator[list[str]]:
    """:data:`ITEM_COLUMNS` cells: each item's line, then a line per choice
    (``part`` = ``choice:<id>``: count, of = the item's students, percent, credit) or per
    cell (``part`` = ``cell:<row>,<col>``: count = wrong, of = graded, percent = error
    rate)."""
    for s in stats:
        yield [
            s.question_id,
            s.kind or s.question_type,
            _csv_number(s.points),
            str(s.students),
            str(s.attempts),
            _csv_number(s.mean_score),
            _csv_number(s.facility),
            _csv_number(s.discrimination),
            "",
            "",
            "",
            "",
            "",
        ]
        lead = [s.question_id, s.kind or s.question_type, *[""] * 6]
        for c in s.choices:
            yield [
                *lead,
                f"choice:{c.choice_id}",
                str(c.count),
                str(s.students),
                _csv_number(c.percent),
                _csv_number(c.credit),
            ]
        for cell in s.cells:
            yield [
                *lead,
                f"cell:{cell.row},{cell.col}",
                str(cell.wrong),
                str(cell.graded),
                _csv_number(cell.percent),
                "",
            ]


def items_csv_chunks(session: Session, bank: Bank) -> Iterator[bytes]:
    """The item statistics as CSV (UTF-8 with a BOM, see :func:`item_rows`)."""
    return csv_chunks(ITEM_COLUMNS, item_rows(item_statistics(session, bank)))


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
