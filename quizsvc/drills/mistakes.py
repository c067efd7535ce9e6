"""The usual mistakes of the chapter's hand calculations, and which of them explain a wrong
answer.

Each ``Mistake`` recomputes, from a variant's given tensors and with the engine's own
layers, the answer a learner who makes that mistake would give.  ``diagnose`` grades a
submitted answer and names, for every wrong cell, the mistakes whose answer lies within the
cell's tolerance of what was submitted, with how far the cell is off (``off_by``, and as a
coarse ``Distance`` a page can say without giving the answer away).  Nothing is stored: the
diagnosis is recomputed from the stored variant.

    from quizsvc.drills.mistakes import MISTAKES, diagnose
    for cell in diagnose(variant, submitted):
        ...  # cell.codes, e.g. ("no_scaling",), cell.off_by and cell.distance
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

import numpy as np

from engine.layers import apply_mask, causal_mask, linear, softmax
from quizsvc.drills import gradient
from quizsvc.drills.variant import Variant
from quizsvc.grading import CellResult, accepted_interval, grade_numeric
from quizsvc.messages import N_

Array = np.ndarray
Answers = Callable[[Variant], tuple[Array, ...]]

# A wrong cell this many tolerances or fewer from the right value is a rounding matter.
ROUNDING_TOLERANCES = 3.0
# A wrong cell more than this many tolerances from the right value is far off.
FAR_TOLERANCES = 10.0


class Distance(StrEnum):
    """How far a wrong cell is off, coarsely enough to say while attempts remain (it gives
    neither the right value nor its interval away): at most ``ROUNDING_TOLERANCES`` times
    the tolerance off, at most ``FAR_TOLERANCES`` times, or more; an infinity where a finite
    number belongs; anything else where an infinity belongs; any other value where only the
    exact one counts (a token id)."""

    JUST_OUTSIDE = "just_outside"
    WITHIN_TEN_TOLERANCES = "within_ten_tolerances"
    FAR = "far"
    NOT_FINITE = "not_finite"
    INFINITELY_FAR = "infinitely_far"
    NOT_EXACT = "not_exact"


# What a page says of a wrong cell that no known mistake explains.
DISTANCE_MESSAGES: Mapping[Distance, str] = MappingProxyType(
    {
        Distance.JUST_OUTSIDE: N_(
            "Just outside the tolerance (at most 3 times it off): check the last decimals."
        ),
        Distance.WITHIN_TEN_TOLERANCES: N_(
            "Off by 3 to 10 times the tolerance: check the arithmetic of each step."
        ),
        Distance.FAR: N_(
            "Far off (more than 10 times the tolerance): check the method, not only the arithmetic."
        ),
        Distance.NOT_FINITE: N_("This should be a finite number, not an infinity."),
        Distance.INFINITELY_FAR: N_("Infinitely far off: check which positions the mask hides."),
        Distance.NOT_EXACT: N_("Not the exact value, and only the exact value counts here."),
    }
)


@dataclass(frozen=True)
class Mistake:
    """One known mistake: ``answers`` gives the answer(s) a learner making it would submit
    for a variant (none when the variant leaves no room for it); a cell is explained when
    the submitted value lies within ``tolerances`` times the variant's tolerance of one.
    ``template`` is the English a page shows (marked for the translation catalogs)."""

    code: str
    template: str
    kinds: frozenset[str]
    answers: Answers
    tolerances: float = 1.0


@dataclass(frozen=True)
class CellDiagnosis:
    """A wrong cell (0-based ``row``, ``col``): the codes of the mistakes that explain it,
    in catalog order (empty when none does), ``submitted - expected`` (±inf where only
    one of them is infinite) and how far that is, as a ``Distance``."""

    row: int
    col: int
    codes: tuple[str, ...]
    off_by: float
    distance: Distance

    @property
    def named(self) -> tuple[str, ...]:
        """The codes a page names: a rounding matter only when no other mistake explains the
        cell (a value that a mistake's answer gives says more than one near the right)."""
        return tuple(code for code in self.codes if code != "rounded_early") or self.codes


def _given(variant: Variant, name: str) -> Array:
    return next(tensor.values for tensor in variant.given if tensor.name == name)


def _query(variant: Variant) -> Array:
    """The one query row a score, masked score or cross-attention drill gives."""
    return variant.given[0].values


def _is_cross(variant: Variant) -> bool:
    """A cross-attention row: the kind's, or a multi-head drill on the trained model (one
    head's q, K_enc and V_enc)."""
    trained_heads = variant.kind == "multi_head" and variant.params.get("weights") == "trained"
    return variant.kind == "cross_attention_row" or trained_heads


def _keys(variant: Variant) -> Array:
    return _given(variant, "K_enc" if _is_cross(variant) else "K")


def _raw_scores(variant: Variant) -> Array:
    return linear(_query(variant), _keys(variant).T)


def _scaled_scores(variant: Variant) -> Array:
    return _raw_scores(variant) / math.sqrt(_keys(variant).shape[1])


def _masked(scores: Array, position: int, future: bool = True) -> Array:
    """``scores`` (one row) with -inf at the future positions, or with ``future`` False at
    the past ones (the mask turned the wrong way)."""
    allowed = causal_mask(scores.shape[-1])[position]
    if not future:
        allowed = np.arange(scores.shape[-1]) >= position
    return apply_mask(scores.copy(), allowed)


def _cross_attention(variant: Variant, weights: Array, values: str = "V_enc") -> tuple[Array]:
    if variant.params["part"] == "weights":
        return (weights,)
    return (linear(weights, _given(variant, values)),)


def _multi_head(
    variant: Variant, scale: bool = True, axis: int = -1, values: str = "v"
) -> tuple[Array]:
    """The multi-head answer recomputed head by head from the given per-head matrices, with
    the scaling left out, the softmax over the wrong axis, or K used as V."""
    x = _given(variant, "X'")
    n_heads, d_model, part = (variant.params[key] for key in ("n_heads", "d_model", "part"))
    d_k = d_model // n_heads
    heads = range(1, n_heads + 1) if part == "concat_projection" else [variant.params["head"]]
    outputs = []
    for head in heads:
        x_head = x[:, (head - 1) * d_k : head * d_k]
        q, k, v = (linear(x_head, _given(variant, f"W{m}{head}")) for m in ("q", "k", "v"))
        scores = linear(q, k.T) / (math.sqrt(d_k) if scale else 1.0)
        outputs.append(linear(softmax(scores, axis=axis), k if values == "k" else v))
    if part != "concat_projection":
        return (outputs[0],)
    return (linear(np.concatenate(outputs, axis=1), _given(variant, "Wo")),)


def _no_scaling(variant: Variant) -> tuple[Array, ...]:
    if variant.kind == "multi_head" and not _is_cross(variant):
        return _multi_head(variant, scale=False)
    raw = _raw_scores(variant)
    if variant.kind == "score_row":
        return (raw,)
    if variant.kind == "masked_score_row":
        return (_masked(raw, variant.params["position"]),)
    return _cross_attention(variant, softmax(raw))


def _scores_not_weights(variant: Variant) -> tuple[Array, ...]:
    if variant.kind == "cross_attention_row":
        return (_scaled_scores(variant),) if variant.params["part"] == "weights" else ()
    scores = _given(variant, "scores")
    if variant.kind == "masked_row":  # as given, or with the mask's -inf written in
        return (scores, _masked(scores, variant.params["position"]))
    return (scores,)


def _weights_not_scores(variant: Variant) -> tuple[Array, ...]:
    scores = _scaled_scores(variant)
    if variant.kind == "masked_score_row":
        scores = _masked(scores, variant.params["position"])
    return (softmax(scores),)


def _softmax_wrong_axis(variant: Variant) -> tuple[Array, ...]:
    # A single row summed down its columns: every e^x over itself.
    if variant.kind == "multi_head" and not _is_cross(variant):
        return _multi_head(variant, axis=0)
    if _is_cross(variant):
        return _cross_attention(variant, softmax(_scaled_scores(variant), axis=0))
    scores = _given(variant, "scores")
    if variant.kind == "masked_row":
        scores = _masked(scores, variant.params["position"])
    return (softmax(scores, axis=0),)


def _k_for_v(variant: Variant) -> tuple[Array, ...]:
    if variant.kind == "multi_head" and not _is_cross(variant):
        return _multi_head(variant, values="k")
    if variant.params["part"] == "weights":
        return ()
    return _cross_attention(variant, softmax(_scaled_scores(variant)), values="K_enc")


def _no_mask(variant: Variant) -> tuple[Array, ...]:
    if variant.kind == "masked_score_row":
        return (_scaled_scores(variant),)
    return (softmax(_given(variant, "scores")),)


def _mask_wrong_side(variant: Variant) -> tuple[Array, ...]:
    position = variant.params["position"]
    if variant.kind == "masked_score_row":
        return (_masked(_scaled_scores(variant), position, future=False),)
    return (softmax(_masked(_given(variant, "scores"), position, future=False)),)


def _transposed(variant: Variant) -> tuple[Array, ...]:
    answer = variant.answer.values
    rows, cols = answer.shape
    return (answer.T,) if rows == cols > 1 else ()  # any other shape is refused unread


def _no_positions(variant: Variant) -> tuple[Array, ...]:
    position = variant.params["position"]
    token_id = int(_given(variant, "ids")[0, position])
    return (_given(variant, "E")[token_id][None, :],)


def _the_answer(variant: Variant) -> tuple[Array, ...]:
    return (variant.answer.values,)


def _mistake(
    code: str, template: str, kinds: str, answers: Answers, tolerances: float = 1.0
) -> Mistake:
    return Mistake(code, template, frozenset(kinds.split()), answers, tolerances)


_ATTENTION_WEIGHTS = "softmax_row masked_row cross_attention_row multi_head"
_NUMERIC_KINDS = (
    "embedding_positional projection score_row masked_score_row softmax_row masked_row "
    "attention_output_row multi_head add_norm ffn_row cross_attention_row teacher_forcing_loss "
    "logit_gradient"
)

MISTAKES: Mapping[str, Mistake] = MappingProxyType(
    {
        mistake.code: mistake
        for mistake in (
            _mistake(
                "no_scaling",
                N_("This is the value without the division by √d_k."),
                "score_row masked_score_row cross_attention_row multi_head",
                _no_scaling,
            ),
            _mistake(
                "scores_not_weights",
                N_("This is a score: the weights are the scores after the softmax."),
                "softmax_row masked_row cross_attention_row",
                _scores_not_weights,
            ),
            _mistake(
                "weights_not_scores",
                N_("This is a weight after the softmax: the scores come before it."),
                "score_row masked_score_row",
                _weights_not_scores,
            ),
            _mistake(
                "softmax_wrong_axis",
                N_("This is the softmax taken down the columns: it runs along each row."),
                _ATTENTION_WEIGHTS,
                _softmax_wrong_axis,
            ),
            _mistake(
                "k_for_v",
                N_("This is the weighted sum of K: the weights multiply V."),
                "cross_attention_row multi_head",
                _k_for_v,
            ),
            _mistake(
                "no_mask",
                N_("This is the value without the mask: future positions get -∞ first."),
                "masked_score_row masked_row",
                _no_mask,
            ),
            _mistake(
                "mask_wrong_side",
                N_("This is the value with the past masked: the mask hides j > i."),
                "masked_score_row masked_row",
                _mask_wrong_side,
            ),
            _mistake(
                "transposed",
                N_("This is the value of the transposed result: rows and columns swapped."),
                "projection multi_head",
                _transposed,
            ),
            _mistake(
                "no_positions",
                N_("This is the embedding alone: the positional encoding is added to it."),
                "embedding_positional",
                _no_positions,
            ),
            _mistake(
                "softmax_not_gradient",
                N_("This is softmax(z) itself: the gradient subtracts the target y from it."),
                "logit_gradient",
                gradient.softmax_only,
            ),
            _mistake(
                "gradient_sign_flipped",
                N_("This is y - softmax(z): the gradient is softmax(z) - y, the other sign."),
                "logit_gradient",
                gradient.sign_flipped,
            ),
            _mistake(
                "logits_not_softmax",
                N_("This subtracts y from the logits: take the softmax of z first."),
                "logit_gradient",
                gradient.logits_not_softmax,
            ),
            _mistake(
                "smoothing_ignored",
                N_("This is with a one-hot y: label smoothing gives every token ε/V of it."),
                "logit_gradient",
                gradient.smoothing_ignored,
            ),
            _mistake(
                "rounded_early",
                N_("Close: correct up to rounding. Keep more decimals in the steps."),
                _NUMERIC_KINDS,
                _the_answer,
                tolerances=ROUNDING_TOLERANCES,
            ),
        )
    }
)


def mistakes_for(kind: str) -> tuple[Mistake, ...]:
    return tuple(mistake for mistake in MISTAKES.values() if kind in mistake.kinds)


def diagnose(variant: Variant, submitted: Array) -> tuple[CellDiagnosis, ...]:
    """One ``CellDiagnosis`` per cell of ``submitted`` (a number per cell, the answer's
    shape) that the variant's tolerance grades wrong, in row-major order."""
    submitted = np.asarray(submitted, dtype=np.float64)
    expected = variant.answer.values
    grade = grade_numeric(submitted, expected, variant.tolerance)
    candidates = [
        (mistake, answer)
        for mistake in mistakes_for(variant.kind)
        for answer in mistake.answers(variant)
    ]
    return tuple(
        CellDiagnosis(
            cell.row,
            cell.col,
            tuple(
                dict.fromkeys(
                    mistake.code
                    for mistake, answer in candidates
                    if _explains(mistake, answer[cell.row, cell.col], cell.submitted, variant)
                )
            ),
            cell.submitted - cell.expected,
            distance(cell),
        )
        for cell in grade.cells
        if not cell.correct
    )


def distance(cell: CellResult) -> Distance:
    """How far a wrong graded cell is off, counted in its tolerance (half its accepted
    interval's width)."""
    if math.isinf(cell.expected):
        return Distance.INFINITELY_FAR
    if math.isinf(cell.submitted):
        return Distance.NOT_FINITE
    tolerance = (cell.high - cell.low) / 2
    off = abs(cell.submitted - cell.expected)
    if tolerance <= 0:
        return Distance.NOT_EXACT
    if off <= ROUNDING_TOLERANCES * tolerance:
        return Distance.JUST_OUTSIDE
    if off <= FAR_TOLERANCES * tolerance:
        return Distance.WITHIN_TEN_TOLERANCES
    return Distance.FAR


def _explains(mistake: Mistake, value: float, submitted: float, variant: Variant) -> bool:
    if math.isnan(value) or math.isnan(submitted):
        return False
    if math.isinf(value) or math.isinf(submitted):
        return value == submitted
    tolerance = variant.tolerance
    low, high = accepted_interval(value, tolerance)
    half_width = (high - low) / 2 * mistake.tolerances
    # an exact answer key (a token id) leaves rounding no room
    return abs(submitted - value) <= half_width if half_width > 0 else submitted == value
