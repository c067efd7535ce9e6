"""A content directory with one chapter and the given question files, for self-test tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

CHAPTER_YAML = "id: ch\norder: 1\ntitle: {zh: 章节, en: Chapter}\n"

WriteBank = Callable[..., Path]


@pytest.fixture
def write_bank(tmp_path: Path) -> WriteBank:
    """``write_bank(q="questions: ...")`` writes ``ch/q.yaml`` (one file per keyword)."""
    counter = iter(range(1_000))

    def write(**files: str) -> Path:
        root = tmp_path / f"content{next(counter)}"
        (root / "ch").mkdir(parents=True)
        (root / "ch" / "chapter.yaml").write_text(CHAPTER_YAML, encoding="utf-8")
        for name, body in files.items():
            (root / "ch" / f"{name}.yaml").write_text(body, encoding="utf-8")
        return root

    return write
