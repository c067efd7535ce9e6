"""A chapter's schedule: the rule at its boundaries, and bad schedules as content errors
with their file, path and line."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from bank_samples import OPEN_QUESTION

from quizsvc.bank import ContentProblem, load_bank
from quizsvc.bank.schedule import (
    DrillSchedule,
    Extension,
    LatePolicy,
    QuizSchedule,
    Refusal,
    after_late_penalty,
    judge,
)

OPENS = datetime(2026, 9, 1, 9, 0, tzinfo=timezone(timedelta(hours=8)))  # 01:00 UTC
CLOSES = datetime(2026, 9, 8, 1, 0, tzinfo=UTC)
SECOND = timedelta(seconds=1)

REFUSE = DrillSchedule(opens=OPENS, closes=CLOSES)
PENALTY = DrillSchedule(opens=OPENS, closes=CLOSES, late=LatePolicy(policy="penalty", penalty=0.25))


@pytest.mark.parametrize(
    ("now", "refusal"),
    [
        (datetime(2026, 9, 1, 0, 59, 59, tzinfo=UTC), Refusal.NOT_OPEN),
        (datetime(2026, 9, 1, 1, 0, tzinfo=UTC), None),  # the opening instant is open
        (CLOSES - SECOND, None),
        (CLOSES, Refusal.CLOSED),  # the closing instant is closed
        (CLOSES + timedelta(days=30), Refusal.CLOSED),
    ],
)
def test_the_window_includes_opens_and_excludes_closes(now, refusal):
    verdict = judge(REFUSE, now)
    assert verdict.refusal is refusal
    assert verdict.late_penalty == 0.0


def test_no_schedule_takes_every_answer():
    verdict = judge(None, datetime(1990, 1, 1, tzinfo=UTC))
    assert (verdict.refusal, verdict.late_penalty) == (None, 0.0)


def test_a_later_close_for_one_learner_takes_their_answer_until_it():
    extension = Extension(closes=CLOSES + timedelta(days=2))
    assert judge(REFUSE, CLOSES + timedelta(days=1), extension=extension).refusal is None
    assert judge(REFUSE, CLOSES + timedelta(days=2) - SECOND, extension=extension).refusal is None
    assert judge(REFUSE, CLOSES + timedelta(days=2), extension=extension).refusal is Refusal.CLOSED
    # an "extension" earlier than the close shortens nothing
    earlier = Extension(closes=CLOSES - timedelta(days=1))
    assert judge(REFUSE, CLOSES - SECOND, extension=earlier).refusal is None


def test_a_late_answer_is_taken_with_the_penalty():
    assert judge(PENALTY, CLOSES - SECOND).late_penalty == 0.0
    verdict = judge(PENALTY, CLOSES)
    assert (verdict.refusal, verdict.late_penalty, verdict.late) == (None, 0.25, True)
    # 0.8 with a quarter of it taken off
    assert after_late_penalty(0.8, verdict.late_penalty) == pytest.approx(0.6)


def test_late_answers_are_refused_from_until_on():
    schedule = DrillSchedule(
        closes=CLOSES,
        late=LatePolicy(policy="penalty", penalty=0.5, until=CLOSES + timedelta(hours=1)),
    )
    assert judge(schedule, CLOSES + timedelta(hours=1) - SECOND).late_penalty == 0.5
    assert judge(schedule, CLOSES + timedelta(hours=1)).refusal is Refusal.CLOSED


def test_a_time_limit_counts_from_the_start_with_the_learner_s_extra_minutes():
    quiz = QuizSchedule(opens=OPENS, closes=CLOSES, time_limit=30)
    started = datetime(2026, 9, 2, 10, 0, tzinfo=UTC)
    assert judge(quiz, started).refusal is Refusal.NOT_STARTED
    assert judge(quiz, started, starting=True).refusal is None
    assert judge(quiz, started + timedelta(minutes=30) - SECOND, started_at=started).refusal is None
    verdict = judge(quiz, started + timedelta(minutes=30), started_at=started)
    assert verdict.refusal is Refusal.TIME_UP
    assert verdict.ends == datetime(2026, 9, 2, 10, 30, tzinfo=UTC)
    extra = Extension(extra_minutes=15)
    at = started + timedelta(minutes=45)
    assert judge(quiz, at - SECOND, started_at=started, extension=extra).refusal is None
    assert judge(quiz, at, started_at=started, extension=extra).refusal is Refusal.TIME_UP
    # a quiz not open yet cannot be started either
    assert judge(quiz, OPENS - SECOND, starting=True).refusal is Refusal.NOT_OPEN


# --- content errors ------------------------------------------------------------------------

# Lines: 1 id, 2 order, 3 title, 4 zh, 5 en, 6 quiz, 7 opens, 8 closes, 9 late, 10 policy
CHAPTER = """\
id: ch
order: 1
title:
  zh: 章节
  en: Chapter
