"""``quizsvc content validate``: exit status and output format."""

from __future__ import annotations

from pathlib import Path

import pytest
from bank_samples import OPEN_QUESTION
from click.testing import CliRunner

from quizsvc import cli, settings


@pytest.fixture(autouse=True)
def fake_drill_kinds(monkeypatch: pytest.MonkeyPatch, drill_kinds) -> None:
    # quizsvc.drills is someone else's module; the bank only needs the params models.
    monkeypatch.setattr(cli.content, "_drill_kinds", lambda: drill_kinds)


def run(*args: str):
    return CliRunner().invoke(cli.main, ["content", "validate", *args])


def test_valid_content_prints_a_summary(make_content) -> None:
    root = make_content({"ch/q.yaml": OPEN_QUESTION})
    result = run(str(root))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == f"content OK: {root}"
    assert lines[1].startswith("version: ") and len(lines[1]) == len("version: ") + 64
    assert lines[2:] == [
        "chapters: 1",
        "  ch: Chapter (1 questions)",
        "questions: 1 (single_choice: 0, multiple_choice: 0, numeric: 0, open: 1, drill: 0)",
    ]


def test_each_error_is_printed_as_file_line_path_message(make_content) -> None:
    root = make_content(
        {
            "ch/q.yaml": OPEN_QUESTION.replace("en: Because", "en: Because, fr: Parce que"),
            "ch/bad.yaml": "questions:\n  - id: o2\n    prompt: a: b\n",
            "ch/empty.yaml": "",
        }
    )
    result = run(str(root))
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "ch/bad.yaml:3: questions[0]: YAML syntax error: mapping values are not allowed here",
        "ch/empty.yaml:?: <document>: file is empty",
        "ch/q.yaml:6: questions[0].reference_answer.fr: unknown key 'fr'",
    ]
    assert result.stderr == f"3 content error(s) in {root}\n"


def test_drill_kinds_come_from_the_drills_package(make_content, monkeypatch) -> None:
    drill = (
        "questions:\n  - id: d1\n    type: drill\n    kind: projection\n"
        "    tags: [qkv]\n    prompt: {zh: 算, en: Compute}\n"
    )
    monkeypatch.setattr(cli.content, "_drill_kinds", lambda: {})
    result = run(str(make_content({"ch/d.yaml": drill})))
    assert result.exit_code == 1
    assert result.stdout == (
        "ch/d.yaml:4: questions[0].kind: unknown drill kind 'projection'; known kinds: (none)\n"
    )


def test_default_directory_is_the_repository_content() -> None:
    repository_content = Path(__file__).resolve().parents[2] / "content"
    assert repository_content == settings.DEFAULT_CONTENT_DIR
    result = run()
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == f"content OK: {repository_content}"
    assert (
        "questions: 20 (single_choice: 4, multiple_choice: 0, numeric: 0, open: 2, drill: 14)"
        in result.stdout.splitlines()
    )


def test_the_default_directory_is_the_web_app_s_content_dir_when_set(
    make_content, monkeypatch
) -> None:
    root = make_content({"ch/q.yaml": OPEN_QUESTION})
    monkeypatch.setenv("QUIZSVC_CONTENT_DIR", str(root))
    result = run()
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == f"content OK: {root}"


def test_missing_directory_is_a_usage_error(tmp_path: Path) -> None:
    result = run(str(tmp_path / "nope"))
    assert result.exit_code == 2
    assert "does not exist" in result.stderr


def test_a_yaml_name_that_is_not_a_file_is_printed_as_an_error(make_content) -> None:
    root = make_content({"ch/q.yaml": OPEN_QUESTION})
    (root / "ch" / "extra.yaml").mkdir()
    result = run(str(root))
    assert result.exit_code == 1
    assert result.stdout == "ch/extra.yaml:?: <document>: a directory, not a file\n"
    assert result.stderr == f"1 content error(s) in {root}\n"
