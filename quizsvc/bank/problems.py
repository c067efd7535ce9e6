"""What can be wrong with the content: a stable code for each problem, and its English text;
a problem located in its file (``ContentError``), and all of a bank's (``BankError``).

A ``ContentError`` carries its code and parameters as well as the English message, so an
interface can say the same in another language (the instructor's pages do, in Chinese), as
``quizsvc.grading.Rejection`` does for a learner's answer. The English here is what the CLI
prints, written once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from pydantic_core import PydanticCustomError

from quizsvc.messages import N_


class ContentProblem(StrEnum):
    """Why a content file is rejected. The values of the codes that come from pydantic's
    error types are those types."""

    # the content directory and its files
    CONTENT_DIR_NOT_FOUND = "content_dir_not_found"
    NO_CHAPTERS = "no_chapters"
    CANNOT_LIST_DIRECTORY = "cannot_list_directory"
    BROKEN_SYMLINK = "broken_symlink"
    CANNOT_STAT = "cannot_stat"
    DIRECTORY_NOT_FILE = "directory_not_file"
    NOT_REGULAR_FILE = "not_regular_file"
    YML_SUFFIX = "yml_suffix"
    NOT_IN_CHAPTER_DIRECTORY = "not_in_chapter_directory"
    CANNOT_READ = "cannot_read"
    FILE_TOO_LARGE = "file_too_large"
    FILE_TOO_LARGE_UNKNOWN_SIZE = "file_too_large_unknown_size"
    NO_QUESTION_FILES = "no_question_files"
    MISSING_CHAPTER_FILE = "missing_chapter_file"
    # encoding
    ZIP_ARCHIVE = "zip_archive"
    UTF16 = "utf16"
    NUL_BYTES = "nul_bytes"
    NOT_UTF8 = "not_utf8"
    GBK = "gbk"
    INVALID_CHARACTER = "invalid_character"
    # YAML
    EMPTY_FILE = "empty_file"
    INVALID_YAML_VALUE = "invalid_yaml_value"
    YAML_SYNTAX = "yaml_syntax"
    QUESTION_MARK_IN_BRACES = "question_mark_in_braces"
    TAB_INDENT = "tab_indent"
    FULL_WIDTH_INDENT = "full_width_indent"
    FULL_WIDTH_COLON = "full_width_colon"
    FULL_WIDTH_SPACE_AFTER_COLON = "full_width_space_after_colon"
    DUPLICATE_KEY = "duplicate_key"
    TOP_LEVEL_LIST = "top_level_list"
    TOP_LEVEL_STRING = "top_level_string"
    TOP_LEVEL_VALUE = "top_level_value"
    # keys and values (pydantic)
    MISSING_KEY = "missing"
    UNKNOWN_KEY = "extra_forbidden"
    UNKNOWN_KEY_AFTER_COMMA = "unknown_key_after_comma"
    CORRECT_IN_MULTIPLE_CHOICE = "correct_in_multiple_choice"
    TRIES_OF_A_ONE_TRY_QUESTION = "tries_of_a_one_try_question"
    UNKNOWN_TAG = "union_tag_invalid"
    BAD_SLUG = "bad_slug"
    BAD_TAG = "bad_tag"
    BAD_CHOICE_ID = "bad_choice_id"
    BAD_DRILL_KIND = "bad_drill_kind"
    NOT_A_LIST = "list_type"
    NOT_A_MAPPING = "dict_type"
    NOT_TEXT = "string_type"
    KEY_NOT_TEXT = "invalid_key"
    NOT_AN_INTEGER = "int_type"
    NOT_A_BOOLEAN = "bool_type"
    NOT_A_NUMBER_VALUE = "float_type"
    NOT_FINITE = "finite_number"
    GREATER_THAN = "greater_than"
    GREATER_THAN_EQUAL = "greater_than_equal"
    LESS_THAN_EQUAL = "less_than_equal"
    TEXT_TOO_LONG = "string_too_long"
    NOT_ONE_OF = "literal_error"
    BLANK_TEXT = "blank_text"
    AT_LEAST_ONE_ITEM = "at_least_one_item"
    TOO_FEW_ITEMS = "too_few_items"
    # numeric answers
    BOOLEAN_NOT_NUMBER = "boolean_not_number"
    NOT_A_NUMBER = "not_a_number"
    SEVERAL_NUMBERS_IN_TEXT = "several_numbers_in_text"
    FULL_WIDTH_NUMBER = "full_width_number"
    QUOTED_NUMBER = "quoted_number"
    NAN_ANSWER = "nan_answer"
    EMPTY_NUMBER_LIST = "empty_number_list"
    RAGGED_MATRIX = "ragged_matrix"
    NUMBERS_AND_LISTS = "numbers_and_lists"
    # cross-field rules
    DUPLICATE_CHOICE_ID = "duplicate_choice_id"
    CORRECT_NOT_A_CHOICE = "correct_not_a_choice"
    SCORES_NOT_ONE = "scores_not_one"
    DUPLICATE_RUBRIC_KEY = "duplicate_rubric_key"
    CHAPTER_ID_MISMATCH = "chapter_id_mismatch"
    DUPLICATE_QUESTION_ID = "duplicate_question_id"
    DUPLICATE_ORDER = "duplicate_order"
    UNKNOWN_DRILL_KIND = "unknown_drill_kind"
    # a chapter's schedule (quiz: and drills:)
    NOT_A_DATETIME = "not_a_datetime"
    NAIVE_DATETIME = "naive_datetime"
    CLOSES_NOT_AFTER_OPENS = "closes_not_after_opens"
    UNTIL_NOT_AFTER_CLOSES = "until_not_after_closes"
    LATE_PENALTY_MISSING = "late_penalty_missing"
    LATE_PENALTY_WITH_REFUSE = "late_penalty_with_refuse"
    # Markdown
    BAD_FORMULA = "bad_formula"
    # a chapter's trained model (model/)
    CORPUS_INVALID = "corpus_invalid"
    MODEL_INVALID = "model_invalid"


# Formatted with the error's parameters. A "got" parameter is the offending value as YAML
# read it, already quoted; where a text does not place it, it follows as " (got ...)".
CONTENT_MESSAGES: dict[ContentProblem, str] = {
    ContentProblem.CONTENT_DIR_NOT_FOUND: N_("content directory {directory} not found"),
    ContentProblem.CORPUS_INVALID: N_("the trained model's corpus cannot be read: {reason}"),
    ContentProblem.MODEL_INVALID: N_("the trained model cannot be used: {reason}"),
    ContentProblem.NO_CHAPTERS: N_("no chapters found (no content/<chapter-id>/)"),
    ContentProblem.CANNOT_LIST_DIRECTORY: N_("cannot list the directory: {reason}"),
    ContentProblem.BROKEN_SYMLINK: N_("cannot follow the symlink: {reason}"),
    ContentProblem.CANNOT_STAT: N_("{reason}"),
    ContentProblem.DIRECTORY_NOT_FILE: N_("a directory, not a file"),
    ContentProblem.NOT_REGULAR_FILE: N_("not a regular file"),
    ContentProblem.YML_SUFFIX: N_("only names ending in .yaml are read: rename it to {stem}.yaml"),
    ContentProblem.NOT_IN_CHAPTER_DIRECTORY: N_(
        "YAML files must be directly inside a chapter directory (content/<chapter-id>/<file>.yaml)"
    ),
    ContentProblem.CANNOT_READ: N_("cannot read: {reason}"),
    ContentProblem.FILE_TOO_LARGE: N_(
        "file is {size} MB; a content file may be at most {max} MB: split "
        "its questions over several files"
    ),
    ContentProblem.FILE_TOO_LARGE_UNKNOWN_SIZE: N_(
        "file is larger; a content file may be at most {max} MB: split its "
        "questions over several files"
    ),
    ContentProblem.NO_QUESTION_FILES: N_("chapter directory has no question files"),
    ContentProblem.MISSING_CHAPTER_FILE: N_("missing {name}"),
    ContentProblem.ZIP_ARCHIVE: N_(
        "not a text file but a ZIP archive, such as a Word document "
        "(.docx) renamed: write the questions in a plain-text editor and "
        "save them as UTF-8"
    ),
    ContentProblem.UTF16: N_(
        "file is saved as UTF-16, not UTF-8: save it as UTF-8 (in the "
        "editor's Save As, choose the encoding UTF-8)"
    ),
    ContentProblem.NUL_BYTES: N_("not a text file (it contains NUL bytes)"),
    ContentProblem.NOT_UTF8: N_(
        "file is not valid UTF-8 text: save it as UTF-8 (in the editor's "
        "Save As, choose the encoding UTF-8)"
    ),
    ContentProblem.GBK: N_(
        "file is not UTF-8 but most likely GBK/GB18030, as Chinese Windows "
        "editors save by default: save it as UTF-8 (in the editor's Save "
        "As, choose the encoding UTF-8)"
    ),
    ContentProblem.INVALID_CHARACTER: N_("invalid character {character}: {reason}"),
    ContentProblem.EMPTY_FILE: N_("file is empty"),
    ContentProblem.INVALID_YAML_VALUE: N_("invalid YAML value: {detail}"),
    ContentProblem.YAML_SYNTAX: N_("YAML syntax error: {detail}"),
    ContentProblem.QUESTION_MARK_IN_BRACES: N_(
        "a '?' in a text inside {{ }} or [ ]: put the text in quotes, en: "
        '"Why ...?" (YAML syntax error: {detail})'
    ),
    ContentProblem.TAB_INDENT: N_(
        "a tab in the indentation: YAML indents with spaces only (YAML syntax error: {detail})"
    ),
    ContentProblem.FULL_WIDTH_INDENT: N_(
        "a full-width space (U+3000) in the indentation: indent with "
        "spaces (YAML syntax error: {detail})"
    ),
    ContentProblem.FULL_WIDTH_COLON: N_(
        "a full-width colon '：' after {key!r}: write an ASCII colon and a "
        "space, '{key}: ' (YAML syntax error: {detail})"
    ),
    ContentProblem.FULL_WIDTH_SPACE_AFTER_COLON: N_(
        "a full-width space (U+3000) after '{key}:': write an ASCII space, "
        "'{key}: ' (YAML syntax error: {detail})"
    ),
    ContentProblem.DUPLICATE_KEY: N_("duplicate key {key!r} (first on line {first_line})"),
    ContentProblem.TOP_LEVEL_LIST: N_("the top level must be a mapping of keys, not a list"),
    ContentProblem.TOP_LEVEL_STRING: N_(
        "the top level must be a mapping of keys, not a single string"
    ),
    ContentProblem.TOP_LEVEL_VALUE: N_(
        "the top level must be a mapping of keys, not a single value"
    ),
    ContentProblem.MISSING_KEY: N_("missing required key {key!r}"),
    ContentProblem.UNKNOWN_KEY: N_("unknown key {key!r}"),
    ContentProblem.UNKNOWN_KEY_AFTER_COMMA: N_(
        "unknown key {key!r} (a comma inside {{ }} starts a new key: put a "
        "text with a comma in quotes)"
    ),
    ContentProblem.CORRECT_IN_MULTIPLE_CHOICE: N_(
        "unknown key 'correct': a multiple_choice question gives each "
        "choice a score, the correct ones' adding up to 1"
    ),
    ContentProblem.TRIES_OF_A_ONE_TRY_QUESTION: N_(
        "unknown key {key!r}: {type} questions have one try (only choice "
        "questions and drills take attempts and a penalty)"
    ),
    ContentProblem.UNKNOWN_TAG: N_("unknown {key} {tag!r}; expected one of {expected}"),
    ContentProblem.BAD_SLUG: N_(
        "use lowercase letters, digits and single hyphens, like qkv-origin"
    ),
    ContentProblem.BAD_TAG: N_(
        "use lowercase letters and digits, words joined by _ or -, like multi_head"
    ),
    ContentProblem.BAD_CHOICE_ID: N_("use letters and digits, words joined by _ or -, like A"),
    ContentProblem.BAD_DRILL_KIND: N_("use lowercase letters, digits and _, like softmax_row"),
    ContentProblem.NOT_A_LIST: N_("must be a list"),
    ContentProblem.NOT_A_MAPPING: N_("must be a mapping of keys"),
    ContentProblem.NOT_TEXT: N_("must be text"),
    ContentProblem.KEY_NOT_TEXT: N_("keys must be text; quote keys such as 'yes', 'on' or numbers"),
    # pydantic's own wording, kept as the CLI has always printed it
    ContentProblem.NOT_AN_INTEGER: N_("Input should be a valid integer"),
    ContentProblem.NOT_A_BOOLEAN: N_("Input should be a valid boolean"),
    ContentProblem.NOT_A_NUMBER_VALUE: N_("Input should be a valid number"),
    ContentProblem.NOT_FINITE: N_("Input should be a finite number"),
    ContentProblem.GREATER_THAN: N_("Input should be greater than {gt}"),
    ContentProblem.GREATER_THAN_EQUAL: N_("Input should be greater than or equal to {ge}"),
    ContentProblem.LESS_THAN_EQUAL: N_("Input should be less than or equal to {le}"),
    ContentProblem.TEXT_TOO_LONG: N_("String should have at most {max_length} characters"),
    ContentProblem.NOT_ONE_OF: N_("Input should be {expected}"),
    ContentProblem.BLANK_TEXT: N_("Value error, text must not be empty or only whitespace"),
    ContentProblem.AT_LEAST_ONE_ITEM: N_("must have at least 1 item"),
    ContentProblem.TOO_FEW_ITEMS: N_("must have at least {count} items"),
    ContentProblem.BOOLEAN_NOT_NUMBER: N_("expected a number, got {got}"),
    ContentProblem.NOT_A_NUMBER: N_("expected a number or 'inf'/'-inf', got {got}"),
    ContentProblem.SEVERAL_NUMBERS_IN_TEXT: N_(
        "expected a number or 'inf'/'-inf', got {got}: write several numbers as a list, [{written}]"
    ),
    ContentProblem.FULL_WIDTH_NUMBER: N_(
        "expected a number or 'inf'/'-inf', got {got}: write the number in ASCII digits, {written}"
    ),
    ContentProblem.QUOTED_NUMBER: N_(
        "expected a number or 'inf'/'-inf', got {got}: a number in quotes "
        "is text: write it without quotes, {written}"
    ),
    ContentProblem.NAN_ANSWER: N_("NaN is not a valid answer"),
    ContentProblem.EMPTY_NUMBER_LIST: N_("a list of numbers must not be empty"),
    ContentProblem.RAGGED_MATRIX: N_(
        "matrix rows must have equal length: row 0 has {width} values, row {row} has {count}"
    ),
    ContentProblem.NUMBERS_AND_LISTS: N_(
        "mix of numbers and lists; write a matrix as a list of rows"
    ),
    ContentProblem.DUPLICATE_CHOICE_ID: N_("duplicate choice id {id!r} (also choices[{other}])"),
    ContentProblem.CORRECT_NOT_A_CHOICE: N_(
        "correct choice {correct!r} is not one of the choices {choices}"
    ),
    ContentProblem.SCORES_NOT_ONE: N_(
        "the positive scores of the correct choices must sum to 1, not {total}"
    ),
    ContentProblem.DUPLICATE_RUBRIC_KEY: N_("duplicate rubric key {key!r} (also rubric[{other}])"),
    ContentProblem.CHAPTER_ID_MISMATCH: N_(
        "chapter id {id!r} must match its directory name {directory!r}"
    ),
    ContentProblem.DUPLICATE_QUESTION_ID: N_(
        "duplicate question id {id!r} (first defined at {first})"
    ),
    ContentProblem.DUPLICATE_ORDER: N_("order {order} is already used by chapter {chapter!r}"),
    ContentProblem.UNKNOWN_DRILL_KIND: N_("unknown drill kind {kind!r}; known kinds: {known}"),
    ContentProblem.NOT_A_DATETIME: N_(
        "expected a date and time with its time zone, like 2026-09-01T09:00:00+08:00, got {got}"
    ),
    ContentProblem.NAIVE_DATETIME: N_(
        "{got} has no time zone: write one, like 2026-09-01T09:00:00+08:00 (or Z for UTC)"
    ),
    ContentProblem.CLOSES_NOT_AFTER_OPENS: N_(
        "closes ({closes}) must be later than opens ({opens})"
    ),
    ContentProblem.UNTIL_NOT_AFTER_CLOSES: N_(
        "late answers are taken until a moment later than closes: give closes, and an until "
        "after it"
    ),
    ContentProblem.LATE_PENALTY_MISSING: N_(
        "policy: penalty needs the penalty, the fraction of the score taken off, like 0.2"
    ),
    ContentProblem.LATE_PENALTY_WITH_REFUSE: N_(
        "{key!r} goes with policy: penalty; policy: refuse takes no late answers"
    ),
    ContentProblem.BAD_FORMULA: N_(
        "the formula ${tex}$ cannot be rendered ({reason}): write it in the LaTeX that "
        "docs/authoring.md describes"
    ),
}

NOTHING = N_("nothing")  # a key with no value, or a bare "-": YAML's null
GOT_SUFFIX = N_(" (got {got})")


def format_problem(
    template: str, params: Mapping[str, object], got_suffix: str, nothing: str
) -> str:
    """``template`` with ``params``, the offending value ("got") appended with ``got_suffix``
    where the template does not place it, and a missing value called ``nothing``; shared by
    every language so that each says the same thing."""
    values = {name: nothing if value is None else value for name, value in params.items()}
    text = template.format(**values)
    if "got" in values and "{got}" not in template:
        text += got_suffix.format(got=values["got"])
    return text


def english(code: ContentProblem, params: Mapping[str, object]) -> str:
    return format_problem(CONTENT_MESSAGES[code], params, GOT_SUFFIX, NOTHING)


@dataclass(frozen=True)
class ContentError:
    """One problem in the content, located as precisely as the file allows.

    ``file`` is relative to the content directory, with ``/`` separators on every
    platform; ``path`` names the key (``questions[3].choices[1].text.en``), or is
    empty for a problem with the file as a whole; ``line`` is 1-based, or None when
    the file has no line to point at (empty or missing file). ``message`` is in English;
    ``code`` and ``params`` say the same for a translation: a ``ContentProblem``, or the code
    of a rule of a params model the loader was given (a drill kind's ``ParamsProblem``);
    None for a message of pydantic's own, which has none.
    """

    file: str
    path: str
    line: int | None
    message: str
    code: StrEnum | None = field(default=None, compare=False)
    params: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @classmethod
    def of(
        cls, file: str, path: str, line: int | None, code: ContentProblem, /, **params: Any
    ) -> ContentError:
        return cls(file, path, line, english(code, params), code, MappingProxyType(params))

    def __str__(self) -> str:
        line = "?" if self.line is None else str(self.line)
        return f"{self.file}:{line}: {self.path or '<document>'}: {self.message}"


class BankError(Exception):
    """The content cannot be loaded; ``errors`` lists every problem found."""

    def __init__(self, errors: Iterable[ContentError]) -> None:
        self.errors: tuple[ContentError, ...] = tuple(errors)
        count = len(self.errors)
        summary = f"{count} content error{'s' if count != 1 else ''}"
        super().__init__("\n".join([summary, *map(str, self.errors)]))


CONTENT_ERROR = "content_error"


def content_error(
    code: ContentProblem, at: tuple[str | int, ...] = (), **params: Any
) -> PydanticCustomError:
    """An error for a cross-field rule, located at ``at`` relative to the failing model.

    Pydantic can only locate a model validator's error at the model itself; the
    loader appends ``ctx["at"]`` to the location so the author is sent to the exact
    key (``questions[2].correct``) instead of the start of the question.
    """
    ctx = {"message": english(code, params), "at": at, "code": code, "params": params}
    return PydanticCustomError(CONTENT_ERROR, "{message}", ctx)
