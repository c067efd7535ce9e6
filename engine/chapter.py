"""The chapter's worked example ("我 爱 你" -> "I love you", d_model 4, one head) and its errata.

`worked_example()` recomputes every intermediate of sections 1-4 and 7.1 with the engine.
`PRINTED` holds the numbers the chapter prints in those sections; `errata()` lists those that
disagree with the true value by more than the chapter's rounding.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.layers import attention, causal_mask, embed, linear, positional_encoding, softmax
from engine.trace import Trace

Array = np.ndarray

VOCAB = ("我", "爱", "你", "I", "love", "you")
INPUT_IDS = (0, 1, 2)

E = np.array(
    [
        [1.0, 0.0, 1.0, 0.0],  # 我
        [0.0, 1.0, 0.0, 1.0],  # 爱
        [1.0, 1.0, 0.0, 0.0],  # 你
        [0.0, 0.0, 1.0, 1.0],  # I
        [1.0, 0.0, 0.0, 1.0],  # love
        [0.0, 1.0, 1.0, 0.0],  # you
    ]
)
W_Q = np.array(
    [[0.5, 0.0, 0.5, 0.0], [0.0, 0.5, 0.0, 0.5], [0.5, 0.0, 0.5, 0.0], [0.0, 0.5, 0.0, 0.5]]
)
W_K = np.array(
    [[0.0, 0.5, 0.0, 0.5], [0.5, 0.0, 0.5, 0.0], [0.0, 0.5, 0.0, 0.5], [0.5, 0.0, 0.5, 0.0]]
)
W_V = np.eye(4)

# Section 7.1 gives the decoder's self-attention weights for ["<s>", "I", "love"] before masking
# as data (the chapter does not say where they come from).
DECODER_TOKENS = ("<s>", "I", "love")
UNMASKED_WEIGHTS = np.array([[0.577, 0.232, 0.191], [0.368, 0.413, 0.219], [0.169, 0.264, 0.567]])


@dataclass(frozen=True)
class WorkedExample:
    x: Array  # (3, 4) embeddings of 我 爱 你 (section 1)
    pe: Array  # (3, 4) positional encodings (section 2)
    x_prime: Array  # (3, 4) X' = X + PE
    q: Array  # (3, 4) Q = X' W_q (section 3)
    k: Array
    v: Array
    raw_scores: Array  # (3, 3) Q Kᵀ (section 4.1)
    scores: Array  # (3, 3) Q Kᵀ / sqrt(d_k) (4.2)
    exp_scores: Array  # (3, 3) e^score, as the chapter's hand softmax writes them (4.3)
    exp_sums: Array  # (3,) row sums of exp_scores
    weights: Array  # (3, 3) attention weights A
    weighted_values: Array  # (3, 3, 4) A[i, j] * V[j], the terms of output row i (4.4)
    output: Array  # (3, 4) A V
    masked_scores: Array  # (3, 3) section 7.1: log of the given weights, future set to -inf
    masked_weights: Array  # (3, 3) softmax of masked_scores


def worked_example() -> WorkedExample:
    ids = np.array(INPUT_IDS)
    x = embed(ids, E)
    pe = positional_encoding(len(ids), E.shape[1])
    x_prime = x + pe
    q, k, v = linear(x_prime, W_Q), linear(x_prime, W_K), linear(x_prime, W_V)
    trace = Trace()
    output, weights = attention(q, k, v, trace=trace)
    scores = trace["scores"]
    exp_scores = np.exp(scores)
    # softmax is unchanged by adding a constant to a row, so log(weights) are valid scores for
    # the given table; masking them reproduces the chapter's "after masking" table.
    masked_scores = np.where(causal_mask(3), np.log(UNMASKED_WEIGHTS), -np.inf)
    return WorkedExample(
        x=x,
        pe=pe,
        x_prime=x_prime,
        q=q,
        k=k,
        v=v,
        raw_scores=trace["raw_scores"],
        scores=scores,
        exp_scores=exp_scores,
        exp_sums=exp_scores.sum(axis=1),
        weights=weights,
        weighted_values=weights[:, :, None] * v[None, :, :],
        output=output,
        masked_scores=masked_scores,
        masked_weights=softmax(masked_scores),
    )


# How the chapter and the worked example's tables name the rows and columns: tokens by
# themselves (the chapter's 位置1 "爱", Q₁("爱"), K₁("爱")), dimensions d0-d3 from 0 as the
# chapter's "维度 0-1" and the drills count them.
TOKENS = tuple(VOCAB[i] for i in INPUT_IDS)
DIMENSIONS = tuple(f"d{i}" for i in range(E.shape[1]))
ROW_SUM = "Σ"  # Σ e^score, printed as a column of its own right of e^score


@dataclass(frozen=True)
class Printed:
    section: str
    label: str
    values: Array
    decimals: int
    rows: tuple[str, ...]  # the labels of the rows
    columns: tuple[str, ...]  # of the columns; one label for a column of row sums

    def place(self, index: tuple[int, ...]) -> tuple[str, str]:
        """The labels of the row and the column of ``values[index]``."""
        row, *column = index
        return self.rows[row], self.columns[column[0] if column else 0]


PRINTED: dict[str, Printed] = {
    "pe": Printed(
        "2",
        "PE",
        np.array([[0.00, 1.00, 0.00, 1.00], [0.84, 0.54, 0.01, 1.00], [0.91, -0.42, 0.02, 1.00]]),
        2,
        TOKENS,
        DIMENSIONS,
    ),
    "x_prime": Printed(
        "2",
        "X' = X + PE",
        np.array([[1.00, 1.00, 1.00, 1.00], [0.84, 1.54, 0.01, 2.00], [1.91, 0.58, 0.02, 1.00]]),
        2,
        TOKENS,
        DIMENSIONS,
    ),
    "q": Printed(
        "3.2",
        "Q = X' W_q",
        np.array([[1.00, 1.00, 1.00, 1.00], [1.43, 1.77, 0.43, 1.77], [1.47, 0.79, 0.97, 0.79]]),
        2,
        TOKENS,
        DIMENSIONS,
    ),
    "k": Printed(
        "3.3",
        "K = X' W_k",
        np.array([[1.00, 1.00, 1.00, 1.00], [1.43, 0.84, 1.43, 0.84], [0.79, 1.47, 0.79, 1.47]]),
        2,
        TOKENS,
        DIMENSIONS,
    ),
    "v": Printed(
        "3.4",
        "V = X' W_v",
        np.array([[1.00, 1.00, 1.00, 1.00], [0.84, 1.54, 0.01, 2.00], [1.91, 0.58, 0.02, 1.00]]),
        2,
        TOKENS,
        DIMENSIONS,
    ),
    "raw_scores": Printed(
        "4.1",
        "Q Kᵀ",
        np.array([[4.00, 3.54, 4.52], [5.40, 5.78, 6.94], [4.02, 4.56, 5.18]]),
        2,
        TOKENS,
        TOKENS,
    ),
    "scores": Printed(
        "4.2",
        "Q Kᵀ / √d_k",
        np.array([[2.00, 1.77, 2.26], [2.70, 2.89, 3.47], [2.01, 2.28, 2.59]]),
        2,
        TOKENS,
        TOKENS,
    ),
    "exp_scores": Printed(
        "4.3",
        "e^score",
        np.array([[7.39, 5.87, 9.58], [14.88, 17.99, 32.14], [7.46, 9.78, 13.33]]),
        2,
        TOKENS,
        TOKENS,
    ),
    "exp_sums": Printed("4.3", "Σ e^score", np.array([22.84, 65.01, 30.57]), 2, TOKENS, (ROW_SUM,)),
    "weights": Printed(
        "4.3",
        "A = softmax(scores)",
        np.array([[0.324, 0.257, 0.419], [0.229, 0.277, 0.494], [0.244, 0.320, 0.436]]),
        3,
        TOKENS,
        TOKENS,
    ),
    "weighted_values_row0": Printed(
        "4.4",
        "A[0, j] · V_j",
        np.array(
            [
                [0.324, 0.324, 0.324, 0.324],
                [0.216, 0.396, 0.003, 0.514],
                [0.800, 0.243, 0.008, 0.419],
            ]
        ),
        3,
        TOKENS,
        DIMENSIONS,
    ),
    "output": Printed(
        "4.4",
        "Output = A V",
        np.array(
            [
                [1.340, 0.963, 0.335, 1.257],
                [1.405, 1.043, 0.242, 1.277],
                [1.345, 0.990, 0.256, 1.320],
            ]
        ),
        3,
        TOKENS,
        DIMENSIONS,
    ),
    "masked_weights": Printed(
        "7.1",
        "weights after masking",
        np.array([[1.000, 0.000, 0.000], [0.471, 0.529, 0.000], [0.169, 0.264, 0.567]]),
        3,
        DECODER_TOKENS,
        DECODER_TOKENS,
    ),
}


def _true_values(ex: WorkedExample) -> dict[str, Array]:
    return {
        "pe": ex.pe,
        "x_prime": ex.x_prime,
        "q": ex.q,
        "k": ex.k,
        "v": ex.v,
        "raw_scores": ex.raw_scores,
        "scores": ex.scores,
        "exp_scores": ex.exp_scores,
        "exp_sums": ex.exp_sums,
        "weights": ex.weights,
        "weighted_values_row0": ex.weighted_values[0],
        "output": ex.output,
        "masked_weights": ex.masked_weights,
    }


def _rounded_chain(ex: WorkedExample) -> dict[str, Array]:
    """Each step recomputed from the previous steps' true values rounded as the chapter prints
    them: what a careful hand calculation at the chapter's precision would get."""

    def r(name: str, value: Array) -> Array:
        return np.round(value, PRINTED[name].decimals)

    x_prime = ex.x + r("pe", ex.pe)
    q, k, v = r("q", ex.q), r("k", ex.k), r("v", ex.v)
    raw = q @ k.T
    scores = r("raw_scores", raw) / 2
    exp_scores = np.exp(r("scores", scores))
    sums = r("exp_scores", exp_scores).sum(axis=1)
    weights = r("exp_scores", exp_scores) / r("exp_sums", sums)[:, None]
    a = r("weights", ex.weights)
    return {
        "pe": ex.pe,
        "x_prime": x_prime,
        "q": r("x_prime", ex.x_prime) @ W_Q,
        "k": r("x_prime", ex.x_prime) @ W_K,
        "v": r("x_prime", ex.x_prime) @ W_V,
        "raw_scores": raw,
        "scores": scores,
        "exp_scores": exp_scores,
        "exp_sums": sums,
        "weights": weights,
        "weighted_values_row0": a[0][:, None] * v,
        "output": a @ v,
        "masked_weights": ex.masked_weights,
    }