quiz:
  opens: 2026-09-01T09:00:00+08:00
  closes: 2026-09-08T09:00:00+08:00
  late:
    policy: refuse
"""


def chapter_error(content_errors, old: str, new: str):
    assert old in CHAPTER
    errors = content_errors({"ch/chapter.yaml": CHAPTER.replace(old, new), "ch/q.yaml": OPEN})
    assert len(errors) == 1, errors
    return errors[0]


OPEN = OPEN_QUESTION


def test_a_schedule_loads_with_its_moments(make_content, drill_kinds):
    bank = load_bank(make_content({"ch/chapter.yaml": CHAPTER, "ch/q.yaml": OPEN}), drill_kinds)
    quiz = bank.chapter("ch").quiz
    assert quiz.opens == datetime(2026, 9, 1, 1, 0, tzinfo=UTC)
    assert quiz.closes == datetime(2026, 9, 8, 1, 0, tzinfo=UTC)
    assert bank.chapter("ch").drills is None


def test_a_time_without_a_zone_is_an_error_at_its_line(content_errors):
    error = chapter_error(content_errors, "2026-09-08T09:00:00+08:00", "2026-09-08 09:00:00")
    assert (error.file, error.path, error.line) == ("ch/chapter.yaml", "quiz.closes", 8)
    assert error.code is ContentProblem.NAIVE_DATETIME
    assert error.message.startswith("2026-09-08 09:00:00 has no time zone")


def test_a_date_alone_is_an_error_too(content_errors):
    error = chapter_error(content_errors, "2026-09-01T09:00:00+08:00", "2026-09-01")
    assert (error.path, error.line, error.code) == ("quiz.opens", 7, ContentProblem.NAIVE_DATETIME)


def test_text_that_is_no_moment_is_an_error(content_errors):
    error = chapter_error(content_errors, "2026-09-01T09:00:00+08:00", "next monday")
    assert (error.path, error.line, error.code) == ("quiz.opens", 7, ContentProblem.NOT_A_DATETIME)


def test_closes_before_opens_is_an_error_at_closes(content_errors):
    error = chapter_error(content_errors, "2026-09-08T09:00:00+08:00", "2026-08-08T09:00:00Z")
    assert (error.path, error.line) == ("quiz.closes", 8)
    assert error.code is ContentProblem.CLOSES_NOT_AFTER_OPENS
    assert error.message == (
        "closes (2026-08-08T09:00:00+00:00) must be later than opens (2026-09-01T09:00:00+08:00)"
    )


def test_an_unknown_policy_is_an_error_at_its_line(content_errors):
    error = chapter_error(content_errors, "policy: refuse", "policy: forgive")
    assert (error.path, error.line) == ("quiz.late.policy", 10)
    assert error.message == "Input should be 'refuse' or 'penalty' (got 'forgive')"


def test_a_penalty_policy_needs_its_penalty(content_errors):
    error = chapter_error(content_errors, "policy: refuse", "policy: penalty")
    assert (error.path, error.line, error.code) == (
        "quiz.late",
        9,
        ContentProblem.LATE_PENALTY_MISSING,
    )


def test_a_time_limit_is_the_quiz_s_only(content_errors):
    error = chapter_error(content_errors, "quiz:", "drills:\n  time_limit: 30\nquiz:")
    assert (error.path, error.line, error.code) == (
        "drills.time_limit",
        7,
        ContentProblem.UNKNOWN_KEY,
    )
