"""Turning answers, cells and variants into plain JSON that every database accepts.

PostgreSQL's ``json`` refuses NaN and Infinity, so ±inf become "inf"/"-inf" (the
convention of ``quizsvc.drills``); NaN is refused.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np


def to_json_value(value: Any) -> Any:
    """A JSON-safe copy of ``value`` (numpy arrays and scalars, tuples, ``to_json_dict``)."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, np.ndarray):
        return to_json_value(value.tolist())
    if isinstance(value, np.generic):
        return to_json_value(value.item())
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if math.isnan(value):
            raise ValueError("NaN cannot be stored")
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return float(value)
    if hasattr(value, "to_json_dict"):
        return to_json_value(value.to_json_dict())
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"JSON object keys must be strings, got {key!r}")
            out[key] = to_json_value(item)
        return out
    if isinstance(value, (list, tuple)):
        return [to_json_value(item) for item in value]
    raise TypeError(f"cannot store {type(value).__name__} as JSON: {value!r}")
