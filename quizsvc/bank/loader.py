"""Load and validate a content directory into an immutable ``Bank``.

Layout::

    content/
      <chapter-id>/
        chapter.yaml        # Chapter
        questions.yaml      # QuestionFile (any other *.yaml name works)
        drills.yaml

Loading is all-or-nothing: every file is read and validated, every problem is
collected as a ``ContentError`` (file, path, line, message), and if there is even
one, ``BankError`` is raised with all of them.  A service must never run on half a
bank, and an author fixing content wants the whole list at once, not one error per
run.  Bad content never raises anything but ``BankError``.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import re
import stat
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml
from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_core import ErrorDetails

from quizsvc.bank.problems import NOTHING, ContentProblem, english
from quizsvc.bank.schema import (
    CONTENT_ERROR,
    PATTERN_RULES,
    QUESTION_TYPES,
    Chapter,
    DrillQuestion,
    Question,
    QuestionFile,
)

CHAPTER_FILE = "chapter.yaml"
YAML_SUFFIX = ".yaml"
# Accepting both spellings would make ``chapter.yml`` a question file; it is reported.
_OTHER_YAML_SUFFIXES = (".yml",)

DrillKinds = Mapping[str, type[BaseModel]]

_QUESTION_ADAPTER: TypeAdapter[Question] = TypeAdapter(Question)

# The chapter's question file is 13 KB; PyYAML parses about 0.2 MB a second and needs about
# 100 times a file's size in memory, so a much larger file (a data dump, a wrong file) would
# hold a content reload, and the page that checks the files on disk, for minutes.
MAX_FILE_BYTES = 1_000_000

# Offending values are quoted back to the author, but a whole paragraph is noise.
_MAX_QUOTED_INPUT = 60


# --- errors ----------------------------------------------------------------------------


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


# --- the bank --------------------------------------------------------------------------


@dataclass(frozen=True)
class SourceLocation:
    """Where a question is written, for messages such as ``content test`` failures."""

    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class Bank:
    """A fully validated question bank.  Immutable, so one instance can serve every request."""

    chapters: tuple[Chapter, ...]  # by (order, id)
    questions: Mapping[str, Question]  # by id, in chapter order then file order
    chapter_of: Mapping[str, str]  # question id -> chapter id
    source_of: Mapping[str, SourceLocation]  # question id -> where it is written
    # Drill question id -> its params validated by the kind's params model (defaults
    # filled in); the question itself keeps ``params`` exactly as authored.
    drill_params: Mapping[str, BaseModel]
    version: str  # see content_version()
    _chapters_by_id: Mapping[str, Chapter] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_id = MappingProxyType({chapter.id: chapter for chapter in self.chapters})
        object.__setattr__(self, "_chapters_by_id", by_id)

    def chapter(self, chapter_id: str) -> Chapter:
        """The chapter with this id; KeyError if there is none."""
        return self._chapters_by_id[chapter_id]

    def questions_in(self, chapter_id: str) -> tuple[Question, ...]:
        """The chapter's questions in authored order; KeyError for an unknown chapter."""
        self.chapter(chapter_id)
        return tuple(q for q in self.questions.values() if self.chapter_of[q.id] == chapter_id)


# --- content version -------------------------------------------------------------------


def content_version(files: Mapping[str, bytes]) -> str:
    """sha256 over the files' relative paths and bytes, in sorted path order.

    Depends only on what is in the files, not on timestamps, the checkout location
    or directory listing order, so identical trees give identical versions on every
    machine.  Each part is length-prefixed so no two different trees can produce the
    same stream of bytes.
    """
    digest = hashlib.sha256()
    for relative_path in sorted(files):
        for part in (relative_path.encode("utf-8"), files[relative_path]):
            digest.update(len(part).to_bytes(8, "big"))
            digest.update(part)
    return digest.hexdigest()


# --- loading ---------------------------------------------------------------------------


@dataclass
class _YamlDocument:
    file: str
    data: Any
    root: yaml.Node


