"""Every kind of bad content is reported with its exact file, path and line.

Line numbers in the expectations were counted by hand in the YAML below (1-based).
The ``content_errors`` fixture adds a valid ``ch/chapter.yaml``.
"""

from __future__ import annotations

import os
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from bank_samples import OPEN_QUESTION
from pydantic import BaseModel

from quizsvc.bank import BankError, ContentError, files, load_bank
from quizsvc.bank.files import MAX_FILE_BYTES

Errors = Callable[[dict[str, str | bytes]], list[ContentError]]

# Lines: 1 questions, 2 id, 3 type, 4 tags, 5 prompt, 6 choices, 7-8 choice A,
# 9-10 choice B, 11 correct, 12 explanation.
SINGLE_CHOICE = """\
questions:
  - id: q1
    type: single_choice
    tags: [qkv]
    prompt: {zh: 问题, en: Question}
    choices:
      - id: A
        text: {zh: 甲, en: first}
      - id: B
        text: {zh: 乙, en: second}
    correct: B
    explanation: {zh: 解释, en: Because}
"""

# Lines: 1 questions, 2 id, 3 type, 4 kind, 5 tags, 6 prompt, 7 params, 8 n.
DRILL = """\
questions:
  - id: d1
    type: drill
    kind: projection
    tags: [qkv]
    prompt: {zh: 计算, en: Compute}
    params:
      n: 3
"""


def only(errors: list[ContentError]) -> ContentError:
    assert len(errors) == 1, errors
    return errors[0]


ErrorOf = Callable[[str, str], ContentError]


def error_of(content_errors: Errors, file: str, valid: str) -> ErrorOf:
    def error(old: str, new: str) -> ContentError:
        assert old in valid, old
        return only(content_errors({file: valid.replace(old, new)}))

    return error


@pytest.fixture
def single_choice_error(content_errors: Errors) -> ErrorOf:
    """The one error of ch/q.yaml holding SINGLE_CHOICE with ``old`` replaced by ``new``."""
    return error_of(content_errors, "ch/q.yaml", SINGLE_CHOICE)


@pytest.fixture
def drill_error(content_errors: Errors) -> ErrorOf:
    """The one error of ch/d.yaml holding DRILL with ``old`` replaced by ``new``."""
    return error_of(content_errors, "ch/d.yaml", DRILL)


def test_valid_single_choice_file_loads(make_content, drill_kinds) -> None:
    # The baseline for the mutations below: without the mutation it is valid.
    bank = load_bank(make_content({"ch/q.yaml": SINGLE_CHOICE, "ch/d.yaml": DRILL}), drill_kinds)
    assert set(bank.questions) == {"q1", "d1"}


def test_unknown_key(single_choice_error: ErrorOf) -> None:
    assert single_choice_error(
        "    correct: B\n", "    correct: B\n    hint: {zh: 提示, en: Hint}\n"
    ) == ContentError("ch/q.yaml", "questions[0].hint", 12, "unknown key 'hint'")


def test_unknown_key_deep_inside_a_choice(single_choice_error: ErrorOf) -> None:
    assert single_choice_error("en: second}", "en: second, fr: deuxième}") == ContentError(
        "ch/q.yaml", "questions[0].choices[1].text.fr", 10, "unknown key 'fr'"
    )


def test_missing_english_text(single_choice_error: ErrorOf) -> None:
    # en does not exist, so the line is that of the deepest key that does: text.
    assert single_choice_error("text: {zh: 乙, en: second}", "text: {zh: 乙}") == ContentError(
        "ch/q.yaml", "questions[0].choices[1].text.en", 10, "missing required key 'en'"
    )


def test_blank_text_is_as_bad_as_missing_text(single_choice_error: ErrorOf) -> None:
    error = single_choice_error("prompt: {zh: 问题, en: Question}", "prompt: {zh: 问题, en: '  '}")
    assert (error.file, error.path, error.line) == ("ch/q.yaml", "questions[0].prompt.en", 5)
    assert "empty" in error.message


def test_correct_choice_not_among_choices(single_choice_error: ErrorOf) -> None:
    assert single_choice_error("correct: B", "correct: E") == ContentError(
        "ch/q.yaml",
        "questions[0].correct",
        11,
        "correct choice 'E' is not one of the choices ['A', 'B']",
    )


def test_duplicate_choice_id(content_errors: Errors) -> None:
    text = SINGLE_CHOICE.replace("- id: B", "- id: A").replace("correct: B", "correct: A")
    assert only(content_errors({"ch/q.yaml": text})) == ContentError(
        "ch/q.yaml", "questions[0].choices[1].id", 9, "duplicate choice id 'A' (also choices[0])"
    )


def test_duplicate_question_id_across_two_files(content_errors: Errors) -> None:
    # Files are read in path order, so the one in b.yaml is the duplicate.
    errors = content_errors({"ch/a.yaml": SINGLE_CHOICE, "ch/b.yaml": SINGLE_CHOICE})
    assert only(errors) == ContentError(
        "ch/b.yaml",
        "questions[0].id",
        2,
        "duplicate question id 'q1' (first defined at ch/a.yaml:2)",
    )


