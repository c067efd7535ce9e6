"""Per-skill progress: the update done inside each graded drill submission, and the reading
queries.

A skill's progress counts drills only: the chapter's questions are a test of their own (its
total is the gradebook's, a quiz answer is listed in the history under its question's first
tag), and counting them here would show attempts at a skill whose drills were never tried.

Mastery is an exponentially weighted recent score over the learner's drill variants on the
skill: each variant counts once, at its best attempt so far (after the attempts penalty), in
the order the variants were first answered.  It starts at 0 and every variant moves it
halfway to its score:

    mastery = (1 - MASTERY_WEIGHT) * mastery + MASTERY_WEIGHT * score,  MASTERY_WEIGHT = 0.5

so scores 1.0, 1.0, 0.5 give 0.5, 0.75, 0.625; the latest variant weighs 1/2, the one before
1/4, and so on, and a skill needs a run of good answers to get near 1.  A variant counting at
its best attempt is Moodle's adaptive rule: correcting a mistake can raise the variant's
score, never lower it (a later attempt carries a larger penalty), so retrying never costs
mastery.  ``attempts`` still counts every graded attempt, ``best_score`` is the best of them,
and ``last_score`` is the score of the newest variant.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Select, func, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from quizsvc.store.models import DrillVariant, QuizAnswer, SkillProgressRecord, Submission
from quizsvc.store.transactions import locked_row

MASTERY_WEIGHT = 0.5


def next_mastery(mastery: float, score: float) -> float:
    return (1.0 - MASTERY_WEIGHT) * mastery + MASTERY_WEIGHT * score


@dataclass(frozen=True)
class SkillProgress:
    skill: str
    attempts: int
    best_score: float
    last_score: float
    mastery: float
    last_activity: datetime


@dataclass(frozen=True)
class HistoryEntry:
    """One graded (or waiting) answer: ``kind`` is "drill" or "quiz".

    For a drill, ``record_id`` is the submission's id and ``variant_id`` is set; for a
    quiz answer it is the answer's id.  ``score`` is None for an open answer awaiting
    review.
    """

    kind: str
    record_id: int
    question_id: str
    skill: str | None
    attempt: int
    score: float | None
    at: datetime
    variant_id: int | None = None


def update_progress(
    session: Session, *, learner_id: int, skill: str, score: float, now: datetime
) -> None:
    """Count a variant's first attempt, scored ``score``, on ``skill``; called inside a write
    transaction.  A variant's later attempts go through :func:`recompute_progress`, as they
    may change its score."""
    row = _locked_row(session, learner_id=learner_id, skill=skill, now=now)
    row.attempts += 1
    row.last_score = score
    row.best_score = max(row.best_score, score)
    row.mastery = next_mastery(row.mastery, score)
    row.last_activity = now
    session.flush()


def recompute_progress(session: Session, *, learner_id: int, skill: str, now: datetime) -> None:
    """Rebuild one skill's row from every drill submission on it (after a variant's later
    attempt); called inside a write transaction. The row is locked before the submissions
    are read, so a submission committed meanwhile is either read here or counted after
    this."""
    row = _locked_row(session, learner_id=learner_id, skill=skill, now=now)
    variants = (
        select(
            func.min(Submission.submitted_at).label("first_at"),
            func.min(Submission.id).label("first_id"),
            func.max(Submission.score).label("best"),
            func.max(Submission.submitted_at).label("last_at"),
            func.count().label("attempts"),
        )
        .join(DrillVariant, DrillVariant.id == Submission.variant_id)
        .where(Submission.learner_id == learner_id, DrillVariant.skill == skill)
        .group_by(Submission.variant_id)
    )
    items = []  # (first answered, first submission's id, best score)
    attempts = 0
    answered_at = []
    for r in session.execute(variants):
        items.append((r.first_at, r.first_id, r.best))
        attempts += r.attempts
        answered_at.append(r.last_at)
    items.sort()
    scores = [score for *_, score in items]
    mastery = 0.0
    for score in scores:
        mastery = next_mastery(mastery, score)
    row.attempts = attempts
    row.best_score = max(scores, default=0.0)
    row.last_score = scores[-1] if scores else 0.0
    row.mastery = mastery
    if answered_at:
        row.last_activity = max(answered_at)
    session.flush()


def _locked_row(
    session: Session, *, learner_id: int, skill: str, now: datetime
) -> SkillProgressRecord:
    """The learner's row for ``skill``, created if missing and locked for this transaction.

    Created with INSERT ... ON CONFLICT DO NOTHING, so two first attempts at once cannot
    collide, then locked (``locked_row``).
    """
    empty = {
        "learner_id": learner_id,
        "skill": skill,
        "attempts": 0,
        "best_score": 0.0,
        "last_score": 0.0,
        "mastery": 0.0,
        "last_activity": now,
    }
    dialect = session.get_bind().dialect.name
    if dialect in ("sqlite", "postgresql"):
        insert = sqlite_insert if dialect == "sqlite" else postgresql_insert
        session.execute(
            insert(SkillProgressRecord)
            .values(**empty)
            .on_conflict_do_nothing(index_elements=["learner_id", "skill"])
        )
    row = locked_row(
        session,
        select(SkillProgressRecord).where(
            SkillProgressRecord.learner_id == learner_id, SkillProgressRecord.skill == skill
        ),
    )
    if row is None:  # another database: no ON CONFLICT
        row = SkillProgressRecord(**empty)
        session.add(row)
    return row


def progress_query(learner_id: int) -> Select[tuple[SkillProgressRecord]]:
    # Served by uq_skill_progress_learner_id_skill (learner_id, skill): no sort needed.
    return (
        select(SkillProgressRecord)
        .where(SkillProgressRecord.learner_id == learner_id)
        .order_by(SkillProgressRecord.skill)
    )


def progress_for(session: Session, learner_id: int) -> list[SkillProgress]:
    """The learner's progress on every skill they have attempted, by skill (one query)."""
    return [
        SkillProgress(
            skill=row.skill,
            attempts=row.attempts,
            best_score=row.best_score,
            last_score=row.last_score,
            mastery=row.mastery,
            last_activity=row.last_activity,
        )
        for row in session.scalars(progress_query(learner_id))
    ]


