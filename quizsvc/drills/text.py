"""Labels, number formatting and step building shared by the drill kinds."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, localcontext

import numpy as np

from quizsvc.drills.variant import Step, Tensor
from quizsvc.grading import Tolerance

# The chapter's sentences: source "我 爱 你" (a fourth token when n = 4), target
# "<s> I love you" as the decoder sees it.
SOURCE_TOKENS = ("我", "爱", "你", "们")
DECODER_TOKENS = ("<s>", "I", "love", "you")


def source_tokens(n: int) -> tuple[str, ...]:
    return SOURCE_TOKENS[:n]


def dims(count: int, prefix: str = "d") -> tuple[str, ...]:
    """Column labels of a vector's dimensions, as the chapter writes them: d0, d1, ..."""
    return tuple(f"{prefix}{index}" for index in range(count))


# Below this, a value computed from the drills' tenths and halves is float noise: 2.8e-17
# where exact arithmetic gives 0.
ROUNDING_NOISE = 1e-9

# Prose rounds as the pages' tables do (quizsvc.web.render.format_number: 3 decimals), so a
# number in a step's text is the one in the table beside it (0.9998 read 1 in the table).
PROSE_DECIMALS = 3


_FLOAT_INTEGER_DIGITS = 309  # the largest float, 1.8e308, has 309 digits before the point


def decimal_text(value: float, digits: int) -> str:
    """A finite number rounded to ``digits`` decimals as learners round by hand (四舍五入: a
    half goes away from zero, 3.5625 -> 3.563, where Python's format gives 3.562), with no
    trailing zeros and never "-0". The value is rounded as the float it is: 2.675 is
    2.67499999... in binary, so it stays 2.67 here too."""
    # every digit a float can have before the point (309) and the decimals asked for: the
    # default context's 28 would refuse to round a learner's 1e30
    with localcontext(prec=_FLOAT_INTEGER_DIGITS + digits):
        exact = Decimal(float(value)).quantize(Decimal(1).scaleb(-digits), ROUND_HALF_UP)
    text = f"{exact:f}"
    if "." in text:  # "100" with no decimals keeps its zeros
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def num(value: float, digits: int = PROSE_DECIMALS) -> str:
    """A number for prose: at most ``digits`` decimals, no trailing zeros, ∞ for infinity."""
    value = float(value)
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    return decimal_text(value, digits)


# The prompts and worked solutions are Markdown whose formulas are LaTeX between dollar signs
# (quizsvc.bank's Markdown renders them as MathML). A formula does not break across lines, so
# what runs as long as the numbers it lists (a row of numbers, a sum term by term) is text
# around short formulas.
D_MODEL = r"d_{\text{model}}"


def vector(values: Sequence[float] | np.ndarray, digits: int = PROSE_DECIMALS) -> str:
    return "[" + ", ".join(num(value, digits) for value in np.ravel(values)) + "]"


def dot_text(left: np.ndarray, right: np.ndarray, digits: int = PROSE_DECIMALS) -> str:
    """``a·b`` written out term by term: ``1×0.5 + 0.2×(-1) = 0.3``."""
    terms = " + ".join(
        f"{_operand(a)}×{_operand(b)}" for a, b in zip(np.ravel(left), np.ravel(right), strict=True)
    )
    return f"{terms} = {num(float(np.dot(np.ravel(left), np.ravel(right))), digits)}"


def weighted_sum(weights: np.ndarray, vector_name: str) -> str:
    """``w_0 V_0 + w_1 V_1 + ...``, each row a formula: ``0.2 × $V_{0}$ + 0.8 × $V_{1}$``."""
    return " + ".join(f"{num(w)} × ${vector_name}_{{{j}}}$" for j, w in enumerate(weights))


def _operand(value: float) -> str:
    text = num(value)
    return f"({text})" if text.startswith("-") else text


def text(zh: str, en: str) -> dict[str, str]:
    return {"zh": zh, "en": en}


def step(title_zh: str, title_en: str, text_zh: str, text_en: str, *tensors: Tensor) -> Step:
    return Step(title=text(title_zh, title_en), text=text(text_zh, text_en), tensors=tensors)


def row(name: str, values: np.ndarray, row_label: str, col_labels: Sequence[str]) -> Tensor:
    """A one-row tensor."""
    return Tensor(name, np.reshape(values, (1, -1)), (row_label,), tuple(col_labels))


def scalar(name: str, value: float, label: str) -> Tensor:
    return Tensor(name, np.array([[value]]), (label,), ("",))


@dataclass(frozen=True)
class Draft:
    """What a kind's generator returns; the registry adds kind, seed, params and skill.

    ``tolerance`` overrides the kind's default for this variant (e.g. a weights answer of
    a kind whose default is for output vectors).  ``choices`` are the params the seed
    decided (a position left open, ``which: random``), recorded in ``Variant.params``.
    """

    prompt: dict[str, str]
    given: tuple[Tensor, ...]
    answer: Tensor
    solution: tuple[Step, ...]
    heatmap: Tensor | None = None
    tolerance: Tolerance | None = None
    choices: dict[str, object] = field(default_factory=dict)
