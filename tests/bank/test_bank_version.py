"""The content version identifies exactly the bytes of the content files."""

from __future__ import annotations

from quizsvc.bank import content_version, load_bank

QUESTIONS = """\
questions:
  - id: o1
    type: open
    tags: [multi_head]
    prompt: {zh: 为什么, en: Why}
    reference_answer: {zh: 因为, en: Because}
    rubric:
      - key: heads
        weight: 1
        description: {zh: 头, en: heads}
        phrases: {zh: [头], en: [head]}
"""


def test_identical_trees_have_identical_versions(make_content, drill_kinds) -> None:
    first = load_bank(make_content({"ch/q.yaml": QUESTIONS}), drill_kinds)
    second = load_bank(make_content({"ch/q.yaml": QUESTIONS}), drill_kinds)
    assert first.version == second.version
    assert len(first.version) == 64 and int(first.version, 16) >= 0


def test_changing_one_byte_changes_the_version(make_content, drill_kinds) -> None:
    before = load_bank(make_content({"ch/q.yaml": QUESTIONS}), drill_kinds)
    after = load_bank(make_content({"ch/q.yaml": QUESTIONS.replace("因为", "所以")}), drill_kinds)
    assert before.version != after.version


def test_a_comment_is_a_change_too(make_content, drill_kinds) -> None:
    # The version is over bytes, not meaning: it must be cheap and unambiguous.
    before = load_bank(make_content({"ch/q.yaml": QUESTIONS}), drill_kinds)
    after = load_bank(make_content({"ch/q.yaml": QUESTIONS + "# reviewed\n"}), drill_kinds)
    assert before.version != after.version


def test_renaming_a_file_changes_the_version(make_content, drill_kinds) -> None:
    before = load_bank(make_content({"ch/q.yaml": QUESTIONS}), drill_kinds)
    after = load_bank(make_content({"ch/open.yaml": QUESTIONS}), drill_kinds)
    assert before.version != after.version


def test_non_yaml_and_hidden_files_are_not_content(make_content, drill_kinds) -> None:
    before = load_bank(make_content({"ch/q.yaml": QUESTIONS}), drill_kinds)
    after = load_bank(
        make_content({"ch/q.yaml": QUESTIONS, "ch/notes.md": "draft", "ch/.draft.yaml": "a: [b"}),
        drill_kinds,
    )
    assert before.version == after.version


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
