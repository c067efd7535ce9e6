"""What the domain's coded messages share: a message for people is a stable code, the
parameters it is said with, and an English template marked ``N_``, which an interface looks up
in its translation catalogs and formats with the same parameters.

The codes and their templates live with their domain: the grader's ``Rejection`` and
``RowsRejection``, the bank's ``ContentProblem``, the drills' ``ParamsProblem``, the
self-test's ``Finding``. This module is below them all and imports nothing of theirs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum


def N_(template: str) -> str:
    """Marks an English message template for the interface's translation catalogs (``make
    translations`` extracts every ``N_("...")``); the template itself is what it returns, so
    the domain stays free of any translation machinery."""
    return template


def require_parameters(
    raiser: str, code: StrEnum, params: Iterable[str], parameters: Mapping[StrEnum, frozenset[str]]
) -> None:
    """Refuse ``params`` unless they are exactly the parameters ``parameters`` lists for
    ``code``. A translation formats its text with exactly these, so a raise that forgets one
    (or adds another) is a programming error, caught where it happens."""
    expected = parameters[code]
    if set(params) != expected:
        raise TypeError(
            f"{raiser} {code.value!r} takes the parameters {sorted(expected)}, got {sorted(params)}"
        )
