"""Table-driven tests for parse_answer: every accepted form and every rejection."""

from __future__ import annotations

import contextlib
import math
import time

import numpy as np
import pytest

from quizsvc.grading import MAX_ANSWER_CHARS, AnswerRejected, parse_answer

INF = math.inf

SCALARS = [
    ("0.5", 0.5),
    (".5", 0.5),
    ("-1e-3", -0.001),
    ("+2", 2.0),
    ("3.", 3.0),
    ("0", 0.0),
    ("1E3", 1000.0),
    ("2.5e+2", 250.0),
    ("1/3", 1 / 3),
    ("-1/4", -0.25),
    ("1/-4", -0.25),
    ("1 / 4", 0.25),
    ("3/.5", 6.0),
    ("−4.5", -4.5),  # U+2212 minus sign
    ("1e−3", 0.001),  # U+2212 in the exponent
    ("−1/−8", 0.125),
    ("１２．５", 12.5),  # full-width digits and full stop
    ("－２", -2.0),  # full-width hyphen-minus
    ("inf", INF),
    ("-inf", -INF),
    ("+inf", INF),
    ("Inf", INF),
    ("-INF", -INF),
    ("infinity", INF),
    ("-Infinity", -INF),
    ("∞", INF),
    ("+∞", INF),
    ("−∞", -INF),
    ("-∞", -INF),
    ("  7  ", 7.0),
    ("\n\n7\n\n", 7.0),
    ("\ufeff7", 7.0),  # byte-order mark pasted from a file
    ("7\u200b", 7.0),  # zero-width space pasted from a web page
    ("7\u200c", 7.0),  # zero-width non-joiner
    ("7\u200d", 7.0),  # zero-width joiner
    ("\u20607", 7.0),  # word joiner
    ("1e-999", 0.0),  # underflow to zero is an honest approximation, unlike overflow
    # what a Chinese input method types for "." between digits
    ("0。5", 0.5),
    ("０。５", 0.5),
    ("-12｡25", -12.25),  # the half-width ideographic full stop
    # the dashes word processors and phone keyboards put for "-"
    ("–0.5", -0.5),  # en dash
    ("‐0.5", -0.5),  # hyphen
    ("\u20110.5", -0.5),  # non-breaking hyphen
    ("\u20120.5", -0.5),  # figure dash
    ("﹣0.5", -0.5),  # small hyphen-minus
    ("1e–3", 0.001),
    ("–∞", -INF),
    # infinity in Chinese
    ("负无穷", -INF),
    ("负无穷大", -INF),
    ("正无穷", INF),
    ("无穷", INF),
    ("无穷大", INF),
    ("-无穷", -INF),
    ("负∞", -INF),
    # powers of ten as written by hand
    ("1×10^-3", 0.001),
    ("2.5×10^-2", 0.025),
    ("2.5x10^2", 250.0),
    ("2.5X10^+2", 250.0),
    ("-3*10^4", -30000.0),
    ("1·10^3", 1000.0),
    ("1 × 10^-3", 0.001),
    ("1 x 10^(-3)", 0.001),
    ("1×10^( -3 )", 0.001),
    ("1×10⁻³", 0.001),
    ("1.5×10⁴", 15000.0),
    ("10^-2", 0.01),
    ("10²", 100.0),
    ("−1×10^−3", -0.001),
    ("１×１０＾－３", 0.001),
    # a percentage, as an attention weight may be written
    ("48.1%", 0.481),
    ("48.1％", 0.481),  # full-width percent sign
    ("-5%", -0.05),
    ("100%", 1.0),
    ("0.5%", 0.005),
    ("1e2%", 1.0),
]


@pytest.mark.parametrize(("text", "value"), SCALARS)
def test_scalar_forms_parse_to_a_1_by_1_array(text: str, value: float) -> None:
    parsed = parse_answer(text)
    assert parsed.shape == (1, 1)
    assert parsed.dtype == np.float64
    assert parsed[0, 0] == value


def test_negative_zero_keeps_its_sign() -> None:
    assert math.copysign(1.0, parse_answer("-0")[0, 0]) == -1.0
    assert math.copysign(1.0, parse_answer("−0.0")[0, 0]) == -1.0


ROW_123 = [[1.0, 2.0, 3.0]]
MATRIX_1234 = [[1.0, 2.0], [3.0, 4.0]]