@dataclass
class _LoadedQuestion:
    question: Question
    chapter_id: str
    index: int  # position in its file's ``questions:`` list
    source: SourceLocation


def load_bank(directory: Path, drill_kinds: DrillKinds) -> Bank:
    """Read, validate and index every YAML file under ``directory``.

    ``drill_kinds`` maps each drill kind name to the pydantic model of its params;
    it is passed in so the bank stays independent of the drill implementations.
    Raises ``BankError`` listing every problem if anything at all is wrong.
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise BankError(
            [
                ContentError.of(
                    ".", "", None, ContentProblem.CONTENT_DIR_NOT_FOUND, directory=directory
                )
            ]
        )

    errors: list[ContentError] = []
    files = _read_content_files(directory, errors)
    documents: dict[str, _YamlDocument] = {}
    for relative_path, raw in files.items():
        document = _parse_yaml(relative_path, raw, errors)
        if document is not None:
            documents[relative_path] = document

    chapters: list[Chapter] = []
    loaded: list[_LoadedQuestion] = []
    for chapter_dir in _chapter_directories(files):
        chapter = _load_chapter(chapter_dir, files, documents, errors)
        if chapter is not None:
            chapters.append(chapter)
        for relative_path in sorted(files):
            if _is_question_file(relative_path, chapter_dir) and relative_path in documents:
                loaded.extend(_load_questions(documents[relative_path], chapter_dir, errors))

    _check_unique_chapter_orders(chapters, documents, errors)
    _check_unique_question_ids(loaded, documents, errors)
    drill_params = _validate_drill_params(loaded, documents, drill_kinds, errors)

    if errors:
        raise BankError(sorted(set(errors), key=_error_sort_key))

    chapters.sort(key=lambda chapter: (chapter.order, chapter.id))
    chapter_rank = {chapter.id: rank for rank, chapter in enumerate(chapters)}
    loaded.sort(key=lambda item: chapter_rank[item.chapter_id])  # stable: keeps file order
    return Bank(
        chapters=tuple(chapters),
        questions=MappingProxyType({item.question.id: item.question for item in loaded}),
        chapter_of=MappingProxyType({item.question.id: item.chapter_id for item in loaded}),
        source_of=MappingProxyType({item.question.id: item.source for item in loaded}),
        drill_params=MappingProxyType(drill_params),
        version=content_version(files),
    )


def _error_sort_key(error: ContentError) -> tuple[str, int, str, str]:
    return (error.file, error.line or 0, error.path, error.message)


def _read_content_files(directory: Path, errors: list[ContentError]) -> dict[str, bytes]:
    """Every YAML file in a chapter directory, keyed by its ``/``-separated relative path.

    Hidden files and directories (editor and VCS droppings) are skipped.  A YAML file
    anywhere else is reported: the author clearly meant it to be loaded.  So is a YAML
    name that is not a regular file (a directory, a broken or looping symlink, a FIFO).
    """
    files: dict[str, bytes] = {}
    for path in _entries_under(directory, errors):
        relative = path.relative_to(directory)
        relative_path = relative.as_posix()
        suffix = path.suffix.lower()  # X.YAML is meant as YAML too, and must be reported
        is_yaml_name = suffix == YAML_SUFFIX or suffix in _OTHER_YAML_SUFFIXES
        if not path.is_file():
            if is_yaml_name:
                code, params = _not_a_file(path)
                errors.append(ContentError.of(relative_path, "", None, code, **params))
            continue
        if is_yaml_name and path.suffix != YAML_SUFFIX:
            errors.append(
                ContentError.of(relative_path, "", None, ContentProblem.YML_SUFFIX, stem=path.stem)
            )
            continue
        if path.suffix != YAML_SUFFIX:
            continue
        if len(relative.parts) != 2:
            errors.append(
                ContentError.of(relative_path, "", None, ContentProblem.NOT_IN_CHAPTER_DIRECTORY)
            )
            continue
        try:
            with path.open("rb") as file:
                # one byte more than allowed tells a file at the limit from a larger one
                raw = file.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            errors.append(
                ContentError.of(
                    relative_path, "", None, ContentProblem.CANNOT_READ, reason=exc.strerror
                )
            )
            continue
        if len(raw) > MAX_FILE_BYTES:
            code, params = _too_large(path)
            errors.append(ContentError.of(relative_path, "", None, code, **params))
            continue
        files[relative_path] = raw
    if not files and not errors:
        errors.append(ContentError.of(".", "", None, ContentProblem.NO_CHAPTERS))
    return files


def _not_a_file(path: Path) -> tuple[ContentProblem, dict[str, Any]]:
    """Why ``path``, which is not a regular file (following symlinks), cannot be read."""
    try:
        status = path.stat()
    except OSError as exc:
        reason = exc.strerror or str(exc)
        # A symlink to nothing, or a loop of symlinks.
        code = ContentProblem.BROKEN_SYMLINK if path.is_symlink() else ContentProblem.CANNOT_STAT
        return code, {"reason": reason}
    if stat.S_ISDIR(status.st_mode):
        return ContentProblem.DIRECTORY_NOT_FILE, {}
    return ContentProblem.NOT_REGULAR_FILE, {}


def _entries_under(directory: Path, errors: list[ContentError]) -> list[Path]:
    """Every entry under ``directory`` but hidden ones, sorted; symlinked directories are not
    entered. ``Path.rglob`` would skip a directory it may not list without a word, leaving a
    chapter out of a bank that loads "successfully"."""
    found: list[Path] = []

    def visit(folder: Path) -> None:
        try:
            with os.scandir(folder) as listing:
                entries = [entry for entry in listing if not entry.name.startswith(".")]
        except OSError as exc:
            relative = folder.relative_to(directory).as_posix()
            where = "." if relative == "." else f"{relative}/"
            reason = exc.strerror or str(exc)
            errors.append(
                ContentError.of(
                    where, "", None, ContentProblem.CANNOT_LIST_DIRECTORY, reason=reason
                )
            )
            return
        for entry in entries:
            path = Path(entry.path)
            found.append(path)
            if entry.is_dir(follow_symlinks=False):
                visit(path)

    visit(directory)
    return sorted(found)


def _too_large(path: Path) -> tuple[ContentProblem, dict[str, Any]]:
    limit = f"{MAX_FILE_BYTES / 1e6:g}"
    try:
        size = f"{path.stat().st_size / 1e6:.1f}"
    except OSError:
        return ContentProblem.FILE_TOO_LARGE_UNKNOWN_SIZE, {"max": limit}
    return ContentProblem.FILE_TOO_LARGE, {"size": size, "max": limit}


def _chapter_directories(files: Mapping[str, bytes]) -> list[str]:
    return sorted({relative_path.split("/")[0] for relative_path in files})


def _is_question_file(relative_path: str, chapter_dir: str) -> bool:
    directory, _, name = relative_path.partition("/")
    return directory == chapter_dir and name != CHAPTER_FILE


# --- YAML ------------------------------------------------------------------------------


def _parse_yaml(file: str, raw: bytes, errors: list[ContentError]) -> _YamlDocument | None:
    if problem := _not_a_text_file(file, raw):
        errors.append(problem)
        return None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        errors.append(_not_utf8_error(file, raw, exc))
        return None

    try:
        # One parse gives both the node tree (for line numbers) and the data, with
        # exactly safe_load's semantics: SafeLoader knows no tags that run code.
        loader = yaml.SafeLoader(text)
    except yaml.reader.ReaderError as exc:  # raised up front for a non-printable character
        errors.append(_unreadable_character_error(file, text, exc))
        return None
    try:
        root = loader.get_single_node()
        if root is None:
            errors.append(ContentError.of(file, "", None, ContentProblem.EMPTY_FILE))
            return None
        # Before construction: constructing a mapping with a merge key (``<<: *base``)
        # rewrites its node to hold the merged keys, which would look like duplicates.
        errors.extend(_duplicate_key_errors(file, root))
        data = loader.construct_document(root)
    except yaml.MarkedYAMLError as exc:
        errors.append(_yaml_syntax_error(file, text, exc))
        return None
    except yaml.reader.ReaderError as exc:
        errors.append(_unreadable_character_error(file, text, exc))
        return None
    except Exception as exc:
        # PyYAML lets ValueError/KeyError escape for values such as ``!!int x`` or
        # ``2020-13-45``; they are still just bad content, not a crash.
        errors.append(
            ContentError.of(file, "", None, ContentProblem.INVALID_YAML_VALUE, detail=str(exc))
        )
        return None
    finally:
        loader.dispose()
    return _YamlDocument(file=file, data=data, root=root)


_UTF16_BOMS = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
_ZIP_SIGNATURE = b"PK\x03\x04"


def _not_a_text_file(file: str, raw: bytes) -> ContentError | None:
    """A ZIP archive or UTF-16 text, checked before decoding: both can be valid UTF-8 (an
    English UTF-16 file is ASCII with a 0 byte after each character)."""
    if raw.startswith(_ZIP_SIGNATURE):
        return ContentError.of(file, "", None, ContentProblem.ZIP_ARCHIVE)
    if raw.startswith(_UTF16_BOMS) or _looks_like_utf16(raw):
        # with a 0 byte in every character, counting b"\n" would give no line
        return ContentError.of(file, "", None, ContentProblem.UTF16)
    return None


def _not_utf8_error(file: str, raw: bytes, exc: UnicodeDecodeError) -> ContentError:
    """Say what the file most likely is, so the author knows how to save it instead."""
    line = raw.count(b"\n", 0, exc.start) + 1
    if b"\x00" in raw:
        return ContentError.of(file, "", line, ContentProblem.NUL_BYTES)
    try:
        raw.decode("gb18030")
    except UnicodeDecodeError:
        return ContentError.of(file, "", line, ContentProblem.NOT_UTF8)
    return ContentError.of(file, "", line, ContentProblem.GBK)


def _looks_like_utf16(raw: bytes) -> bool:
    """UTF-16 without a byte-order mark: YAML's ASCII keys and spaces are one 0 byte each."""
    head = raw[:1000]
    return len(head) >= 4 and max(head[0::2].count(0), head[1::2].count(0)) > len(head) // 4


