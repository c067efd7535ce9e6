"""Recording named intermediates of a forward pass.

A trace is a plain dict from dotted names (`encoder.0.self_attn.weights`) to arrays. Functions
take `trace=None`; with no trace they record nothing and pay one `is not None` test.
`Trace.scope("encoder.0")` hands a sub-function a view that prefixes the names it records.
"""

from __future__ import annotations

import numpy as np


class Trace:
    def __init__(self, store: dict[str, np.ndarray] | None = None, prefix: str = "") -> None:
        self.store: dict[str, np.ndarray] = {} if store is None else store
        self.prefix = prefix

    def scope(self, name: str) -> Trace:
        return Trace(self.store, f"{self.prefix}{name}.")

    def __getitem__(self, name: str) -> np.ndarray:
        return self.store[name]

    def __contains__(self, name: str) -> bool:
        return name in self.store

    def names(self) -> list[str]:
        return list(self.store)


def record(trace: Trace, name: str, value: np.ndarray) -> None:
    trace.store[trace.prefix + name] = value


def scope(trace: Trace | None, name: str) -> Trace | None:
    return None if trace is None else trace.scope(name)
