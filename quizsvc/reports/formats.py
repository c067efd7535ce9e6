"""How the reports write values: CSV (UTF-8 with a BOM), JSON Lines, numbers, times.

- CSV: the ``csv`` module's default (Excel) dialect: commas, double quotes around any
  field holding a comma, a quote or a line break, quotes doubled, CRLF between records.
  Files start with the UTF-8 byte order mark so spreadsheet programs read Chinese names
  as UTF-8 rather than in the system's legacy code page.
- Text cells that a spreadsheet would run as a formula (starting with ``=``, ``+``, ``-``,
  ``@``, a tab or a carriage return) get a leading apostrophe (OWASP's advice against
  CSV injection): students write the answer texts and an instructor opens the file.  A
  cell of nothing but numbers (``-0.75, 0.5``, ``-inf``) is left alone: without letters
  or parentheses it cannot call anything, and an analysis wants the numbers.  The JSON
  Lines export is never changed this way.
- JSON: UTF-8 without a BOM, one compact object per line; ±inf are the strings
  "inf"/"-inf" and NaN is null, so no line holds a NaN/Infinity token; the three line
  separators a JSON string may hold raw (U+0085, U+2028, U+2029) are escaped, so
  splitting on any line break gives exactly one object per line.
- XLSX: one worksheet, the header in bold and frozen, numbers as number cells (with a
  number format when given), text always as text cells (``write_string``: a cell
  starting with ``=`` is text, never a formula, so no apostrophe is needed), an empty
  cell left blank; ±inf as the texts ``inf``/``-inf`` and NaN blank (XLSX has neither).
  Written by XlsxWriter in its constant-memory mode (each row goes to a temporary file
  as it comes) to a temporary file, which is then handed on in chunks: memory does not
  grow with the rows, and the first byte leaves once the last row is read.
- Times: ISO 8601 in UTC with a ``Z`` (``2026-11-30T09:00:00Z``, microseconds if any).
- Empty cell: no value (unanswered, awaiting review, not applicable).
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import xlsxwriter

# A typed cell for :func:`xlsx_chunks`: text, a number, or None (empty).
Cell = str | int | float | None

UTF8_BOM = b"\xef\xbb\xbf"
CHUNK_SIZE = 64 * 1024  # characters buffered before a chunk is handed on

_FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
_NUMBERS_ONLY = re.compile(r"(?:[-+0-9.,;\s\[\]]|inf)*", re.IGNORECASE)
_RAW_LINE_SEPARATORS = {"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def iso_utc(at: datetime | None) -> str:
    """``2026-11-30T09:00:00Z`` (microseconds only when there are some); "" for None."""
    if at is None:
        return ""
    if at.tzinfo is None or at.utcoffset() is None:
        raise ValueError(f"naive datetime {at!r}: the reports only take aware datetimes")
    return at.astimezone(UTC).replace(tzinfo=None).isoformat() + "Z"


def number_text(value: float | int | None, *, decimals: int | None = None) -> str:
    """A number as a CSV cell: ``repr`` (shortest exact form, ``1.0``, ``0.625``), after
    rounding to ``decimals`` places if given; "" for None and NaN; ``inf``/``-inf`` (their
    ``repr``)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        raise TypeError(f"not a number: {value!r}")
    if isinstance(value, int):
        return str(value)
    value = float(value)
    if math.isnan(value):
        return ""
    if decimals is not None:
        value = round(value, decimals) + 0.0  # + 0.0 turns -0.0 into 0.0
    return repr(value)


def spreadsheet_safe(text: str) -> str:
    """``text`` with an apostrophe in front if a spreadsheet would take it for a formula."""
    if text.startswith(_FORMULA_PREFIXES) and not _NUMBERS_ONLY.fullmatch(text):
        return "'" + text
    return text