def _unreadable_character_error(file: str, text: str, exc: yaml.reader.ReaderError) -> ContentError:
    line = text.count("\n", 0, exc.position) + 1
    return ContentError.of(
        file,
        "",
        line,
        ContentProblem.INVALID_CHARACTER,
        character=f"U+{exc.character:04X}",
        reason=exc.reason,
    )


def _yaml_syntax_error(file: str, text: str, exc: yaml.MarkedYAMLError) -> ContentError:
    mark = exc.problem_mark or exc.context_mark
    line = mark.line + 1 if mark is not None else None
    # PyYAML's own description, which has no translation
    detail = "; ".join(part for part in (exc.context, exc.problem) if part)
    in_braces = (exc.context or "").startswith("while parsing a flow")
    if in_braces and (exc.problem or "").endswith("but got '?'"):
        # PyYAML ends a text inside { } or [ ] at a '?': "{zh: ..., en: Why scale?}"
        return ContentError.of(
            file,
            _path_reached(text, line),
            line,
            ContentProblem.QUESTION_MARK_IN_BRACES,
            detail=detail,
        )
    if line is not None and (cause := _likely_cause(text, line)):
        cause_line, code, params = cause
        path = _path_reached(text, cause_line)
        return ContentError.of(file, path, cause_line, code, **params, detail=detail)
    return ContentError.of(
        file, _path_reached(text, line), line, ContentProblem.YAML_SYNTAX, detail=detail
    )


