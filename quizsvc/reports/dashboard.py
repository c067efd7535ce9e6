"""The class at a glance, for the instructor's start page: how many students are active,
how far the class is with each quiz question and each drill kind and how well it does
(completion, mean score, the distribution of the students' scores), the hardest items, and
the open answers waiting longest for a review.

A student's score on an item is the one `items` uses: the latest answer's score for a quiz
question (none while it awaits review), the best submission's score for a drill; on a drill
kind, the best over the kind's drills. Completion is the share of the class with a score.
The cells and mistakes come from the class's latest submissions to each kind (CELL_SAMPLE
and MISTAKE_SAMPLE of them), so the page's work stays bounded however large the class.
A fixed handful of queries, whatever the size of the class.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy.orm import Session

from quizsvc import store
from quizsvc.bank import Bank, DrillQuestion
from quizsvc.drills import Variant
from quizsvc.drills.mistakes import diagnose
from quizsvc.reports.gradebook import chapter_questions, drill_questions
from quizsvc.store import reports_queries as queries

BUCKETS = 10  # the distribution's bars: 0-10 %, 10-20 % ... 90-100 %
ACTIVE_WITHIN = timedelta(days=7)
HARDEST = 5  # items listed as the hardest
OLDEST = 5  # open answers listed as waiting longest
CELL_SAMPLE = 200  # latest submissions per kind whose cells are counted
MISTAKE_SAMPLE = 20  # latest submissions per kind diagnosed
MISSED_CELLS = 3  # cells listed per kind


@dataclass(frozen=True)
class ItemGlance:
    """A quiz question (``key`` its id) or a drill kind (``key`` the kind) across the class."""

    key: str
    is_drill: bool
    question_id: str  # the question, or the kind's first drill (where its details are)
    students: int  # with a score
    completion: float | None  # share of the class with a score; None for an empty class
    mean_score: float | None  # 0 to 1; None without scores
    histogram: tuple[int, ...]  # students per score bucket, BUCKETS of them


@dataclass(frozen=True)
class MissedCell:
    row: int  # 0-based, as the answer's grid
    col: int
    wrong: int  # submissions with this cell wrong
    graded: int  # submissions with this cell


@dataclass(frozen=True)
class KindMisses:
    """Where the class goes wrong on a drill kind, from its latest submissions."""

    kind: str
    submissions: int  # counted (at most CELL_SAMPLE)
    cells: tuple[MissedCell, ...]  # the most often wrong first, MISSED_CELLS at most
    mistake: str | None  # the code of the known mistake explaining the most wrong answers
    explained: int  # of the wrong answers diagnosed, how many that mistake explains
    diagnosed: int  # wrong answers diagnosed (at most MISTAKE_SAMPLE submissions looked at)


@dataclass(frozen=True)
class ClassGlance:
    students: int
    active: int  # students with work within ACTIVE_WITHIN
    questions: tuple[ItemGlance, ...]  # bank order
    drill_kinds: tuple[ItemGlance, ...]  # in the order of their first drill in the bank
    hardest: tuple[ItemGlance, ...]  # the lowest mean scores first, HARDEST at most
    awaiting_review: int
    oldest_awaiting: tuple[store.QuizAnswerResult, ...]  # OLDEST at most, oldest first
    misses: tuple[KindMisses, ...]  # the drill kinds with a wrong cell, in bank order


def histogram(scores: Iterable[float]) -> tuple[int, ...]:
    """Scores in [0, 1] counted in BUCKETS equal buckets; 1 counts in the last."""
    counts = [0] * BUCKETS
    for score in scores:
        counts[min(int(score * BUCKETS), BUCKETS - 1)] += 1
    return tuple(counts)


def _glance(
    key: str, question_id: str, is_drill: bool, scores: list[float], class_size: int
) -> ItemGlance:
    return ItemGlance(
        key=key,
        is_drill=is_drill,
        question_id=question_id,
        students=len(scores),
        completion=len(scores) / class_size if class_size else None,
        mean_score=math.fsum(scores) / len(scores) if scores else None,
        histogram=histogram(scores),
    )


def class_glance(session: Session, bank: Bank, now: datetime | None = None) -> ClassGlance:
    now = now or datetime.now(UTC)
    class_size = queries.student_count(session)
    quiz_scores: dict[str, list[float]] = {q.id: [] for q in chapter_questions(bank)}
    for _learner, question_id, score in queries.student_latest_quiz_scores(session):
        if question_id in quiz_scores and score is not None:
            quiz_scores[question_id].append(score)
    drills: dict[str, DrillQuestion] = {q.id: q for q in drill_questions(bank)}
    first_drill: dict[str, str] = {}
    for question in drills.values():
        first_drill.setdefault(question.kind, question.id)
    best_per_kind: dict[str, dict[int, float]] = {kind: {} for kind in first_drill}
    for learner, question_id, best, _count in queries.student_best_drill_scores(session):
        if question_id in drills:
            by_learner = best_per_kind[drills[question_id].kind]
            by_learner[learner] = max(best, by_learner.get(learner, 0.0))

    questions = tuple(
        _glance(qid, qid, False, scores, class_size) for qid, scores in quiz_scores.items()
    )
    kinds = tuple(
        _glance(kind, first_drill[kind], True, list(best_per_kind[kind].values()), class_size)
        for kind in first_drill
    )
    scored = [item for item in (*questions, *kinds) if item.mean_score is not None]
    hardest = tuple(sorted(scored, key=lambda item: (item.mean_score, item.key))[:HARDEST])
    return ClassGlance(
        students=class_size,
        active=queries.students_active_since(session, now - ACTIVE_WITHIN),
        questions=questions,
        drill_kinds=kinds,
        hardest=hardest,
        awaiting_review=queries.awaiting_review_count(session),
        oldest_awaiting=tuple(store.answers_awaiting_review(session, limit=OLDEST)),
        misses=kind_misses(session, list(first_drill)),
    )


def kind_misses(session: Session, kinds: Sequence[str]) -> tuple[KindMisses, ...]:
    """Per drill kind (in ``kinds``' order) with a wrong cell in its latest submissions."""
    rows = queries.latest_student_submissions_per_kind(session, CELL_SAMPLE)
    by_kind: dict[str, list] = {}
    for row in rows:
        by_kind.setdefault(row.kind, []).append(row)
    found = []
    for kind in kinds:
        submissions = by_kind.get(kind, [])
        wrong: Counter[tuple[int, int]] = Counter()
        graded: Counter[tuple[int, int]] = Counter()
        for row in submissions:
            for at, correct in _graded_cells(row.cells):
                graded[at] += 1
                wrong[at] += not correct
        if not +wrong:
            continue
        cells = sorted(+wrong, key=lambda at: (-wrong[at] / graded[at], at))[:MISSED_CELLS]
        mistakes: Counter[str] = Counter()
        diagnosed = 0
        for row in submissions[:MISTAKE_SAMPLE]:
            if all(correct for _, correct in _graded_cells(row.cells)):
                continue
            codes = _mistakes(row.variant_json, row.parsed_value)
            if codes is not None:
                diagnosed += 1
                mistakes.update(codes)
        top = mistakes.most_common(1)
        found.append(
            KindMisses(
                kind=kind,
                submissions=len(submissions),
                cells=tuple(MissedCell(r, c, wrong[r, c], graded[r, c]) for r, c in cells),
                mistake=top[0][0] if top else None,
                explained=top[0][1] if top else 0,
                diagnosed=diagnosed,
            )
        )
    return tuple(found)


def _graded_cells(cells: object) -> list[tuple[tuple[int, int], bool]]:
    """((row, col), correct) of a submission's stored cells (`grading.CellResult`'s JSON);
    a cell stored otherwise is not counted."""
    if not isinstance(cells, list):
        return []
    return [
        ((cell["row"], cell["col"]), bool(cell["correct"]))
        for cell in cells
        if isinstance(cell, dict) and {"row", "col", "correct"} <= cell.keys()
    ]


def _mistakes(variant_json: object, parsed_value: object) -> set[str] | None:
    """The codes of the known mistakes explaining a stored answer's wrong cells; None when
    the stored variant or answer cannot be read back (a format this version does not know)."""
    try:
        variant = Variant.from_json(variant_json)
        return {code for cell in diagnose(variant, parsed_value) for code in cell.codes}
    except (KeyError, TypeError, ValueError):
        return None
