"""Score penalties for answering again after a wrong try."""

from __future__ import annotations

import numbers


def score_after_attempts(raw_score: float, attempt: int, penalty_per_extra_try: float) -> float:
    """Moodle's interactive-mode rule: max(0, raw_score - penalty * (attempt - 1)).

    attempt is 1-based (the first try carries no penalty).  raw_score and the
    penalty must lie in [0, 1].
    """
    _require_unit_interval("raw_score", raw_score)
    _require_unit_interval("penalty_per_extra_try", penalty_per_extra_try)
    if isinstance(attempt, bool) or not isinstance(attempt, numbers.Integral):
        raise TypeError(f"attempt must be an int, got {attempt!r}")
    attempt = int(attempt)
    if attempt < 1:
        raise ValueError(f"attempt is 1-based, got {attempt}")
    return max(0.0, float(raw_score) - float(penalty_per_extra_try) * (attempt - 1))


def _require_unit_interval(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {value!r}")
    # The negated comparison also catches NaN.
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be between 0 and 1, got {value!r}")