@dataclass
class _Collection:
    """A mapping or list the parser is inside, and where in it."""

    is_mapping: bool
    column: int  # of its first key or item, for a block collection
    in_braces: bool  # written inside { } or [ ], where columns mean nothing
    key: str | None = None  # the mapping's last key read
    key_line: int = 0  # 1-based
    in_value: bool = False  # the mapping's key is read, its value not yet complete
    index: int = -1  # the list's item being read


def _path_reached(text: str, line: int | None) -> str:
    """Where a parse that fails at ``line`` got to, as a path: the key whose value it was
    reading, else the mapping or list item it was in ("" at the top level).

    The parser's events up to the error say which collections it was in; a block mapping
    or list ends only at the next token the parser reads, so those that the line's
    indentation has left are dropped: at a key's column, the line is that mapping's next key.
    """
    stack: list[_Collection] = []
    loader = yaml.SafeLoader(text)
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, yaml.CollectionEndEvent):
                stack.pop()
                if stack and stack[-1].is_mapping:
                    stack[-1].in_value = False
                continue
            if not isinstance(event, yaml.NodeEvent):
                continue
            parent = stack[-1] if stack else None
            is_key = parent is not None and parent.is_mapping and not parent.in_value
            if parent is not None and not parent.is_mapping:
                parent.index += 1
            elif parent is not None and is_key:
                parent.key = getattr(event, "value", None)
                parent.key_line = event.start_mark.line + 1
                parent.in_value = True
            if isinstance(event, yaml.CollectionStartEvent) and not is_key:
                is_mapping = isinstance(event, yaml.MappingStartEvent)
                column = event.start_mark.column
                stack.append(_Collection(is_mapping, column, bool(event.flow_style)))
            elif parent is not None and parent.is_mapping and not is_key:
                parent.in_value = False  # a scalar or an alias: the value is complete
    except yaml.YAMLError:
        pass
    finally:
        loader.dispose()
    indent = _indentation(text, line)
    path: list[str | int] = []
    for depth, collection in enumerate(stack):
        left = indent is not None and collection.column >= indent
        if left and not collection.in_braces and collection.key_line != line:
            break  # the line is outside it, or at its column: its next key or item
        if not collection.is_mapping:
            if collection.index >= 0:
                path.append(collection.index)
        elif collection.key is not None and (depth < len(stack) - 1 or collection.in_value):
            path.append(collection.key)
    if indent is None and line is not None:
        # a line indented with a tab or a full-width space may belong to any of them: only
        # the list item that holds it (its question) is certain
        first_item = next((n for n, part in enumerate(path) if isinstance(part, int)), -1)
        path = path[: first_item + 1]
    return format_path(path)


