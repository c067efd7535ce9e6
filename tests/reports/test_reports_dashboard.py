"""The class at a glance, computed by hand from the seeded class (conftest.py's table): four
students (ada, bo, cy, dee; grace is an instructor), scores per item as in
test_reports_items.test_the_seeded_class_by_hand."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from quizsvc.reports.dashboard import class_glance, histogram

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)  # conftest.py's, where the seeded work starts


def test_histogram_buckets_tenths_with_one_in_the_last():
    assert histogram([0.0, 0.05, 0.1, 0.55, 0.9, 0.99, 1.0]) == (2, 1, 0, 0, 0, 1, 0, 0, 0, 3)
    assert histogram([]) == (0,) * 10


def test_the_seeded_class_at_a_glance(seeded, session, bank):
    glance = class_glance(session, bank, now=T0 + timedelta(hours=1))
    assert glance.students == 4
    # ada, bo and cy worked within the week before; dee did nothing, grace is no student
    assert glance.active == 3
    later = class_glance(session, bank, now=T0 + timedelta(days=7, minutes=30))
    assert later.active == 0  # the last student's work (+23 min) is over 7 days old

    questions = {item.key: item for item in glance.questions}
    assert list(questions) == ["q-single", "q-multi", "q-open"]
    single = questions["q-single"]  # ada 1, bo 0, cy 1 (her second try)
    assert (single.students, single.completion) == (3, 3 / 4)
    assert single.mean_score == pytest.approx(2 / 3)
    assert single.histogram == (1, 0, 0, 0, 0, 0, 0, 0, 0, 2)
    open_ = questions["q-open"]  # ada's reviewed 0.75; bo's awaits review: no score
    assert (open_.students, open_.completion, open_.mean_score) == (1, 1 / 4, 0.75)
    assert open_.histogram == (0, 0, 0, 0, 0, 0, 0, 1, 0, 0)

    kinds = {item.key: item for item in glance.drill_kinds}
    assert list(kinds) == ["score_row", "softmax_row"]
    # score_row: d-scores and d-scores-2, best per student: ada 0.9, bo 0.25
    scores = kinds["score_row"]
    assert (scores.students, scores.completion, scores.question_id) == (2, 2 / 4, "d-scores")
    assert scores.mean_score == pytest.approx((0.9 + 0.25) / 2)
    assert scores.histogram == (0, 0, 1, 0, 0, 0, 0, 0, 0, 1)
    assert (kinds["softmax_row"].students, kinds["softmax_row"].mean_score) == (1, 1.0)

    # lowest mean first: q-multi 0.5, score_row 0.575, q-single 2/3, q-open 0.75, softmax 1
    assert [item.key for item in glance.hardest] == [
        "q-multi",
        "score_row",
        "q-single",
        "q-open",
        "softmax_row",
    ]
    # bo's open answer (+5 min) is the one waiting
    assert glance.awaiting_review == 1
    [waiting] = glance.oldest_awaiting
    assert (waiting.question_id, waiting.answered_at) == ("q-open", T0 + timedelta(minutes=5))


def test_an_empty_class(session, bank):
    glance = class_glance(session, bank, now=T0)
    assert (glance.students, glance.active, glance.awaiting_review) == (0, 0, 0)
    assert all(item.completion is None and item.mean_score is None for item in glance.questions)
    assert glance.hardest == ()
