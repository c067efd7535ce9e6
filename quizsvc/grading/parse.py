"""Read a learner's typed numeric answer into a 2-D float64 array.

Accepted layouts (all normalised to rows of values):

* plain text: rows separated by newlines or ``;`` / ``；``; values separated by any
  mix of whitespace and ``,`` / ``，``; blank rows and leading/trailing separators
  are ignored;
* brackets: ``[1, 2, 3]`` is one row, ``[[1, 2], [3, 4]]`` is a matrix, and
  ``[1, 2]\\n[3, 4]`` (one bracket pair per row) is a matrix too.  Inside
  brackets a newline is just a value separator, because NumPy wraps long rows
  that way when it prints arrays.

* round brackets (a tuple, a vector as mathematics writes it) are read as square ones:
  ``(1, 2)`` is one row, ``((1, 2), (3, 4))`` a matrix;
* what NumPy or PyTorch prints for an array, ``array([[1., 2.], [3., 4.]])`` (also
  ``np.array(...)``, ``tensor(...)`` and a trailing ``dtype=float32``), is read as the
  bracketed matrix inside.

A value is a decimal number (``0.5``, ``.5``, ``3.``, ``-1e-3``, ``+2``), a number
times a power of ten as written by hand (``1×10^-3``, ``2.5*10^(-2)``, ``1 x 10⁻³``,
``10^3``), a percentage (``48.1%`` is 0.481), a fraction of two decimal numbers
(``1/3``, ``-1 / 3``), or an infinity (``inf``, ``infinity``, ``∞``, ``无穷``,
``无穷大`` with an optional sign, ``正`` or ``负`` included: ``负无穷``; any letter
case).  The Unicode minus ``−``, the dashes word processors put for a minus (en dash
``–``, hyphen ``‐``), full-width ASCII (``１２．５``, ``［］``, ``（）``, ``，``, ``；``)
are read as their ASCII counterparts, and a Chinese full stop between two digits
(``0。5``, what a Chinese input method types for ``.``) as a decimal point.

Everything else is rejected with an ``AnswerRejected`` whose message tells the
learner what to fix; NaN is always rejected, and a finite-looking number that
overflows float64 (``1e999``) is rejected rather than silently becoming ``inf``.
"""

from __future__ import annotations

import itertools
import math
import re
import unicodedata

import numpy as np

from quizsvc.grading.errors import AnswerRejected, Rejection
from quizsvc.messages import N_

MAX_ANSWER_CHARS = 10_000
MAX_BRACKET_DEPTH = 2

# Longest token quoted back in an error message; a pasted essay should not be echoed.
_MAX_QUOTED_CHARS = 30

# Only characters with exactly one sensible ASCII reading are mapped.  A blanket NFKC
# would also turn "2²" into "22" and silently change the learner's number.
_NORMALISE_CHARACTERS: dict[int, int | str | None] = {
    **{code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)},  # full-width ASCII
    0x3000: " ",  # ideographic space
    0x2212: "-",  # minus sign, what typeset formulas (and the chapter) use
    # Dashes a word processor or a phone keyboard puts for the "-" typed: between two
    # numbers ("1–2") they still make an unreadable token, never a silent range.
    0x2010: "-",  # hyphen
    0x2011: "-",  # non-breaking hyphen
    0x2012: "-",  # figure dash
    0x2013: "-",  # en dash
    0xFE63: "-",  # small hyphen-minus
    0x3001: ",",  # ideographic comma "、", which Chinese IMEs emit between list items
    # Invisible characters that copy-paste drags along; left in, they would make a
    # token unreadable while looking perfectly fine to the learner.
    0x200B: None,
    0x200C: None,
    0x200D: None,
    0x2060: None,
    0xFEFF: None,
}
_ALLOWED_CONTROL_CHARACTERS = frozenset("\n\r\t")

# "。" is a sentence's end anywhere else ("0.5。"), where it stays unreadable
_CHINESE_DECIMAL_POINT = re.compile(r"(?<=[0-9])[。｡](?=[0-9])")

# NumPy's and PyTorch's print of an array; the rest must then be a bracketed table
_ARRAY_WRAPPER = re.compile(r"\s*(?:(?:np|numpy|torch)\.)?(?:array|tensor)\(")
_TRAILING_DTYPE = re.compile(r",\s*dtype\s*=\s*[\w.]+\s*$")