def _indentation(text: str, line: int | None) -> int | None:
    """The line's indentation in spaces; None when unknown (a tab or full-width space)."""
    lines = text.splitlines()
    if line is None or not 0 < line <= len(lines):
        return None
    content = lines[line - 1]
    indent = len(content) - len(content.lstrip(" "))
    return None if content[indent : indent + 1] in ("\t", "\u3000") else indent


# What a Chinese editor or input method puts where YAML needs plain ASCII: a tab or a
# full-width space (U+3000) in the indentation, a full-width colon after a key, or a
# full-width space after a key's colon. Keys are ASCII, so "说明：" in a text is not one.
_TAB_INDENT = re.compile(r"^[ \u3000]*\t")
_FULL_WIDTH_INDENT = re.compile(r"^[ \t]*\u3000")
_KEY = r"^\s*(?:-\s+)?(?P<key>[A-Za-z_][A-Za-z0-9_-]*)\s*"
_FULL_WIDTH_COLON = re.compile(_KEY + "\uff1a")
_FULL_WIDTH_SPACE_AFTER_COLON = re.compile(_KEY + ":\u3000")
# The parser stops at most a line or two after the mistake (a key without its colon reads
# as text continued on the next line).
_LINES_BEFORE_THE_ERROR = 2


def _likely_cause(text: str, error_line: int) -> tuple[int, ContentProblem, dict[str, str]] | None:
    """The line, from the error's back to two lines before it, with a character an author
    cannot see is wrong, and what to type instead."""
    lines = text.splitlines()
    first = max(1, error_line - _LINES_BEFORE_THE_ERROR)
    for number in range(min(error_line, len(lines)), first - 1, -1):
        line = lines[number - 1]
        if _TAB_INDENT.match(line):
            return number, ContentProblem.TAB_INDENT, {}
        if _FULL_WIDTH_INDENT.match(line):
            return number, ContentProblem.FULL_WIDTH_INDENT, {}
        if found := _FULL_WIDTH_COLON.match(line):
            return number, ContentProblem.FULL_WIDTH_COLON, {"key": found["key"]}
        if found := _FULL_WIDTH_SPACE_AFTER_COLON.match(line):
            return number, ContentProblem.FULL_WIDTH_SPACE_AFTER_COLON, {"key": found["key"]}
    return None


