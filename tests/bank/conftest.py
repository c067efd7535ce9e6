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


# The chapter's sizes: the only params keys the drills use, in content/ and in tests.
class FakeSizedParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    n: int = Field(default=3, ge=1, le=8)
    d_model: int = Field(default=4, ge=1, le=16)


@pytest.fixture
def drill_kinds(real_drill_kinds: tuple[str, ...]) -> dict[str, type[BaseModel]]:
    return dict.fromkeys(real_drill_kinds, FakeSizedParams)


@pytest.fixture
def content_errors(
    make_content: Callable[[dict[str, str | bytes]], Path], drill_kinds: dict[str, type[BaseModel]]
) -> Callable[[dict[str, str | bytes]], list[ContentError]]:
    """Load a tree that must be rejected; return its errors."""

    def errors(files: dict[str, str | bytes]) -> list[ContentError]:
        with pytest.raises(BankError) as caught:
            load_bank(make_content(files), drill_kinds)
        return list(caught.value.errors)

    return errors
