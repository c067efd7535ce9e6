"""The chapter's worked example printed as the chapter lays it out (what `make run` shows)."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import numpy as np

from engine.chapter import DECODER_TOKENS, INPUT_IDS, UNMASKED_WEIGHTS, VOCAB, worked_example


def format_matrix(
    matrix: np.ndarray, row_labels: list[str], col_labels: list[str] | None = None, decimals=3
) -> str:
    width = max(8, decimals + 5)
    label_width = max(_display_width(label) for label in row_labels) + 2
    lines = []
    if col_labels is not None:
        lines.append(" " * label_width + "".join(_pad_left(c, width) for c in col_labels))
    for label, row in zip(row_labels, np.atleast_2d(matrix), strict=True):
        cells = "".join(f"{v:>{width}.{decimals}f}" for v in row)
        lines.append(label + " " * (label_width - _display_width(label)) + cells)
    return "\n".join(lines)


def _display_width(text: str) -> int:
    """Terminal columns: CJK characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad_left(text: str, width: int) -> str:
    return " " * (width - _display_width(text)) + text


@dataclass(frozen=True)
class Section:
    title: str
    symbol: str  # the matrix's name in the chapter's notation
    matrix: np.ndarray
    row_labels: list[str]
    col_labels: list[str]
    quantities: tuple[str, ...] = ()  # keys of engine.chapter.PRINTED shown in this matrix
    is_weights: bool = False


def worked_example_sections() -> list[Section]:
    """The chapter's sections 1-4 and 7.1 in order, each matrix recomputed by the engine."""
    ex = worked_example()
    tokens = [VOCAB[i] for i in INPUT_IDS]
    dims = [f"d={i}" for i in range(ex.x.shape[1])]
    decoder = list(DECODER_TOKENS)
    return [
        Section("1. Embedding lookup: X (rows of E)", "X", ex.x, tokens, dims),
        Section("2. Positional encoding PE", "PE", ex.pe, tokens, dims, ("pe",)),
        Section("2. X' = X + PE", "X'", ex.x_prime, tokens, dims, ("x_prime",)),
        Section("3.2 Q = X' W_q", "Q", ex.q, tokens, dims, ("q",)),
        Section("3.3 K = X' W_k", "K", ex.k, tokens, dims, ("k",)),
        Section("3.4 V = X' W_v", "V", ex.v, tokens, dims, ("v",)),
        Section("4.1 Q Kᵀ", "Q Kᵀ", ex.raw_scores, tokens, tokens, ("raw_scores",)),
        Section("4.2 Q Kᵀ / √d_k", "scores", ex.scores, tokens, tokens, ("scores",)),
        Section(
            "4.3 e^score (row sums on the right)",
            "e^score",
            np.c_[ex.exp_scores, ex.exp_sums],
            tokens,
            [*tokens, "Σ"],
            ("exp_scores", "exp_sums"),
        ),
        Section(
            "4.3 Attention weights A = softmax(row)",
            "A",
            ex.weights,
            tokens,
            tokens,
            ("weights",),
            is_weights=True,
        ),
        Section(
            "4.4 Output = A V",
            "Output",
            ex.output,
            tokens,
            dims,
            ("weighted_values_row0", "output"),
        ),
        Section(
            "7.1 Decoder weights before masking (given)",
            "A (unmasked)",
            UNMASKED_WEIGHTS,
            decoder,
            decoder,
        ),
        Section(
            "7.1 After masking (future scores set to -inf, then softmax)",
            "A (masked)",
            ex.masked_weights,
            decoder,
            decoder,
            ("masked_weights",),
            is_weights=True,
        ),
    ]


def worked_example_text() -> str:
    parts = ["Transformer by hand: the chapter's worked example, computed by the engine", ""]
    for section in worked_example_sections():
        parts += [
            section.title,
            format_matrix(section.matrix, section.row_labels, section.col_labels),
            "",
        ]
    parts.append("Numbers that differ from the chapter's printed ones: docs/errata.md")
    return "\n".join(parts)
