"""Item statistics (Moodle's facility and discrimination indices), computed by hand."""

from __future__ import annotations

import math

import pytest

from quizsvc.reports import ItemStats, format_item_table, item_statistics, pearson


def by_id(stats: list[ItemStats]) -> dict[str, ItemStats]:
    return {s.question_id: s for s in stats}


def test_items_are_chapter_questions_then_drills_in_bank_order(seeded, session, bank):
    stats = item_statistics(session, bank)
    assert [(s.question_id, s.question_type, s.kind, s.points) for s in stats] == [
        ("q-single", "single_choice", None, 1.0),
        ("q-multi", "multiple_choice", None, 2.0),
        ("q-open", "open", None, 1.0),
        ("d-scores", "drill", "score_row", 1.0),
        ("d-softmax", "drill", "softmax_row", 1.0),
        ("d-scores-2", "drill", "score_row", 1.0),
    ]


def test_the_seeded_class_by_hand(seeded, session, bank):
    """Students' item scores (grace, an instructor, does not count):

    ======  ========  =======  ==============  ==============  =========
    student q-single  q-multi  q-open          d-scores (best) d-softmax
    ======  ========  =======  ==============  ==============  =========
    ada     1         0.5      0.75 (reviewed) 0.9 (0.5, 0.9)  1
    bo      0                  awaiting: none  0.25
    cy      1 (2nd)
    ======  ========  =======  ==============  ==============  =========

    Totals, sum(points x score): ada 1 + 2 x 0.5 + 0.75 + 0.9 + 1 = 4.65, bo 0.25, cy 1.
    """
    stats = by_id(item_statistics(session, bank))

    # q-single: x = (1, 0, 1), rest = (4.65 - 1, 0.25 - 0, 1 - 1) = (3.65, 0.25, 0).
    # mean x 2/3, deviations (1/3, -2/3, 1/3); mean rest 1.3, deviations (2.35, -1.05, -1.3)
    # sxy = (2.35 + 2.1 - 1.3) / 3 = 1.05; sxx = 6/9; syy = 2.35² + 1.05² + 1.3² = 8.315
    single = stats["q-single"]
    assert (single.students, single.attempts) == (3, 4)  # cy answered twice
    assert single.mean_score == pytest.approx(2 / 3)
    assert single.facility == pytest.approx(200 / 3)
    assert single.discrimination == pytest.approx(100 * 1.05 / math.sqrt(6 / 9 * 8.315))
    assert single.discrimination == pytest.approx(44.597, abs=1e-3)

    # d-scores: two students, x = (0.9, 0.25), rest = (3.75, 0): two points correlate +1
    scores = stats["d-scores"]
    assert (scores.students, scores.attempts) == (2, 3)
    assert scores.mean_score == pytest.approx(0.575)
    assert scores.facility == pytest.approx(57.5)
    assert scores.discrimination == pytest.approx(100.0)

    # q-open: bo's answer awaits review, so one student: no discrimination
    open_ = stats["q-open"]
    assert (open_.students, open_.attempts, open_.mean_score) == (1, 2, 0.75)
    assert open_.facility == 75.0 and open_.discrimination is None

    assert (stats["q-multi"].students, stats["q-multi"].facility) == (1, 50.0)
    assert (stats["d-softmax"].students, stats["d-softmax"].facility) == (1, 100.0)
    untouched = stats["d-scores-2"]
    assert (untouched.students, untouched.attempts) == (0, 0)
    assert untouched.mean_score is untouched.facility is untouched.discrimination is None