@dataclass(frozen=True)
class Erratum:
    quantity: str  # the key in PRINTED
    section: str
    label: str
    index: tuple[int, ...]
    place: tuple[str, str]  # the labels of its row and its column
    printed: float
    true: float
    decimals: int


def errata() -> list[Erratum]:
    """Printed numbers farther from the true value than half a unit in their last printed digit,
    and farther than that from a correct calculation carried out at the chapter's rounding."""
    ex = worked_example()
    true, chained = _true_values(ex), _rounded_chain(ex)
    found = []
    for name, printed in PRINTED.items():
        half_unit = 0.5 * 10.0**-printed.decimals + 1e-9
        for index in np.ndindex(printed.values.shape):
            value = printed.values[index]
            if min(abs(value - true[name][index]), abs(value - chained[name][index])) > half_unit:
                found.append(
                    Erratum(
                        name,
                        printed.section,
                        printed.label,
                        index,
                        printed.place(index),
                        float(value),
                        float(true[name][index]),
                        printed.decimals,
                    )
                )
    return found


SLIP_THRESHOLD = 0.01  # far beyond what rounding the printed inputs can explain


def own_slips() -> list[tuple[str, tuple[int, ...], float, float]]:
    """Section 4 numbers that disagree with the chapter's own printed inputs, not only with
    the truth: (quantity, index, printed, recomputed from the printed inputs). Q Kᵀ comes
    from the printed Q and K, Output = A V from the printed A and V."""
    p = {name: printed.values for name, printed in PRINTED.items()}
    recomputed = {"raw_scores": p["q"] @ p["k"].T, "output": p["weights"] @ p["v"]}
    return [
        (name, index, float(p[name][index]), float(values[index]))
        for name, values in recomputed.items()
        for index in np.ndindex(values.shape)
        if abs(p[name][index] - values[index]) > SLIP_THRESHOLD
    ]


