"""A course of N learners with a realistic spread of activity, written through the store's and
practice's own write API (so every row is what the app itself would have stored).

    .venv/bin/python benchmarks/seed.py --learners 500 [--database-url URL] [--seed 0]

The database is migrated first (``quizsvc db upgrade``); the accounts must not exist yet.
Every learner's password is ``PASSWORD``; the instructor is ``instructor``.

Who does what (each learner's activity is drawn from a generator seeded by the run's seed and
the learner's number, so learner 1 does the same at any class size):

- a tenth never start; four in ten practise a little (1-4 drill variants), a third regularly
  (5-15), the rest a lot (15-40); learner 1 is always one of the keen ones, the learner the
  per-learner pages are measured for;
- each variant is a drill of the bank picked at random; about one in ten is started and left;
  otherwise each attempt is right with the learner's own accuracy (0.3-0.95), and after a
  wrong one the learner tries again seven times in ten while attempts are left;
- each chapter question is answered with a chance by activity (0.3, 0.7, 0.95); a choice
  is right with the learner's accuracy, an open answer is written from some of its rubric's
  phrases and waits for a review;
- the instructor then reviews about six open answers in ten (oldest first) and corrects one
  review in ten, leaving the rest in the review queue.

The learners' writes are interleaved at random, as a class's would be.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

# Run as a script, this file's folder heads sys.path and benchmarks/engine.py would shadow
# the engine package.
_here = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _here]

import numpy as np  # noqa: E402
from sqlalchemy import func, select  # noqa: E402
from sqlalchemy.orm import Session, sessionmaker  # noqa: E402
from werkzeug.security import generate_password_hash  # noqa: E402

from quizsvc import practice, store  # noqa: E402
from quizsvc.bank import (  # noqa: E402
    Bank,
    DrillQuestion,
    MultipleChoiceQuestion,
    OpenQuestion,
    SingleChoiceQuestion,
    load_bank,
)
from quizsvc.drills import drill_param_models  # noqa: E402
from quizsvc.selftest import answer_text  # noqa: E402
from quizsvc.store import migrate, users  # noqa: E402

REPO = _here.parent
PASSWORD = "benchmark password"
INSTRUCTOR = "instructor"

# (share of the class, drill variants started (low, high), chance to answer each chapter question)
PROFILES = {
    "inactive": (0.10, (0, 0), 0.0),
    "light": (0.40, (1, 4), 0.3),
    "regular": (0.35, (5, 15), 0.7),
    "keen": (0.15, (15, 40), 0.95),
}
LEFT_UNANSWERED = 0.1  # variants started and never answered
RETRY = 0.7  # chance of trying again after a wrong attempt
REVIEWED = 0.6  # open answers the instructor has reviewed
CORRECTED = 0.1  # reviews the instructor corrected later


def learner_name(number: int) -> str:
    return f"learner-{number:04d}"


@dataclass(frozen=True)
class Course:
    """What was seeded: the ids to log in as and to look at, and how many rows of each."""

    instructor_id: int
    learner_ids: tuple[int, ...]  # learner 1 first
    rows: dict[str, int]

    @property
    def keen_learner_id(self) -> int:
        return self.learner_ids[0]


@contextlib.contextmanager
def cheap_password_hashes() -> Iterator[None]:
    """Hash the seeded accounts' passwords with a cheap PBKDF2 instead of scrypt (~0.1 s
    each), as the web tests do: logging in still runs the real check on the stored hash."""
    real = users.generate_password_hash
    users.generate_password_hash = functools.partial(
        generate_password_hash, method="pbkdf2:sha256:1000"
    )
    try:
        yield
    finally:
        users.generate_password_hash = real


def _profile(rng: random.Random, number: int) -> str:
    if number == 1:
        return "keen"
    names = list(PROFILES)
    return rng.choices(names, weights=[PROFILES[name][0] for name in names])[0]


def _wrong(values: np.ndarray, rng: random.Random) -> np.ndarray:
    """The expected answer with one finite cell off by a clear margin (a slip in one cell)."""
    wrong = np.array(np.atleast_2d(values), dtype=np.float64)
    finite = np.argwhere(np.isfinite(wrong))
    if len(finite) == 0:
        return np.zeros_like(wrong)
    r, c = finite[rng.randrange(len(finite))]
    wrong[r, c] += 1.0 + abs(wrong[r, c])
    return wrong


def _open_text(question: OpenQuestion, rng: random.Random) -> str:
    phrases = [point.phrases.en[0] for point in question.rubric if point.phrases.en]
    chosen = rng.sample(phrases, rng.randint(0, len(phrases))) if phrases else []
    return "My answer: " + "; ".join(chosen or ["I am not sure"]) + "."


def _learner_work(
    sessions: sessionmaker[Session], bank: Bank, learner_id: int, number: int, seed: int
) -> Iterator[None]:
    """One learner's writes, one per step (the caller interleaves the learners)."""
    rng = random.Random(f"{seed}/{number}")
    _share, (low, high), answer_chance = PROFILES[_profile(rng, number)]
    accuracy = rng.uniform(0.3, 0.95)
    drills = [q for q in bank.questions.values() if isinstance(q, DrillQuestion)]
    for _ in range(rng.randint(low, high)):
        question = rng.choice(drills)
        with sessions() as session:
            issued = practice.start_drill(
                session, bank, learner_id, question.id, seed=rng.randrange(2**31)
            )
        yield
        if rng.random() < LEFT_UNANSWERED:
            continue
        with sessions() as session:
            expected = practice.drill_state(session, learner_id, issued.id).variant.answer.values
        for attempt in range(1, question.attempts + 1):
            right = rng.random() < accuracy
            text = answer_text(expected if right else _wrong(expected, rng))
            with sessions() as session:
                practice.submit_drill(
                    session, learner_id, issued.id, text, f"{issued.id}-{attempt}"
                )
            yield
            if right or rng.random() >= RETRY:
                break
    for question in bank.questions.values():
        if isinstance(question, DrillQuestion) or rng.random() >= answer_chance:
            continue
        choices, text = None, None
        match question:
            case SingleChoiceQuestion():
                wrong = [c.id for c in question.choices if c.id != question.correct]
                choices = [question.correct if rng.random() < accuracy else rng.choice(wrong)]
            case MultipleChoiceQuestion():
                right = list(question.correct_choice_ids)
                choices = right if rng.random() < accuracy else [question.choices[0].id]
            case OpenQuestion():
                text = _open_text(question, rng)
            case _:  # a numeric chapter question: answered right or with one cell off
                expected = question.answer_matrix()
                text = answer_text(expected if rng.random() < accuracy else _wrong(expected, rng))
        with sessions() as session:
            practice.answer_question(
                session, bank, learner_id, question.id, f"q-{question.id}", choices, text
            )
        yield


