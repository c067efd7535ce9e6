"""Read-only queries behind the instructor reports (``quizsvc.reports``).

Nothing here writes.  Only students' work is read (``users.role = 'student'``): an
instructor trying a drill does not show up in a gradebook or an item analysis.  The two
event queries are meant to be streamed with :func:`stream_rows`, which fetches
``yield_per`` rows at a time (a server-side cursor on PostgreSQL, ``stream_results``), so
an export of a million submissions never holds them all in memory.

The event queries are ordered by (learner, time, id), which the existing indexes
``ix_submissions_learner_id_submitted_at`` and ``ix_quiz_answers_learner_id_answered_at``
serve without sorting the whole table.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from datetime import datetime
from typing import Any

from sqlalchemy import Row, Select, and_, exists, func, select
from sqlalchemy.orm import Session

from quizsvc.store.models import (
    DrillVariant,
    OpenAnswerReview,
    QuizAnswer,
    SkillProgressRecord,
    Submission,
    User,
)
from quizsvc.store.progress import latest_submissions

STUDENT_ROLE = "student"
DEFAULT_YIELD_PER = 1000


def students(session: Session) -> list[Row[tuple[int, str, str]]]:
    """(id, name, display_name) of every student, by login name."""
    return list(
        session.execute(
            select(User.id, User.name, User.display_name)
            .where(User.role == STUDENT_ROLE)
            .order_by(User.name)
        )
    )


def student_count(session: Session) -> int:
    return session.scalar(select(func.count()).select_from(User).where(User.role == STUDENT_ROLE))


def students_page(
    session: Session, *, offset: int, limit: int
) -> list[Row[tuple[int, str, str, datetime]]]:
    """(id, name, display_name, created_at) of the students from ``offset`` on, at most
    ``limit`` of them, by login name (served by the unique index on ``users.name``)."""
    return list(
        session.execute(
            select(User.id, User.name, User.display_name, User.created_at)
            .where(User.role == STUDENT_ROLE)
            .order_by(User.name)
            .offset(offset)
            .limit(limit)
        )
    )


def _latest_quiz_answers(*columns: Any) -> Select[Any]:
    """``columns`` of each student's latest answer (highest attempt) to each question."""
    latest = (
        select(
            QuizAnswer.learner_id,
            QuizAnswer.question_id,
            func.max(QuizAnswer.attempt).label("attempt"),
        )
        .group_by(QuizAnswer.learner_id, QuizAnswer.question_id)
        .subquery()
    )
    return (
        select(*columns)
        .join(
            latest,
            and_(
                QuizAnswer.learner_id == latest.c.learner_id,
                QuizAnswer.question_id == latest.c.question_id,
                QuizAnswer.attempt == latest.c.attempt,
            ),
        )
        .join(User, User.id == QuizAnswer.learner_id)
        .where(User.role == STUDENT_ROLE)
    )


def student_latest_quiz_scores(
    session: Session,
) -> list[Row[tuple[int, str, float | None]]]:
    """(learner_id, question_id, score) of each student's latest answer to each question.

    "Latest" is the highest attempt number; ``score`` is None while that answer is an open
    answer awaiting review.  Served by ``uq_quiz_answers_learner_id_question_id_attempt``.
    """
    query = _latest_quiz_answers(QuizAnswer.learner_id, QuizAnswer.question_id, QuizAnswer.score)
    return list(session.execute(query))


def student_latest_quiz_answers(
    session: Session,
) -> list[Row[tuple[int, str, float | None, list[str] | None]]]:
    """(learner_id, question_id, score, choices) of each student's latest answer to each
    question, as :func:`student_latest_quiz_scores`; ``choices`` is the chosen choice ids of
    a choice question's answer, None for a text answer."""
    query = _latest_quiz_answers(
        QuizAnswer.learner_id, QuizAnswer.question_id, QuizAnswer.score, QuizAnswer.choices
    )
    return list(session.execute(query))


def drill_cells_query() -> Select[Any]:
    """(question_id, cells) of every student's drill submission, to be streamed."""
    return (
        select(DrillVariant.question_id, Submission.cells)
        .join(DrillVariant, DrillVariant.id == Submission.variant_id)
        .join(User, User.id == Submission.learner_id)
        .where(User.role == STUDENT_ROLE)
    )


def student_quiz_answer_counts(session: Session) -> dict[str, int]:
    """question_id -> how many answers students recorded (every attempt, reviewed or not)."""
    rows = session.execute(
        select(QuizAnswer.question_id, func.count(QuizAnswer.id))
        .join(User, User.id == QuizAnswer.learner_id)
        .where(User.role == STUDENT_ROLE)
        .group_by(QuizAnswer.question_id)
    )
    return {question_id: count for question_id, count in rows}


