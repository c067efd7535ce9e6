"""Reading an XLSX file's first worksheet with the standard library only (zipfile and
ElementTree), for tests that check what a report wrote into each cell."""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass
from xml.etree import ElementTree

NS = {"m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main"}
# the built-in number formats a writer may refer to without declaring them
BUILTIN_FORMATS = {0: "General", 1: "0", 2: "0.00"}


@dataclass(frozen=True)
class XlsxCell:
    kind: str  # "n" (number) or "s" (text)
    value: str  # the number as written in the XML, or the text
    number_format: str  # the cell's number format code ("General" if none)


def column_number(letters: str) -> int:
    """A1-style column letters -> 0-based column number (A -> 0, Z -> 25, AA -> 26)."""
    number = 0
    for letter in letters:
        number = number * 26 + ord(letter) - ord("A") + 1
    return number - 1


def read_sheet(data: bytes) -> dict[tuple[int, int], XlsxCell]:
    """(row, column), both 0-based -> the cell, for every cell that holds a value."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert archive.testzip() is None
        sheet = ElementTree.fromstring(archive.read("xl/worksheets/sheet1.xml"))
        styles = ElementTree.fromstring(archive.read("xl/styles.xml"))
        names = archive.namelist()
        shared = (
            [
                "".join(t.text or "" for t in item.iter(f"{{{NS['m']}}}t"))
                for item in ElementTree.fromstring(archive.read("xl/sharedStrings.xml"))
            ]
            if "xl/sharedStrings.xml" in names
            else []
        )
    codes = dict(BUILTIN_FORMATS)
    for fmt in styles.iterfind("m:numFmts/m:numFmt", NS):
        codes[int(fmt.get("numFmtId"))] = fmt.get("formatCode")
    xf_formats = [int(xf.get("numFmtId", "0")) for xf in styles.iterfind("m:cellXfs/m:xf", NS)]
    cells = {}
    for cell in sheet.iterfind("m:sheetData/m:row/m:c", NS):
        letters, row = re.fullmatch(r"([A-Z]+)([0-9]+)", cell.get("r")).groups()
        place = (int(row) - 1, column_number(letters))
        number_format = codes[xf_formats[int(cell.get("s", "0"))]]
        kind = cell.get("t", "n")
        if kind == "inlineStr":
            text = "".join(t.text or "" for t in cell.iter(f"{{{NS['m']}}}t"))
            cells[place] = XlsxCell("s", text, number_format)
        elif kind == "s":
            cells[place] = XlsxCell("s", shared[int(cell.find("m:v", NS).text)], number_format)
        elif kind == "n":
            value = cell.find("m:v", NS)
            if value is not None:
                cells[place] = XlsxCell("n", value.text, number_format)
        else:
            raise AssertionError(f"unexpected cell type {kind!r} at {cell.get('r')}")
        assert cell.find("m:f", NS) is None, f"a formula at {cell.get('r')}"
    return cells
