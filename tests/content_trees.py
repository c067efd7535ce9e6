"""Content directories written by tests: the question files a test is about, in a chapter
directory ``ch`` whose chapter.yaml is added unless the test writes its own."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

CHAPTER_YAML = """\
id: ch
order: 1
title:
  zh: 章节
  en: Chapter
"""


def write_content(root: Path, files: Mapping[str, str | bytes]) -> Path:
    """Write ``{relative path: text or bytes}`` under ``root`` (created); ``root``."""
    if any(name.startswith("ch/") for name in files) and "ch/chapter.yaml" not in files:
        files = {"ch/chapter.yaml": CHAPTER_YAML, **files}
    root.mkdir(parents=True)
    for relative_path, body in files.items():
        path = root / relative_path
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(body, bytes):
            path.write_bytes(body)
        else:
            path.write_text(body, encoding="utf-8")
    return root
