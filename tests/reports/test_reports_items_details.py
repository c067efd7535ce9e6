"""Item statistics' details: per-choice counts of choice questions and per-cell error rates
of drills, and the items CSV, counted by hand."""

from __future__ import annotations

import csv
import io
import math
from dataclasses import astuple

import pytest

from quizsvc.reports import (
    ITEM_COLUMNS,
    UTF8_BOM,
    CellErrors,
    ChoiceCount,
    item_statistics,
    items_csv_chunks,
)


def by_id(stats):
    return {s.question_id: s for s in stats}


def approx_rows(records):
    """Dataclass records as tuples, their last field (a percentage) to within float noise."""
    return [(*astuple(r)[:-1], pytest.approx(astuple(r)[-1])) for r in records]


def test_choice_counts_count_the_latest_answers_of_students(seeded, session, bank):
    """q-single: ada B, bo A, cy A then B (the latest, B, counts), grace (an instructor) B:
    A 1 of 3, B 2 of 3. q-multi: ada's a and c, 1 of 1 each, b none."""
    stats = by_id(item_statistics(session, bank))
    assert [astuple(c) for c in stats["q-single"].choices] == approx_rows(
        [ChoiceCount("A", 0.0, 1, 100 / 3), ChoiceCount("B", 1.0, 2, 200 / 3)]
    )
    assert stats["q-multi"].choices == (
        ChoiceCount("a", 0.5, 1, 100.0),
        ChoiceCount("b", -0.5, 0, 0.0),
        ChoiceCount("c", 0.5, 1, 100.0),
    )
    assert stats["q-open"].choices == () and stats["d-scores"].choices == ()


def cells(*wrong_places, shape):
    """Graded cells as the store keeps them (CellResult.to_json_dict), wrong at the 0-based
    places given."""
    rows, cols = shape
    return [
        {"row": r, "col": c, "submitted": 0.0, "expected": 1.0, "low": 0.9, "high": 1.1,
         "correct": (r, c) not in wrong_places}
        for r in range(rows)
        for c in range(cols)
    ]  # fmt: skip


def test_cell_error_rates_over_every_submission_of_students(seeder, sessions, bank):
    """d-scores, submissions (0-based places wrong):

    s1, 2 x 2: (0, 1) and (1, 1) wrong; then again, all right
    s2, 1 x 3 (a variant of another size): (0, 0) and (0, 2) wrong
    teacher (an instructor), 2 x 2: all wrong, not counted

    Cell (row, col) from 1: (1, 1) graded 3, wrong 1 (s2); (1, 2) 3, 1 (s1's first);
    (1, 3) 1, 1; (2, 1) 2, 0; (2, 2) 2, 1.
    """
    s1, s2 = seeder.user("s1"), seeder.user("s2")
    teacher = seeder.user("teacher", role="instructor")
    v1 = seeder.variant(s1, "d-scores", 1, 1)
    seeder.submit(s1, v1, 0.5, 2, cells=cells((0, 1), (1, 1), shape=(2, 2)))
    seeder.submit(s1, v1, 1.0, 3, cells=cells(shape=(2, 2)))
    v2 = seeder.variant(s2, "d-scores", 2, 1)
    seeder.submit(s2, v2, 1 / 3, 4, cells=cells((0, 0), (0, 2), shape=(1, 3)))
    v3 = seeder.variant(teacher, "d-scores", 3, 1)
    seeder.submit(teacher, v3, 0.0, 5, cells=cells((0, 0), (0, 1), (1, 0), (1, 1), shape=(2, 2)))
    with sessions() as session:
        stats = by_id(item_statistics(session, bank))
    assert [astuple(c) for c in stats["d-scores"].cells] == approx_rows(
        [
            CellErrors(1, 1, 3, 1, 100 / 3),
            CellErrors(1, 2, 3, 1, 100 / 3),
            CellErrors(1, 3, 1, 1, 100.0),
            CellErrors(2, 1, 2, 0, 0.0),
            CellErrors(2, 2, 2, 1, 50.0),
        ]
    )
    assert stats["d-softmax"].cells == () and stats["q-single"].cells == ()


def test_cells_the_store_did_not_grade_are_left_out(seeded, session, bank):
    # the seeded submissions hold cells of another form (no "correct"): nothing to count
    assert by_id(item_statistics(session, bank))["d-scores"].cells == ()


def test_the_items_csv_has_a_line_per_item_then_per_choice(seeded, session, bank):
    data = b"".join(items_csv_chunks(session, bank))
    assert data.startswith(UTF8_BOM) and data.count(UTF8_BOM) == 1
    rows = list(csv.reader(io.StringIO(data[len(UTF8_BOM) :].decode("utf-8"), newline="")))
    assert tuple(rows[0]) == ITEM_COLUMNS
    # q-single: 3 students, 4 answers, mean 2/3; discrimination from the sums that
    # test_reports_items.py works out by hand, to 10 decimals
    discrimination = f"{100 * 1.05 / math.sqrt(6 / 9 * 8.315):.10f}"
    assert rows[1][:9] == [
        "q-single", "single_choice", "1.0", "3", "4", "0.6666666667", "66.6666666667",
        discrimination, "",
    ]  # fmt: skip
    assert rows[2] == [
        "q-single", "single_choice", *[""] * 6, "choice:A", "1", "3", "33.3333333333", "0.0",
    ]  # fmt: skip
    assert rows[3][8:] == ["choice:B", "2", "3", "66.6666666667", "1.0"]
    assert [row[0] for row in rows[1:]] == [
        "q-single", "q-single", "q-single",
        "q-multi", "q-multi", "q-multi", "q-multi",
        "q-open", "d-scores", "d-softmax", "d-scores-2",
    ]  # fmt: skip
    assert rows[-1][3:8] == ["0", "0", "", "", ""]  # d-scores-2: nobody, no statistics
