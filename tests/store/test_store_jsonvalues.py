"""What the store turns answers, cells and variants into before it writes them as JSON."""

from __future__ import annotations

import math

import numpy as np
import pytest

from quizsvc.store.jsonvalues import to_json_value


class Cell:
    def to_json_dict(self):
        return {"given": np.float32(-np.inf), "ok": np.bool_(False)}


def test_numpy_values_become_plain_python_ones():
    value = to_json_value(
        {
            "int": np.int64(3),
            "float": np.float32(0.5),
            "bool": np.bool_(True),
            "row": np.array([1.0, -np.inf, np.inf]),
            "tuple": (np.int8(-1), "x", None),
            "cell": Cell(),
        }
    )
    assert value == {
        "int": 3,
        "float": 0.5,
        "bool": True,
        "row": [1.0, "-inf", "inf"],
        "tuple": [-1, "x", None],
        "cell": {"given": "-inf", "ok": False},
    }
    assert [type(value[k]) for k in ("int", "float", "bool")] == [int, float, bool]
    assert type(value["tuple"][0]) is int and type(value["cell"]["ok"]) is bool


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        (math.nan, ValueError, "NaN cannot be stored"),
        ([np.float64("nan")], ValueError, "NaN cannot be stored"),
        ({1: "a"}, TypeError, "keys must be strings, got 1"),
        ({1.5, 2.5}, TypeError, "cannot store set as JSON"),
        (b"bytes", TypeError, "cannot store bytes as JSON"),
    ],
)
def test_what_json_cannot_hold_is_refused(value, error, message):
    with pytest.raises(error, match=message):
        to_json_value(value)
