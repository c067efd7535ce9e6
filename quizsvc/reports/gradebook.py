"""The gradebook: one row per student.

Columns, in order (:func:`gradebook_header`):

``student_id``, ``name``, ``display_name``
    The user's id, login name and display name.  Every user with the role ``student``,
    by login name, whether or not they did anything.
one column per chapter question, headed by the question id
    Every question of the bank that is not a drill, in bank order (chapters by order,
    then as written).  The value is the score of the student's latest answer to it
    (highest attempt).  Empty if the student never answered, and empty while that latest
    answer is an open answer awaiting review: the rubric's suggested score is only a
    suggestion, and an instructor has not confirmed it.
two columns per drill kind, ``best:<kind>`` and ``mastery:<kind>``
    The kinds of the bank's drill questions, in bank order, each once.  ``best`` is the
    student's best submission score (after the attempts penalty) over every variant of
    the bank's drills of that kind; empty if they never submitted one.  ``mastery`` is
    the student's mastery from ``skill_progress`` of the skill the kind trains
    (``DRILL_KINDS[kind].skill``; kinds that train one skill show the same mastery);
    empty if the student was never graded on that skill.
``total``
    The chapter grade: the points-weighted mean of the chapter questions' scores,
    sum(points x score) / sum(points), where unanswered questions and answers awaiting
    review count 0.  Drills do not count (they are practice).  Empty if the student has
    answered none of the bank's chapter questions (not started, which a 0 would misstate;
    drills alone do not start the chapter), or if the bank has none.
``drill_total``
    The mean of the ``best`` columns, a kind never tried counting 0; empty if the student
    has tried no drill of the bank.
``last_activity``
    The latest time the student submitted a drill answer or answered a question (ISO 8601
    UTC); empty if never.

Two renderings of the same values (CSV, UTF-8 with a byte order mark, or XLSX):

- for display (the default): scores, bests, masteries and totals as percentages (0 to
  100) rounded to ``decimals`` places (default 1) as the pages round them (a half away
  from zero), written with exactly that many decimals (``68.8``, ``45.0``);
- exact (``exact=True``): the fractions from 0 to 1 as the store keeps them, unrounded,
  in the shortest form that reads back as the same float (``0.6875``,
  ``0.16666666666666666``).

In the XLSX file numbers are number cells (a display file's with the number format of
its decimals), text is text cells (never formulas), empty cells are left blank.

Reading costs six queries whatever the number of students, and holds one number per
(student, question), (student, drill question) and (student, skill) in memory.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import BinaryIO

from sqlalchemy.orm import Session

from quizsvc.bank import Bank, DrillQuestion, Question
from quizsvc.drills import DRILL_KINDS
from quizsvc.reports.formats import Cell, csv_chunks, iso_utc, number_text, xlsx_chunks
from quizsvc.store import reports_queries as queries

BEST_PREFIX = "best:"
MASTERY_PREFIX = "mastery:"
DEFAULT_DECIMALS = 1
MAX_DECIMALS = 6
FORMATS = ("csv", "xlsx")


def chapter_questions(bank: Bank) -> list[Question]:
    """The bank's questions that are not drills, in bank order."""
    return [q for q in bank.questions.values() if not isinstance(q, DrillQuestion)]


def drill_questions(bank: Bank) -> list[DrillQuestion]:
    """The bank's drill questions, in bank order."""
    return [q for q in bank.questions.values() if isinstance(q, DrillQuestion)]


def drill_kinds(bank: Bank) -> list[str]:
    """The kinds of the bank's drills, in bank order, each once."""
    return list(dict.fromkeys(q.kind for q in drill_questions(bank)))


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


def drill_total(best: dict[str, float | None]) -> float | None:
    """The mean of the best scores per kind, an untried kind counting 0; None if no kind
    was tried (or there are none)."""
    if all(value is None for value in best.values()):
        return None
    return math.fsum(value or 0.0 for value in best.values()) / len(best)


def check_decimals(decimals: int) -> int:
    """``decimals`` if it is a whole number from 0 to MAX_DECIMALS, else ValueError."""
    if isinstance(decimals, bool) or not isinstance(decimals, int):
        raise ValueError(f"decimals must be a whole number, not {decimals!r}")
    if not 0 <= decimals <= MAX_DECIMALS:
        raise ValueError(f"decimals must be from 0 to {MAX_DECIMALS}, not {decimals}")
    return decimals


def display_percent(value: float, decimals: int) -> float:
    """A fraction as a percentage rounded to ``decimals`` places as the pages round (a half
    away from zero, 0.6875 -> 68.8, 0.125 -> 13 with none), the float as it is: 0.285 x 100
    is 28.499999999999996, so 28 with no decimals."""
    step = Decimal(1).scaleb(-decimals)
    return float(Decimal(value * 100.0).quantize(step, ROUND_HALF_UP)) + 0.0  # no -0.0


@dataclass(frozen=True)
class GradebookRow:
    """One student's line, with values as fractions from 0 to 1 (None: empty cell)."""

    student_id: int
    name: str
    display_name: str
    scores: dict[str, float | None]  # chapter question id -> latest score (every question)
    best: dict[str, float | None]  # drill kind -> best submission score (every kind)
    mastery: dict[str, float | None]  # drill kind -> mastery of the skill it trains
    total: float | None
    drill_total: float | None
    last_activity: datetime | None


