"""Checks on the arguments of the store's write functions, made before any transaction
begins, so that a programming error fails loudly and nothing is written."""

from __future__ import annotations

import math
import numbers
from datetime import UTC, datetime

from quizsvc.store.errors import InvalidText
from quizsvc.store.text import UNSTORABLE_TEXT, unstorable_text

MAX_IDEMPOTENCY_KEY_LENGTH = 128


def require_text(name: str, value: str, max_length: int) -> None:
    if not isinstance(value, str) or not value:
        raise ValueError(f"{name} must be a non-empty str, got {value!r}")
    if len(value) > max_length:
        raise ValueError(f"{name} is longer than {max_length} characters")


def require_key(key: str) -> None:
    if not isinstance(key, str) or not key.strip():
        raise ValueError("an idempotency key is required")
    if len(key) > MAX_IDEMPOTENCY_KEY_LENGTH:
        raise ValueError(
            f"the idempotency key is longer than {MAX_IDEMPOTENCY_KEY_LENGTH} characters"
        )
    require_storable_text("idempotency key", key)


def require_storable_text(name: str, text: str) -> None:
    problem = unstorable_text(text)
    if problem is not None:
        raise InvalidText(f"the {name} {UNSTORABLE_TEXT[problem]}")


def unit_interval(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {value!r}")
    value = float(value)
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise ValueError(f"{name} must be between 0 and 1, got {value!r}")
    return value


def aware(now: datetime | None) -> datetime:
    if now is None:
        return datetime.now(UTC)
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError(f"now must be timezone-aware, got {now!r}")
    return now.astimezone(UTC)
