"""A learner who rounds every intermediate result as the drill's prompt says is graded
correct with room to spare: over at least 1,000 seeds per kind, no cell of the hand-rounded
answer uses 60% or more of the tolerance.

The rounding each kind assumes is written out here (``INSTRUCTED``) and checked against the
chapter's drills.yaml, whose prompts are what the learner reads; the hand computation is
``drills_reference``, which does not run the drills' own code.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest
import yaml
from drills_reference import EXACT, PARAM_CASES, REFERENCE, Rounding, case_id

from quizsvc.drills import DRILL_KINDS, Variant, generate_variant, variant_conventions

HEADROOM = 0.6
SEEDS_AT_THE_DEFAULTS = range(1000)
SEEDS_PER_OTHER_CASE = range(100)

# Decimals per kind as its prompt in drills.yaml states them: intermediate results, e^x and
# their sum, the answer. None where the kind has no such step (a projection's products are
# exact).
INSTRUCTED: dict[str, Rounding] = {
    "embedding_positional": Rounding(steps=3, answer=2),
    "projection": Rounding(answer=2),
    "score_row": Rounding(steps=3, answer=2),
    "masked_score_row": Rounding(steps=3, answer=2),
    "softmax_row": Rounding(steps=3, exponentials=3, answer=3),
    "masked_row": Rounding(steps=3, exponentials=3, answer=3),
    "attention_output_row": Rounding(answer=2),
    # Scores of a head can all be far below 0; e^x at three decimals then loses the weights.
    "multi_head": Rounding(steps=3, exponentials=4, answer=2),
    "add_norm": Rounding(steps=3, answer=2),
    "ffn_row": Rounding(steps=3, answer=2),
    "cross_attention_row": Rounding(steps=3, exponentials=3, answer=2),
    "teacher_forcing_loss": Rounding(steps=3, answer=2),
    "logit_gradient": Rounding(steps=3, exponentials=3, answer=3),
    "greedy_next_token": EXACT,
}

DRILLS_YAML = Path(__file__).resolve().parents[2] / "content/transformer-by-hand/drills.yaml"
WORDS = {2: ("two", "两"), 3: ("three", "三"), 4: ("four", "四")}

CASES = [pytest.param(case, id=case_id(case)) for case in PARAM_CASES]


def instructed(variant: Variant) -> Rounding:
    rounding = INSTRUCTED[variant.kind]
    if variant.kind == "cross_attention_row" and variant.params["part"] == "weights":
        return dataclasses.replace(rounding, answer=3)  # attention weights, as softmax_row
    return rounding


def share_of_tolerance(submitted: np.ndarray, variant: Variant) -> np.ndarray:
    """|submitted - expected| over the half-width of each cell's accepted interval; a masked
    (infinite) cell must be met exactly."""
    expected = variant.answer.values
    finite = np.isfinite(expected)
    tolerance = variant.tolerance
    allowed = tolerance.atol + tolerance.rtol * np.abs(np.where(finite, expected, 0.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        off = np.where(submitted == expected, 0.0, np.abs(submitted - expected))
        return np.where(off == 0.0, 0.0, np.where(finite, off, np.inf) / allowed)


def test_every_kind_has_its_instructed_rounding() -> None:
    assert set(INSTRUCTED) == set(DRILL_KINDS)


@pytest.mark.slow  # 1,000 variants drawn and computed again by hand per case
@pytest.mark.parametrize("case", CASES)
def test_rounding_as_the_prompt_says_uses_under_60_percent_of_the_tolerance(case) -> None:
    kind, params = case
    seeds = SEEDS_PER_OTHER_CASE if params else SEEDS_AT_THE_DEFAULTS
    worst, worst_seed = 0.0, None
    for seed in seeds:
        variant = generate_variant(kind, seed, params)
        by_hand = REFERENCE[kind](variant, instructed(variant))
        share = float(share_of_tolerance(by_hand, variant).max())
        if share > worst:
            worst, worst_seed = share, seed
    assert worst < HEADROOM, f"seed {worst_seed} uses {worst:.0%} of the tolerance"


def test_the_share_counts_an_infinite_cell_as_met_only_exactly() -> None:
    variant = generate_variant("masked_score_row", 0, {"n": 3, "position": 1})
    exact = variant.answer.values.copy()
    assert share_of_tolerance(exact, variant).max() == 0.0
    exact[0, 2] = -1e9
    assert share_of_tolerance(exact, variant).max() == np.inf


def drill_questions() -> list[dict]:
    return yaml.safe_load(DRILLS_YAML.read_text(encoding="utf-8"))["questions"]


@pytest.mark.parametrize("question", drill_questions(), ids=lambda q: q["id"])
def test_each_prompt_states_the_rounding_the_tolerance_is_checked_with(question) -> None:
    rounding = INSTRUCTED[question["kind"]]
    zh, en = question["prompt"]["zh"], question["prompt"]["en"]
    if rounding.answer is not None:
        words = WORDS[rounding.answer]
        assert en.endswith(f"Round to {words[0]} decimals.")
        assert f"保留{words[1]}位小数" in zh.rsplit("，", 1)[-1]
    if rounding.steps is not None:
        words = WORDS[rounding.steps]
        assert re.search(rf"Keep intermediate results( \(.*?\))? to {words[0]} decimals", en)
        assert re.search(rf"中间结果(（.*?）)?(与答案都)?保留{words[1]}位小数", zh)
    if rounding.exponentials not in (None, rounding.steps):
        words = WORDS[rounding.exponentials]
        assert f"$e^{{x}}$ and their sum to {words[0]} decimals" in en
        assert f"$e^{{x}}$ 及其和保留{words[1]}位小数" in zh


@pytest.mark.parametrize("case", CASES)
def test_each_kind_declares_the_rounding_its_prompt_states(case) -> None:
    # what the API sends and the drill page lists: the same decimals as the prompts above
    kind, params = case
    variant = generate_variant(kind, 0, params)
    stated = instructed(variant)
    declared = variant_conventions(variant).rounding
    assert declared.answer == (0 if stated.answer is None else stated.answer)  # 0: a token id
    assert declared.intermediate == stated.steps
    assert declared.exponentials == (
        None if stated.exponentials == stated.steps else stated.exponentials
    )
