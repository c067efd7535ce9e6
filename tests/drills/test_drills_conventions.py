"""The conventions a kind declares besides its rounding (tested with the prompts in
test_drills_rounding.py) hold for its variants: the value of a masked cell, LayerNorm's ε."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from engine.config import TransformerConfig
from quizsvc.drills import DRILL_KINDS, generate_variant, variant_conventions


@pytest.mark.parametrize(("kind", "value"), [("masked_score_row", -math.inf), ("masked_row", 0.0)])
def test_the_masked_cells_of_a_masked_row_hold_the_declared_value(kind, value) -> None:
    for seed in range(20):
        variant = generate_variant(kind, seed, {"n": 4})
        position = variant.params["position"]
        assert variant_conventions(variant).masked_cell == value
        future = variant.answer.values[0, position + 1 :]
        assert future.size and (future == value).all()
        assert np.isfinite(variant.answer.values[0, : position + 1]).all()


def test_only_the_masked_rows_declare_a_masked_cell() -> None:
    declaring = {
        kind
        for kind in DRILL_KINDS
        if variant_conventions(generate_variant(kind, 0)).masked_cell is not None
    }
    assert declaring == {"masked_score_row", "masked_row"}


def test_add_norm_declares_the_engine_s_layer_norm_eps_and_its_prompt_states_it() -> None:
    engine_eps = next(
        spec.default
        for spec in dataclasses.fields(TransformerConfig)
        if spec.name == "layer_norm_eps"
    )
    variant = generate_variant("add_norm", 0)
    assert variant_conventions(variant).eps == engine_eps == 1e-5
    stated = "$\\varepsilon = 0.00001$"
    assert stated in variant.prompt["en"] and stated in variant.prompt["zh"]
    others = {kind for kind in DRILL_KINDS if variant_conventions(generate_variant(kind, 0)).eps}
    assert others == {"add_norm"}


def test_cross_attention_weights_are_given_to_three_decimals_its_output_to_two() -> None:
    weights = generate_variant("cross_attention_row", 0, {"part": "weights"})
    output = generate_variant("cross_attention_row", 0, {"part": "output"})
    assert variant_conventions(weights).rounding.answer == 3
    assert variant_conventions(output).rounding.answer == 2


def test_a_variant_of_a_kind_that_is_gone_has_no_conventions() -> None:
    variant = dataclasses.replace(generate_variant("score_row", 0), kind="retired_kind")
    assert variant_conventions(variant) is None
