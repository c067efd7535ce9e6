"""Shared fixtures for the question-bank tests.

The bank never imports quizsvc.drills; it is handed a mapping of drill kind names to
params models.  These tests use a small fake mapping with the chapter's real kind names.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict, Field

from quizsvc.bank import BankError, ContentError, load_bank

# Added to every test tree that has a ch/ directory but no ch/chapter.yaml of its own.
CHAPTER_YAML = """\
id: ch
order: 1
title:
  zh: 章节
  en: Chapter
"""


# The chapter's sizes: the only params keys the drills use, in content/ and in tests.
class FakeSizedParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    n: int = Field(default=3, ge=1, le=8)
    d_model: int = Field(default=4, ge=1, le=16)


@pytest.fixture
def drill_kinds(real_drill_kinds: tuple[str, ...]) -> dict[str, type[BaseModel]]:
    return dict.fromkeys(real_drill_kinds, FakeSizedParams)


MakeContent = Callable[[dict[str, str | bytes]], Path]


@pytest.fixture
def make_content(tmp_path: Path) -> MakeContent:
    """Write ``{relative path: text or bytes}`` under a fresh content dir and return it.

    A ``ch/chapter.yaml`` is added when the tree uses ``ch/`` without one, so each test
    spells out only the files it is about.
    """
    counter = iter(range(1_000))

    def make(files: dict[str, str | bytes]) -> Path:
        root = tmp_path / f"content{next(counter)}"
        root.mkdir()
        if any(name.startswith("ch/") for name in files) and "ch/chapter.yaml" not in files:
            files = {"ch/chapter.yaml": CHAPTER_YAML, **files}
        for relative_path, body in files.items():
            path = root / relative_path
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(body, bytes):
                path.write_bytes(body)
            else:
                path.write_text(body, encoding="utf-8")
        return root

    return make


@pytest.fixture
def content_errors(
    make_content: MakeContent, drill_kinds: dict[str, type[BaseModel]]
) -> Callable[[dict[str, str | bytes]], list[ContentError]]:
    """Load a tree that must be rejected; return its errors."""

    def errors(files: dict[str, str | bytes]) -> list[ContentError]:
        with pytest.raises(BankError) as caught:
            load_bank(make_content(files), drill_kinds)
        return list(caught.value.errors)

    return errors