def test_four_students_by_hand(seeder, sessions, bank):
    """Items q-single, q-multi (2 points) and d-scores; scores

    =====  ========  =======  ========
    who    q-single  q-multi  d-scores
    =====  ========  =======  ========
    s1     1         1        1
    s2     1         0        1
    s3     0         1        0
    s4     0         0        0.5
    =====  ========  =======  ========

    q-single: x = (1, 1, 0, 0), rest = (2 + 1, 0 + 1, 2 + 0, 0 + 0.5) = (3, 1, 2, 0.5);
    mean x 0.5, deviations ±0.5; mean rest 1.625, deviations (1.375, -0.625, 0.375,
    -1.125); sxy = 0.5 x (1.375 - 0.625 - 0.375 + 1.125) = 0.75; sxx = 1;
    syy = 1.890625 + 0.390625 + 0.140625 + 1.265625 = 3.6875.
    q-multi: x = (1, 0, 1, 0), rest = (2, 2, 0, 0.5): mean 1.125, deviations
    (0.875, 0.875, -1.125, -0.625); sxy = 0.5 x (0.875 - 0.875 - 1.125 + 0.625) = -0.25;
    syy = 0.765625 + 0.765625 + 1.265625 + 0.390625 = 3.1875.
    """
    learners = [seeder.user(f"s{i}") for i in range(1, 5)]
    single = [1.0, 1.0, 0.0, 0.0]
    multi = [1.0, 0.0, 1.0, 0.0]
    drill = [1.0, 1.0, 0.0, 0.5]
    for learner, a, b, d in zip(learners, single, multi, drill, strict=True):
        seeder.choose(learner, "q-single", ["B"] if a else ["A"], a, 1)
        seeder.choose(learner, "q-multi", ["a", "c"] if b else ["b"], b, 2)
        variant = seeder.variant(learner, "d-scores", 1, 3)
        seeder.submit(learner, variant, d, 4)
    with sessions() as session:
        stats = by_id(item_statistics(session, bank))
    assert stats["q-single"].facility == 50.0
    assert stats["q-single"].discrimination == pytest.approx(100 * 0.75 / math.sqrt(3.6875))
    assert stats["q-multi"].facility == 50.0
    assert stats["q-multi"].discrimination == pytest.approx(100 * -0.25 / math.sqrt(3.1875))
    assert stats["d-scores"].facility == pytest.approx(62.5)


def test_no_variance_or_fewer_than_two_students_gives_no_discrimination(seeder, sessions, bank):
    for name in ("s1", "s2", "s3"):
        seeder.choose(seeder.user(name), "q-single", ["B"], 1.0, 1)
    with sessions() as session:
        single = by_id(item_statistics(session, bank))["q-single"]
    assert (single.students, single.facility, single.discrimination) == (3, 100.0, None)


def test_pearson():
    assert pearson([1, 2, 3], [2, 4, 6]) == pytest.approx(1.0)
    assert pearson([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert pearson([1], [5]) is None
    assert pearson([0.1, 0.1, 0.1], [1, 2, 3]) is None  # constant, not float noise
    assert pearson([1, 2, 3], [7, 7, 7]) is None


def test_pearson_refuses_samples_of_different_lengths_however_short():
    with pytest.raises(ValueError, match="same length"):
        pearson([0.5], [1.0, 2.0])
    with pytest.raises(ValueError, match="same length"):
        pearson([], [1.0])


def test_pearson_stays_within_plus_minus_one_despite_rounding():
    # unclamped, sxy / sqrt(sxx syy) is 1.0000000000000002 for these two students
    xs, ys = [0.7, 0.9], [0.7 * 0.2, 0.9 * 0.2]
    assert pearson(xs, ys) == 1.0
    assert pearson(xs, [-y for y in ys]) == -1.0


def test_pearson_of_a_spread_too_small_to_square_is_none():
    # (5e-201)² underflows to 0: no variance left to divide by
    assert pearson([0.0, 1e-200], [0.0, 1.0]) is None
    assert pearson([0.0, 1.0], [0.0, 1e-200]) is None


def test_the_table_has_a_line_per_item(seeded, session, bank):
    table = format_item_table(item_statistics(session, bank))
    lines = table.splitlines()
    assert lines[0].split() == [
        "question", "type", "points", "students", "attempts", "mean", "facility", "discr.",
    ]  # fmt: skip
    assert lines[1].split() == [
        "q-single", "single_choice", "1", "3", "4", "0.667", "66.7%", "44.6%",
    ]  # fmt: skip
    assert lines[6].split() == ["d-scores-2", "score_row", "1", "0", "0", "-", "-", "-"]


def test_the_table_left_aligns_the_names_and_right_aligns_the_numbers():
    stats = [
        ItemStats("q1", "single_choice", None, 1.0, 12, 15, 0.5, 50.0, 12.5),
        ItemStats("drill-long-id", "drill", "score_row", 2.5, 3, 100, None, None, None),
    ]
    assert format_item_table(stats).splitlines() == [
        "question       type           points  students  attempts   mean  facility  discr.",
        "q1             single_choice       1        12        15  0.500     50.0%   12.5%",
        "drill-long-id  score_row         2.5         3       100      -         -       -",
    ]
