"""The YAML examples in docs/authoring.md are valid content, so the docs cannot rot."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Literal, get_args, get_origin

import click
import pytest
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from quizsvc import cli
from quizsvc.bank import BankError, load_bank, schema
from quizsvc.drills import DRILL_KINDS, SKILL_NAMES, drill_param_models

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


# --- what the page promises about the schema, the drill kinds and the error lines ------------

DOC = AUTHORING.read_text(encoding="utf-8")


def _models(model: type[BaseModel]) -> Iterator[type[BaseModel]]:
    """``model`` and every content model its fields hold (choices, rubric points, texts)."""
    yield model
    for field in model.model_fields.values():
        for candidate in _classes_in(field.annotation):
            if issubclass(candidate, BaseModel):
                yield from _models(candidate)


def _classes_in(annotation: object) -> Iterator[type]:
    if isinstance(annotation, type):
        yield annotation
    for argument in get_args(annotation):
        yield from _classes_in(argument)


@pytest.mark.parametrize(
    "model",
    [
        schema.Chapter,
        schema.QuestionFile,
        schema.SingleChoiceQuestion,
        schema.MultipleChoiceQuestion,
        schema.NumericQuestion,
        schema.OpenQuestion,
        schema.DrillQuestion,
    ],
    ids=lambda model: model.__name__,
)
def test_every_key_the_schema_accepts_is_named_on_the_page(model) -> None:
    undocumented = {
        (found.__name__, key)
        for found in _models(model)
        for key in found.model_fields
        if not _named(key)
    }
    assert not undocumented


def _named(key: str) -> bool:
    """Named in the text as code (`key`, `{atol, rtol}`) or written in a YAML example."""
    in_code = re.search(rf"`[^`\n]*\b{key}\b[^`\n]*`", DOC)
    in_example = any(
        re.search(rf"^\s*(?:- )?{key}:", block, re.MULTILINE) for block in yaml_examples()
    )
    return bool(in_code or in_example)


def _kind_rows() -> dict[str, list[str]]:
    """The table of drill kinds: kind -> [params, default tolerance, skill]."""
    rows = {}
    for line in DOC.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 4 and re.fullmatch(r"`\w+`", cells[0]):
            rows[cells[0].strip("`")] = cells[1:]
    return rows


def _general_sizes() -> dict[str, tuple[int, int, int]]:
    """The sizes stated once for every kind: `n` and `d_model` as (low, high, default)."""
    sizes = {}
    for name in ("n", "d_model"):
        found = re.search(rf"`{name}`[^;]*?(\d+)-(\d+), default (\d+)", DOC)
        assert found, name
        sizes[name] = tuple(int(number) for number in found.groups())
    return sizes


def _bounds(field: FieldInfo) -> tuple[int | None, int | None]:
    low = next((m.ge for m in field.metadata if hasattr(m, "ge")), None)
    high = next((m.le for m in field.metadata if hasattr(m, "le")), None)
    return low, high


@pytest.mark.parametrize("kind", sorted(DRILL_KINDS))
def test_the_table_of_drill_kinds_states_each_kinds_params_and_skill(kind: str) -> None:
    rows = _kind_rows()
    assert kind in rows, f"no row for drill kind {kind!r}"
    params, _tolerance, skill = rows[kind]
    assert skill == DRILL_KINDS[kind].skill
    general = _general_sizes()
    for name, field in DRILL_KINDS[kind].params_model.model_fields.items():
        assert f"`{name}`" in params, name
        low, high = _bounds(field)
        if name in general:
            # embedding_positional's row narrows d_model to the even sizes
            if (kind, name) != ("embedding_positional", "d_model"):
                assert (low, high, field.default) == general[name], name
        elif low is not None and high is not None:
            assert f"`{name}` {low}-{high} ({field.default}" in params, name
        if get_origin(field.annotation) is Literal:  # its choices, the default marked
            for value in get_args(field.annotation):
                assert f"`{value}`" in params, (name, value)
                if value == field.default:
                    assert f"`{value}` (default" in params, (name, value)


def test_the_skills_with_names_are_the_ones_the_page_lists() -> None:
    row = next(line for line in DOC.splitlines() if line.startswith("| `tags`"))
    named = row.split("These skills have a name in both languages: ")[1].split(";")[0]
    assert re.findall(r"`([a-z_]+)`", named) == list(SKILL_NAMES)


# One run of `quizsvc content validate` over these files prints the page's example.
EXAMPLE_ERRORS_CONTENT = {
    "transformer-by-hand/chapter.yaml": """\
id: transformer-by-hand
order: 1
title: {zh: 手算 Transformer, en: Transformer by hand}
""",
    "transformer-by-hand/questions.yaml": """\
questions:
  - id: first
    type: single_choice
    tags: [qkv]
    prompt: {zh: 问题, en: Question}
    choices:
      - {id: A, text: {zh: 甲, en: A}}
      - {id: B, text: {zh: 乙, en: B}}
      - {id: C, text: {zh: 丙, en: C}}
      - {id: D, text: {zh: 丁, en: D}}
    correct: E
    explanation: {zh: 因为, en: Because}
  - id: second
    type: single_choice
    tags: [qkv]
    prompt: {zh: 问题, en: Question}
    choices:
      - id: A
        text: {zh: 甲, en: A}
      - id: B
        text:
          zh: 乙
    correct: A
    explanation: {zh: 因为, en: Because}
""",
    "transformer-by-hand/drills.yaml": """\
questions:
  - id: drill-one
    type: drill
    kind: softmax_row
    tags: [softmax]
    prompt: {zh: 算, en: Compute}
  - id: drill-two
    type: drill
    kind: softmax_row
    tags: [softmax]
    prompt: {zh: 算, en: Compute}
  - id: drill-three
    type: drill
    kind: softmax_row
    tags: [softmax]
    prompt: {zh: 算, en: Compute}
    params:
      n: 0
""",
    "transformer-by-hand/more.yaml": """\
questions:
  - id: why
    type: open
    tags: [scores]
    prompt:
      zh: 为什么？
      en: Why: the scores
""",
}


def test_the_example_error_lines_are_one_runs_output(make_content) -> None:
    block = re.search(r"For example \(one run.*?```text\n(.*?)```", DOC, re.DOTALL)
    assert block, "the example of `quizsvc content validate` errors"
    with pytest.raises(BankError) as caught:
        load_bank(make_content(EXAMPLE_ERRORS_CONTENT), drill_param_models())
    assert [str(error) for error in caught.value.errors] == block.group(1).splitlines()


def test_the_content_commands_options_and_default_directory_are_on_the_page() -> None:
    for command in (cli.validate_content, cli.test_content):
        for option in command.params:
            if isinstance(option, click.Option):
                assert all(f"`{name} " in DOC for name in option.opts), option.opts
    # DIR left out: the variable the commands (and the app) read, else content/
    assert "`$QUIZSVC_CONTENT_DIR`, else the repository's `content/`" in DOC
