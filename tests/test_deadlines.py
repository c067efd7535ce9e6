"""The chapter's schedule applied to a learner's answers, in the domain (no web): refusals at
the boundaries with and without an extension, a timed quiz's clock, and a late answer's score
with the penalty taken off (a choice, a drill after its tries penalty, an open answer's
review), each expected value worked out here."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from quizsvc import deadlines, practice, store
from quizsvc.bank import load_bank
from quizsvc.bank.schedule import Refusal
from quizsvc.drills import drill_param_models

CONTENT = Path(__file__).resolve().parents[1] / "content"
CHAPTER = "transformer-by-hand"
OPENS = datetime(2026, 9, 1, 1, 0, tzinfo=UTC)
CLOSES = datetime(2026, 9, 8, 1, 0, tzinfo=UTC)
SECOND = timedelta(seconds=1)


def bank_with(tmp_path: Path, schedule: str):
    content = tmp_path / "content"
    shutil.copytree(CONTENT, content)
    chapter = content / CHAPTER / "chapter.yaml"
    chapter.write_text(chapter.read_text(encoding="utf-8") + "\n" + schedule, encoding="utf-8")
    return load_bank(content, drill_param_models())


def window(part: str, extra: str = "") -> str:
    return f"{part}:\n  opens: 2026-09-01T09:00:00+08:00\n  closes: 2026-09-08T01:00:00Z\n{extra}"


PENALTY = "  late:\n    policy: penalty\n    penalty: 0.25\n"


@pytest.fixture
def learners(session_factory):
    with session_factory() as session:
        return [
            store.create_user(session, name=name, role="student", password="x" * 12).id
            for name in ("ada", "bo")
        ]


def answer(session, bank, learner, when, key, question="qkv-origin", choice="B"):
    return practice.answer_question(
        session, bank, learner, question, key, choices=[choice], now=when
    )


def test_a_quiz_takes_answers_from_opens_until_just_before_closes(
    tmp_path, session_factory, learners
):
    bank = bank_with(tmp_path, window("quiz"))
    ada, _ = learners
    with session_factory() as session:
        with pytest.raises(deadlines.DeadlineRefused) as refused:
            answer(session, bank, ada, OPENS - SECOND, "k0")
        assert (refused.value.refusal, refused.value.status) == (Refusal.NOT_OPEN, 403)
        assert answer(session, bank, ada, OPENS, "k1", "scaling-by-sqrt-dk").score == 1.0
        assert answer(session, bank, ada, CLOSES - SECOND, "k2").score == 1.0
        with pytest.raises(deadlines.DeadlineRefused) as refused:
            answer(session, bank, ada, CLOSES, "k3", "masked-self-attention")
        assert refused.value.refusal is Refusal.CLOSED
        assert refused.value.verdict.closes == CLOSES


def test_an_extension_moves_the_close_for_its_learner_alone(tmp_path, session_factory, learners):
    bank = bank_with(tmp_path, window("quiz"))
    ada, bo = learners
    later = CLOSES + timedelta(days=1)
    with session_factory() as session:
        store.set_extension(
            session, learner_id=ada, chapter_id=CHAPTER, part="quiz", closes_at=later,
            extra_minutes=0, set_by=None,
        )  # fmt: skip
        assert answer(session, bank, ada, later - SECOND, "k1").score == 1.0
        with pytest.raises(deadlines.DeadlineRefused):
            answer(session, bank, bo, CLOSES, "k2")
        with pytest.raises(deadlines.DeadlineRefused):
            answer(session, bank, ada, later, "k3", "scaling-by-sqrt-dk")


def test_a_late_choice_answer_loses_the_penalty_as_a_fraction_of_its_score(
    tmp_path, session_factory, learners
):
    bank = bank_with(tmp_path, window("quiz", PENALTY))
    ada, _ = learners
    with session_factory() as session:
        on_time = answer(session, bank, ada, CLOSES - SECOND, "k1")
        late = answer(session, bank, ada, CLOSES, "k2", "scaling-by-sqrt-dk")
    assert on_time.score == 1.0
    assert late.score == pytest.approx(1.0 * (1 - 0.25))


def test_a_late_open_answer_keeps_its_penalty_through_the_review(
    tmp_path, session_factory, learners
):
    bank = bank_with(tmp_path, window("quiz", PENALTY))
    ada, _ = learners
    with session_factory() as session:
        teacher = store.create_user(session, name="t", role="instructor", password="x" * 12).id
        waiting = practice.answer_question(
            session, bank, ada, "why-multi-head", "k1", text="several heads", now=CLOSES
        )
        assert waiting.score is None
        store.record_review(
            session, answer_id=waiting.answer.answer_id, reviewer_id=teacher, confirmed_score=0.6
        )
        scored = store.latest_quiz_answers(session, ada)["why-multi-head"]
    assert scored.score == pytest.approx(0.6 * 0.75)


def test_a_late_drill_answer_loses_the_penalty_after_the_tries_penalty(
    tmp_path, session_factory, learners
):
    bank = bank_with(tmp_path, window("drills", PENALTY))
    ada, _ = learners
    question = bank.questions["drill-projection"]
    with session_factory() as session:
        issued = practice.start_drill(session, bank, ada, question.id, seed=5, now=CLOSES - SECOND)
        values = practice.drill_state(session, ada, issued.id).variant.answer.values
        wrong = "; ".join(" ".join("1000" for _ in row) for row in values)
        right = "; ".join(" ".join(repr(float(v)) for v in row) for row in values)
        first = practice.submit_drill(session, ada, issued.id, wrong, "k1", bank=bank, now=CLOSES)
        second = practice.submit_drill(session, ada, issued.id, right, "k2", bank=bank, now=CLOSES)
    assert first.submission.score == 0.0
    # try 2: the drill's tries penalty first (1 - penalty x 1), then a quarter of that off
    assert second.submission.score == pytest.approx((1.0 - question.penalty) * 0.75)


def test_a_timed_quiz_counts_from_its_start_with_the_learner_s_extra_minutes(
    tmp_path, session_factory, learners
):
    bank = bank_with(tmp_path, window("quiz", "  time_limit: 20\n"))
    ada, bo = learners
    begun = OPENS + timedelta(days=1)
    with session_factory() as session:
        with pytest.raises(deadlines.DeadlineRefused) as refused:
            answer(session, bank, ada, begun, "k0")
        assert (refused.value.refusal, refused.value.status) == (Refusal.NOT_STARTED, 409)
        for learner in (ada, bo):
            assert deadlines.start_quiz(session, bank, learner, CHAPTER, now=begun) == begun
        # starting again keeps the first start
        later = begun + timedelta(minutes=5)
        assert deadlines.start_quiz(session, bank, ada, CHAPTER, now=later) == begun
        store.set_extension(
            session, learner_id=ada, chapter_id=CHAPTER, part="quiz", closes_at=None,
            extra_minutes=10, set_by=None,
        )  # fmt: skip
        ends = begun + timedelta(minutes=20)
        assert answer(session, bank, bo, ends - SECOND, "k1").score == 1.0
        with pytest.raises(deadlines.DeadlineRefused) as refused:
            answer(session, bank, bo, ends, "k2", "scaling-by-sqrt-dk")
        assert (refused.value.refusal, refused.value.verdict.ends) == (Refusal.TIME_UP, ends)
        # ada's ten extra minutes
        assert answer(session, bank, ada, ends + timedelta(minutes=10) - SECOND, "k3").score == 1.0
        with pytest.raises(deadlines.DeadlineRefused):
            answer(session, bank, ada, ends + timedelta(minutes=10), "k4", "scaling-by-sqrt-dk")
        # a quiz that has not opened cannot be started
        with pytest.raises(deadlines.DeadlineRefused):
            deadlines.start_quiz(session, bank, ada, CHAPTER, now=OPENS - SECOND)
