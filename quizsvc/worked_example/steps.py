"""What a step of the worked example is made of, and the steps as terminal text.

Texts are English templates marked `N_` (for the interface's catalogs) with their parameters;
the web page translates them, the terminal shows them as they are. Formulas are LaTeX.
Symbols (Q, X', W_q) and the chapter's tokens are not translated.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

import numpy as np

from quizsvc.messages import N_


@dataclass(frozen=True)
class Text:
    template: str
    params: dict[str, str] = field(default_factory=dict)
    translated: bool = True  # False for a formula, the same in every language

    def render(self, translate: Callable[[str], str] = str) -> str:
        """The text in the language of `translate` (a gettext), its parameters filled in."""
        text = translate(self.template) if self.translated else self.template
        return text.format(**self.params) if self.params else text


class Source(Enum):
    """Whose numbers a step shows."""

    CHAPTER = N_("The chapter's numbers, recomputed by the engine")
    ENGINE = N_("The engine's tiny model with seeded weights")
    TRAINED = N_("The trained toy model's numbers")


class Heatmap(Enum):
    """What the rows of a matrix drawn as a heatmap distribute."""

    ATTENTION = "attention"  # a query's weights over the keys
    PROBABILITIES = "probabilities"  # a position's next token over the vocabulary


@dataclass(frozen=True)
class Matrix:
    caption: Text
    values: np.ndarray
    row_labels: tuple[str, ...]
    col_labels: tuple[str, ...]
    quantities: tuple[str, ...] = ()  # keys of engine.chapter.PRINTED shown in this matrix
    heatmap: Heatmap | None = None  # rows that are distributions are drawn as a heatmap too

    @property
    def shape(self) -> tuple[int, int]:
        rows, cols = np.atleast_2d(self.values).shape
        return rows, cols


@dataclass(frozen=True)
class Step:
    slug: str  # the page's anchor, "step-<slug>"
    title: Text
    sections: str  # the chapter's sections the step follows ("3.2–3.4")
    source: Source
    formulas: tuple[str, ...]  # LaTeX, one display formula each
    matrices: tuple[Matrix, ...]
    given: tuple[Matrix, ...] = ()  # the weights the step uses
    note: Text | None = None

    @property
    def anchor(self) -> str:
        return f"step-{self.slug}"


@dataclass(frozen=True)
class Part:
    title: Text
    steps: tuple[Step, ...]


def text(template: str, **params: object) -> Text:
    return Text(template, {name: str(value) for name, value in params.items()})


def symbol(name: str) -> Text:
    """A caption that is a formula, the same in every language (in no catalog)."""
    return Text(name, translated=False)


def shape_text(shape: tuple[int, int]) -> str:
    return f"({shape[0]} × {shape[1]})"


def format_matrix(
    matrix: np.ndarray, row_labels: list[str], col_labels: list[str] | None = None, decimals=3
) -> str:
    width = max(8, decimals + 5, *(_display_width(c) + 2 for c in col_labels or ()))
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


def steps_text(parts: list[Part]) -> str:
    """Every step as the page shows it, in English: heading, whose numbers, formulas (LaTeX),
    each matrix under its caption and shape."""
    lines = []
    number = 0
    for part in parts:
        lines += [part.title.render().upper(), ""]
        for step in part.steps:
            number += 1
            lines.append(f"{number}. {step.title.render()}")
            lines.append(f"   [chapter §{step.sections}; {step.source.value}]")
            if step.note is not None:
                lines.append(f"   {step.note.render()}")
            lines += [f"   {formula}" for formula in step.formulas]
            lines.append("")
            for matrix in (*step.given, *step.matrices):
                lines.append(f"{matrix.caption.render()} {shape_text(matrix.shape)}")
                lines += [
                    format_matrix(matrix.values, list(matrix.row_labels), list(matrix.col_labels)),
                    "",
                ]
    return "\n".join(lines)