TABLES = [
    # values within a row
    ("1 2 3", ROW_123),
    ("1,2,3", ROW_123),
    ("1, 2, 3", ROW_123),
    ("1\t2\t3", ROW_123),
    ("1，2，3", ROW_123),  # full-width comma
    ("1 ,\t2，  3", ROW_123),  # any mix
    ("1、2、3", ROW_123),  # ideographic comma
    ("1\u30002\u30003", ROW_123),  # ideographic space
    ("1, 2, 3,", ROW_123),  # trailing separator
    ("1 2 3 ,  ", ROW_123),
    (", 1, 2, 3", ROW_123),  # leading separator
    # rows
    ("1 2\n3 4", MATRIX_1234),
    ("1,2;3,4", MATRIX_1234),
    ("1 2; 3 4", MATRIX_1234),
    ("1 2；3 4", MATRIX_1234),  # full-width semicolon
    ("1 2\r\n3 4\r\n", MATRIX_1234),
    ("1 2\r3 4", MATRIX_1234),
    ("1 2;\n3 4;", MATRIX_1234),  # trailing row separators
    ("\n  1 2\n\n  3 4\n\n", MATRIX_1234),  # blank lines and indentation
    ("1, 2,\n3, 4,\n", MATRIX_1234),
    ("１，２；３，４", MATRIX_1234),
    ("1;2;3", [[1.0], [2.0], [3.0]]),
    ("1/2 −1/2\n∞ -inf", [[0.5, -0.5], [INF, -INF]]),
    # brackets
    ("[1, 2, 3]", ROW_123),
    ("[1 2 3]", ROW_123),
    ("[1, 2, 3,]", ROW_123),
    ("[[1, 2, 3]]", ROW_123),
    ("[5]", [[5.0]]),
    ("[[5]]", [[5.0]]),
    ("[[1, 2], [3, 4]]", MATRIX_1234),
    ("[[1,2],[3,4]]", MATRIX_1234),
    ("  [ [ 1 ,2 ] ,[3, 4 ] ]  ", MATRIX_1234),
    ("[[1, 2],\n [3, 4]]", MATRIX_1234),
    ("[[1, 2], [3, 4],]", MATRIX_1234),
    ("[[1, 2]; [3, 4]]", MATRIX_1234),
    ("[[1. 2.]\n [3. 4.]]", MATRIX_1234),  # how NumPy prints a matrix
    ("[1 2 3\n 4]", [[1.0, 2.0, 3.0, 4.0]]),  # NumPy wraps long rows like this
    ("［［1，2］，［3，4］］", MATRIX_1234),  # full-width brackets
    ("[1, 2]\n[3, 4]", MATRIX_1234),  # one bracket pair per row
    ("[1, 2], [3, 4]", MATRIX_1234),
    ("[1, 2]; [3, 4]", MATRIX_1234),
    ("[[-inf, ∞], [−1/2, .5]]", [[-INF, INF], [-0.5, 0.5]]),
    # round brackets, as a tuple or a vector in mathematics, and as a Chinese IME types them
    ("(1, 2, 3)", ROW_123),
    ("((1, 2), (3, 4))", MATRIX_1234),
    ("（1，2，3）", ROW_123),
    ("[(1, 2), (3, 4)]", MATRIX_1234),
    ("(1, 2)\n(3, 4)", MATRIX_1234),
    # NumPy's and PyTorch's print of an array
    ("array([[1., 2.],\n       [3., 4.]])", MATRIX_1234),
    ("array([1, 2, 3])", ROW_123),
    ("array([[1., 2.],\n       [3., 4.]], dtype=float32)", MATRIX_1234),
    ("np.array([[1, 2], [3, 4]])", MATRIX_1234),
    ("numpy.array([1, 2, 3], dtype=np.float64) ", ROW_123),
    ("tensor([[1., 2.],\n        [3., 4.]])", MATRIX_1234),
    ("torch.tensor([1., 2., 3.], dtype=torch.float64)", ROW_123),
    ("array([[-inf,  0.5]])", [[-INF, 0.5]]),
    ("array([5.])", [[5.0]]),
    # powers of ten in a table
    ("1×10^-3 2 × 10^-3\n3x10^-3, 4*10^(-3)", [[0.001, 0.002], [0.003, 0.004]]),
]


@pytest.mark.parametrize(("text", "rows"), TABLES)
def test_tables_parse_row_by_row(text: str, rows: list[list[float]]) -> None:
    parsed = parse_answer(text)
    assert parsed.dtype == np.float64
    assert parsed.shape == (len(rows), len(rows[0]))
    assert parsed.tolist() == rows


