"""The gradebook: exact columns and values on the hand-seeded database (see conftest.py)."""

from __future__ import annotations

import csv
import io

import pytest
from sqlalchemy import event

from quizsvc.reports import (
    UTF8_BOM,
    gradebook_csv_chunks,
    gradebook_header,
    gradebook_rows,
    iter_gradebook,
    write_gradebook_csv,
)

HEADER = [
    "student_id",
    "name",
    "display_name",
    "q-single",
    "q-multi",
    "q-open",
    # d-scores and d-scores-2 are one kind: one pair of columns, in bank order
    "best:score_row",
    "mastery:score_row",
    "best:softmax_row",
    "mastery:softmax_row",
    "total",
    "drill_total",
    "last_activity",
]


def expected_rows(s) -> list[list[str]]:
    """For display: percentages to one decimal.

    Best per kind: ada's score_row variant 0.5, then 1.0 less the 0.1 penalty -> 0.9;
    softmax_row 1.0; bo's score_row 0.25.
    Mastery moves halfway to each drill variant's score, a variant counting once at its
    best attempt: ada's scores 0.9 -> 0.45; softmax 1.0 -> 0.5 (q-multi, tagged softmax,
    is the chapter's, not the skill's); bo's scores 0.25 -> 0.125.
    total = sum(points x score) / sum(points), points 1, 2, 1:
      ada (1 + 2 x 0.5 + 0.75) / 4 = 0.6875 -> 68.75 %, a half, rounded up to 68.8
      as the pages round;
      bo 0 (open awaiting review counts 0); cy (latest answer 1.0) 1 / 4 = 25 %;
      dee answered nothing: empty (not started), not 0.
    drill_total = mean of the bests over the two kinds, untried 0: ada (0.9 + 1) / 2 = 95 %,
    bo (0.25 + 0) / 2 = 12.5 %; cy and dee tried none: empty.
    """
    return [
        [str(s.ada), "ada", "Ada Lovelace", "100.0", "50.0", "75.0", "90.0", "45.0", "100.0",
         "50.0", "68.8", "95.0", "2026-11-30T09:22:00Z"],
        [str(s.bo), "bo", "王小明", "0.0", "", "", "25.0", "12.5", "", "", "0.0", "12.5",
         "2026-11-30T09:23:00Z"],
        [str(s.cy), "cy", s.CY_DISPLAY, "100.0", "", "", "", "", "", "", "25.0", "",
         "2026-11-30T09:07:00Z"],
        [str(s.dee), "dee", s.DEE_DISPLAY, "", "", "", "", "", "", "", "", "", ""],
    ]  # fmt: skip


def expected_exact_rows(s) -> list[list[str]]:
    """The same values as the store keeps them, fractions from 0 to 1."""
    return [
        [str(s.ada), "ada", "Ada Lovelace", "1.0", "0.5", "0.75", "0.9", "0.45", "1.0", "0.5",
         "0.6875", "0.95", "2026-11-30T09:22:00Z"],
        [str(s.bo), "bo", "王小明", "0.0", "", "", "0.25", "0.125", "", "", "0.0", "0.125",
         "2026-11-30T09:23:00Z"],
        [str(s.cy), "cy", s.CY_DISPLAY, "1.0", "", "", "", "", "", "", "0.25", "",
         "2026-11-30T09:07:00Z"],
        [str(s.dee), "dee", s.DEE_DISPLAY, "", "", "", "", "", "", "", "", "", ""],
    ]  # fmt: skip


def test_the_header_lists_chapter_questions_then_drill_kinds_in_bank_order(bank):
    assert gradebook_header(bank) == HEADER


def test_rows_hold_latest_scores_bests_mastery_totals_and_last_activity(seeded, session, bank):
    # grace (an instructor) is not in the gradebook; the review (minute 10) is not ada's
    # activity; cy's latest answer counts, not the first.
    assert list(gradebook_rows(session, bank)) == expected_rows(seeded)


def test_the_exact_rows_keep_the_fractions(seeded, session, bank):
    assert list(gradebook_rows(session, bank, exact=True)) == expected_exact_rows(seeded)


def test_the_display_decimals_are_configurable(seeded, session, bank):
    total = HEADER.index("total")
    rows = {row[1]: row for row in gradebook_rows(session, bank, decimals=2)}
    assert (rows["ada"][total], rows["ada"][HEADER.index("mastery:score_row")]) == (
        "68.75",
        "45.00",
    )
    rows = {row[1]: row for row in gradebook_rows(session, bank, decimals=0)}
    # 68.75 -> 69; 12.5, a half, up to 13 (as the pages round, not to the even 12)
    assert (rows["ada"][total], rows["bo"][HEADER.index("drill_total")]) == ("69", "13")
    for wrong in (-1, 7, 1.5, True):
        with pytest.raises(ValueError, match="decimals"):
            list(gradebook_rows(session, bank, decimals=wrong))


def test_typed_rows_for_the_web_pages(seeded, session, bank):
    rows = {row.name: row for row in iter_gradebook(session, bank)}
    assert list(rows) == ["ada", "bo", "cy", "dee"]
    assert rows["bo"].scores == {"q-single": 0.0, "q-multi": None, "q-open": None}
    assert rows["bo"].best == {"score_row": 0.25, "softmax_row": None}
    assert rows["bo"].mastery == {"score_row": 0.125, "softmax_row": None}
    assert rows["ada"].best == {"score_row": 0.9, "softmax_row": 1.0}
    assert (rows["ada"].drill_total, rows["bo"].drill_total, rows["cy"].drill_total) == (
        0.95,
        0.125,
        None,
    )
    assert rows["ada"].total == 0.6875
    assert rows["bo"].total == 0.0  # answered (wrong, and one awaiting review): started
    assert rows["dee"].total is None  # answered nothing: not started
    assert rows["dee"].last_activity is None