def _duplicate_key_errors(file: str, root: yaml.Node) -> Iterator[ContentError]:
    """PyYAML silently keeps the last of two equal keys; an author meant both."""
    seen_nodes: set[int] = set()  # anchors can make the node graph cyclic

    def walk(node: yaml.Node, path: tuple[str | int, ...]) -> Iterator[ContentError]:
        if id(node) in seen_nodes:
            return
        seen_nodes.add(id(node))
        if isinstance(node, yaml.MappingNode):
            first_line: dict[str, int] = {}
            for key_node, value_node in node.value:
                if not isinstance(key_node, yaml.ScalarNode) or key_node.tag.endswith(":merge"):
                    continue
                key = key_node.value
                if key in first_line:
                    yield ContentError.of(
                        file,
                        format_path((*path, key)),
                        key_node.start_mark.line + 1,
                        ContentProblem.DUPLICATE_KEY,
                        key=key,
                        first_line=first_line[key],
                    )
                else:
                    first_line[key] = key_node.start_mark.line + 1
                yield from walk(value_node, (*path, key))
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                yield from walk(item, (*path, index))

    yield from walk(root, ())


def format_path(loc: Sequence[str | int]) -> str:
    """``("questions", 3, "text", "en")`` -> ``questions[3].text.en``."""
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text


_YAML_BOOL_TAG = "tag:yaml.org,2002:bool"


def _is_key(key_node: yaml.Node, key: str | int) -> bool:
    if not isinstance(key_node, yaml.ScalarNode):
        return False
    if key_node.tag == _YAML_BOOL_TAG:
        # YAML 1.1 reads ``yes:``/``on:`` as the key True, which pydantic reports as 1.
        return isinstance(key, int) and key == (key_node.value.lower() in ("yes", "true", "on"))
    return key_node.value == str(key)


def _mapping_entry(node: yaml.MappingNode, key: str | int) -> tuple[yaml.Node, yaml.Node] | None:
    # The last entry wins, as it does in the constructed data.
    found = None
    for key_node, value_node in node.value:
        if _is_key(key_node, key):
            found = (key_node, value_node)
    return found


# Pydantic appends this to the location of an error in a dict's key, not its value.
_DICT_KEY_MARKER = "[key]"


def locate(root: yaml.Node, loc: Sequence[str | int]) -> tuple[str, int]:
    """Map a pydantic error location onto the node tree: ``(path, line)``.

    The line is that of the deepest node on the path that exists in the file: the
    key's line for a mapping entry (so ``choices:`` rather than its first item), the
    item's line for a list item, and the enclosing mapping's line for a missing key.
    """
    path, line, _ = _resolve(root, loc)
    return path, line