def test_answer_of_exactly_the_maximum_length_is_read() -> None:
    text = "1 " * (MAX_ANSWER_CHARS // 2)
    assert len(text) == MAX_ANSWER_CHARS
    assert parse_answer(text).shape == (1, 5000)


REJECTIONS = [
    # empty
    ("", "answer is empty"),
    ("   \n\t  ", "answer is empty"),
    ("\n;\n;", "answer is empty"),
    (",", "answer is empty"),
    ("\u200b", "answer is empty"),
    # NaN in any spelling
    ("nan", "NaN is not a number you can be graded on (row 1, value 1)"),
    ("NaN", "NaN is not a number you can be graded on"),
    ("-nan", "NaN is not a number you can be graded on"),
    ("+NAN", "NaN is not a number you can be graded on"),
    ("ＮａＮ", "NaN is not a number you can be graded on"),
    ("1 2\n3 nan", "NaN is not a number you can be graded on (row 2, value 2)"),
    ("nan/2", "NaN is not a number you can be graded on"),
    ("[1, NaN]", "NaN is not a number you can be graded on (row 1, value 2)"),
    # control characters
    ("1\x002", "answer contains a control character"),
    ("1\x07", "answer contains a control character"),
    ("\x1b[31m1", "answer contains a control character"),
    ("1\x0b2", "answer contains a control character"),  # vertical tab
    ("1\x0c2", "answer contains a control character"),  # form feed
    ("1\x7f", "answer contains a control character"),
    ("1\x852", "answer contains a control character"),  # C1 "next line"
    # brackets
    ("[[[1]]]", "brackets are nested more than 2 deep"),
    ("[[[1, 2]], [[3, 4]]]", "brackets are nested more than 2 deep"),
    ("[1, 2", "unbalanced brackets: a '[' is never closed"),
    ("[[1, 2], [3, 4]", "unbalanced brackets: a '[' is never closed"),
    ("1, 2]", "unbalanced brackets: the ']' at character 5 has no matching '['"),
    ("][", "unbalanced brackets: the ']' at character 1 has no matching '['"),
    ("[]", "row 1 is empty"),
    ("[[1], []]", "row 2 is empty"),
    ("[1; 2]", "';' cannot separate rows inside brackets"),
    ("[[1; 2], [3; 4]]", "';' cannot separate rows inside brackets"),
    ("[[1, 2]] 3", "unexpected '3' outside the brackets"),
    ("x [1, 2]", "unexpected 'x' outside the brackets"),
    ("[[1, 2] x [3, 4]]", "unexpected 'x' between bracketed rows"),
    ("[1] [[2]]", "use one outer pair of brackets"),
    # garbage tokens
    ("abc", "could not read 'abc' as a number (row 1, value 1)"),
    ("1 abc", "could not read 'abc' as a number (row 1, value 2)"),
    ("1 2\n3 x", "could not read 'x' as a number (row 2, value 2)"),
    ("0x10", "could not read '0x10' as a number"),
    ("1_000", "could not read '1_000' as a number"),
    ("1.2.3", "could not read '1.2.3' as a number"),
    ("e5", "could not read 'e5' as a number"),
    ("1e", "could not read '1e' as a number"),
    ("--1", "could not read '--1' as a number"),
    ("- 1", "could not read '-' as a number (row 1, value 1)"),
    (".", "could not read '.' as a number"),
    ("١٢", "could not read '١٢' as a number"),  # Arabic-Indic digits
    ("½", "could not read '½' as a number"),
    ("2²", "could not read '2²' as a number"),  # not silently 22
    ("1/2/3", "could not read '1/2/3' as a number"),
    ("inf/2", "could not read 'inf/2' as a number"),
    ("1/", "could not read '1/' as a number"),
    ("(1, 2", "unbalanced brackets: a '(' is never closed"),  # named as typed
    ("((1, 2), [3, 4]", "unbalanced brackets: a '(' is never closed"),
    ("[(1, 2), (3, 4)", "unbalanced brackets: a '[' is never closed"),
    ("1, 2)", "unbalanced brackets: the ')' at character 5 has no matching '('"),
    ("（1, 2", "unbalanced brackets: a '(' is never closed"),  # full-width, as ASCII
    # "。" elsewhere than between digits ends a sentence: not silently a decimal point
    ("0.5。", "could not read '0.5。' as a number (row 1, value 1)"),
    ("。5", "could not read '。5' as a number"),
    ("1。2。3", "could not read '1.2.3' as a number"),
    # a dash between two numbers is no range and no subtraction
    ("1–2", "could not read '1-2' as a number"),
    ("—0.5", "could not read '—0.5' as a number"),  # an em dash is punctuation, not a sign
    ("负负无穷", "could not read '负负无穷' as a number"),
    # only a sign, 正 or 负 goes before an infinity: not a digit, a letter or a comma
    ("5inf", "could not read '5inf' as a number"),
    ("ainf", "could not read 'ainf' as a number"),
    ("5∞", "could not read '5∞' as a number"),
    ("0无穷", "could not read '0无穷' as a number"),
    ("无穷小", "could not read '无穷小' as a number"),
    # a power of ten is 10^ an integer, after a plain number
    ("1×10^-3.5", "could not read '1×10^-3.5' as a number"),
    ("1e2×10^3", "could not read '1e2×10^3' as a number"),
    ("2^3", "could not read '2^3' as a number"),
    ("1×10^", "could not read '1×10^' as a number"),
    ("1×10^999", "'1×10^999' is too large to be a finite number"),
    ("1 × 2", "could not read '×' as a number (row 1, value 2)"),
    ("%", "could not read '%' as a number"),
    ("50%%", "could not read '50%%' as a number"),
    ("1/2%", "could not read '1/2%' as a number"),
    ("inf%", "could not read 'inf%' as a number"),
    # a wrapper holds a bracketed table and nothing after it
    ("array([1, 2]) 3", "unexpected 'array' outside the brackets"),
    ("array([1, 2], dtype=float32", "unbalanced brackets: a '(' is never closed"),
    ("x" * 50, "could not read '" + "x" * 29 + "…' as a number"),
    ("x" * 31, "could not read '" + "x" * 29 + "…' as a number"),
    # full-width ASCII (U+FF01-U+FF5E) is read, and quoted, as ASCII; U+FF5F on is not
    ("1！", "could not read '1!' as a number"),
    ("1～", "could not read '1~' as a number"),
    ("1｟", "could not read '1｟' as a number"),
    ("x" * 30, "could not read '" + "x" * 30 + "' as a number"),  # the longest quoted whole
    # text right against a closing bracket
    ("[1, 2]3", "unexpected '3' outside the brackets"),
    ("[[1, 2]x, [3, 4]]", "unexpected 'x' between bracketed rows"),
    # fractions
    ("1/0", "division by zero in '1/0' (row 1, value 1)"),
    ("3/0.0", "division by zero in '3/0.0'"),
    ("1/-0", "division by zero in '1/-0'"),
    # finite spellings that overflow float64
    (
        "1e999",
        "'1e999' is too large to be a finite number (row 1, value 1); "
        "write inf if you mean infinity",
    ),
    ("−1e999", "'-1e999' is too large to be a finite number"),
    ("1" * 400, "is too large to be a finite number"),
    ("1e308/1e-10", "'1e308/1e-10' is too large to be a finite number"),
    ("1e999/2", "'1e999/2' is too large to be a finite number"),
    # rows of different lengths
    ("1 2 3 4\n5 6 7", "row 2 has 3 values, row 1 has 4"),
    ("1\n2 3", "row 2 has 2 values, row 1 has 1"),
    ("1 2; 3 4; 5", "row 3 has 1 value, row 1 has 2"),
    ("[[1, 2], [3]]", "row 2 has 1 value, row 1 has 2"),
    # a value left out between commas
    ("1,,2", "row 1 has an empty value between two commas"),
    ("1 2\n3, , 4", "row 2 has an empty value between two commas"),
]


@pytest.mark.parametrize(("text", "message"), REJECTIONS)
def test_rejections_explain_the_problem(text: str, message: str) -> None:
    with pytest.raises(AnswerRejected) as caught:
        parse_answer(text)
    assert message in str(caught.value)


def test_over_long_answer_is_rejected_with_the_limit_in_the_message() -> None:
    with pytest.raises(AnswerRejected) as caught:
        parse_answer("1 " * 5000 + "1")
    assert str(caught.value) == "answer is longer than 10000 characters"


def test_answer_rejected_is_a_value_error() -> None:
    assert issubclass(AnswerRejected, ValueError)


@pytest.mark.parametrize("value", [1.5, b"1", ["1"], None])
def test_non_string_input_is_a_programming_error(value: object) -> None:
    with pytest.raises(TypeError, match="parse_answer expects str"):
        parse_answer(value)  # type: ignore[arg-type]


# Inputs shaped to trigger quadratic regex backtracking or deep loops if the parser
# had them; each must be answered (accepted or rejected) well within a second.
PATHOLOGICAL = [
    "[" * 10_000,
    "]" * 10_000,
    "1" * 9_999 + "x",
    " " * 9_999 + "x",
    "1" + " " * 9_998 + "/",
    ", " * 5_000,
    "1/" * 5_000,
    "9" * 5_000 + "." + "9" * 4_999,
    "1e" + "9" * 9_998,
    "[1" + " " * 9_997 + "]",
    "1" + " " * 9_998 + "×",
    "(" * 10_000,
    "array(" * 1_666,
    "array([1]" + ", " * 4_990 + ")",
    "10⁻" * 3_333,
]


@pytest.mark.parametrize("text", PATHOLOGICAL, ids=lambda text: f"{text[:6]!r}...")
def test_pathological_inputs_are_answered_quickly(text: str) -> None:
    started = time.perf_counter()
    with contextlib.suppress(AnswerRejected):
        parse_answer(text)
    assert time.perf_counter() - started < 1.0