def test_duplicate_question_id_across_chapters(content_errors: Errors) -> None:
    other_chapter = "id: other\norder: 2\ntitle: {zh: 另一章, en: Other}\n"
    errors = content_errors(
        {
            "ch/q.yaml": SINGLE_CHOICE,
            "other/chapter.yaml": other_chapter,
            "other/q.yaml": SINGLE_CHOICE,
        }
    )
    assert [(e.file, e.path, e.line) for e in errors] == [("other/q.yaml", "questions[0].id", 2)]


@pytest.mark.parametrize(
    ("old", "new", "path", "line", "message"),
    [
        (
            "id: q1",
            "id: Q_1",
            "questions[0].id",
            2,
            "use lowercase letters, digits and single hyphens, like qkv-origin (got 'Q_1')",
        ),
        (
            "tags: [qkv]",
            "tags: [Multi Head]",
            "questions[0].tags[0]",
            4,
            "use lowercase letters and digits, words joined by _ or -, like multi_head"
            " (got 'Multi Head')",
        ),
        (
            "- id: B",
            "- id: B.",
            "questions[0].choices[1].id",
            9,
            "use letters and digits, words joined by _ or -, like A (got 'B.')",
        ),
    ],
)
def test_a_malformed_id_or_tag_says_what_to_write(
    content_errors: Errors, old: str, new: str, path: str, line: int, message: str
) -> None:
    # "B." also leaves correct: B without its choice; only the id's own error is asked for
    text = SINGLE_CHOICE.replace(old, new)
    errors = [error for error in content_errors({"ch/q.yaml": text}) if error.path == path]
    assert errors == [ContentError("ch/q.yaml", path, line, message)]


def test_a_drill_kind_written_in_capitals_says_what_to_write(content_errors: Errors) -> None:
    error = only(
        content_errors({"ch/d.yaml": DRILL.replace("kind: projection", "kind: Projection")})
    )
    assert (error.path, error.line, error.message) == (
        "questions[0].kind",
        4,
        "use lowercase letters, digits and _, like softmax_row (got 'Projection')",
    )


def test_correct_in_a_multiple_choice_question_says_how_it_marks_them(
    content_errors: Errors,
) -> None:
    text = (
        SINGLE_CHOICE.replace("type: single_choice", "type: multiple_choice")
        .replace("en: first}", "en: first}\n        score: 0")
        .replace("en: second}", "en: second}\n        score: 1")
    )
    # lines: 3 type, 7-9 choice A, 10-12 choice B, 13 correct
    assert only(content_errors({"ch/q.yaml": text})) == ContentError(
        "ch/q.yaml",
        "questions[0].correct",
        13,
        "unknown key 'correct': a multiple_choice question gives each choice a score,"
        " the correct ones' adding up to 1",
    )


def test_unknown_question_type(single_choice_error: ErrorOf) -> None:
    error = single_choice_error("type: single_choice", "type: essay")
    assert (error.file, error.path, error.line) == ("ch/q.yaml", "questions[0].type", 3)
    assert error.message.startswith("unknown type 'essay'; expected one of")
    assert "'single_choice'" in error.message


def test_missing_question_type(single_choice_error: ErrorOf) -> None:
    # The question's mapping starts on line 2 (the "- id:" line).
    assert single_choice_error("    type: single_choice\n", "") == ContentError(
        "ch/q.yaml", "questions[0].type", 2, "missing required key 'type'"
    )


def test_unknown_drill_kind(drill_error: ErrorOf) -> None:
    error = drill_error("kind: projection", "kind: telepathy")
    assert (error.file, error.path, error.line) == ("ch/d.yaml", "questions[0].kind", 4)
    assert error.message.startswith("unknown drill kind 'telepathy'; known kinds: add_norm, ")


def test_bad_drill_param_value(drill_error: ErrorOf) -> None:
    error = drill_error("n: 3", "n: 0")
    assert (error.file, error.path, error.line) == ("ch/d.yaml", "questions[0].params.n", 8)
    assert error.message == "Input should be greater than or equal to 1 (got 0)"


def test_unknown_drill_param(drill_error: ErrorOf) -> None:
    assert drill_error("n: 3", "heads: 2") == ContentError(
        "ch/d.yaml", "questions[0].params.heads", 8, "unknown key 'heads'"
    )


def test_drill_settings_are_checked(content_errors: Errors) -> None:
    text = DRILL + "    attempts: 0\n    penalty: 1.5\n"
    errors = content_errors({"ch/d.yaml": text})
    assert [(e.path, e.line) for e in errors] == [
        ("questions[0].attempts", 9),
        ("questions[0].penalty", 10),
    ]


