"""Property tests: any matrix written in any accepted style reads back exactly."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quizsvc.grading import AnswerRejected, parse_answer

FINITE = st.floats(allow_nan=False, allow_infinity=False)
CELL = st.one_of(FINITE, FINITE, FINITE, st.sampled_from([math.inf, -math.inf]))

INFINITY_WORDS = ["inf", "Inf", "INF", "infinity", "Infinity", "INFINITY", "∞", "无穷", "无穷大"]
PLAIN_VALUE_SEPARATORS = [" ", ",", ", ", "\t", "，", " , ", "  ", ",\t", " ，"]
PLAIN_ROW_SEPARATORS = ["\n", ";", "；", "\r\n", " ; ", "\n\n", ";\n", "\n \n"]
BRACKET_VALUE_SEPARATORS = [",", ", ", " ", "  ", ",\n ", "，", " , ", "\n"]
BRACKET_ROW_SEPARATORS = [",", ", ", ",\n ", "\n", " ", "，", ";"]
SURROUNDING_SPACE = ["", " ", "\n", "\n \n", "\t", "  \n"]
FULL_WIDTH = {code: code + 0xFEE0 for code in range(0x21, 0x7F)}


@st.composite
def written_matrices(draw: st.DrawFn) -> tuple[list[list[float]], str]:
    n_rows = draw(st.integers(1, 4))
    n_cols = draw(st.integers(1, 4))
    matrix = draw(
        st.lists(st.lists(CELL, min_size=n_cols, max_size=n_cols), min_size=n_rows, max_size=n_rows)
    )
    written = [[_write_value(draw, value) for value in row] for row in matrix]
    write = draw(st.sampled_from([_write_plain, _write_bracketed]))
    text = write(draw, written)
    if draw(st.integers(0, 4)) == 0:
        text = text.translate(FULL_WIDTH)
    text = (
        draw(st.sampled_from(SURROUNDING_SPACE)) + text + draw(st.sampled_from(SURROUNDING_SPACE))
    )
    return matrix, text


def _write_value(draw: st.DrawFn, value: float) -> str:
    if math.isinf(value):
        word = draw(st.sampled_from(INFINITY_WORDS))
        sign = draw(st.sampled_from(["-", "−", "–", "负"] if value < 0 else ["", "+", "正"]))
        return sign + word
    written = repr(value)
    if not written.startswith("-") and draw(st.booleans()):
        written = "+" + written
    if draw(st.booleans()):
        written = written.replace("-", "−")
    return written


def _join(draw: st.DrawFn, pieces: list[str], separators: list[str]) -> str:
    text = pieces[0]
    for piece in pieces[1:]:
        text += draw(st.sampled_from(separators)) + piece
    return text


def _write_plain(draw: st.DrawFn, written: list[list[str]]) -> str:
    rows = [_join(draw, row, PLAIN_VALUE_SEPARATORS) for row in written]
    rows = [row + draw(st.sampled_from(["", ",", " ", ", "])) for row in rows]
    return _join(draw, rows, PLAIN_ROW_SEPARATORS) + draw(st.sampled_from(["", ";", "\n", "；"]))


def _write_bracketed(draw: st.DrawFn, written: list[list[str]]) -> str:
    space = st.sampled_from(["", " ", "\n"])
    rows = [
        "[" + draw(space) + _join(draw, row, BRACKET_VALUE_SEPARATORS) + draw(space) + "]"
        for row in written
    ]
    style = draw(st.sampled_from(["outer", "row_per_line"] + (["flat"] if len(rows) == 1 else [])))
    if style == "flat":
        text = rows[0]
    elif style == "outer":
        text = "[" + draw(space) + _join(draw, rows, BRACKET_ROW_SEPARATORS) + draw(space) + "]"
    else:
        text = _join(draw, rows, ["\n", ", ", ";", " "])
    opening, closing = draw(st.sampled_from(["[]", "［］", "()", "（）"]))
    text = text.replace("[", opening).replace("]", closing)
    if style != "row_per_line":  # as NumPy prints an array
        prefix = draw(st.sampled_from(["", "array(", "np.array("]))
        if prefix:
            text = prefix + text + draw(st.sampled_from([")", ", dtype=float64)"]))
    return text


@pytest.mark.slow  # 300 examples take seconds
@settings(max_examples=300, deadline=None)
@given(written_matrices())
def test_any_written_matrix_reads_back_bit_for_bit(case: tuple[list[list[float]], str]) -> None:
    matrix, text = case
    expected = np.array(matrix, dtype=np.float64)
    parsed = parse_answer(text)
    assert parsed.dtype == np.float64
    assert parsed.shape == expected.shape
    # Comparing bytes also distinguishes -0.0 from 0.0.
    assert parsed.tobytes() == expected.tobytes()


def _check_reads_or_rejects(text: str) -> None:
    try:
        parsed = parse_answer(text)
    except AnswerRejected as rejection:
        assert str(rejection)
        return
    assert parsed.ndim == 2
    assert parsed.size >= 1
    assert parsed.dtype == np.float64
    assert not np.isnan(parsed).any()


@pytest.mark.slow  # 300 examples take seconds
@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_arbitrary_text_is_read_or_rejected_never_crashes(text: str) -> None:
    _check_reads_or_rejects(text)


NEAR_MISS_PIECES = [
    "1", "-2.5", ".5", "3.", "1e5", "1e999", "0", "/", "−", "∞", "inf", "nan", "e",
    "[", "]", "［", "］", ",", "，", ";", "；", " ", "\n", "\t", "abc", "+", "\x00",
    "(", ")", "（", "）", "×", "x", "10^", "^", "⁻", "³", "。", "–", "无穷", "负", "array(",
    "dtype=float32",
]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(NEAR_MISS_PIECES), max_size=30).map("".join))
def test_number_like_text_is_read_or_rejected_never_crashes(text: str) -> None:
    _check_reads_or_rejects(text)