def _review(sessions: sessionmaker[Session], instructor_id: int, seed: int) -> None:
    rng = random.Random(f"{seed}/reviews")
    with sessions() as session:
        store.begin_read_only(session)
        waiting = session.scalars(
            select(store.QuizAnswer.id)
            .where(store.QuizAnswer.score.is_(None))
            .order_by(store.QuizAnswer.answered_at, store.QuizAnswer.id)
        ).all()
    for answer_id in waiting[: round(len(waiting) * REVIEWED)]:
        score = rng.choice([0.25, 0.5, 0.75, 1.0])
        with sessions() as session:
            store.record_review(
                session, answer_id=answer_id, reviewer_id=instructor_id, confirmed_score=score
            )
        if rng.random() < CORRECTED:
            with sessions() as session:
                store.record_review(
                    session,
                    answer_id=answer_id,
                    reviewer_id=instructor_id,
                    confirmed_score=max(0.0, score - 0.25),
                    comment="corrected after a second reading",
                )


def seed_course(
    sessions: sessionmaker[Session], bank: Bank, learners: int, *, seed: int = 0
) -> Course:
    """Seed ``learners`` learners and one instructor into a migrated, empty database."""
    with cheap_password_hashes():
        with sessions() as session:
            instructor_id = store.create_user(
                session, name=INSTRUCTOR, role="instructor", password=PASSWORD
            ).id
        learner_ids = []
        for number in range(1, learners + 1):
            with sessions() as session:
                learner_ids.append(
                    store.create_user(
                        session,
                        name=learner_name(number),
                        role="student",
                        password=PASSWORD,
                        display_name=f"Learner {number}",
                    ).id
                )
    schedule = random.Random(f"{seed}/schedule")
    pending = [
        _learner_work(sessions, bank, learner_id, number, seed)
        for number, learner_id in enumerate(learner_ids, start=1)
    ]
    while pending:
        index = schedule.randrange(len(pending))
        if next(pending[index], StopIteration) is StopIteration:
            pending[index] = pending[-1]
            pending.pop()
    _review(sessions, instructor_id, seed)
    return Course(instructor_id, tuple(learner_ids), row_counts(sessions))


def row_counts(sessions: sessionmaker[Session]) -> dict[str, int]:
    models = {
        "users": store.User,
        "drill_variants": store.DrillVariant,
        "submissions": store.Submission,
        "quiz_answers": store.QuizAnswer,
        "open_answer_reviews": store.OpenAnswerReview,
        "skill_progress": store.SkillProgressRecord,
    }
    with sessions() as session:
        store.begin_read_only(session)
        return {
            name: session.scalar(select(func.count()).select_from(model))
            for name, model in models.items()
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=50, help="class size (default 50)")
    parser.add_argument(
        "--database-url", help="the database (default: DATABASE_URL, else the instance's SQLite)"
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--content", type=Path, default=REPO / "content", help="the question bank (content/)"
    )
    args = parser.parse_args()
    if args.learners < 1:
        parser.error("--learners must be at least 1")
    url = args.database_url or store.database_url()
    migrate.upgrade(url)
    engine = store.make_engine(url)
    started = time.perf_counter()
    try:
        course = seed_course(
            store.make_session_factory(engine),
            load_bank(args.content, drill_param_models()),
            args.learners,
            seed=args.seed,
        )
    except store.DuplicateUser as exc:
        sys.exit(f"error: {exc}: seed an empty database")
    finally:
        engine.dispose()
    rows = ", ".join(f"{count} {name}" for name, count in course.rows.items())
    print(f"seeded {args.learners} learners in {time.perf_counter() - started:.1f} s: {rows}")


if __name__ == "__main__":
    main()
