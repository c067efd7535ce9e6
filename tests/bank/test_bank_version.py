"""The content version identifies exactly the bytes of the content files."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from bank_samples import OPEN_QUESTION

from quizsvc.bank import content_version, load_bank

VersionOf = Callable[[dict[str, str]], str]


@pytest.fixture
def version_of(make_content, drill_kinds) -> VersionOf:
    """The version of the bank loaded from a fresh content tree of these files."""
    return lambda files: load_bank(make_content(files), drill_kinds).version


def test_identical_trees_have_identical_versions(version_of: VersionOf) -> None:
    first = version_of({"ch/q.yaml": OPEN_QUESTION})
    second = version_of({"ch/q.yaml": OPEN_QUESTION})
    assert first == second
    assert len(first) == 64 and int(first, 16) >= 0


def test_changing_one_byte_changes_the_version(version_of: VersionOf) -> None:
    before = version_of({"ch/q.yaml": OPEN_QUESTION})
    after = version_of({"ch/q.yaml": OPEN_QUESTION.replace("因为", "所以")})
    assert before != after


def test_a_comment_is_a_change_too(version_of: VersionOf) -> None:
    # The version is over bytes, not meaning: it must be cheap and unambiguous.
    before = version_of({"ch/q.yaml": OPEN_QUESTION})
    after = version_of({"ch/q.yaml": OPEN_QUESTION + "# reviewed\n"})
    assert before != after


def test_renaming_a_file_changes_the_version(version_of: VersionOf) -> None:
    before = version_of({"ch/q.yaml": OPEN_QUESTION})
    after = version_of({"ch/open.yaml": OPEN_QUESTION})
    assert before != after


def test_non_yaml_and_hidden_files_are_not_content(version_of: VersionOf) -> None:
    before = version_of({"ch/q.yaml": OPEN_QUESTION})
    after = version_of(
        {"ch/q.yaml": OPEN_QUESTION, "ch/notes.md": "draft", "ch/.draft.yaml": "a: [b"}
    )
    assert before == after


def test_version_does_not_depend_on_listing_order() -> None:
    files = {"b/q.yaml": b"2", "a/q.yaml": b"1"}
    assert content_version(files) == content_version(dict(reversed(files.items())))


def test_path_and_content_boundaries_cannot_be_confused() -> None:
    # Without length prefixes both trees would hash the byte stream "a/q.yamlXY".
    assert content_version({"a/q.yaml": b"XY"}) != content_version({"a/q.yamlX": b"Y"})


def test_version_format_is_pinned() -> None:
    # Stored attempts record this version; changing the algorithm silently would make
    # every stored attempt look as if it were taken on other content.  The expected
    # digest was computed with sha256sum over the 8-byte big-endian length-prefixed
    # path and bytes.
    assert content_version({"ch/q.yaml": b"questions: []\n"}) == (
        "2b0fdfe81936774aa1be5727e70cb45155872ec9023ea1888bd0b6ca6d2fb2d0"
    )
