"""Where a learner stands on a chapter's questions: each question's tries and state, the order
the learner sees a choice question's choices in (and their letters), and the chapter's
running total. Read by the chapter page, the progress page and the API alike (no Flask
here)."""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from sqlalchemy.orm import Session

from quizsvc import store
from quizsvc.bank import Bank, Chapter, DrillQuestion, Question, question_tries

QuestionStatus = Literal["not_answered", "try_again", "awaiting_review", "answered"]


@dataclass(frozen=True)
class QuestionStanding:
    """A chapter question with the learner's latest answer to it (None before the first)."""

    question: Question
    answer: store.AnsweredQuestion | None

    @property
    def attempts(self) -> int:
        return question_tries(self.question)[0]

    @property
    def penalty(self) -> float:
        return question_tries(self.question)[1]

    @property
    def attempts_used(self) -> int:
        return 0 if self.answer is None else self.answer.attempt

    @property
    def attempts_left(self) -> int:
        return max(0, self.attempts - self.attempts_used)

    @property
    def finished(self) -> bool:
        """Answered for good: fully right, out of tries, or an open answer (one try, its
        review to come). From then on the key and the explanation are shown."""
        if self.answer is None:
            return False
        raw = self.answer.raw_score
        return raw is None or raw == 1.0 or self.attempts_left == 0

    @property
    def status(self) -> QuestionStatus:
        if self.answer is None:
            return "not_answered"
        if not self.finished:
            return "try_again"
        if self.answer.awaiting_review:
            return "awaiting_review"
        return "answered"


def chapter_standings(
    session: Session, bank: Bank, learner_id: int, chapter_id: str
) -> list[QuestionStanding]:
    """The chapter's questions (not its drills) in authored order, each with the learner's
    latest answer; KeyError for an unknown chapter."""
    return _standings(bank, chapter_id, store.latest_quiz_answers(session, learner_id))


def _standings(
    bank: Bank, chapter_id: str, answers: dict[str, store.AnsweredQuestion]
) -> list[QuestionStanding]:
    return [
        QuestionStanding(question, answers.get(question.id))
        for question in bank.questions_in(chapter_id)
        if not isinstance(question, DrillQuestion)
    ]


@dataclass(frozen=True)
class QuizTotal:
    """A chapter's score, points-weighted as the gradebook's ``total``: ``earned`` points of
    ``possible``, a question counting its latest answer's score (after the attempts penalty)
    and an open answer once reviewed."""

    earned: float
    possible: float
    questions: int
    answered: int  # with at least one answer
    awaiting_review: int
    unfinished: int  # not answered, or a wrong try with tries left

    @property
    def final(self) -> bool:
        """Every question answered for good and graded: the score no longer moves."""
        return self.questions > 0 and self.unfinished == 0 and self.awaiting_review == 0

    @property
    def fraction(self) -> float | None:
        return self.earned / self.possible if self.possible else None


def quiz_total(standings: Sequence[QuestionStanding]) -> QuizTotal:
    earned = [
        s.question.points * s.answer.score
        for s in standings
        if s.answer is not None and s.answer.score is not None
    ]
    return QuizTotal(
        earned=math.fsum(earned),
        possible=math.fsum(s.question.points for s in standings),
        questions=len(standings),
        answered=sum(s.answer is not None for s in standings),
        awaiting_review=sum(s.status == "awaiting_review" for s in standings),
        unfinished=sum(s.status in ("not_answered", "try_again") for s in standings),
    )


def chapter_totals(
    session: Session, bank: Bank, learner_id: int
) -> list[tuple[Chapter, QuizTotal]]:
    """Each chapter of the bank that has questions, in order, with the learner's total on it
    (two queries whatever the number of chapters)."""
    answers = store.latest_quiz_answers(session, learner_id)
    totals = [
        (chapter, quiz_total(_standings(bank, chapter.id, answers))) for chapter in bank.chapters
    ]
    return [(chapter, total) for chapter, total in totals if total.questions]


def choice_order(learner_id: int, question_id: str, choice_ids: Sequence[str]) -> list[str]:
    """The choice ids in the order this learner sees them: shuffled by a generator seeded
    from the learner and the question, so the order is the same on every visit and differs
    between learners (two neighbours cannot share "the answer is the third one"). Answers
    and keys name choices by id, so the order changes nothing else."""
    digest = hashlib.sha256(f"{learner_id}\n{question_id}".encode()).digest()
    order = list(choice_ids)
    random.Random(int.from_bytes(digest[:8], "big")).shuffle(order)
    return order


def choice_letter(position: int) -> str:
    """The letter a learner's page gives the choice at ``position`` (from 0) of the order
    they see: A, B, ..., Z, then AA, AB, ... So the letters always run A, B, C down the
    page, whatever the choices' ids (which the answers, keys and reports use)."""
    if position < 0:
        raise ValueError(f"position must be 0 or more, got {position}")
    letters = ""
    number = position + 1
    while number:
        number, rest = divmod(number - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def choice_labels(order: Sequence[str]) -> dict[str, str]:
    """Each choice id of a learner's ``order`` (`choice_order`) with its letter there."""
    return {choice_id: choice_letter(position) for position, choice_id in enumerate(order)}