def test_the_tries_of_a_choice_question_are_checked(content_errors: Errors) -> None:
    text = SINGLE_CHOICE + "    attempts: 0\n    penalty: 1.5\n"
    errors = content_errors({"ch/q.yaml": text})
    assert {e.file for e in errors} == {"ch/q.yaml"}
    assert [(e.path, e.line, e.message) for e in errors] == [
        ("questions[0].attempts", 13, "Input should be greater than or equal to 1 (got 0)"),
        ("questions[0].penalty", 14, "Input should be less than or equal to 1 (got 1.5)"),
    ]
    text = SINGLE_CHOICE + '    attempts: "2"\n    penalty: yes\n'
    errors = content_errors({"ch/q.yaml": text})
    assert [(e.path, e.line, e.message) for e in errors] == [
        ("questions[0].attempts", 13, "Input should be a valid integer (got '2')"),
        ("questions[0].penalty", 14, "Input should be a valid number (got True)"),
    ]


def test_the_tries_of_a_multiple_choice_question_are_checked(content_errors: Errors) -> None:
    text = (
        SINGLE_CHOICE.replace("type: single_choice", "type: multiple_choice")
        .replace("en: first}", "en: first}\n        score: 0")
        .replace("en: second}", "en: second}\n        score: 1")
        .replace("    correct: B\n", "    attempts: 1.5\n")
    )
    # lines: 3 type, 7-9 choice A, 10-12 choice B, 13 attempts
    assert only(content_errors({"ch/q.yaml": text})) == ContentError(
        "ch/q.yaml", "questions[0].attempts", 13, "Input should be a valid integer (got 1.5)"
    )


@pytest.mark.parametrize("key", ["attempts", "penalty"])
def test_tries_on_a_numeric_question_say_it_has_one(content_errors: Errors, key: str) -> None:
    # lines: 1 questions, 2 id, 3 type, 4 tags, 5 prompt, 6 answer, 7 explanation, 8 the key
    text = (
        "questions:\n  - id: n1\n    type: numeric\n    tags: [qkv]\n"
        "    prompt: {zh: 问题, en: Question}\n    answer: 1.5\n"
        f"    explanation: {{zh: 解释, en: Because}}\n    {key}: 2\n"
    )
    assert only(content_errors({"ch/q.yaml": text})) == ContentError(
        "ch/q.yaml",
        f"questions[0].{key}",
        8,
        f"unknown key '{key}': numeric questions have one try (only choice questions and"
        " drills take attempts and a penalty)",
    )


def test_yaml_syntax_error(content_errors: Errors) -> None:
    text = "questions:\n  - id: q1\n    prompt: a: b\n"
    error = only(content_errors({"ch/q.yaml": text}))
    # the parser stops at the second ':' before it has taken "prompt" as a key: the line is
    # the next key of the question it is in
    assert (error.file, error.path, error.line) == ("ch/q.yaml", "questions[0]", 3)
    assert error.message == "YAML syntax error: mapping values are not allowed here"


def test_a_yaml_syntax_error_names_the_key_the_parser_had_reached(content_errors: Errors) -> None:
    # lines 13-19: the second question up to its first choice's "text:"; 20 zh, 21 en
    second = SINGLE_CHOICE.replace("questions:\n", "").replace("id: q1", "id: q2")
    second = second.replace(
        "      - id: A\n        text: {zh: 甲, en: first}\n",
        "      - id: A\n        text:\n          zh: 甲\n          en: first: the one\n",
    )
    error = only(content_errors({"ch/q.yaml": SINGLE_CHOICE + second}))
    assert (error.path, error.line) == ("questions[1].choices[0].text", 21)
    assert error.message == "YAML syntax error: mapping values are not allowed here"


def test_yaml_bad_indentation(content_errors: Errors) -> None:
    text = "questions:\n  - id: q1\n   type: open\n"
    error = only(content_errors({"ch/q.yaml": text}))
    assert (error.file, error.path, error.line) == ("ch/q.yaml", "questions[0]", 3)
    assert error.message.startswith("YAML syntax error: ")


@pytest.mark.parametrize(
    ("text", "described_as"),
    [("- a\n- b\n", "a list"), ("just words\n", "a single string"), ("42\n", "a single value")],
)
def test_top_level_not_a_mapping(content_errors: Errors, text: str, described_as: str) -> None:
    assert only(content_errors({"ch/q.yaml": text})) == ContentError(
        "ch/q.yaml", "", 1, f"the top level must be a mapping of keys, not {described_as}"
    )


def test_chapter_file_not_a_mapping(content_errors: Errors) -> None:
    errors = content_errors({"ch/chapter.yaml": "\n\n- ch\n", "ch/q.yaml": SINGLE_CHOICE})
    assert only(errors) == ContentError(
        "ch/chapter.yaml", "", 3, "the top level must be a mapping of keys, not a list"
    )


def test_chapter_file_with_a_bad_value_names_its_key_and_line(content_errors: Errors) -> None:
    chapter = "id: ch\norder: first\ntitle:\n  zh: 章节\n  en: Chapter\n"
    errors = content_errors({"ch/chapter.yaml": chapter, "ch/q.yaml": SINGLE_CHOICE})
    assert only(errors) == ContentError(
        "ch/chapter.yaml", "order", 2, "Input should be a valid integer (got 'first')"
    )


