"""The YAML examples in docs/authoring.md are valid content, so the docs cannot rot."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from quizsvc.bank import load_bank

AUTHORING = Path(__file__).resolve().parents[2] / "docs" / "authoring.md"
YAML_BLOCK = re.compile(r"```yaml\n(.*?)```", re.DOTALL)


def yaml_examples() -> list[str]:
    return YAML_BLOCK.findall(AUTHORING.read_text(encoding="utf-8"))


def test_there_is_an_example_of_every_question_type() -> None:
    types = {
        found
        for block in yaml_examples()
        for found in re.findall(r"^    type: (\w+)$", block, re.MULTILINE)
    }
    assert types == {"single_choice", "multiple_choice", "numeric", "open", "drill"}


@pytest.mark.parametrize(
    "example",
    [block for block in yaml_examples() if block.startswith("questions:")],
    ids=lambda block: re.search(r"id: ([\w-]+)", block).group(1),
)
def test_question_example_loads(make_content, drill_kinds, example: str) -> None:
    bank = load_bank(make_content({"ch/q.yaml": example}), drill_kinds)
    assert len(bank.questions) == 1


def test_chapter_example_loads(make_content, drill_kinds) -> None:
    (chapter,) = [block for block in yaml_examples() if block.startswith("id: ")]
    (question,) = [block for block in yaml_examples() if "id: qkv-origin" in block]
    root = make_content(
        {"transformer-by-hand/chapter.yaml": chapter, "transformer-by-hand/q.yaml": question}
    )
    bank = load_bank(root, drill_kinds)
    assert bank.chapters[0].intro is not None
