"""The chapter's worked example printed as the chapter lays it out (what `make run` shows)."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import numpy as np

from engine.chapter import (
    DECODER_TOKENS,
    INPUT_IDS,
    UNMASKED_WEIGHTS,
    VOCAB,
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
class Section:
    title: Localized
    caption: Localized  # the matrix's name, in the chapter's notation where it has one
    matrix: np.ndarray
    row_labels: list[str]
    col_labels: list[str]
    quantities: tuple[str, ...] = ()  # keys of engine.chapter.PRINTED shown in this matrix
    is_weights: bool = False


def _both(text: str) -> Localized:
    """A formula or a symbol reads the same in both languages."""
    return {"zh": text, "en": text}


def worked_example_sections() -> list[Section]:
    """The chapter's sections 1-4 and 7.1 in order, each matrix recomputed by the engine."""
    ex = worked_example()
    tokens = [VOCAB[i] for i in INPUT_IDS]
    dims = [f"d={i}" for i in range(ex.x.shape[1])]
    decoder = list(DECODER_TOKENS)
    return [
        Section(
            {"zh": "1. 查 Embedding 表：X（E 的行）", "en": "1. Embedding lookup: X (rows of E)"},
            _both("X"),
            ex.x,
            tokens,
            dims,
        ),
        Section(
            {"zh": "2. 位置编码 PE", "en": "2. Positional encoding PE"},
            _both("PE"),
            ex.pe,
            tokens,
            dims,
            ("pe",),
        ),
        Section(_both("2. X' = X + PE"), _both("X'"), ex.x_prime, tokens, dims, ("x_prime",)),
        Section(_both("3.2 Q = X' W_q"), _both("Q"), ex.q, tokens, dims, ("q",)),
        Section(_both("3.3 K = X' W_k"), _both("K"), ex.k, tokens, dims, ("k",)),
        Section(_both("3.4 V = X' W_v"), _both("V"), ex.v, tokens, dims, ("v",)),
        Section(_both("4.1 Q Kᵀ"), _both("Q Kᵀ"), ex.raw_scores, tokens, tokens, ("raw_scores",)),
        Section(
            _both("4.2 Q Kᵀ / √d_k"),
            {"zh": "缩放分数", "en": "scores"},
            ex.scores,
            tokens,
            tokens,
            ("scores",),
        ),
        Section(
            {"zh": "4.3 e^score（最右列为行和）", "en": "4.3 e^score (row sums on the right)"},
            _both("e^score"),
            np.c_[ex.exp_scores, ex.exp_sums],
            tokens,
            [*tokens, "Σ"],
            ("exp_scores", "exp_sums"),
        ),
        Section(
            {
                "zh": "4.3 注意力权重 A = softmax（按行）",
                "en": "4.3 Attention weights A = softmax(row)",
            },
            _both("A"),
            ex.weights,
            tokens,
            tokens,
            ("weights",),
            is_weights=True,
        ),
        Section(
            {"zh": "4.4 输出 = A V", "en": "4.4 Output = A V"},
            {"zh": "输出", "en": "Output"},
            ex.output,
            tokens,
            dims,
            ("weighted_values_row0", "output"),
        ),
        Section(
            {
                "zh": "7.1 Decoder 掩码前的权重（题目给定）",
                "en": "7.1 Decoder weights before masking (given)",
            },
            {"zh": "A（掩码前）", "en": "A (unmasked)"},
            UNMASKED_WEIGHTS,
            decoder,
            decoder,
        ),
        Section(
            {
                "zh": "7.1 掩码之后（未来位置的分数设为 -inf，再做 softmax）",
                "en": "7.1 After masking (future scores set to -inf, then softmax)",
            },
            {"zh": "A（掩码后）", "en": "A (masked)"},
            ex.masked_weights,
            decoder,
            decoder,
            ("masked_weights",),
            is_weights=True,
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
        parts += [
            section.title["en"],
            format_matrix(section.matrix, section.row_labels, section.col_labels),
            "",
        ]
    parts.append("Numbers that differ from the chapter's printed ones: docs/errata.md")
    return "\n".join(parts)
