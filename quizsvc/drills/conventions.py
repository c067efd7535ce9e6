"""What a learner must know besides a variant's numbers to answer it as it is graded: the
decimals to round to, a constant of the computation that is no given tensor (LayerNorm's ε),
and what a masked cell's answer is.

The drills' prompts in the content say the same in words (tests/drills/test_drills_rounding.py
checks the chapter's); these are for a reader of the API, who should not have to parse prose,
and for the rules a drill's page lists.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Rounding:
    """Decimals: ``answer`` for the answer (0: a whole number, such as a token id);
    ``intermediate`` for the results on the way, None where nothing is rounded on the way
    (a projection's products of tenths and halves are exact); ``exponentials`` for e^x and
    their sum where they need more decimals than the other intermediate results, else None."""

    answer: int
    intermediate: int | None = None
    exponentials: int | None = None


@dataclass(frozen=True)
class Conventions:
    """``eps``: LayerNorm's ε where the answer goes through a LayerNorm. ``masked_cell``: the
    answer of a masked cell where the answer has some: -inf for a masked score, 0 for a
    masked attention weight."""

    rounding: Rounding
    eps: float | None = None
    masked_cell: float | None = None


# A kind's conventions, from a variant's params (a part of the kind may ask for another answer).
ConventionsOf = Callable[[Mapping[str, Any]], Conventions]


def fixed(conventions: Conventions) -> ConventionsOf:
    """The conventions of a kind whose params do not change them."""
    return lambda params: conventions