def json_safe(value: Any) -> Any:
    """A copy with ±inf as "inf"/"-inf" and NaN as None (JSON has neither)."""
    if isinstance(value, float):
        if math.isnan(value):
            return None
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return value
    if isinstance(value, dict):
        return {key: json_safe(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(item) for item in value]
    return value


def json_text(value: Any) -> str:
    """Compact JSON on one line (UTF-8 text, not ASCII escapes), never NaN/Infinity."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError:  # a NaN or an infinity somewhere: rare, so only then walk the value
        text = json.dumps(
            json_safe(value), ensure_ascii=False, separators=(",", ":"), allow_nan=False
        )
    if any(separator in text for separator in _RAW_LINE_SEPARATORS):
        for separator, escaped in _RAW_LINE_SEPARATORS.items():
            text = text.replace(separator, escaped)
    return text


def csv_chunks(
    header: Sequence[str], rows: Iterable[Sequence[str]], *, bom: bool = True
) -> Iterator[bytes]:
    """The CSV file as UTF-8 chunks of about ``CHUNK_SIZE``: the BOM and the header first,
    then the rows, each cell passed through :func:`spreadsheet_safe`.  Holds one chunk in
    memory at a time."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow([spreadsheet_safe(cell) for cell in header])
    first = True
    for row in rows:
        writer.writerow([spreadsheet_safe(cell) for cell in row])
        if buffer.tell() >= CHUNK_SIZE:
            yield _take(buffer, bom and first)
            first = False
    yield _take(buffer, bom and first)


def jsonl_chunks(objects: Iterable[Any]) -> Iterator[bytes]:
    """JSON Lines as UTF-8 chunks of about ``CHUNK_SIZE`` (no BOM)."""
    buffer = io.StringIO()
    for value in objects:
        buffer.write(json_text(value))
        buffer.write("\n")
        if buffer.tell() >= CHUNK_SIZE:
            yield _take(buffer, False)
    if buffer.tell():
        yield _take(buffer, False)


def _take(buffer: io.StringIO, bom: bool) -> bytes:
    data = buffer.getvalue().encode("utf-8")
    buffer.seek(0)
    buffer.truncate()
    return UTF8_BOM + data if bom else data


def xlsx_chunks(
    header: Sequence[str],
    rows: Iterable[Sequence[Cell]],
    *,
    sheet: str,
    number_format: str | None = None,
) -> Iterator[bytes]:
    """An XLSX workbook of one worksheet named ``sheet``: the header (bold, frozen), then
    the rows; floats get ``number_format`` (e.g. ``0.0``), ints the general format.  The
    workbook is built in constant memory in a temporary file, then read out in chunks of
    ``CHUNK_SIZE`` bytes; the file is removed when the iterator ends or is closed."""
    with tempfile.TemporaryFile() as out:
        workbook = xlsxwriter.Workbook(out, {"constant_memory": True})
        try:
            worksheet = workbook.add_worksheet(sheet)
            bold = workbook.add_format({"bold": True})
            number = workbook.add_format({"num_format": number_format}) if number_format else None
            worksheet.freeze_panes(1, 0)
            for col, name in enumerate(header):
                worksheet.write_string(0, col, name, bold)
            for row_number, row in enumerate(rows, start=1):
                for col, cell in enumerate(row):
                    _write_cell(worksheet, row_number, col, cell, number)
        finally:
            workbook.close()
        out.seek(0)
        while chunk := out.read(CHUNK_SIZE):
            yield chunk


def _write_cell(worksheet: Any, row: int, col: int, cell: Cell, number_format: Any) -> None:
    if cell is None or cell == "":
        return
    if isinstance(cell, str):
        worksheet.write_string(row, col, cell)
    elif isinstance(cell, bool):
        raise TypeError(f"not a number: {cell!r}")
    elif isinstance(cell, int):
        worksheet.write_number(row, col, cell)
    elif math.isnan(cell):
        return
    elif math.isinf(cell):
        worksheet.write_string(row, col, "inf" if cell > 0 else "-inf")
    else:
        worksheet.write_number(row, col, cell, number_format)
