"""A content directory with one chapter and the given question files, for self-test tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

WriteBank = Callable[..., Path]


@pytest.fixture
def write_bank(make_content) -> WriteBank:
    """``write_bank(q="questions: ...")`` writes ``ch/q.yaml`` (one file per keyword)."""
    return lambda **files: make_content({f"ch/{name}.yaml": body for name, body in files.items()})