def latest_submissions(learner_id: int, limit: int, *columns: Any) -> Select:
    """``columns`` (of ``Submission`` and ``DrillVariant``) of the learner's latest ``limit``
    submissions, each with its variant, newest first."""
    # Served by ix_submissions_learner_id_submitted_at, joined on the variants' primary key.
    return (
        select(*columns)
        .select_from(Submission)
        .join(DrillVariant, DrillVariant.id == Submission.variant_id)
        .where(Submission.learner_id == learner_id)
        .order_by(Submission.submitted_at.desc(), Submission.id.desc())
        .limit(limit)
    )


def submission_history_query(learner_id: int, limit: int) -> Select:
    return latest_submissions(
        learner_id,
        limit,
        Submission.id,
        DrillVariant.question_id,
        DrillVariant.skill,
        Submission.attempt,
        Submission.score,
        Submission.submitted_at,
        Submission.variant_id,
    )


def quiz_history_query(learner_id: int, limit: int) -> Select:
    # Served by ix_quiz_answers_learner_id_answered_at.
    return (
        select(
            QuizAnswer.id,
            QuizAnswer.question_id,
            QuizAnswer.skill,
            QuizAnswer.attempt,
            QuizAnswer.score,
            QuizAnswer.answered_at,
        )
        .where(QuizAnswer.learner_id == learner_id)
        .order_by(QuizAnswer.answered_at.desc(), QuizAnswer.id.desc())
        .limit(limit)
    )


def recent_history(session: Session, learner_id: int, *, limit: int = 20) -> list[HistoryEntry]:
    """The learner's latest ``limit`` drill submissions and quiz answers, newest first.

    Two queries, whatever the number of entries.
    """
    if limit < 1:
        return []
    entries = [
        HistoryEntry("drill", row[0], row[1], row[2], row[3], row[4], row[5], variant_id=row[6])
        for row in session.execute(submission_history_query(learner_id, limit))
    ]
    entries += [
        HistoryEntry("quiz", row[0], row[1], row[2], row[3], row[4], row[5])
        for row in session.execute(quiz_history_query(learner_id, limit))
    ]
    entries.sort(key=lambda entry: (entry.at, entry.kind, entry.record_id), reverse=True)
    return entries[:limit]
