"""Report fixtures: a small bank, and a database seeded by hand through the store's own write
functions, on SQLite and (with TEST_DATABASE_URL, as the store tests) on PostgreSQL.

The seeded work, by minute after T0 (2026-11-30 09:00 UTC); every expected number in the
tests is computed by hand from this table.

=======  =========================================================================
student  work
=======  =========================================================================
ada      q-single [B] 1.0 (+1); q-multi [a, c] 0.5 (+2); q-open text (+3) suggested
         0.6, reviewed 0.75 by grace (+10, comment); d-scores: variant seed 11,
         raw 0.5 (+20) then raw 1.0 (+21, -0.1 penalty: 0.9); d-softmax: variant seed
         12, raw 1.0 (+22)
bo       q-single [A] 0.0 (+4); q-open Chinese text (+5) awaiting review;
         d-scores: variant seed 13, raw 0.25 (+23)
cy       q-single [A] 0.0 (+6), then [B] 1.0 (+7)
dee      nothing
grace    (instructor) q-single [B] 1.0 (+8); d-scores: seed 14, raw 1.0 (+24)
=======  =========================================================================
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import ClassVar

import pytest
from content_trees import write_content
from sqlalchemy.orm import Session, sessionmaker

from quizsvc.bank import Bank, load_bank
from quizsvc.drills import drill_param_models
from quizsvc.store import (
    create_user,
    issue_variant,
    record_quiz_answer,
    record_review,
    record_submission,
)

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
PASSWORD = "correct horse"

# Loaded before questions.yaml (files load in name order): the bank's order is d-scores,
# d-softmax, d-scores-2, q-single, q-multi, q-open.
DRILLS_YAML = """\
questions:
  - id: d-scores
    type: drill
    kind: score_row
    tags: [scores]
    prompt: {zh: 算分数, en: Compute the scores}
  - id: d-softmax
    type: drill
    kind: softmax_row
    tags: [softmax]
    prompt: {zh: 算 softmax, en: Compute the softmax}
  - id: d-scores-2
    type: drill
    kind: score_row
    tags: [scores]
    prompt: {zh: 再算分数, en: Compute the scores again}
"""

QUESTIONS_YAML = """\
questions:
  - id: q-single
    type: single_choice
    tags: [qkv]
    prompt: {zh: 选一个, en: Pick one}
    choices:
      - {id: A, text: {zh: 甲, en: A}}
      - {id: B, text: {zh: 乙, en: B}}
    correct: B
    explanation: {zh: 乙, en: B}
  - id: q-multi
    type: multiple_choice
    tags: [softmax]
    points: 2
    prompt: {zh: 选两个, en: Pick two}
    choices:
      - {id: a, text: {zh: 甲, en: a}, score: 0.5}
      - {id: b, text: {zh: 乙, en: b}, score: -0.5}
      - {id: c, text: {zh: 丙, en: c}, score: 0.5}
    explanation: {zh: 甲丙, en: a and c}
  - id: q-open
    type: open
    tags: [multi_head]
    prompt: {zh: 为什么要多头？, en: "Why several heads?"}
    reference_answer: {zh: 子空间, en: Subspaces}
    rubric:
      - key: subspaces
        weight: 1
        description: {zh: 子空间, en: subspaces}
        phrases: {zh: [子空间], en: [subspace]}