def test_empty_file(content_errors: Errors) -> None:
    errors = content_errors({"ch/q.yaml": SINGLE_CHOICE, "ch/empty.yaml": "# nothing yet\n"})
    assert only(errors) == ContentError("ch/empty.yaml", "", None, "file is empty")


SAVE_AS_UTF8 = "save it as UTF-8 (in the editor's Save As, choose the encoding UTF-8)"


@pytest.mark.parametrize("encoding", ["gbk", "gb18030"])
def test_a_file_saved_by_a_chinese_windows_editor_is_named_as_such(
    content_errors: Errors, encoding: str
) -> None:
    body = b"questions:\n  - id: q1\n" + "    prompt: 问题\n".encode(encoding)
    assert only(content_errors({"ch/q.yaml": body})) == ContentError(
        "ch/q.yaml",
        "",
        3,
        "file is not UTF-8 but most likely GBK/GB18030, as Chinese Windows editors save by"
        f" default: {SAVE_AS_UTF8}",
    )


def test_a_file_in_another_encoding_is_not_utf8(content_errors: Errors) -> None:
    # Latin-1 "café " is no GB18030 either: its 0xE9 needs a second byte of 0x40 or more
    body = b"questions:\n  - id: q1\n    prompt: caf\xe9 au lait\n"
    assert only(content_errors({"ch/q.yaml": body})) == ContentError(
        "ch/q.yaml", "", 3, f"file is not valid UTF-8 text: {SAVE_AS_UTF8}"
    )


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_a_utf16_file_is_named_as_such(content_errors: Errors, encoding: str) -> None:
    # "utf-16" and "utf-32" write a byte-order mark; the other two do not, and this text
    # is ASCII: without the mark it would be valid UTF-8, with a 0 byte after each letter
    body = SINGLE_CHOICE.replace("问题", "Q").replace("甲", "A").replace("乙", "B")
    body = body.replace("解释", "E").encode(encoding)
    assert only(content_errors({"ch/q.yaml": body})) == ContentError(
        "ch/q.yaml", "", None, f"file is saved as UTF-16, not UTF-8: {SAVE_AS_UTF8}"
    )


def test_a_word_document_renamed_to_yaml(content_errors: Errors, tmp_path) -> None:
    document = tmp_path / "questions.docx"
    with zipfile.ZipFile(document, "w") as archive:
        archive.writestr("word/document.xml", "<w:document>问题</w:document>")
    error = only(
        content_errors({"ch/q.yaml": SINGLE_CHOICE, "ch/more.yaml": document.read_bytes()})
    )
    assert error == ContentError(
        "ch/more.yaml",
        "",
        None,
        "not a text file but a ZIP archive, such as a Word document (.docx) renamed:"
        " write the questions in a plain-text editor and save them as UTF-8",
    )


def test_a_binary_file(content_errors: Errors) -> None:
    body = b"questions:\n\x89PNG\x00\x00\xff\xd8"
    assert only(content_errors({"ch/q.yaml": body})) == ContentError(
        "ch/q.yaml", "", 2, "not a text file (it contains NUL bytes)"
    )


def test_a_utf8_byte_order_mark_and_windows_line_ends_are_fine(make_content, drill_kinds) -> None:
    # Windows Notepad's "UTF-8 with BOM" and CRLF line ends (coverage: these always loaded)
    body = b"\xef\xbb\xbf" + SINGLE_CHOICE.replace("\n", "\r\n").encode("utf-8")
    bank = load_bank(make_content({"ch/q.yaml": body}), drill_kinds)
    assert bank.questions["q1"].prompt.zh == "问题"
    assert str(bank.source_of["q1"]) == "ch/q.yaml:2"


# Lines of SINGLE_CHOICE: 3 type, 5 prompt, 11 correct.
@pytest.mark.parametrize(
    ("old", "new", "line", "explanation"),
    [
        (
            "    type: single_choice",
            "\ttype: single_choice",
            3,
            "a tab in the indentation: YAML indents with spaces only",
        ),
        (
            "    correct: B",
            "  \tcorrect: B",
            11,
            "a tab in the indentation: YAML indents with spaces only",
        ),
        (
            "    type: single_choice",
            "\u3000\u3000type: single_choice",
            3,
            "a full-width space (U+3000) in the indentation: indent with spaces",
        ),
        (
            "    type: single_choice",
            "    type\uff1asingle_choice",
            3,
            "a full-width colon '\uff1a' after 'type': write an ASCII colon and a space, 'type: '",
        ),
        (
            "    correct: B",
            "    correct\uff1a B",
            11,
            "a full-width colon '\uff1a' after 'correct': write an ASCII colon and a space,"
            " 'correct: '",
        ),
        (
            "    type: single_choice",
            "    type:\u3000single_choice",
            3,
            "a full-width space (U+3000) after 'type:': write an ASCII space, 'type: '",
        ),
    ],
)
def test_characters_a_chinese_input_method_types_in_place_of_yaml_syntax(
    content_errors: Errors, old: str, new: str, line: int, explanation: str
) -> None:
    # A full-width colon inside a text (line 5's prompt) is text, not the mistake.
    text = SINGLE_CHOICE.replace("{zh: 问题,", "{zh: 注意\uff1a问题,").replace(old, new)
    error = only(content_errors({"ch/q.yaml": text}))
    # each line is in the first question; but a full-width space is no indentation to YAML,
    # which takes "\u3000\u3000type" for a key of the top level: no path is certain then
    in_question = "" if new.startswith("\u3000") else "questions[0]"
    assert (error.file, error.path, error.line) == ("ch/q.yaml", in_question, line)
    assert error.message.startswith(f"{explanation} (YAML syntax error: ")


