"""The masked score row: scaled scores with -inf at the future positions, as the chapter's
section 7.1 sets them before the softmax, graded with -inf typed in any of its forms."""

from __future__ import annotations

import math

import numpy as np
import pytest

from quizsvc.drills import generate_variant
from quizsvc.grading import grade_numeric


def test_the_answer_is_the_scaled_row_with_minus_infinity_after_the_position() -> None:
    variant = generate_variant("masked_score_row", 4, {"n": 4, "d_model": 4, "position": 1})
    q, k = variant.given[0].values, variant.given[1].values
    assert (variant.given[0].name, variant.given[1].name) == ("q1", "K")
    expected = (q @ k.T)[0] / 2.0  # √d_k = √4
    answer = variant.answer.values[0]
    np.testing.assert_allclose(answer[:2], expected[:2], rtol=0, atol=1e-12)
    assert answer[2] == answer[3] == -math.inf
    assert variant.answer.col_labels == ("<s>", "I", "love", "you")
    assert variant.answer.row_labels == ("I",)
    assert variant.skill == "masking" and variant.tolerance.atol == 0.01


def test_an_open_position_sees_a_past_and_has_a_future() -> None:
    positions = {
        generate_variant("masked_score_row", s, {"n": 4}).params["position"] for s in range(30)
    }
    assert positions == {1, 2}
    assert {
        generate_variant("masked_score_row", s, {"n": 2}).params["position"] for s in range(5)
    } == {0}


def test_the_solution_scales_then_masks() -> None:
    variant = generate_variant("masked_score_row", 2, {"n": 3, "d_model": 4, "position": 1})
    titles = [step.title["en"] for step in variant.solution]
    assert titles == ["Dot products q·K^T", "Scale", "Mask"]
    scaled = variant.solution[1].tensors[0].values[0]
    assert variant.solution[1].tensors[0].name == "scores" and math.isfinite(scaled[2])
    assert variant.solution[-1].tensors == (variant.answer,)
    for lang in ("en", "zh"):
        assert r"$-\infty$" in variant.solution[-1].text[lang]
    assert "“I” may only see <s>, I" in variant.solution[-1].text["en"]


@pytest.mark.parametrize("minus_infinity", ["-inf", "−inf", "-∞", "−∞", "负无穷", "-INF", "-Inf"])
def test_every_written_form_of_minus_infinity_is_graded_correct(minus_infinity) -> None:
    variant = generate_variant("masked_score_row", 7, {"n": 3, "position": 1})
    finite = " ".join(f"{value:.2f}" for value in variant.answer.values[0, :2])
    grade = grade_numeric(f"{finite} {minus_infinity}", variant.answer.values, variant.tolerance)
    assert grade.all_correct, [cell.submitted for cell in grade.cells]


@pytest.mark.parametrize("typed", ["0", "-1000000", "-99.99", "inf", "∞"])
def test_a_number_in_a_masked_cell_is_wrong(typed) -> None:
    variant = generate_variant("masked_score_row", 7, {"n": 3, "position": 1})
    finite = " ".join(f"{value:.2f}" for value in variant.answer.values[0, :2])
    grade = grade_numeric(f"{finite} {typed}", variant.answer.values, variant.tolerance)
    assert [cell.correct for cell in grade.cells] == [True, True, False]


def test_minus_infinity_where_a_score_is_expected_is_wrong() -> None:
    variant = generate_variant("masked_score_row", 7, {"n": 3, "position": 1})
    grade = grade_numeric("-inf -inf -inf", variant.answer.values, variant.tolerance)
    assert [cell.correct for cell in grade.cells] == [False, False, True]