def read_csv(data: bytes) -> list[list[str]]:
    assert data.startswith(UTF8_BOM)
    return list(csv.reader(io.StringIO(data[len(UTF8_BOM) :].decode("utf-8"), newline="")))


def test_the_csv_is_utf8_with_a_bom_and_escapes_commas_quotes_and_line_breaks(
    seeded, session, bank
):
    out = io.BytesIO()
    write_gradebook_csv(session, bank, out)
    data = out.getvalue()
    assert data.startswith(b"\xef\xbb\xbfstudent_id,name,display_name,q-single,")
    assert data.count(UTF8_BOM) == 1
    text = data.decode("utf-8-sig")
    assert "王小明" in text
    # quoted, quotes doubled, the line break kept inside the quotes; CRLF ends records
    assert '"Cy ""Q"", Jr.\nSmith"' in text
    assert text.endswith(",,,,,,,,,,\r\n")  # dee, who did nothing: every cell empty
    rows = read_csv(data)
    assert rows[0] == HEADER
    expected = expected_rows(seeded)
    expected[3][2] = "'" + seeded.DEE_DISPLAY  # a formula-looking cell is defused
    assert rows[1:] == expected


def test_the_chunks_are_the_same_file(seeded, session, bank):
    out = io.BytesIO()
    write_gradebook_csv(session, bank, out)
    assert b"".join(gradebook_csv_chunks(session, bank)) == out.getvalue()


def test_an_empty_database_gives_the_header_only(sessions, bank):
    with sessions() as session:
        assert b"".join(gradebook_csv_chunks(session, bank)) == (
            UTF8_BOM + ",".join(HEADER).encode() + b"\r\n"
        )


def test_an_open_answer_awaiting_review_is_empty_and_a_later_one_replaces_a_score(
    seeder, sessions, bank
):
    ada = seeder.user("ada")
    grace = seeder.user("grace", role="instructor")
    first = seeder.write(ada, "q-open", "heads see different subspaces", 0.9, 1)
    seeder.review(first, grace, 1.0, "", 2)
    with sessions() as session:
        (row,) = iter_gradebook(session, bank)
    assert (row.scores["q-open"], row.total) == (1.0, 0.25)
    seeder.write(ada, "q-open", "a second try", 0.9, 3)  # the latest: awaiting review
    with sessions() as session:
        (row,) = iter_gradebook(session, bank)
    assert (row.scores["q-open"], row.total) == (None, 0.0)


def test_drills_alone_do_not_start_the_chapter_and_one_answer_does(seeder, sessions, bank):
    eve = seeder.user("eve")
    seeder.submit(eve, seeder.variant(eve, "d-scores", 21, 1), 1.0, 2)
    with sessions() as session:
        (row,) = iter_gradebook(session, bank)
        (cells,) = gradebook_rows(session, bank)
    # practice only: the chapter is not started, so no total (rather than 0)
    assert (row.mastery["score_row"], row.best["score_row"], row.total) == (0.5, 1.0, None)
    assert cells[HEADER.index("total")] == ""
    seeder.choose(eve, "q-single", ["A"], 0.0, 3)
    with sessions() as session:
        (row,) = iter_gradebook(session, bank)
    assert row.total == 0.0  # one wrong answer: started, and 0 of 4 points


def test_display_numbers_are_rounded_and_exact_ones_keep_every_digit(seeder, sessions, bank):
    # q-multi (2 of the chapter's 4 points) at a third: total (2 x 1/3) / 4 = 1/6
    fay = seeder.user("fay")
    seeder.choose(fay, "q-multi", ["a"], 1 / 3, 1)
    with sessions() as session:
        (shown,) = gradebook_rows(session, bank)
        (exact,) = gradebook_rows(session, bank, exact=True)
    assert (shown[HEADER.index("q-multi")], shown[HEADER.index("total")]) == ("33.3", "16.7")
    assert exact[HEADER.index("q-multi")] == "0.3333333333333333"
    assert exact[HEADER.index("total")] == "0.16666666666666666"
    # the shortest text that reads back as the very same float
    assert float(exact[HEADER.index("q-multi")]) == 1 / 3
    assert float(exact[HEADER.index("total")]) == 1 / 6


def test_the_reports_take_a_fixed_number_of_queries(seeded, engine, sessions, bank):
    """No query per student or per question (a BEGIN is not counted)."""
    from quizsvc.reports import item_statistics, student_report

    statements: list[str] = []

    def count(conn, cursor, statement, parameters, context, executemany):
        if not statement.lstrip().upper().startswith("BEGIN"):
            statements.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        for expected, report in (
            (6, lambda session: list(gradebook_rows(session, bank))),
            (4, lambda session: item_statistics(session, bank)),
            (8, lambda session: student_report(session, bank, seeded.ada)),  # +1: the count
        ):
            with sessions() as session:
                statements.clear()
                report(session)
                assert len(statements) == expected, statements
    finally:
        event.remove(engine, "before_cursor_execute", count)
