"""Random numbers a learner can compute with by hand.

Every given value is a multiple of 0.1 (vectors, scores), 0.5 (weight matrices) or 0.01
(probabilities and attention weights), built as ``integer / 10`` etc.: the division is
correctly rounded, so the float is the one nearest the decimal and prints as that decimal.
All randomness comes from the ``numpy.random.Generator`` a drill is handed.
"""

from __future__ import annotations

import numpy as np

Array = np.ndarray
Rng = np.random.Generator


def tenths(rng: Rng, shape: tuple[int, ...], low: float, high: float) -> Array:
    """Multiples of 0.1 in [low, high]."""
    return rng.integers(round(low * 10), round(high * 10) + 1, size=shape) / 10.0


def halves(rng: Rng, shape: tuple[int, ...], limit: float = 1.0, zero_share: float = 0.3) -> Array:
    """Multiples of 0.5 in [-limit, limit], about ``zero_share`` of them 0, and no column all 0.

    Zeros, as in the chapter's W_q, shorten the dot products a learner writes out; a zero
    column would only make a dull all-zero column of the result, so it is redrawn.
    """
    while True:
        steps = rng.integers(-round(limit * 2), round(limit * 2) + 1, size=shape)
        zero = rng.random(size=shape) < zero_share
        values = np.where(zero, 0, steps) / 2.0
        if np.all(np.any(values != 0, axis=0)):
            return values


def hundredths_summing_to_one(rng: Rng, count: int, smallest: int = 5) -> Array:
    """``count`` positive multiples of 0.01 that add up to exactly 100 hundredths.

    Each is at least ``smallest`` hundredths, so no weight is a vanishing 0.01.
    """
    while True:
        cuts = np.sort(rng.choice(np.arange(1, 100), size=count - 1, replace=False))
        shares = np.diff(np.concatenate(([0], cuts, [100])))
        if shares.min() >= smallest:
            return shares / 100.0


def pick(rng: Rng, chosen: int | None, count: int) -> int:
    """``chosen`` when the author fixed it, else a position drawn from the seed's generator.

    Kinds draw their open choices after all their numbers, so fixing a choice (as the
    variant's recorded params do) leaves every other number of the seed unchanged.
    """
    return int(rng.integers(count)) if chosen is None else chosen


def block_diagonal(blocks: list[Array]) -> Array:
    """The square matrix with ``blocks`` on its diagonal and zeros elsewhere."""
    size = sum(block.shape[0] for block in blocks)
    full = np.zeros((size, size))
    start = 0
    for block in blocks:
        end = start + block.shape[0]
        full[start:end, start:end] = block
        start = end
    return full