# A power of ten's exponent in parentheses, 10^(-3), before parentheses become brackets
_PARENTHESISED_EXPONENT = re.compile(r"\^\s*\(\s*([+-]?[0-9]+)\s*\)")
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻", "0123456789+-")
_SUPERSCRIPT_EXPONENT = re.compile(r"(?<![0-9.])10([⁺⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)")
# "1 × 10^-3" is one value: the spaces around the sign must not split it into three
_SPACED_TIMES_TEN = re.compile(r"(?<!\s)\s*([×xX*·])\s*(?=10\^)")

_ROW_SEPARATOR = re.compile(r"[\n\r;]")
_VALUE = re.compile(r"[^\s,]+")
# The look-behind makes the pattern start only at the beginning of a whitespace run;
# without it a long run of spaces costs quadratic time.
_SPACED_SLASH = re.compile(r"(?<!\s)\s*/\s*")

# Written so that no two parts can match the same digits: an ambiguous pattern such as
# [0-9]+\.?[0-9]* backtracks quadratically on a long run of digits followed by junk.
_DECIMAL = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_DECIMAL_RE = re.compile(_DECIMAL)
_FRACTION_RE = re.compile(rf"({_DECIMAL})/({_DECIMAL})")
_PERCENT_RE = re.compile(rf"({_DECIMAL})%")
_INFINITY_RE = re.compile(r"([-+正负]?)(?:inf|infinity|∞|无穷大?)", re.IGNORECASE)
# a mantissa has no exponent of its own: "1e2×10^3" is not a number anyone writes
_MANTISSA = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
_POWER_OF_TEN_RE = re.compile(rf"(?:({_MANTISSA})[×xX*·])?10\^([+-]?[0-9]+)")
_NAN_RE = re.compile(r"[+-]?nan", re.IGNORECASE)


def normalise_typed_number(text: str) -> str:
    """``text`` with what an input method or a word processor types for ASCII put back:
    full-width characters ("７５％", "１．５／２"), the ideographic space, dashes for "-",
    "、" for ",", "。" between two digits for "."; invisible characters removed."""
    return _CHINESE_DECIMAL_POINT.sub(".", text.translate(_NORMALISE_CHARACTERS))


def parse_answer(text: str) -> np.ndarray:
    """Return the answer as a 2-D float64 array: a scalar is (1, 1), one row is (1, n).

    Raises AnswerRejected (never anything else) for any string that is not a
    rectangular table of numbers.  Passing a non-string is a programming error and
    raises TypeError.
    """
    if not isinstance(text, str):
        raise TypeError(f"parse_answer expects str, got {type(text).__name__}")
    if len(text) > MAX_ANSWER_CHARS:
        raise AnswerRejected(
            N_("answer is longer than {max} characters"),
            Rejection.TOO_LONG,
            max=MAX_ANSWER_CHARS,
        )
    _reject_control_characters(text)
    normalised = normalise_typed_number(text)
    if not normalised.strip():
        raise AnswerRejected(N_("answer is empty"), Rejection.EMPTY)
    normalised = _powers_of_ten_joined(_without_array_wrapper(normalised))
    typed_brackets = normalised
    normalised = normalised.replace("(", "[").replace(")", "]")

    if "[" in normalised or "]" in normalised:
        row_texts = _bracketed_row_texts(normalised, typed_brackets)
    else:
        row_texts = _ROW_SEPARATOR.split(normalised)

    rows: list[list[float]] = []
    for row_text in row_texts:
        # Blank lines are skipped, so rows are numbered as the learner sees them.
        row_number = len(rows) + 1
        tokens = _split_values(row_text, row_number)
        if tokens:
            rows.append(
                [_read_value(token, row_number, column) for column, token in enumerate(tokens, 1)]
            )
    if not rows:
        raise AnswerRejected(N_("answer is empty"), Rejection.EMPTY)
    _require_rectangular(rows)
    return np.array(rows, dtype=np.float64)


def _without_array_wrapper(text: str) -> str:
    """The table inside ``array(...)`` (``tensor(...)``), with its ``dtype=`` left out."""
    wrapper = _ARRAY_WRAPPER.match(text)
    stripped = text.rstrip()
    if wrapper is None or not stripped.endswith(")"):
        return text
    return _TRAILING_DTYPE.sub("", stripped[wrapper.end() : -1])