def _resolve(root: yaml.Node, loc: Sequence[str | int]) -> tuple[str, int, yaml.Node | None]:
    """``locate``'s path and line, and the node at ``loc`` (None if it is not in the file)."""
    node: yaml.Node | None = root
    line = root.start_mark.line + 1
    path: list[str | int] = []
    for segment in loc:
        if segment == _DICT_KEY_MARKER:
            continue
        if isinstance(node, yaml.MappingNode):
            entry = _mapping_entry(node, segment)
            if entry is not None:
                key_node, node = entry
                line = key_node.start_mark.line + 1
                # The key as written: ``yes``, not the True it was read as.
                path.append(key_node.value)
                continue
        elif (
            isinstance(node, yaml.SequenceNode)
            and isinstance(segment, int)
            and 0 <= segment < len(node.value)
        ):
            node = node.value[segment]
            line = node.start_mark.line + 1
            path.append(segment)
            continue
        node = None
        path.append(segment)
    return format_path(path), line, node


_YAML_NULL_TAG = "tag:yaml.org,2002:null"


def _is_text_cut_at_a_comma(root: yaml.Node, loc: Sequence[str | int]) -> bool:
    """An unknown key with no value inside { }: "{zh: ..., en: first, second}" reads
    "second" as a key of its own."""
    *_, parent = _resolve(root, loc[:-1])
    *_, node = _resolve(root, loc)
    return (
        isinstance(parent, yaml.MappingNode)
        and parent.flow_style is True
        and isinstance(node, yaml.ScalarNode)
        and node.tag == _YAML_NULL_TAG
        and node.value == ""
    )


# --- pydantic errors -------------------------------------------------------------------


def _quoted_input(value: Any) -> str | None:
    """The value to quote back to the author; None for YAML's null (a key with no value)."""
    if value is None:
        return None
    quoted = repr(value)
    if len(quoted) > _MAX_QUOTED_INPUT:
        quoted = quoted[: _MAX_QUOTED_INPUT - 3] + "..."
    return quoted


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