def errata_markdown() -> str:
    rows = errata()
    lines = [
        "# Errata: numbers printed in the chapter",
        "",
        "Generated by `quizsvc chapter --errata` from `engine/chapter.py`; a test keeps this file",
        "equal to that output.",
        "",
        "Every number the chapter prints in sections 2, 3, 4 and 7.1 is compared with the true",
        "value computed in float64 from the chapter's own inputs (E, the sinusoidal PE, W_q, W_k,",
        "W_v; for 7.1 the given weights before masking). A number is listed when it is more than",
        "half a unit in its last printed digit away from the true value *and* from what a correct",
        "hand calculation gets when it carries every earlier step at the chapter's printed",
        "precision. Each number is named by its row and column as the chapter and the worked",
        "example's tables label them: rows by token (我 爱 你; <s> I love in 7.1), columns by",
        "token or by dimension, d0 to d3 (counted from 0, as the chapter counts positions and",
        'dimensions: 位置0 "我", 维度 0-1), and Σ for the row sums of e^score.',
        "",
        "Two kinds of error. Section 3 prints wrong numbers: column d0 of Q in rows 爱 and 你,",
        "and rows 爱 and 你 of K (for example, for 爱, Q₁ = X'₁ W_q = [0.43, 1.77, 0.43, 1.77],",
        "since columns d0 and d2 of Q both equal (x₀ + x₂) / 2), and section 4 inherits them.",
        "Section 4 also has arithmetic slips of its own, numbers that do not follow even from the",
        "chapter's own printed inputs (Q Kᵀ from its Q and K, Output from its A and V):",
        "",
        *(
            f"- {PRINTED[name].label}, row {row}, column {column}: printed {printed:g}, "
            f"its own inputs give {recomputed:.{PRINTED[name].decimals}f}"
            for name, index, printed, recomputed in own_slips()
            for row, column in [PRINTED[name].place(index)]
        ),
        "",
        f"{len(rows)} numbers disagree.",
        "",
        "| section | quantity | row | column | chapter | true |",
        "|---|---|---|---|---|---|",
    ]
    for e in rows:
        row, column = e.place
        true = f"{e.true:.{e.decimals + 2}f}"
        lines.append(
            f"| {e.section} | {e.label} | {row} | {column} | {e.printed:.{e.decimals}f} | {true} |"
        )
    return "\n".join(lines) + "\n"