def student_best_drill_scores(
    session: Session,
) -> list[Row[tuple[int, str, float, int]]]:
    """(learner_id, question_id, best score, submissions) per student and drill question.

    The best score is the highest ``score`` (after the attempts penalty) of any of the
    student's submissions to any variant of that drill question.
    """
    return list(
        session.execute(
            select(
                Submission.learner_id,
                DrillVariant.question_id,
                func.max(Submission.score),
                func.count(Submission.id),
            )
            .join(DrillVariant, DrillVariant.id == Submission.variant_id)
            .join(User, User.id == Submission.learner_id)
            .where(User.role == STUDENT_ROLE)
            .group_by(Submission.learner_id, DrillVariant.question_id)
        )
    )


def masteries(
    session: Session, learner_ids: Collection[int] | None = None
) -> list[Row[tuple[int, str, float]]]:
    """(learner_id, skill, mastery) of every skill_progress row; with ``learner_ids``, of
    those learners' rows only (through ``uq_skill_progress_learner_id_skill``)."""
    query = select(
        SkillProgressRecord.learner_id,
        SkillProgressRecord.skill,
        SkillProgressRecord.mastery,
    )
    if learner_ids is not None:
        query = query.where(SkillProgressRecord.learner_id.in_(learner_ids))
    return list(session.execute(query))


def last_activity(
    session: Session, learner_ids: Collection[int] | None = None
) -> dict[int, datetime]:
    """learner_id -> the latest ``submitted_at`` or ``answered_at`` of that learner.

    Learners with no submission and no answer are missing.  With ``learner_ids``, only those
    learners are read (through the (learner_id, time) indexes).
    """
    latest: dict[int, datetime] = {}
    for column, learner in (
        (Submission.submitted_at, Submission.learner_id),
        (QuizAnswer.answered_at, QuizAnswer.learner_id),
    ):
        query = select(learner, func.max(column)).group_by(learner)
        if learner_ids is not None:
            query = query.where(learner.in_(learner_ids))
        for who, at in session.execute(query):
            if at is not None and (who not in latest or at > latest[who]):
                latest[who] = at
    return latest


def drill_events_query() -> Select[Any]:
    """Every student's submission with its variant and login name, by (learner, time, id).

    The columns are `quizsvc.reports.events.Event`'s fields after `event`, in order."""
    return (
        select(
            Submission.id,
            Submission.learner_id,
            User.name,
            DrillVariant.question_id,
            DrillVariant.kind,
            DrillVariant.skill,
            DrillVariant.seed,
            DrillVariant.params,
            Submission.answer_text,
            Submission.cells,
            Submission.raw_score,
            Submission.penalty_applied,
            Submission.score,
            Submission.attempt,
            Submission.submitted_at,
        )
        .join(DrillVariant, DrillVariant.id == Submission.variant_id)
        .join(User, User.id == Submission.learner_id)
        .where(User.role == STUDENT_ROLE)
        .order_by(Submission.learner_id, Submission.submitted_at, Submission.id)
    )


def quiz_events_query() -> Select[Any]:
    """Every student's quiz answer with their login name, by (learner, time, id)."""
    return (
        select(
            QuizAnswer.id,
            QuizAnswer.learner_id,
            User.name,
            QuizAnswer.question_id,
            QuizAnswer.skill,
            QuizAnswer.choices,
            QuizAnswer.text,
            QuizAnswer.score,
            QuizAnswer.attempt,
            QuizAnswer.answered_at,
        )
        .join(User, User.id == QuizAnswer.learner_id)
        .where(User.role == STUDENT_ROLE)
        .order_by(QuizAnswer.learner_id, QuizAnswer.answered_at, QuizAnswer.id)
    )


def stream_rows(
    session: Session, query: Select[Any], *, yield_per: int = DEFAULT_YIELD_PER
) -> Iterator[Row[Any]]:
    """The query's rows, fetched ``yield_per`` at a time; closes the cursor when done or
    when the iterator is closed early."""
    result = session.execute(query, execution_options={"yield_per": yield_per})
    try:
        yield from result
    finally:
        result.close()


def submission_count(session: Session, learner_id: int) -> int:
    """How many drill submissions the learner has made (served by the same index)."""
    return session.scalar(
        select(func.count()).select_from(Submission).where(Submission.learner_id == learner_id)
    )