"""

# Display names: Chinese, and one with a comma, quotes and a line break, and one that a
# spreadsheet would run as a formula.
CY_DISPLAY = 'Cy "Q", Jr.\nSmith'
DEE_DISPLAY = "=SUM(A1)"
ADA_OPEN = 'Heads, "views"\nand more'
BO_OPEN = "多头注意力：不同的子空间\u2028第二行"
REVIEW_COMMENT = "好, but cite the paper"
CELLS = [{"row": 0, "col": 0, "expected": float("-inf"), "given": float("-inf"), "ok": True}]
DRILL_ANSWER = "-inf, 0.5"


@pytest.fixture(scope="session")
def content_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_content(
        tmp_path_factory.mktemp("reports") / "content",
        {"ch/drills.yaml": DRILLS_YAML, "ch/questions.yaml": QUESTIONS_YAML},
    )


@pytest.fixture(scope="session")
def bank(content_dir: Path) -> Bank:
    return load_bank(content_dir, drill_param_models())


@pytest.fixture
def sessions(session_factory: sessionmaker[Session]) -> sessionmaker[Session]:
    return session_factory


def at(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)


@dataclass(frozen=True)
class Seeded:
    """The ids of the seeded rows, and the texts written (class constants, so that the
    tests need not import this module: ``conftest`` is not a unique module name)."""

    ADA_OPEN: ClassVar[str] = ADA_OPEN
    BO_OPEN: ClassVar[str] = BO_OPEN
    CY_DISPLAY: ClassVar[str] = CY_DISPLAY
    DEE_DISPLAY: ClassVar[str] = DEE_DISPLAY
    DRILL_ANSWER: ClassVar[str] = DRILL_ANSWER
    REVIEW_COMMENT: ClassVar[str] = REVIEW_COMMENT

    ada: int
    bo: int
    cy: int
    dee: int
    grace: int
    quiz: list[int]  # quiz answer ids in the order recorded (the table's order)
    drill: list[int]  # submission ids in the order recorded


class Seeder:
    """The store's write functions with this bank's defaults."""

    def __init__(self, sessions: sessionmaker[Session], bank: Bank) -> None:
        self.sessions = sessions
        self.bank = bank
        self.keys = 0

    def user(self, name: str, role: str = "student", display_name: str | None = None) -> int:
        with self.sessions() as session:
            return create_user(
                session, name=name, role=role, password=PASSWORD, display_name=display_name
            ).id

    def _key(self) -> str:
        self.keys += 1
        return f"key-{self.keys}"

    def choose(self, learner: int, question_id: str, choices: list[str], score: float, minute):
        return self._answer(learner, question_id, minute, choices=choices, score=score)

    def write(self, learner: int, question_id: str, text: str, suggested: float, minute) -> int:
        return self._answer(learner, question_id, minute, text=text, suggested_score=suggested)

    def _answer(self, learner: int, question_id: str, minute: int, **answer) -> int:
        with self.sessions() as session:
            return record_quiz_answer(
                session,
                learner_id=learner,
                question_id=question_id,
                content_version=self.bank.version,
                idempotency_key=self._key(),
                skill=self.bank.questions[question_id].tags[0],
                now=at(minute),
                **answer,
            ).answer_id

    def review(self, answer_id: int, reviewer: int, score: float, comment: str, minute) -> None:
        with self.sessions() as session:
            record_review(
                session,
                answer_id=answer_id,
                reviewer_id=reviewer,
                confirmed_score=score,
                comment=comment,
                now=at(minute),
            )

    def variant(self, learner: int, question_id: str, seed: int, minute: int) -> int:
        question = self.bank.questions[question_id]
        skill = {"score_row": "scores", "softmax_row": "softmax"}[question.kind]
        with self.sessions() as session:
            return issue_variant(
                session,
                learner_id=learner,
                question_id=question_id,
                kind=question.kind,
                seed=seed,
                params={"n": 3, "d_model": 4},
                variant_json={"format": 1, "kind": question.kind},
                content_version=self.bank.version,
                attempts_allowed=3,
                penalty=0.1,
                skill=skill,
                now=at(minute),
            ).id

    def submit(
        self, learner: int, variant_id: int, raw_score: float, minute: int, cells=None
    ) -> int:
        with self.sessions() as session:
            return record_submission(
                session,
                learner_id=learner,
                variant_id=variant_id,
                idempotency_key=self._key(),
                answer_text=DRILL_ANSWER,
                parsed_value=[[float("-inf"), 0.5]],
                raw_score=raw_score,
                cells=CELLS if cells is None else cells,
                now=at(minute),
            ).submission_id


@pytest.fixture
def seeder(sessions: sessionmaker[Session], bank: Bank, cheap_password_hashes) -> Seeder:
    return Seeder(sessions, bank)


@pytest.fixture
def seeded(seeder: Seeder) -> Seeded:
    return seed(seeder)


@pytest.fixture
def seed_into(bank: Bank, cheap_password_hashes) -> Callable[[sessionmaker[Session]], Seeded]:
    """Seeds another database (e.g. one made by the migrations) the same way."""
    return lambda sessions: seed(Seeder(sessions, bank))


def seed(s: Seeder) -> Seeded:
    """The work in the module docstring's table."""
    ada = s.user("ada", display_name="Ada Lovelace")
    bo = s.user("bo", display_name="王小明")
    cy = s.user("cy", display_name=CY_DISPLAY)
    dee = s.user("dee", display_name=DEE_DISPLAY)
    grace = s.user("grace", role="instructor")

    quiz = [
        s.choose(ada, "q-single", ["B"], 1.0, 1),
        s.choose(ada, "q-multi", ["a", "c"], 0.5, 2),
        s.write(ada, "q-open", ADA_OPEN, 0.6, 3),
        s.choose(bo, "q-single", ["A"], 0.0, 4),
        s.write(bo, "q-open", BO_OPEN, 0.8, 5),
        s.choose(cy, "q-single", ["A"], 0.0, 6),
        s.choose(cy, "q-single", ["B"], 1.0, 7),
        s.choose(grace, "q-single", ["B"], 1.0, 8),
    ]
    s.review(quiz[2], grace, 0.75, REVIEW_COMMENT, 10)

    v1 = s.variant(ada, "d-scores", 11, 19)
    v2 = s.variant(ada, "d-softmax", 12, 19)
    v3 = s.variant(bo, "d-scores", 13, 19)
    v4 = s.variant(grace, "d-scores", 14, 19)
    drill = [
        s.submit(ada, v1, 0.5, 20),
        s.submit(ada, v1, 1.0, 21),
        s.submit(ada, v2, 1.0, 22),
        s.submit(bo, v3, 0.25, 23),
        s.submit(grace, v4, 1.0, 24),
    ]
    return Seeded(ada, bo, cy, dee, grace, quiz, drill)


@pytest.fixture
def session(sessions: sessionmaker[Session]) -> Iterator[Session]:
    """A read-only session (as the reports are meant to be called)."""
    from quizsvc.store import begin_read_only

    with sessions() as session:
        begin_read_only(session)
        yield session