def test_a_question_mark_in_a_text_inside_braces(single_choice_error: ErrorOf) -> None:
    # PyYAML ends a text inside { } at a '?'; line 5 is the prompt's
    error = single_choice_error("en: Question}", "en: Why scale?}")
    assert (error.file, error.path, error.line) == ("ch/q.yaml", "questions[0].prompt", 5)
    assert error.message == (
        "a '?' in a text inside { } or [ ]: put the text in quotes, en: \"Why ...?\""
        " (YAML syntax error: while parsing a flow mapping; expected ',' or '}', but got '?')"
    )


def test_a_comma_in_a_text_inside_braces(single_choice_error: ErrorOf) -> None:
    # "second" becomes a key of its own, without a value; line 10 is choice B's text
    assert single_choice_error("en: second}", "en: first, second}") == ContentError(
        "ch/q.yaml",
        "questions[0].choices[1].text.second",
        10,
        "unknown key 'second'"
        " (a comma inside { } starts a new key: put a text with a comma in quotes)",
    )
    # a key with a value, or outside braces, is a plain unknown key
    assert (
        single_choice_error("en: second}", "en: second, note: x}").message == "unknown key 'note'"
    )


def test_a_file_larger_than_the_limit_is_not_parsed(content_errors: Errors) -> None:
    padding = "#" * 80 + "\n"
    body = SINGLE_CHOICE + padding * (1_000_000 // len(padding))  # just over 1 MB
    assert len(body.encode("utf-8")) > MAX_FILE_BYTES
    errors = content_errors({"ch/q.yaml": SINGLE_CHOICE.replace("q1", "q0"), "ch/big.yaml": body})
    assert only(errors) == ContentError(
        "ch/big.yaml",
        "",
        None,
        "file is 1.0 MB; a content file may be at most 1 MB:"
        " split its questions over several files",
    )


def test_a_file_of_exactly_the_limit_is_read(
    make_content, drill_kinds, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files, "MAX_FILE_BYTES", len(SINGLE_CHOICE.encode("utf-8")))
    assert list(load_bank(make_content({"ch/q.yaml": SINGLE_CHOICE}), drill_kinds).questions) == [
        "q1"
    ]


def test_an_unreadable_file(make_content, drill_kinds, monkeypatch: pytest.MonkeyPatch) -> None:
    # chmod 000 cannot stop root, who runs the CI's tests; a file system can (coverage)
    root = make_content({"ch/q.yaml": SINGLE_CHOICE, "ch/locked.yaml": DRILL})
    real_open = Path.open

    def refuse_locked(path: Path, *args, **kwargs):
        if path.name == "locked.yaml":
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(Path, "open", refuse_locked)
    with pytest.raises(BankError) as caught:
        load_bank(root, drill_kinds)
    assert list(caught.value.errors) == [
        ContentError("ch/locked.yaml", "", None, "cannot read: Permission denied")
    ]


def test_a_directory_that_cannot_be_listed_is_an_error_not_a_missing_chapter(
    make_content, drill_kinds, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a chapter copied to the server with its owner's mode 700: chmod cannot stop root, who
    # runs the CI's tests, so the listing is refused here as the file system would
    other = SINGLE_CHOICE.replace("id: q1", "id: q2")
    root = make_content(
        {
            "ch/q.yaml": SINGLE_CHOICE,
            "locked/chapter.yaml": "id: locked\norder: 2\ntitle: {zh: 锁, en: Locked}\n",
            "locked/q.yaml": other,
            "zz/chapter.yaml": "id: zz\norder: 3\ntitle: {zh: 末, en: Last}\n",
            "zz/q.yaml": other.replace("q2", "q3"),
        }
    )
    real_scandir = os.scandir

    def refuse_locked(path):
        if Path(path).name == "locked":
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", refuse_locked)
    with pytest.raises(BankError) as caught:
        load_bank(root, drill_kinds)
    assert list(caught.value.errors) == [
        ContentError("locked/", "", None, "cannot list the directory: Permission denied")
    ]


@pytest.mark.parametrize(
    "name", ["q.yaml~", ".q.yaml.swp", "#q.yaml#", "q.yaml.bak", "q.yaml.orig", "README.md"]
)
def test_editor_backups_and_notes_are_not_content(make_content, drill_kinds, name: str) -> None:
    # a backup holds the same question ids: loading it would report every one as a duplicate
    # (coverage: these were always ignored)
    root = make_content({"ch/q.yaml": SINGLE_CHOICE, f"ch/{name}": SINGLE_CHOICE})
    assert list(load_bank(root, drill_kinds).questions) == ["q1"]


def test_control_character(single_choice_error: ErrorOf) -> None:
    assert single_choice_error("en: Because", "en: Because\x07") == ContentError(
        "ch/q.yaml", "", 12, "invalid character U+0007: special characters are not allowed"
    )


def test_python_tags_are_rejected_not_executed(content_errors: Errors) -> None:
    text = "questions:\n  - !!python/object/apply:os.system ['echo pwned']\n"
    error = only(content_errors({"ch/q.yaml": text}))
    assert (error.file, error.path, error.line) == ("ch/q.yaml", "", 2)
    assert "could not determine a constructor" in error.message


@pytest.mark.parametrize("value", ["2020-13-45", "!!int x", "!!bool maybe"])
def test_bad_yaml_values_are_content_errors(content_errors: Errors, value: str) -> None:
    # PyYAML raises ValueError/KeyError for these, not a YAMLError.
    error = only(content_errors({"ch/q.yaml": f"questions: {value}\n"}))
    assert (error.file, error.path, error.line) == ("ch/q.yaml", "", None)
    assert error.message.startswith("invalid YAML value: ")


def test_duplicate_yaml_key(single_choice_error: ErrorOf) -> None:
    assert single_choice_error(
        "    correct: B\n", "    correct: B\n    correct: A\n"
    ) == ContentError(
        "ch/q.yaml", "questions[0].correct", 12, "duplicate key 'correct' (first on line 11)"
    )


def test_unknown_key_named_like_the_question_type(single_choice_error: ErrorOf) -> None:
    # Pydantic puts the type ("single_choice") in the error location; it must not be
    # mistaken for this key, or the other way round.
    assert single_choice_error(
        "    correct: B\n", "    correct: B\n    single_choice: 1\n"
    ) == ContentError("ch/q.yaml", "questions[0].single_choice", 12, "unknown key 'single_choice'")


def test_yaml_boolean_key(single_choice_error: ErrorOf) -> None:
    assert single_choice_error("    correct: B\n", "    correct: B\n    on: 1\n") == ContentError(
        "ch/q.yaml",
        "questions[0].on",
        12,
        "keys must be text; quote keys such as 'yes', 'on' or numbers (got True)",
    )


def test_wrong_kind_of_value(content_errors: Errors) -> None:
    text = SINGLE_CHOICE.replace("tags: [qkv]", "tags: qkv").replace(
        "prompt: {zh: 问题, en: Question}", "prompt: Question"
    )
    assert content_errors({"ch/q.yaml": text}) == [
        ContentError("ch/q.yaml", "questions[0].tags", 4, "must be a list (got 'qkv')"),
        ContentError(
            "ch/q.yaml", "questions[0].prompt", 5, "must be a mapping of keys (got 'Question')"
        ),
    ]


def test_merge_keys_are_not_duplicates(make_content, drill_kinds) -> None:
    text = SINGLE_CHOICE + "  - <<: *first\n    id: q2\n"
    text = text.replace("  - id: q1", "  - &first\n    id: q1")
    bank = load_bank(make_content({"ch/q.yaml": text}), drill_kinds)
    assert list(bank.questions) == ["q1", "q2"]
    assert bank.questions["q2"].prompt == bank.questions["q1"].prompt


def test_empty_question_list(content_errors: Errors) -> None:
    assert only(content_errors({"ch/q.yaml": "questions: []\n"})) == ContentError(
        "ch/q.yaml", "questions", 1, "must have at least 1 item"
    )


@pytest.mark.parametrize(
    ("text", "path", "line", "message"),
    [
        ("questions:\n", "questions", 1, "must be a list (got nothing)"),
        ("questions:\n  -\n", "questions[0]", 2, "must be a mapping of keys (got nothing)"),
    ],
)
def test_a_key_left_empty_is_said_to_hold_nothing(
    content_errors: Errors, text: str, path: str, line: int, message: str
) -> None:
    assert only(content_errors({"ch/q.yaml": text})) == ContentError(
        "ch/q.yaml", path, line, message
    )


def test_question_file_without_questions_key(content_errors: Errors) -> None:
    # Errors are sorted by file, line, then path.
    assert content_errors({"ch/q.yaml": "question:\n  - id: q1\n"}) == [
        ContentError("ch/q.yaml", "question", 1, "unknown key 'question'"),
        ContentError("ch/q.yaml", "questions", 1, "missing required key 'questions'"),
    ]


def test_missing_chapter_yaml(content_errors: Errors) -> None:
    errors = content_errors({"ch/chapter.yaml": "", "solo/q.yaml": SINGLE_CHOICE})
    assert ContentError("solo/chapter.yaml", "", None, "missing chapter.yaml") in errors


def test_chapter_id_must_match_directory(content_errors: Errors) -> None:
    chapter = "id: chapter-one\norder: 1\ntitle: {zh: 章, en: Chapter}\n"
    errors = content_errors({"ch/chapter.yaml": chapter, "ch/q.yaml": SINGLE_CHOICE})
    assert only(errors) == ContentError(
        "ch/chapter.yaml",
        "id",
        1,
        "chapter id 'chapter-one' must match its directory name 'ch'",
    )


def test_chapter_without_question_files(content_errors: Errors) -> None:
    errors = content_errors({"ch/chapter.yaml": "id: ch\norder: 1\ntitle: {zh: 章, en: C}\n"})
    assert only(errors) == ContentError("ch/", "", None, "chapter directory has no question files")


def test_yaml_outside_a_chapter_directory(content_errors: Errors) -> None:
    errors = content_errors({"ch/q.yaml": SINGLE_CHOICE, "stray.yaml": SINGLE_CHOICE})
    error = only(errors)
    assert (error.file, error.path, error.line) == ("stray.yaml", "", None)


@pytest.mark.parametrize("name", ["drills.yml", "drills.YAML", "drills.Yml", "drills.YML"])
def test_other_yaml_spellings_are_reported_not_ignored(content_errors: Errors, name) -> None:
    errors = content_errors({"ch/q.yaml": SINGLE_CHOICE, f"ch/{name}": DRILL})
    assert only(errors) == ContentError(
        f"ch/{name}", "", None, "only names ending in .yaml are read: rename it to drills.yaml"
    )


def test_yaml_names_that_are_not_regular_files_are_reported_not_ignored(
    make_content, drill_kinds
) -> None:
    root = make_content({"ch/q.yaml": SINGLE_CHOICE})
    chapter = root / "ch"
    (chapter / "extra.yaml").mkdir()
    (chapter / "loop.yaml").symlink_to("loop.yaml")
    (chapter / "gone.yaml").symlink_to("nowhere.yaml")
    (chapter / "old.yml").mkdir()
    os.mkfifo(chapter / "pipe.yaml")
    # Not YAML names: ignored as before, whatever they are.
    (chapter / "images").mkdir()
    (chapter / "figure.png").symlink_to("missing.png")
    with pytest.raises(BankError) as caught:
        load_bank(root, drill_kinds)
    assert list(caught.value.errors) == [
        ContentError("ch/extra.yaml", "", None, "a directory, not a file"),
        ContentError(
            "ch/gone.yaml", "", None, "cannot follow the symlink: No such file or directory"
        ),
        ContentError(
            "ch/loop.yaml", "", None, "cannot follow the symlink: Too many levels of symbolic links"
        ),
        ContentError("ch/old.yml", "", None, "a directory, not a file"),
        ContentError("ch/pipe.yaml", "", None, "not a regular file"),
    ]


def test_a_symlink_to_a_yaml_file_is_content(make_content, drill_kinds) -> None:
    root = make_content({"shared/q.yaml.txt": SINGLE_CHOICE, "ch/notes.txt": "notes"})
    (root / "ch" / "q.yaml").symlink_to(root / "shared" / "q.yaml.txt")
    assert list(load_bank(root, drill_kinds).questions) == ["q1"]


def test_two_chapters_with_the_same_order(content_errors: Errors) -> None:
    other_q = SINGLE_CHOICE.replace("id: q1", "id: q2")
    errors = content_errors(
        {
            "ch/q.yaml": SINGLE_CHOICE,
            "other/chapter.yaml": "id: other\norder: 1\ntitle: {zh: 另, en: Other}\n",
            "other/q.yaml": other_q,
        }
    )
    assert only(errors) == ContentError(
        "other/chapter.yaml", "order", 2, "order 1 is already used by chapter 'ch'"
    )


# Lines: 1 questions, 2 id, 3 type, 4 tags, 5 prompt, 6 answer, 7 explanation.
NUMERIC = """\
questions:
  - id: n1
    type: numeric
    tags: [softmax]
    prompt: {zh: 算, en: Compute}
    answer: [[1, 2], [3, 4]]
    explanation: {zh: 解, en: Why}
"""


def test_numeric_answer_errors_point_at_the_cell(content_errors: Errors) -> None:
    # the answer's rows on lines 7 and 8
    numeric = NUMERIC.replace(
        "answer: [[1, 2], [3, 4]]", "answer:\n      - [1, 2]\n      - [3, yes]"
    )
    error = only(content_errors({"ch/n.yaml": numeric}))
    assert (error.path, error.line) == ("questions[0].answer[1][1]", 8)
    assert error.message == "expected a number, got True"


def test_ragged_numeric_matrix(content_errors: Errors) -> None:
    numeric = NUMERIC.replace("[3, 4]]", "[3]]")
    assert only(content_errors({"ch/n.yaml": numeric})) == ContentError(
        "ch/n.yaml",
        "questions[0].answer[1]",
        6,
        "matrix rows must have equal length: row 0 has 2 values, row 1 has 1",
    )


def test_multiple_choice_scores_must_sum_to_one(content_errors: Errors) -> None:
    text = """\
questions:
  - id: m1
    type: multiple_choice
    tags: [qkv]
    prompt: {zh: 选, en: Pick}
    choices:
      - {id: A, text: {zh: 甲, en: a}, score: 0.5}
      - {id: B, text: {zh: 乙, en: b}, score: 0.25}
      - {id: C, text: {zh: 丙, en: c}, score: -0.5}
    explanation: {zh: 解, en: Why}
"""
    assert only(content_errors({"ch/m.yaml": text})) == ContentError(
        "ch/m.yaml",
        "questions[0].choices",
        6,
        "the positive scores of the correct choices must sum to 1, not 0.75",
    )


def test_duplicate_rubric_key(content_errors: Errors) -> None:
    rubric_point = OPEN_QUESTION.split("    rubric:\n")[1]
    text = OPEN_QUESTION + rubric_point  # a second point, lines 12-15
    assert only(content_errors({"ch/o.yaml": text})) == ContentError(
        "ch/o.yaml",
        "questions[0].rubric[1].key",
        12,
        "duplicate rubric key 'heads' (also rubric[0])",
    )


def test_several_bad_files_report_every_error_and_load_nothing(
    make_content, drill_kinds: dict[str, type[BaseModel]]
) -> None:
    second_question = SINGLE_CHOICE.replace("id: q1", "id: q2").replace("correct: B", "correct: Z")
    root = make_content(
        {
            "ch/good.yaml": SINGLE_CHOICE,
            "ch/syntax.yaml": "questions:\n  - id: q1\n    prompt: a: b\n",
            "ch/list.yaml": "- a\n",
            "ch/mixed.yaml": second_question
            + DRILL.replace("questions:\n", "").replace("n: 3", "n: x"),
        }
    )
    with pytest.raises(BankError) as caught:
        load_bank(root, drill_kinds)
    found = [(e.file, e.path, e.line) for e in caught.value.errors]
    assert found == [
        ("ch/list.yaml", "", 1),
        # The bad question does not hide the valid drill's bad params in the same file.
        ("ch/mixed.yaml", "questions[0].correct", 11),
        ("ch/mixed.yaml", "questions[1].params.n", 19),
        ("ch/syntax.yaml", "questions[0]", 3),
    ]
    assert str(caught.value).startswith("4 content errors\nch/list.yaml:1: <document>: ")


def test_error_formats_as_file_line_path_message() -> None:
    error = ContentError("ch/q.yaml", "questions[3].choices[1].text.en", 17, "missing required key")
    assert str(error) == "ch/q.yaml:17: questions[3].choices[1].text.en: missing required key"
    assert str(ContentError("ch/q.yaml", "", None, "file is empty")) == (
        "ch/q.yaml:?: <document>: file is empty"
    )


def test_missing_content_directory(tmp_path, drill_kinds) -> None:
    with pytest.raises(BankError) as caught:
        load_bank(tmp_path / "nope", drill_kinds)
    assert [(e.file, e.line) for e in caught.value.errors] == [(".", None)]


def test_empty_content_directory(tmp_path, drill_kinds) -> None:
    with pytest.raises(BankError) as caught:
        load_bank(tmp_path, drill_kinds)
    assert caught.value.errors == (
        ContentError(".", "", None, "no chapters found (no content/<chapter-id>/)"),
    )


# --- edges found by mutation testing ------------------------------------------------


def test_line_numbers_count_a_leading_blank_line(content_errors: Errors) -> None:
    assert only(content_errors({"ch/q.yaml": b"\nx: \xff\n"})) == ContentError(
        "ch/q.yaml", "", 2, f"file is not valid UTF-8 text: {SAVE_AS_UTF8}"
    )
    error = only(content_errors({"ch/q.yaml": "\nx: \x07\n"}))
    assert (error.line, error.message[:26]) == (2, "invalid character U+0007: ")


def test_yes_and_no_keys_are_each_reported_at_their_own_line(content_errors: Errors) -> None:
    text = SINGLE_CHOICE + "    yes: 1\n    no: 2\n"
    errors = content_errors({"ch/q.yaml": text})
    assert [(e.path, e.line, e.message.rsplit(" ", 1)[-1]) for e in errors] == [
        ("questions[0].yes", 13, "True)"),
        ("questions[0].no", 14, "False)"),
    ]


def test_a_duplicate_key_shared_through_aliases_is_reported_once(content_errors: Errors) -> None:
    text = SINGLE_CHOICE + "base: &b {x: 1, x: 2}\nother: *b\nthird: *b\n"
    duplicates = [e for e in content_errors({"ch/q.yaml": text}) if "duplicate key" in e.message]
    assert [(e.path, e.line) for e in duplicates] == [("base.x", 13)]


def test_one_error_is_one_content_error(make_content, drill_kinds) -> None:
    with pytest.raises(BankError) as caught:
        load_bank(make_content({"ch/q.yaml": b"\nx: \xff\n"}), drill_kinds)
    assert str(caught.value).startswith("1 content error\n")


def test_a_long_bad_value_is_quoted_shortened_to_sixty_characters(
    single_choice_error: ErrorOf,
) -> None:
    error = single_choice_error("  - id: q1", "  - id: " + "a" * 101)
    quoted = error.message[error.message.index("'") : error.message.rindex("...") + 3]
    assert len(quoted) == 60 and quoted.startswith("'aaa")