def _powers_of_ten_joined(text: str) -> str:
    """Powers of ten written by hand as one token each: ``1 × 10⁻³`` -> ``1×10^-3``."""
    text = _SUPERSCRIPT_EXPONENT.sub(
        lambda match: "10^" + match.group(1).translate(_SUPERSCRIPTS), text
    )
    text = _PARENTHESISED_EXPONENT.sub(r"^\1", text)
    return _SPACED_TIMES_TEN.sub(r"\1", text)


def _reject_control_characters(text: str) -> None:
    for char in text:
        if char not in _ALLOWED_CONTROL_CHARACTERS and unicodedata.category(char) == "Cc":
            raise AnswerRejected(
                N_("answer contains a control character"), Rejection.CONTROL_CHARACTER
            )


def _split_values(row_text: str, row_number: int) -> list[str]:
    """Split one row into value tokens; an empty list means a blank row."""
    row_text = _SPACED_SLASH.sub("/", row_text)
    matches = list(_VALUE.finditer(row_text))
    # Separators before the first and after the last value are tolerated, but two
    # commas between values almost always mean a value was left out.
    for before, after in itertools.pairwise(matches):
        if row_text.count(",", before.end(), after.start()) > 1:
            raise AnswerRejected(
                N_("row {row} has an empty value between two commas"),
                Rejection.EMPTY_BETWEEN_COMMAS,
                row=row_number,
            )
    return [match.group() for match in matches]


def _bracketed_row_texts(text: str, typed_brackets: str) -> list[str]:
    """Return the text of each row of a bracketed answer (without the brackets).

    ``typed_brackets`` is the text before round brackets became square ones (as long as
    ``text``), so that an unbalanced bracket is named as it was typed."""
    top_groups = _top_level_groups(text, typed_brackets)
    outside = _text_outside(text, top_groups)
    _require_only_separators(
        outside,
        allowed=",;",
        template=N_("unexpected '{text}' outside the brackets"),
        code=Rejection.TEXT_OUTSIDE_BRACKETS,
    )

    groups_with_rows = [(start, end) for start, end in top_groups if "[" in text[start:end]]
    if groups_with_rows and len(top_groups) > 1:
        raise AnswerRejected(
            N_("use one outer pair of brackets; write a matrix as [[1, 2], [3, 4]]"),
            Rejection.SEVERAL_OUTER_BRACKETS,
        )

    if groups_with_rows:
        start, end = top_groups[0]
        inner = text[start:end]
        row_spans = _top_level_groups(inner)
        _require_only_separators(
            _text_outside(inner, row_spans),
            allowed=",;",
            template=N_("unexpected '{text}' between bracketed rows"),
            code=Rejection.TEXT_BETWEEN_BRACKETED_ROWS,
        )
        row_texts = [inner[row_start:row_end] for row_start, row_end in row_spans]
    else:
        row_texts = [text[start:end] for start, end in top_groups]

    for row_number, row_text in enumerate(row_texts, start=1):
        if ";" in row_text:
            raise AnswerRejected(
                N_("';' cannot separate rows inside brackets; write a matrix as [[1, 2], [3, 4]]"),
                Rejection.SEMICOLON_IN_BRACKETS,
            )
        if not _VALUE.search(row_text):
            raise AnswerRejected(N_("row {row} is empty"), Rejection.EMPTY_ROW, row=row_number)
    return row_texts


_OPENING_BRACKET = {"]": "[", ")": "("}


def _top_level_groups(text: str, typed_brackets: str | None = None) -> list[tuple[int, int]]:
    """Spans (start, end) of the insides of the outermost bracket pairs in text.

    Also enforces balance and the nesting limit over the whole text, so callers
    may look inside the spans without re-checking.
    """
    typed = typed_brackets or text
    groups: list[tuple[int, int]] = []
    depth = 0
    group_start = 0
    for index, char in enumerate(text):
        if char == "[":
            depth += 1
            if depth > MAX_BRACKET_DEPTH:
                raise AnswerRejected(
                    N_(
                        "brackets are nested more than {max} deep; write a matrix as"
                        " [[1, 2], [3, 4]]"
                    ),
                    Rejection.BRACKETS_TOO_DEEP,
                    max=MAX_BRACKET_DEPTH,
                )
            if depth == 1:
                group_start = index + 1
        elif char == "]":
            if depth == 0:
                closing = typed[index]
                opening = _OPENING_BRACKET[closing]
                raise AnswerRejected(
                    N_(
                        "unbalanced brackets: the '{closing}' at character {position} has no"
                        " matching '{opening}'"
                    ),
                    Rejection.UNMATCHED_CLOSING_BRACKET,
                    position=index + 1,
                    closing=closing,
                    opening=opening,
                )
            depth -= 1
            if depth == 0:
                groups.append((group_start, index))
    if depth:
        opening = typed[group_start - 1]  # the outermost bracket still open
        raise AnswerRejected(
            N_("unbalanced brackets: a '{opening}' is never closed"),
            Rejection.UNCLOSED_BRACKET,
            opening=opening,
        )
    return groups


