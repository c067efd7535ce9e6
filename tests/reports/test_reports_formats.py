"""How the reports write numbers, times, JSON and CSV chunks."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from fractions import Fraction

import numpy as np
import pytest

from quizsvc.reports.formats import (
    CHUNK_SIZE,
    UTF8_BOM,
    csv_chunks,
    iso_utc,
    json_text,
    jsonl_chunks,
    number_text,
    spreadsheet_safe,
)


def test_numbers():
    assert [number_text(v) for v in (None, 0, 3, 1.0, 0.625, 0.1 + 0.2)] == [
        "", "0", "3", "1.0", "0.625", "0.30000000000000004",
    ]  # fmt: skip
    assert number_text(0.1 + 0.2, decimals=10) == "0.3"
    assert number_text(-1e-12, decimals=10) == "0.0"
    assert [number_text(float(x)) for x in ("inf", "-inf", "nan")] == ["inf", "-inf", ""]
    assert [number_text(float(x), decimals=10) for x in ("inf", "-inf", "nan")] == [
        "inf", "-inf", "",
    ]  # fmt: skip
    with pytest.raises(TypeError):
        number_text(True)


def test_any_real_number_is_written_as_a_float():
    assert number_text(np.float64(0.625)) == "0.625"
    assert number_text(np.float32(0.5)) == "0.5"
    assert number_text(Fraction(1, 8)) == "0.125"
    assert number_text(Fraction(1, 3), decimals=10) == "0.3333333333"


def test_times_are_utc_with_a_z():
    beijing = timezone(timedelta(hours=8))
    assert iso_utc(datetime(2026, 11, 30, 17, 0, tzinfo=beijing)) == "2026-11-30T09:00:00Z"
    assert iso_utc(datetime(2026, 11, 30, 9, 0, 0, 250, tzinfo=UTC)) == (
        "2026-11-30T09:00:00.000250Z"
    )
    assert iso_utc(None) == ""
    with pytest.raises(ValueError):
        iso_utc(datetime(2026, 11, 30, 9, 0))


class NoOffset(tzinfo):
    """A time zone that cannot say its offset: the datetime is naive in effect."""

    def utcoffset(self, dt):
        return None


def test_a_time_zone_without_an_offset_is_refused_like_none():
    with pytest.raises(ValueError, match="naive"):
        iso_utc(datetime(2026, 11, 30, 9, 0, tzinfo=NoOffset()))


def test_json_has_no_nan_or_infinity_tokens_and_one_line():
    value = {"x": float("inf"), "y": [float("-inf"), float("nan"), 0.5], "t": "中文"}
    assert json_text(value) == '{"x":"inf","y":["-inf",null,0.5],"t":"中文"}'
    text = json_text({"t": "a\nb\u2028c\u2029d\x85e"})
    assert text == '{"t":"a\\nb\\u2028c\\u2029d\\u0085e"}'
    assert len(text.splitlines()) == 1
    assert json.loads(text) == {"t": "a\nb\u2028c\u2029d\x85e"}


def test_formula_cells_are_defused():
    for text in ("=1+1", "@SUM(A1)", "\tx", "\rx", "-1+cmd|' /C calc'!A0", "-SUM(1)", "+A1"):
        assert spreadsheet_safe(text) == "'" + text
    for text in ("", "0.5", "Ada", "王小明", "'quoted"):
        assert spreadsheet_safe(text) == text


def test_cells_of_nothing_but_numbers_are_left_for_analysis():
    for text in ("-1", "+1", "-0.7500, 0.5", "-inf, 0.5\n0.25; -INF", "[[-1, 2], [3, -4]]"):
        assert spreadsheet_safe(text) == text


def test_csv_chunks_are_bounded_and_only_the_first_has_the_bom():
    rows = [[str(i), '王小明, "x"\nline'] for i in range(20000)]  # ~550 KB
    chunks = list(csv_chunks(["id", "text"], rows))
    assert len(chunks) > 3
    assert all(len(chunk) < 3 * CHUNK_SIZE + 100 for chunk in chunks)
    assert chunks[0].startswith(UTF8_BOM) and not any(c.startswith(UTF8_BOM) for c in chunks[1:])
    data = b"".join(chunks)
    parsed = list(csv.reader(io.StringIO(data.decode("utf-8-sig"), newline="")))
    assert parsed == [["id", "text"], *rows]


def test_jsonl_chunks():
    chunks = list(jsonl_chunks({"i": i, "v": float("inf")} for i in range(10000)))
    assert len(chunks) > 1
    lines = b"".join(chunks).decode("utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [{"i": i, "v": "inf"} for i in range(10000)]
    assert list(jsonl_chunks([])) == []
