"""The one exception the grading core raises for bad learner input, and its codes."""

from __future__ import annotations

from enum import StrEnum

from quizsvc.messages import require_parameters


class Rejection(StrEnum):
    """Why an answer was rejected: a stable code an interface can translate.

    Each code carries the parameters listed in ``REJECTION_PARAMETERS``; the English
    message stays in ``str(exc)`` for the JSON API and the logs.
    """

    TOO_LONG = "too_long"
    CONTROL_CHARACTER = "control_character"
    LONE_SURROGATE = "lone_surrogate"  # half of a UTF-16 pair: no UTF-8 form, so not text
    EMPTY = "empty"
    EMPTY_BETWEEN_COMMAS = "empty_between_commas"
    SEVERAL_OUTER_BRACKETS = "several_outer_brackets"
    SEMICOLON_IN_BRACKETS = "semicolon_in_brackets"
    EMPTY_ROW = "empty_row"
    BRACKETS_TOO_DEEP = "brackets_too_deep"
    UNMATCHED_CLOSING_BRACKET = "unmatched_closing_bracket"
    UNCLOSED_BRACKET = "unclosed_bracket"
    TEXT_OUTSIDE_BRACKETS = "text_outside_brackets"
    TEXT_BETWEEN_BRACKETED_ROWS = "text_between_bracketed_rows"
    NAN = "nan"
    DIVISION_BY_ZERO = "division_by_zero"
    NOT_A_NUMBER = "not_a_number"
    TOO_LARGE = "too_large"
    RAGGED_ROWS = "ragged_rows"  # rows of different lengths, read with no shape expected
    NOT_RECTANGULAR = "not_rectangular"
    NOT_NUMBERS = "not_numbers"
    TOO_MANY_DIMENSIONS = "too_many_dimensions"
    WRONG_SHAPE = "wrong_shape"  # rows × columns other than the expected ones
    WRONG_SHAPE_RAGGED = "wrong_shape_ragged"  # rows of different lengths, where a shape is due
    UNKNOWN_CHOICE = "unknown_choice"
    UNKNOWN_CHOICES = "unknown_choices"
    NO_CHOICE = "no_choice"
    SEVERAL_CHOICES = "several_choices"
    NO_TEXT = "no_text"


# What each code's message needs. Row, column and position numbers are 1-based, as the
# learner counts; "text" is the learner's own token, shortened; "choices" is the quoted,
# comma-separated list of unknown choice ids.
_TOKEN_AND_PLACE = frozenset({"text", "row", "column"})
REJECTION_PARAMETERS: dict[Rejection, frozenset[str]] = {
    Rejection.TOO_LONG: frozenset({"max"}),
    Rejection.EMPTY_BETWEEN_COMMAS: frozenset({"row"}),
    Rejection.EMPTY_ROW: frozenset({"row"}),
    Rejection.BRACKETS_TOO_DEEP: frozenset({"max"}),
    # the brackets as the learner typed them: ( ) or [ ]
    Rejection.UNMATCHED_CLOSING_BRACKET: frozenset({"position", "closing", "opening"}),
    Rejection.UNCLOSED_BRACKET: frozenset({"opening"}),
    Rejection.TEXT_OUTSIDE_BRACKETS: frozenset({"text"}),
    Rejection.TEXT_BETWEEN_BRACKETED_ROWS: frozenset({"text"}),
    Rejection.NAN: frozenset({"row", "column"}),
    Rejection.DIVISION_BY_ZERO: _TOKEN_AND_PLACE,
    Rejection.NOT_A_NUMBER: _TOKEN_AND_PLACE,
    Rejection.TOO_LARGE: _TOKEN_AND_PLACE,
    Rejection.RAGGED_ROWS: frozenset({"row", "count", "width"}),
    Rejection.WRONG_SHAPE: frozenset({"rows", "cols", "got_rows", "got_cols"}),
    # rows × cols expected; row `row` has `count` values where row 1 has `width`
    Rejection.WRONG_SHAPE_RAGGED: frozenset({"rows", "cols", "row", "count", "width"}),
    Rejection.UNKNOWN_CHOICE: frozenset({"choice"}),
    Rejection.UNKNOWN_CHOICES: frozenset({"choices"}),
}
for _code in Rejection:
    REJECTION_PARAMETERS.setdefault(_code, frozenset())


class AnswerRejected(ValueError):
    """The learner's input cannot be graded; it does not count as an attempt.

    ``str(exc)`` is a complete English sentence fragment meant to be shown to the
    learner as is, so messages never mention Python types or internals. With a ``code``
    (a ``Rejection``), ``message`` is an English template (marked ``N_``) formatted with
    ``params``: ``template``, ``code`` and ``params`` let an interface say the same in the
    learner's language. Without one, ``message`` is a caller's own text, shown as it is.
    Subclassing ValueError lets generic callers treat it as "bad value" without
    importing this module.
    """

    def __init__(self, message: str, code: Rejection | None = None, **params: str | int) -> None:
        if code is not None:
            require_parameters("AnswerRejected", code, params, REJECTION_PARAMETERS)
        super().__init__(message.format(**params) if code is not None else message)
        self.template = message
        self.code = code
        self.params = params
