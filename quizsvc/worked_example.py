"""The chapter's worked example laid out by the chapter's own sections (the page /worked-example
and `make example`)."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import numpy as np

from engine.chapter import (
    DECODER_TOKENS,
    DIMENSIONS,
    ROW_SUM,
    TOKENS,
    UNMASKED_WEIGHTS,
    W_K,
    W_Q,
    W_V,
    Erratum,
    worked_example,
)


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


Localized = dict[str, str]  # {"zh": ..., "en": ...}, as the drills' step titles


@dataclass(frozen=True)
class Matrix:
    caption: Localized  # the matrix's name, in the chapter's notation where it has one
    matrix: np.ndarray
    row_labels: list[str]
    col_labels: list[str]
    quantities: tuple[str, ...] = ()  # keys of engine.chapter.PRINTED shown in this matrix
    is_weights: bool = False


@dataclass(frozen=True)
class Section:
    """One numbered section of the chapter with the matrices it computes.

    ``number`` is the chapter's own ("2" for 第2部分, "4.3"): a section that prints several
    matrices (PE and X' in 2, e^score and A in 4.3) stays one section, so no number is used
    twice, and every erratum of a matrix is listed under that matrix.
    """

    number: str
    title: Localized
    matrices: tuple[Matrix, ...]

    def heading(self, lang: str) -> str:
        # the chapter's parts are whole numbers ("第2部分"), written "2." as in a list
        number = self.number if "." in self.number else f"{self.number}."
        return f"{number} {self.title[lang]}"


def _both(text: str) -> Localized:
    """A formula or a symbol reads the same in both languages."""
    return {"zh": text, "en": text}


def worked_example_sections() -> list[Section]:
    """The chapter's sections 1-4 and 7.1 in order, each matrix recomputed by the engine."""
    ex = worked_example()
    tokens = list(TOKENS)
    dims = list(DIMENSIONS)  # as the drills label dimensions
    decoder = list(DECODER_TOKENS)
    return [
        Section(
            "1",
            {"zh": "查 Embedding 表：X（E 的行）", "en": "Embedding lookup: X (rows of E)"},
            (Matrix(_both("X"), ex.x, tokens, dims),),
        ),
        Section(
            "2",
            {"zh": "位置编码：PE 与 X' = X + PE", "en": "Positional encoding: PE and X' = X + PE"},
            (
                Matrix(_both("PE"), ex.pe, tokens, dims, ("pe",)),
                Matrix(_both("X' = X + PE"), ex.x_prime, tokens, dims, ("x_prime",)),
            ),
        ),
        Section(
            "3.1",
            {"zh": "三个权重矩阵（题目给定）", "en": "The three weight matrices (given)"},
            tuple(
                Matrix(_both(name), weights, dims, dims)
                for name, weights in (("W_q", W_Q), ("W_k", W_K), ("W_v", W_V))
            ),
        ),
        Section("3.2", _both("Q = X' W_q"), (Matrix(_both("Q"), ex.q, tokens, dims, ("q",)),)),
        Section("3.3", _both("K = X' W_k"), (Matrix(_both("K"), ex.k, tokens, dims, ("k",)),)),
        Section("3.4", _both("V = X' W_v"), (Matrix(_both("V"), ex.v, tokens, dims, ("v",)),)),
        Section(
            "4.1",
            _both("Q Kᵀ"),
            (Matrix(_both("Q Kᵀ"), ex.raw_scores, tokens, tokens, ("raw_scores",)),),
        ),
        Section(
            "4.2",
            _both("Q Kᵀ / √d_k"),
            (Matrix({"zh": "缩放分数", "en": "scores"}, ex.scores, tokens, tokens, ("scores",)),),
        ),
        Section(
            "4.3",
            {"zh": "Softmax（按行）", "en": "Softmax (per row)"},
            (
                Matrix(
                    {"zh": "e^score（最右列为行和 Σ）", "en": "e^score (row sums Σ on the right)"},
                    np.c_[ex.exp_scores, ex.exp_sums],
                    tokens,
                    [*tokens, ROW_SUM],
                    ("exp_scores", "exp_sums"),
                ),
                Matrix(
                    _both("A"),
                    ex.weights,
                    tokens,
                    tokens,
                    ("weights",),
                    is_weights=True,
                ),
            ),
        ),
        Section(
            "4.4",
            {"zh": "加权求和：输出 = A V", "en": "Weighted sum: Output = A V"},
            (
                # The chapter writes out Output₀, 我's row, term by term, one row per value
                # vector V_j; its misprints there are listed under this table.
                Matrix(
                    {
                        "zh": "A[0, j] · V_j（“我”的输出 Output₀ 的各项，每行一个 V_j）",
                        "en": "A[0, j] · V_j (the terms of 我's output Output₀, one row per V_j)",
                    },
                    ex.weighted_values[0],
                    tokens,
                    dims,
                    ("weighted_values_row0",),
                ),
                Matrix({"zh": "输出", "en": "Output"}, ex.output, tokens, dims, ("output",)),
            ),
        ),
        Section(
            "7.1",
            {
                "zh": "Masked Self-Attention：未来位置的分数设为 -inf，再做 softmax",
                "en": "Masked self-attention: future scores set to -inf, then softmax",
            },
            (
                Matrix(
                    {"zh": "A（掩码前，题目给定）", "en": "A (before masking, given)"},
                    UNMASKED_WEIGHTS,
                    decoder,
                    decoder,
                ),
                Matrix(
                    {"zh": "A（掩码后）", "en": "A (after masking)"},
                    ex.masked_weights,
                    decoder,
                    decoder,
                    ("masked_weights",),
                    is_weights=True,
                ),
            ),
        ),
    ]


# engine.chapter names each printed quantity by its formula, which mostly reads the same in
# both languages; these are the ones with English words in them.
_ERRATUM_LABELS: dict[str, Localized] = {
    "weights": {"zh": "A = softmax(缩放分数)", "en": "A = softmax(scores)"},
    "output": {"zh": "输出 = A V", "en": "Output = A V"},
    "masked_weights": {"zh": "掩码后的权重", "en": "weights after masking"},
}


def erratum_label(erratum: Erratum, lang: str) -> str:
    """The name of a misprinted quantity in ``lang``."""
    return _ERRATUM_LABELS.get(erratum.quantity, _both(erratum.label))[lang]


def worked_example_text() -> str:
    parts = ["Transformer by hand: the chapter's worked example, computed by the engine", ""]
    for section in worked_example_sections():
        parts.append(section.heading("en"))
        for matrix in section.matrices:
            # one matrix is named by its section's heading; several need their own names
            if len(section.matrices) > 1:
                parts.append(matrix.caption["en"])
            parts += [format_matrix(matrix.matrix, matrix.row_labels, matrix.col_labels), ""]
    parts.append("Numbers that differ from the chapter's printed ones: docs/errata.md")
    return "\n".join(parts)
