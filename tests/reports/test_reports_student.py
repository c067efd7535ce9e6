"""One student's report: progress per skill, chapter answers with reviews, drill history."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from quizsvc.reports import student_report
from quizsvc.store import NotFound


def minute(m: int) -> datetime:
    return datetime(2026, 11, 30, 9, m, tzinfo=UTC)


def test_ada(seeded, session, bank):
    report = student_report(session, bank, seeded.ada, history_limit=2)
    assert (report.student_id, report.name, report.display_name, report.role) == (
        seeded.ada,
        "ada",
        "Ada Lovelace",
        "student",
    )
    # the bank's drill skills, in bank order: her drills on them (her chapter answers,
    # tagged softmax, qkv and multi_head, are the chapter's, not the skills')
    skills = [
        (s.skill, s.in_bank, s.progress.attempts, s.progress.best_score, s.progress.mastery)
        for s in report.skills
    ]
    assert skills == [
        ("scores", True, 2, 0.9, 0.45),  # one variant: 0.5, then 0.9 on its second try
        ("softmax", True, 1, 1.0, 0.5),  # d-softmax 1.0
    ]
    answers = {line.question_id: line for line in report.chapter_answers}
    assert list(answers) == ["q-single", "q-multi", "q-open"]
    assert answers["q-single"].answer.choices == ["B"] and answers["q-single"].score == 1.0
    assert answers["q-multi"].answer.choices == ["a", "c"] and answers["q-multi"].score == 0.5
    opened = answers["q-open"]
    assert (opened.answer.text, opened.score, opened.answer.suggested_score) == (
        seeded.ADA_OPEN,
        0.75,
        0.6,
    )
    assert (opened.review_comment, opened.awaiting_review) == (seeded.REVIEW_COMMENT, False)
    assert opened.chapter_id == "ch" and opened.question.points == 1.0
    assert report.chapter_total == 0.6875
    # newest first, at most history_limit
    assert [
        (h.submission_id, h.question_id, h.kind, h.seed, h.attempt, h.raw_score, h.score)
        for h in report.drill_history
    ] == [
        (seeded.drill[2], "d-softmax", "softmax_row", 12, 1, 1.0, 1.0),
        (seeded.drill[1], "d-scores", "score_row", 11, 2, 1.0, 0.9),
    ]
    assert report.drill_history[1].penalty == 0.1
    assert report.drill_history[1].submitted_at == minute(21)
    assert report.drill_submissions == 3  # two shown, so the history says it is cut
    assert report.last_activity == minute(22)


def test_bo_has_an_answer_awaiting_review(seeded, session, bank):
    report = student_report(session, bank, seeded.bo)
    assert [(s.skill, s.progress and s.progress.mastery) for s in report.skills] == [
        ("scores", 0.125),
        ("softmax", None),  # not tried, whatever her chapter answers' tags
    ]
    opened = report.chapter_answers[2]
    assert (opened.answered, opened.awaiting_review, opened.score) == (True, True, None)
    assert report.chapter_total == 0.0
    assert (len(report.drill_history), report.drill_submissions) == (1, 1)


def test_a_student_who_did_nothing(seeded, session, bank):
    report = student_report(session, bank, seeded.dee)
    assert [(s.skill, s.progress) for s in report.skills] == [("scores", None), ("softmax", None)]
    assert [line.answered for line in report.chapter_answers] == [False, False, False]
    # not started: no total rather than a 0 % that reads as a failed test
    assert (report.chapter_total, report.drill_history, report.last_activity) == (None, (), None)
    assert report.drill_submissions == 0


def test_an_unknown_user_is_not_found(seeded, session, bank):
    with pytest.raises(NotFound):
        student_report(session, bank, 10_000)


def test_the_history_holds_the_latest_submissions_up_to_the_limit(seeded, session, bank):
    ada = [h.submission_id for h in student_report(session, bank, seeded.ada).drill_history]
    assert ada == [seeded.drill[2], seeded.drill[1], seeded.drill[0]]
    one = student_report(session, bank, seeded.ada, history_limit=1).drill_history
    assert [h.submission_id for h in one] == [seeded.drill[2]]
    assert student_report(session, bank, seeded.ada, history_limit=0).drill_history == ()


def test_by_default_the_history_stops_at_twenty(seeder, sessions, bank):
    kim = seeder.user("kim")
    submissions = []
    for v in range(7):  # three attempts per variant
        variant = seeder.variant(kim, "d-scores", v, 3 * v)
        submissions += [seeder.submit(kim, variant, 0.5, 3 * v + i) for i in range(3)]
    with sessions() as session:
        history = student_report(session, bank, kim).drill_history
    assert [h.submission_id for h in history] == submissions[::-1][:20]
