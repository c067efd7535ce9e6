"""The gradebook as XLSX: the same values as the CSV, as number and text cells, read back
from the file's XML (and through openpyxl too, where it is installed)."""

from __future__ import annotations

import io

import pytest
from test_reports_gradebook import HEADER, expected_exact_rows, expected_rows
from xlsx_cells import read_sheet

from quizsvc.reports import gradebook_xlsx_chunks, write_gradebook

TEXT_COLUMNS = {"name", "display_name", "last_activity"}


def xlsx(session, bank, **options) -> bytes:
    return b"".join(gradebook_xlsx_chunks(session, bank, **options))


def check_sheet(data: bytes, rows: list[list[str]], number_format: str) -> None:
    """Each cell holds what the CSV row says: a number cell (with ``number_format``) for a
    number, a text cell for a text, nothing for an empty cell."""
    cells = read_sheet(data)
    assert [cells[(0, col)].value for col in range(len(HEADER))] == HEADER
    assert all(cells[(0, col)].kind == "s" for col in range(len(HEADER)))
    for r, row in enumerate(rows, start=1):
        for col, expected in enumerate(row):
            cell = cells.get((r, col))
            if expected == "":
                assert cell is None, (r, HEADER[col])
            elif HEADER[col] in TEXT_COLUMNS:
                assert (cell.kind, cell.value) == ("s", expected), (r, HEADER[col])
            elif HEADER[col] == "student_id":
                assert (cell.kind, cell.value, cell.number_format) == ("n", expected, "General")
            else:
                assert cell.kind == "n", (r, HEADER[col])
                assert float(cell.value) == float(expected), (r, HEADER[col])
                assert cell.number_format == number_format, (r, HEADER[col])
    assert max(r for r, _ in cells) == len(rows)


def test_the_display_workbook_holds_rounded_percentages_as_numbers(seeded, session, bank):
    data = xlsx(session, bank)
    assert data.startswith(b"PK\x03\x04")  # a ZIP archive
    check_sheet(data, expected_rows(seeded), "0.0")
    # a display name a spreadsheet would run is a text cell as written, not a formula
    cells = read_sheet(data)
    assert cells[(4, 2)].value == seeded.DEE_DISPLAY == "=SUM(A1)"


def test_the_decimals_set_the_number_format(seeded, session, bank):
    cells = read_sheet(xlsx(session, bank, decimals=2))
    total = HEADER.index("total")
    assert (cells[(1, total)].value, cells[(1, total)].number_format) == ("68.75", "0.00")
    cells = read_sheet(xlsx(session, bank, decimals=0))
    assert (cells[(1, total)].value, cells[(1, total)].number_format) == ("69", "0")


def test_the_exact_workbook_holds_the_fractions(seeded, session, bank):
    check_sheet(xlsx(session, bank, exact=True), expected_exact_rows(seeded), "General")


def test_exact_values_keep_sixteen_significant_digits(seeder, sessions, bank):
    """XlsxWriter writes numbers with 16 significant digits (Excel computes with 15); the
    exact CSV keeps all 17 of 1/6."""
    fay = seeder.user("fay")
    seeder.choose(fay, "q-multi", ["a"], 1 / 3, 1)
    with sessions() as session:
        cells = read_sheet(xlsx(session, bank, exact=True))
    assert cells[(1, HEADER.index("total"))].value == "0.1666666666666667"
    assert abs(float(cells[(1, HEADER.index("total"))].value) - 1 / 6) < 1e-16


def test_write_gradebook_writes_either_format(seeded, session, bank):
    out = io.BytesIO()
    write_gradebook(session, bank, out, format="xlsx")
    assert read_sheet(out.getvalue())[(1, 1)].value == "ada"
    out = io.BytesIO()
    write_gradebook(session, bank, out, format="csv", exact=True)
    assert out.getvalue().startswith(b"\xef\xbb\xbfstudent_id,")
    with pytest.raises(ValueError, match="xlsx"):
        write_gradebook(session, bank, out, format="ods")


def test_an_empty_class_gives_the_header_only(sessions, bank):
    with sessions() as session:
        cells = read_sheet(xlsx(session, bank))
    assert sorted(cells) == [(0, col) for col in range(len(HEADER))]


def test_openpyxl_reads_the_same_cells_where_installed(seeded, session, bank):
    openpyxl = pytest.importorskip("openpyxl")
    sheet = openpyxl.load_workbook(io.BytesIO(xlsx(session, bank)), read_only=True).active
    rows = [list(row) for row in sheet.iter_rows(values_only=True)]
    assert rows[0] == HEADER
    assert rows[1][:3] == [seeded.ada, "ada", "Ada Lovelace"]
    assert rows[1][HEADER.index("total")] == 68.8