def gradebook_header(bank: Bank) -> list[str]:
    return [
        "student_id",
        "name",
        "display_name",
        *(q.id for q in chapter_questions(bank)),
        *(prefix + kind for kind in drill_kinds(bank) for prefix in (BEST_PREFIX, MASTERY_PREFIX)),
        "total",
        "drill_total",
        "last_activity",
    ]


def iter_gradebook(session: Session, bank: Bank) -> Iterator[GradebookRow]:
    """One :class:`GradebookRow` per student, by login name (six queries in all)."""
    questions = chapter_questions(bank)
    question_ids = {q.id for q in questions}
    kind_of = {q.id: q.kind for q in drill_questions(bank)}
    kinds = drill_kinds(bank)
    skill_of = {kind: DRILL_KINDS[kind].skill for kind in kinds}
    skill_set = set(skill_of.values())

    latest: dict[int, dict[str, float | None]] = {}
    for learner_id, question_id, score in queries.student_latest_quiz_scores(session):
        if question_id in question_ids:
            latest.setdefault(learner_id, {})[question_id] = score
    best: dict[int, dict[str, float]] = {}
    for learner_id, question_id, score, _count in queries.student_best_drill_scores(session):
        if question_id in kind_of:
            by_kind = best.setdefault(learner_id, {})
            kind = kind_of[question_id]
            by_kind[kind] = max(score, by_kind.get(kind, score))
    mastery: dict[int, dict[str, float]] = {}
    for learner_id, skill, value in queries.masteries(session):
        if skill in skill_set:
            mastery.setdefault(learner_id, {})[skill] = value
    activity = queries.last_activity(session)

    for student_id, name, display_name in queries.students(session):
        scores = latest.get(student_id, {})
        bests = {kind: best.get(student_id, {}).get(kind) for kind in kinds}
        skill_values = mastery.get(student_id, {})
        yield GradebookRow(
            student_id=student_id,
            name=name,
            display_name=display_name,
            scores={q.id: scores.get(q.id) for q in questions},
            best=bests,
            mastery={kind: skill_values.get(skill_of[kind]) for kind in kinds},
            total=chapter_total(questions, scores),
            drill_total=drill_total(bests) if kinds else None,
            last_activity=activity.get(student_id),
        )


def gradebook_values(
    session: Session, bank: Bank, *, exact: bool = False, decimals: int = DEFAULT_DECIMALS
) -> Iterator[list[Cell]]:
    """The rows as typed cells in :func:`gradebook_header`'s order: ints, texts, None for
    an empty cell, and the numbers as fractions (``exact``) or as percentages rounded to
    ``decimals`` places."""
    check_decimals(decimals)

    def number(value: float | None) -> float | None:
        if value is None or exact:
            return value
        return display_percent(value, decimals)

    for row in iter_gradebook(session, bank):
        yield [
            row.student_id,
            row.name,
            row.display_name,
            *(number(score) for score in row.scores.values()),
            *(number(v) for kind in row.best for v in (row.best[kind], row.mastery[kind])),
            number(row.total),
            number(row.drill_total),
            iso_utc(row.last_activity),
        ]


def gradebook_rows(
    session: Session, bank: Bank, *, exact: bool = False, decimals: int = DEFAULT_DECIMALS
) -> Iterator[list[str]]:
    """The gradebook's rows as CSV cells, in :func:`gradebook_header`'s order."""

    def text(cell: Cell) -> str:
        if isinstance(cell, float):
            return number_text(cell) if exact else f"{cell:.{decimals}f}"
        return number_text(cell) if isinstance(cell, int) else (cell or "")

    for values in gradebook_values(session, bank, exact=exact, decimals=decimals):
        yield [text(cell) for cell in values]


def gradebook_csv_chunks(
    session: Session, bank: Bank, *, exact: bool = False, decimals: int = DEFAULT_DECIMALS
) -> Iterator[bytes]:
    """The gradebook CSV (BOM, header, rows) as UTF-8 chunks, e.g. for a streamed response."""
    rows = gradebook_rows(session, bank, exact=exact, decimals=decimals)
    return csv_chunks(gradebook_header(bank), rows)


def gradebook_xlsx_chunks(
    session: Session, bank: Bank, *, exact: bool = False, decimals: int = DEFAULT_DECIMALS
) -> Iterator[bytes]:
    """The gradebook as an XLSX workbook (one sheet, "gradebook"), in chunks: written in
    XlsxWriter's constant-memory mode to a temporary file, then read out (see
    :func:`quizsvc.reports.formats.xlsx_chunks`)."""
    values = gradebook_values(session, bank, exact=exact, decimals=decimals)
    return xlsx_chunks(
        gradebook_header(bank),
        values,
        sheet="gradebook",
        number_format=None if exact else ("0." + "0" * decimals if decimals else "0"),
    )


def write_gradebook(
    session: Session,
    bank: Bank,
    binary_out: BinaryIO,
    *,
    format: str = "csv",
    exact: bool = False,
    decimals: int = DEFAULT_DECIMALS,
) -> None:
    """Write the gradebook as ``format`` ("csv" or "xlsx") to a binary stream."""
    if format not in FORMATS:
        raise ValueError(f"unknown gradebook format {format!r}: use 'csv' or 'xlsx'")
    make = gradebook_csv_chunks if format == "csv" else gradebook_xlsx_chunks
    for chunk in make(session, bank, exact=exact, decimals=decimals):
        binary_out.write(chunk)


def write_gradebook_csv(session: Session, bank: Bank, binary_out: BinaryIO, **options) -> None:
    """Write the gradebook CSV, starting with the UTF-8 BOM, to a binary stream."""
    write_gradebook(session, bank, binary_out, format="csv", **options)