def _text_outside(text: str, spans: list[tuple[int, int]]) -> str:
    pieces = []
    previous_end = 0
    for start, end in spans:
        pieces.append(text[previous_end : start - 1])  # start - 1 is the '['
        previous_end = end + 1
    pieces.append(text[previous_end:])
    return " ".join(pieces)


def _require_only_separators(text: str, *, allowed: str, template: str, code: Rejection) -> None:
    for stray in text.split():
        leftover = stray.strip(allowed)
        if leftover:
            raise AnswerRejected(template, code, text=_shortened(leftover))


def _read_value(token: str, row: int, column: int) -> float:
    at = {"row": row, "column": column}
    if any(_NAN_RE.fullmatch(part) for part in token.split("/")):
        raise AnswerRejected(
            N_("NaN is not a number you can be graded on (row {row}, value {column})"),
            Rejection.NAN,
            **at,
        )

    if infinity := _INFINITY_RE.fullmatch(token):
        return -math.inf if infinity.group(1) in ("-", "负") else math.inf

    if _DECIMAL_RE.fullmatch(token):
        return _finite_or_reject(float(token), token, row, column)

    if percent := _PERCENT_RE.fullmatch(token):
        # an attention weight written as a share: exact as the learner wrote it, 48.1% being
        # float("0.481") where 48.1 / 100 would be 0.48100000000000004
        return _finite_or_reject(_hundredth(percent.group(1)), token, row, column)

    if power := _POWER_OF_TEN_RE.fullmatch(token):
        mantissa, exponent = power.group(1) or "1", power.group(2)
        # as Python reads "2.5e-3": no rounding error from multiplying by 10**-3
        return _finite_or_reject(float(f"{mantissa}e{exponent}"), token, row, column)

    if fraction := _FRACTION_RE.fullmatch(token):
        numerator = _finite_or_reject(float(fraction.group(1)), token, row, column)
        denominator = _finite_or_reject(float(fraction.group(2)), token, row, column)
        if denominator == 0.0:
            raise AnswerRejected(
                N_("division by zero in '{text}' (row {row}, value {column})"),
                Rejection.DIVISION_BY_ZERO,
                text=_shortened(token),
                **at,
            )
        try:
            quotient = numerator / denominator
        except OverflowError:
            quotient = math.inf
        return _finite_or_reject(quotient, token, row, column)

    raise AnswerRejected(
        N_("could not read '{text}' as a number (row {row}, value {column})"),
        Rejection.NOT_A_NUMBER,
        text=_shortened(token),
        **at,
    )


def _hundredth(decimal: str) -> float:
    """A decimal number divided by 100, as Python reads it with the exponent lowered by 2."""
    mantissa, _, exponent = decimal.lower().partition("e")
    return float(f"{mantissa}e{int(exponent or 0) - 2}")


def _finite_or_reject(value: float, token: str, row: int, column: int) -> float:
    # A learner who typed digits meant a finite number; letting 1e999 become inf could
    # turn a wrong answer into a "correct" infinity, so infinity must be spelled out.
    if math.isinf(value):
        raise AnswerRejected(
            N_(
                "'{text}' is too large to be a finite number (row {row}, value {column}); "
                "write inf if you mean infinity"
            ),
            Rejection.TOO_LARGE,
            text=_shortened(token),
            row=row,
            column=column,
        )
    return value


def _require_rectangular(rows: list[list[float]]) -> None:
    width = len(rows[0])
    for row_number, row in enumerate(rows[1:], start=2):
        if len(row) != width:
            raise AnswerRejected(
                N_("row {row} has {count} value, row 1 has {width}")
                if len(row) == 1
                else N_("row {row} has {count} values, row 1 has {width}"),
                Rejection.RAGGED_ROWS,
                row=row_number,
                count=len(row),
                width=width,
            )


def _shortened(token: str) -> str:
    """A token as quoted back to the learner: a pasted essay should not be echoed."""
    if len(token) > _MAX_QUOTED_CHARS:
        return token[: _MAX_QUOTED_CHARS - 1] + "…"
    return token