def _as_written(value: Any) -> Any:
    """A bound as pydantic's own message writes it: ``le=1`` on a float field is 1, not 1.0."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


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


def _content_errors(
    document: _YamlDocument,
    exc: ValidationError,
    prefix: tuple[str | int, ...] = (),
) -> list[ContentError]:
    found = []
    for error in exc.errors():
        described = _describe(error)
        loc = (*prefix, *described.loc)
        path, line = locate(document.root, loc)
        code, params = described.code, described.params
        if code is ContentProblem.UNKNOWN_KEY and _is_text_cut_at_a_comma(document.root, loc):
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


def _top_level_is_mapping(document: _YamlDocument, errors: list[ContentError]) -> bool:
    if isinstance(document.data, dict):
        return True
    code = {list: ContentProblem.TOP_LEVEL_LIST, str: ContentProblem.TOP_LEVEL_STRING}.get(
        type(document.data), ContentProblem.TOP_LEVEL_VALUE
    )
    errors.append(ContentError.of(document.file, "", document.root.start_mark.line + 1, code))
    return False


# --- chapters and questions ------------------------------------------------------------


def _load_chapter(
    chapter_dir: str,
    files: Mapping[str, bytes],
    documents: Mapping[str, _YamlDocument],
    errors: list[ContentError],
) -> Chapter | None:
    chapter_path = f"{chapter_dir}/{CHAPTER_FILE}"
    if not any(_is_question_file(relative_path, chapter_dir) for relative_path in files):
        errors.append(
            ContentError.of(f"{chapter_dir}/", "", None, ContentProblem.NO_QUESTION_FILES)
        )
    if chapter_path not in files:
        errors.append(
            ContentError.of(
                chapter_path, "", None, ContentProblem.MISSING_CHAPTER_FILE, name=CHAPTER_FILE
            )
        )
        return None
    document = documents.get(chapter_path)
    if document is None or not _top_level_is_mapping(document, errors):
        return None
    try:
        chapter = Chapter.model_validate(document.data)
    except ValidationError as exc:
        errors.extend(_content_errors(document, exc))
        return None
    if chapter.id != chapter_dir:
        path, line = locate(document.root, ("id",))
        errors.append(
            ContentError.of(
                chapter_path,
                path,
                line,
                ContentProblem.CHAPTER_ID_MISMATCH,
                id=chapter.id,
                directory=chapter_dir,
            )
        )
        return None
    return chapter


def _load_questions(
    document: _YamlDocument, chapter_dir: str, errors: list[ContentError]
) -> list[_LoadedQuestion]:
    if not _top_level_is_mapping(document, errors):
        return []
    items: list[tuple[int, Question]]
    try:
        items = list(enumerate(QuestionFile.model_validate(document.data).questions))
    except ValidationError as exc:
        errors.extend(_content_errors(document, exc))
        # Keep the valid questions of a partly bad file, so that duplicate ids and
        # drill params are checked for them too and the author sees every error now.
        failed = {
            error["loc"][1]
            for error in exc.errors()
            if len(error["loc"]) > 1 and error["loc"][0] == "questions"
        }
        raw_items = document.data.get("questions")
        if not isinstance(raw_items, list):
            return []
        items = [
            (index, _QUESTION_ADAPTER.validate_python(raw))
            for index, raw in enumerate(raw_items)
            if index not in failed
        ]
    loaded = []
    for index, question in items:
        _, line = locate(document.root, ("questions", index))
        source = SourceLocation(document.file, line)
        loaded.append(_LoadedQuestion(question, chapter_dir, index, source))
    return loaded


def _check_unique_question_ids(
    loaded: Sequence[_LoadedQuestion],
    documents: Mapping[str, _YamlDocument],
    errors: list[ContentError],
) -> None:
    first: dict[str, SourceLocation] = {}
    for item in sorted(loaded, key=lambda item: (item.source.file, item.index)):
        question_id = item.question.id
        if question_id not in first:
            first[question_id] = item.source
            continue
        document = documents[item.source.file]
        path, line = locate(document.root, ("questions", item.index, "id"))
        errors.append(
            ContentError.of(
                item.source.file,
                path,
                line,
                ContentProblem.DUPLICATE_QUESTION_ID,
                id=question_id,
                first=str(first[question_id]),
            )
        )


def _check_unique_chapter_orders(
    chapters: Sequence[Chapter],
    documents: Mapping[str, _YamlDocument],
    errors: list[ContentError],
) -> None:
    # Two chapters with the same order would be listed in an order nobody chose.
    first: dict[int, str] = {}
    for chapter in sorted(chapters, key=lambda chapter: chapter.id):
        if chapter.order not in first:
            first[chapter.order] = chapter.id
            continue
        chapter_path = f"{chapter.id}/{CHAPTER_FILE}"
        path, line = locate(documents[chapter_path].root, ("order",))
        errors.append(
            ContentError.of(
                chapter_path,
                path,
                line,
                ContentProblem.DUPLICATE_ORDER,
                order=chapter.order,
                chapter=first[chapter.order],
            )
        )


def _validate_drill_params(
    loaded: Sequence[_LoadedQuestion],
    documents: Mapping[str, _YamlDocument],
    drill_kinds: DrillKinds,
    errors: list[ContentError],
) -> dict[str, BaseModel]:
    validated: dict[str, BaseModel] = {}
    for item in loaded:
        question = item.question
        if not isinstance(question, DrillQuestion):
            continue
        document = documents[item.source.file]
        index = item.index
        params_model = drill_kinds.get(question.kind)
        if params_model is None:
            path, line = locate(document.root, ("questions", index, "kind"))
            known = ", ".join(sorted(drill_kinds)) or "(none)"
            errors.append(
                ContentError.of(
                    document.file,
                    path,
                    line,
                    ContentProblem.UNKNOWN_DRILL_KIND,
                    kind=question.kind,
                    known=known,
                )
            )
            continue
        try:
            validated[question.id] = params_model.model_validate(question.params)
        except ValidationError as exc:
            errors.extend(_content_errors(document, exc, prefix=("questions", index, "params")))
    return validated
