"""One student's report, as data for a printable page (the web layer renders it).

- ``skills``: every skill the bank's drills train, in bank order, with the student's
  progress on it (their drills on it) or None if never graded on it; then any other skill
  the student has progress on (a drill since removed from the bank), by name.
- ``chapter_answers``: every chapter question (not a drill) in bank order, with the
  student's latest answer and its latest review comment, or None if unanswered.
- ``chapter_total``: the gradebook's ``total`` (points-weighted mean score, unanswered and
  awaiting review counting 0; None if no chapter question is answered, or there are none).
- ``drill_history``: the latest ``history_limit`` drill submissions, newest first.
- ``last_activity``: as in the gradebook.

Seven queries whatever the student did.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from quizsvc.bank import Bank, Question
from quizsvc.reports.gradebook import (
    chapter_questions,
    chapter_total,
    drill_skills,
    skill_order,
)
from quizsvc.store import (
    AnsweredQuestion,
    NotFound,
    SkillProgress,
    latest_quiz_answers,
    progress_for,
    user_by_id,
)
from quizsvc.store import reports_queries as queries

DEFAULT_HISTORY_LIMIT = 20


@dataclass(frozen=True)
class SkillLine:
    skill: str
    in_bank: bool  # trained by one of the bank's drills
    progress: SkillProgress | None  # None: never graded on this skill


@dataclass(frozen=True)
class ChapterAnswerLine:
    question: Question  # the bank's question (prompt, type, points, ...)
    chapter_id: str
    answer: AnsweredQuestion | None  # the latest answer, with its latest review; None: none

    @property
    def question_id(self) -> str:
        return self.question.id

    @property
    def answered(self) -> bool:
        return self.answer is not None

    @property
    def awaiting_review(self) -> bool:
        return self.answer is not None and self.answer.awaiting_review

    @property
    def score(self) -> float | None:
        """The confirmed score (0 to 1); None if unanswered or awaiting review."""
        return None if self.answer is None else self.answer.score

    @property
    def review_comment(self) -> str | None:
        return None if self.answer is None else self.answer.review_comment


@dataclass(frozen=True)
class DrillHistoryLine:
    submission_id: int
    variant_id: int
    question_id: str
    kind: str
    skill: str
    seed: int
    attempt: int
    attempts_allowed: int
    answer_text: str
    raw_score: float
    penalty: float  # what the attempts penalty took off
    score: float
    submitted_at: datetime


@dataclass(frozen=True)
class StudentReport:
    student_id: int
    name: str
    display_name: str
    role: str
    skills: tuple[SkillLine, ...]
    chapter_answers: tuple[ChapterAnswerLine, ...]
    chapter_total: float | None
    drill_history: tuple[DrillHistoryLine, ...]
    # every submission the learner made: more than drill_history holds when it is cut short
    drill_submissions: int
    last_activity: datetime | None


def student_report(
    session: Session,
    bank: Bank,
    learner_id: int,
    *,
    history_limit: int = DEFAULT_HISTORY_LIMIT,
) -> StudentReport:
    """The report of user ``learner_id`` (any role); store.NotFound if there is none."""
    user = user_by_id(session, learner_id)
    if user is None:
        raise NotFound(f"no user with id {learner_id}")

    progress = {p.skill: p for p in progress_for(session, learner_id)}
    bank_skills = drill_skills(bank)
    skills = [
        SkillLine(skill, skill in bank_skills, progress.get(skill))
        for skill in sorted(set(bank_skills) | set(progress), key=skill_order(bank))
    ]

    questions = chapter_questions(bank)
    latest = latest_quiz_answers(session, learner_id)
    answers = tuple(
        ChapterAnswerLine(q, bank.chapter_of[q.id], latest.get(q.id)) for q in questions
    )
    history = (
        tuple(
            DrillHistoryLine(*row)
            for row in queries.drill_history(session, learner_id, history_limit)
        )
        if history_limit > 0
        else ()
    )
    return StudentReport(
        student_id=user.id,
        name=user.name,
        display_name=user.display_name,
        role=user.role,
        skills=tuple(skills),
        chapter_answers=answers,
        chapter_total=chapter_total(
            questions, {line.question_id: line.score for line in answers if line.answered}
        ),
        drill_history=history,
        drill_submissions=queries.submission_count(session, learner_id),
        last_activity=queries.last_activity(session, [learner_id]).get(learner_id),
    )
