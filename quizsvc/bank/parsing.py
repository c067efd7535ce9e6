"""A content file's YAML, read into both its data and its node tree, so that every problem
(a syntax error, a duplicate key, a value the schema refuses) can be pointed at by path and
line; and the likely cause of a syntax error that an author cannot see (a tab, full-width
punctuation)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from quizsvc.bank.problems import ContentError, ContentProblem


@dataclass
class YamlDocument:
    """A parsed file: its data, and the node tree that knows where each part is written."""

    file: str
    data: Any
    root: yaml.Node


def parse_yaml(file: str, text: str, errors: list[ContentError]) -> YamlDocument | None:
    """The file's data and node tree; None, with every problem added to ``errors``, if the
    text is not one YAML document."""
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
    return YamlDocument(file=file, data=data, root=root)


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


def locate_text_line(root: yaml.Node, loc: Sequence[str | int], text_line: int) -> tuple[str, int]:
    """``locate`` for a line of a text: ``text_line`` (0-based) counted from the text's first
    line where the text is a literal block (``|``), whose lines are the file's; else the key's
    line, as a folded or quoted text's lines are not."""
    path, line, node = _resolve(root, loc)
    if isinstance(node, yaml.ScalarNode) and node.style == "|":
        return path, node.start_mark.line + 2 + text_line  # its text starts after the "|"
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


def is_text_cut_at_a_comma(root: yaml.Node, loc: Sequence[str | int]) -> bool:
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
