"""Pydantic's validation errors as content errors: each located in its file by path and
line, and said as an author who writes YAML (not Python) understands it."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from quizsvc.bank.parsing import YamlDocument, is_text_cut_at_a_comma, locate
from quizsvc.bank.problems import CONTENT_ERROR, NOTHING, ContentError, ContentProblem
from quizsvc.bank.schema import PATTERN_RULES, QUESTION_TYPES

# Offending values are quoted back to the author, but a whole paragraph is noise.
_MAX_QUOTED_INPUT = 60

# Pydantic's own wording names Python types; authors write YAML.
_TYPE_PROBLEMS = {
    "list_type": ContentProblem.NOT_A_LIST,
    "tuple_type": ContentProblem.NOT_A_LIST,
    "dict_type": ContentProblem.NOT_A_MAPPING,
    "model_type": ContentProblem.NOT_A_MAPPING,
    "model_attributes_type": ContentProblem.NOT_A_MAPPING,
    "string_type": ContentProblem.NOT_TEXT,
    "invalid_key": ContentProblem.KEY_NOT_TEXT,
}
# The error types whose ``ctx`` are the problem's parameters, and what they are called there.
_PYDANTIC_PROBLEMS = {
    "int_type": ContentProblem.NOT_AN_INTEGER,
    "bool_type": ContentProblem.NOT_A_BOOLEAN,
    "float_type": ContentProblem.NOT_A_NUMBER_VALUE,
    "finite_number": ContentProblem.NOT_FINITE,
    "greater_than": ContentProblem.GREATER_THAN,
    "greater_than_equal": ContentProblem.GREATER_THAN_EQUAL,
    "less_than_equal": ContentProblem.LESS_THAN_EQUAL,
    "string_too_long": ContentProblem.TEXT_TOO_LONG,
    "literal_error": ContentProblem.NOT_ONE_OF,
    "blank_text": ContentProblem.BLANK_TEXT,
    "too_few_items": ContentProblem.TOO_FEW_ITEMS,
}
_CTX_PARAMETERS = frozenset({"gt", "ge", "le", "max_length", "expected", "count"})


def content_errors(
    document: YamlDocument,
    exc: ValidationError,
    prefix: tuple[str | int, ...] = (),
) -> list[ContentError]:
    """``exc``'s errors in ``document``; ``prefix`` is where in the file the validated data
    sits (a drill's params inside its question)."""
    found = []
    for error in exc.errors():
        described = _describe(error)
        loc = (*prefix, *described.loc)
        path, line = locate(document.root, loc)
        code, params = described.code, described.params
        if code is ContentProblem.UNKNOWN_KEY and is_text_cut_at_a_comma(document.root, loc):
            code = ContentProblem.UNKNOWN_KEY_AFTER_COMMA
        if isinstance(code, ContentProblem):
            found.append(ContentError.of(document.file, path, line, code, **params))
        else:
            found.append(
                ContentError(
                    document.file, path, line, described.message, code, MappingProxyType(params)
                )
            )
    return found


def _describe(error: ErrorDetails) -> _Described:
    """Location and author-facing problem for one pydantic error.

    A params model's own rule (a drill kind's) raises a ``PydanticCustomError`` whose context
    carries its ``code`` and ``params`` beside the English ``message``; the bank knows neither
    the codes nor their texts, and passes them on.
    """
    loc = _without_union_tag(tuple(error["loc"]))
    ctx = error.get("ctx") or {}
    kind = error["type"]
    if kind == CONTENT_ERROR:
        return _Described((*loc, *ctx.get("at", ())), ctx["code"], dict(ctx["params"]))
    if kind == "missing":
        return _Described(loc, ContentProblem.MISSING_KEY, {"key": loc[-1]})
    if kind == "extra_forbidden":
        if loc[-1] == "correct" and "multiple_choice" in error["loc"]:
            return _Described(loc, ContentProblem.CORRECT_IN_MULTIPLE_CHOICE, {})
        one_try = next((t for t in ("numeric", "open") if t in error["loc"]), None)
        if loc[-1] in ("attempts", "penalty") and one_try:
            return _Described(
                loc, ContentProblem.TRIES_OF_A_ONE_TRY_QUESTION, {"key": loc[-1], "type": one_try}
            )
        return _Described(loc, ContentProblem.UNKNOWN_KEY, {"key": loc[-1]})
    got = {"got": _quoted_input(error.get("input"))}
    if kind == "string_pattern_mismatch" and ctx.get("pattern") in PATTERN_RULES:
        return _Described(loc, PATTERN_RULES[ctx["pattern"]], got)
    if kind in ("union_tag_not_found", "union_tag_invalid"):
        key = str(ctx.get("discriminator", "type")).strip("'")
        if kind == "union_tag_not_found":
            return _Described((*loc, key), ContentProblem.MISSING_KEY, {"key": key})
        params = {"key": key, "tag": ctx.get("tag"), "expected": ctx.get("expected_tags")}
        return _Described((*loc, key), ContentProblem.UNKNOWN_TAG, params)
    code = _TYPE_PROBLEMS.get(kind) or _PYDANTIC_PROBLEMS.get(kind)
    if code is ContentProblem.TOO_FEW_ITEMS and ctx.get("count") == 1:
        code = ContentProblem.AT_LEAST_ONE_ITEM
    params = {name: _as_written(value) for name, value in ctx.items() if name in _CTX_PARAMETERS}
    if isinstance(error.get("input"), dict | list):
        got = {}
    if code is None:
        message = error["msg"] + (f" (got {got['got'] or NOTHING})" if got else "")
        if "code" in ctx and "params" in ctx:
            return _Described(loc, ctx["code"], dict(ctx["params"]) | got, message)
        return _Described(loc, None, {}, message)
    return _Described(loc, code, params | got)


@dataclass(frozen=True)
class _Described:
    """One pydantic error as the loader reports it: the location in the file, and the
    problem (``code`` None: pydantic's own ``message``, which has no translation)."""

    loc: tuple[str | int, ...]
    code: StrEnum | None
    params: dict[str, Any]
    message: str = ""  # when ``code`` is not a ContentProblem: the English to print


def _without_union_tag(loc: tuple[str | int, ...]) -> tuple[str | int, ...]:
    """Drop the question type pydantic inserts into locations inside a question.

    ``questions.3.single_choice.correct`` is ``questions[3].correct`` in the file.
    """
    is_inside_a_question = len(loc) >= 3 and loc[0] == "questions" and isinstance(loc[1], int)
    if is_inside_a_question and loc[2] in QUESTION_TYPES:
        return (*loc[:2], *loc[3:])
    return loc


def _quoted_input(value: Any) -> str | None:
    """The value to quote back to the author; None for YAML's null (a key with no value)."""
    if value is None:
        return None
    quoted = repr(value)
    if len(quoted) > _MAX_QUOTED_INPUT:
        quoted = quoted[: _MAX_QUOTED_INPUT - 3] + "..."
    return quoted


def _as_written(value: Any) -> Any:
    """A bound as pydantic's own message writes it: ``le=1`` on a float field is 1, not 1.0."""
    return int(value) if isinstance(value, float) and value.is_integer() else value