def drill_history(session: Session, learner_id: int, limit: int) -> list[Row[Any]]:
    """The learner's latest ``limit`` submissions with their variants, newest first."""
    query = latest_submissions(
        learner_id,
        limit,
        Submission.id,
        Submission.variant_id,
        DrillVariant.question_id,
        DrillVariant.kind,
        DrillVariant.skill,
        DrillVariant.seed,
        Submission.attempt,
        DrillVariant.attempts_allowed,
        Submission.answer_text,
        Submission.raw_score,
        Submission.penalty_applied,
        Submission.score,
        Submission.submitted_at,
    )
    return list(session.execute(query))


def reviews_of(session: Session, answer_id: int) -> list[Row[Any]]:
    """(id, reviewer display name, score, comment, at) of every review of an answer, oldest
    first: the last one set the answer's score."""
    return list(
        session.execute(
            select(
                OpenAnswerReview.id,
                User.display_name.label("reviewer"),
                OpenAnswerReview.confirmed_score.label("score"),
                OpenAnswerReview.comment,
                OpenAnswerReview.reviewed_at.label("at"),
            )
            .join(User, User.id == OpenAnswerReview.reviewer_id)
            .where(OpenAnswerReview.answer_id == answer_id)
            .order_by(OpenAnswerReview.reviewed_at, OpenAnswerReview.id)
        )
    )


def open_answers_of(session: Session, learner_id: int) -> list[Row[Any]]:
    """(id, question_id, score, answered_at) of the learner's open answers, newest first:
    those recorded awaiting review (score None until reviewed) and those since reviewed, not
    the numeric answers graded when they were recorded. Served by
    ``ix_quiz_answers_learner_id_answered_at``."""
    reviewed = exists().where(OpenAnswerReview.answer_id == QuizAnswer.id)
    return list(
        session.execute(
            select(QuizAnswer.id, QuizAnswer.question_id, QuizAnswer.score, QuizAnswer.answered_at)
            .where(
                QuizAnswer.learner_id == learner_id,
                QuizAnswer.text.is_not(None),
                QuizAnswer.score.is_(None) | reviewed,
            )
            .order_by(QuizAnswer.answered_at.desc(), QuizAnswer.id.desc())
        )
    )


def recorded_work_by_question(session: Session) -> dict[str, int]:
    """Question id -> how many quiz answers and drill variants are recorded for it (anyone's):
    what a content reload that drops the question would leave out of the reports."""
    counts: dict[str, int] = {}
    for column in (QuizAnswer.question_id, DrillVariant.question_id):
        for question_id, count in session.execute(select(column, func.count()).group_by(column)):
            counts[question_id] = counts.get(question_id, 0) + count
    return counts


def students_active_since(session: Session, since: datetime) -> int:
    """How many students submitted a drill answer or answered a quiz question at ``since``
    or later."""
    drills = select(Submission.learner_id).where(Submission.submitted_at >= since)
    answers = select(QuizAnswer.learner_id).where(QuizAnswer.answered_at >= since)
    active = drills.union(answers).subquery()
    return session.scalar(
        select(func.count())
        .select_from(active)
        .join(User, User.id == active.c.learner_id)
        .where(User.role == STUDENT_ROLE)
    )


def awaiting_review_count(session: Session) -> int:
    """Students' open answers with no score yet (served by ix_quiz_answers_awaiting_review)."""
    return session.scalar(
        select(func.count(QuizAnswer.id))
        .join(User, User.id == QuizAnswer.learner_id)
        .where(QuizAnswer.score.is_(None), User.role == STUDENT_ROLE)
    )


def latest_student_submissions_per_kind(
    session: Session, per_kind: int
) -> list[Row[tuple[str, int, Any, Any, Any]]]:
    """(kind, submission id, cells, parsed value, variant JSON) of the students' latest
    ``per_kind`` submissions to each drill kind, newest first within a kind."""
    ranked = (
        select(
            DrillVariant.kind.label("kind"),
            Submission.id.label("id"),
            func.row_number()
            .over(
                partition_by=DrillVariant.kind,
                order_by=(Submission.submitted_at.desc(), Submission.id.desc()),
            )
            .label("rank"),
        )
        .join(DrillVariant, DrillVariant.id == Submission.variant_id)
        .join(User, User.id == Submission.learner_id)
        .where(User.role == STUDENT_ROLE)
        .subquery()
    )
    return list(
        session.execute(
            select(
                ranked.c.kind,
                Submission.id,
                Submission.cells,
                Submission.parsed_value,
                DrillVariant.variant_json,
            )
            .join(ranked, ranked.c.id == Submission.id)
            .join(DrillVariant, DrillVariant.id == Submission.variant_id)
            .where(ranked.c.rank <= per_kind)
            .order_by(ranked.c.kind, ranked.c.rank)
        )
    )
