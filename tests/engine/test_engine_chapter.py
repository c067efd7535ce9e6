"""The chapter's worked example recomputed by hand, and docs/errata.md kept true."""

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from engine import chapter
from engine.chapter import (
    PRINTED,
    UNMASKED_WEIGHTS,
    VOCAB,
    E,
    errata,
    errata_markdown,
    own_slips,
    worked_example,
)
from quizsvc.cli import main
from quizsvc.worked_example import format_matrix

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def ex():
    return worked_example()


def test_sections_1_and_2_embedding_plus_positions(ex):
    assert ex.x.tolist() == [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]]
    pe1 = [math.sin(1), math.cos(1), math.sin(0.01), math.cos(0.01)]
    np.testing.assert_allclose(ex.pe[1], pe1, atol=1e-15)
    np.testing.assert_allclose(ex.x_prime[1], np.array([0, 1, 0, 1]) + pe1, atol=1e-15)


def test_section_3_projections_by_hand(ex):
    # W_q puts (x0 + x2) / 2 in columns 0 and 2 and (x1 + x3) / 2 in columns 1 and 3;
    # W_k swaps the two; W_v is the identity.
    for row in range(3):
        x = ex.x_prime[row]
        a, b = (x[0] + x[2]) / 2, (x[1] + x[3]) / 2
        np.testing.assert_allclose(ex.q[row], [a, b, a, b], atol=1e-15)
        np.testing.assert_allclose(ex.k[row], [b, a, b, a], atol=1e-15)
    np.testing.assert_array_equal(ex.v, ex.x_prime)
    assert ex.q[1, 0] == pytest.approx((math.sin(1) + 0 + math.sin(0.01)) / 2)  # 0.4257...


def test_section_4_scores_softmax_and_output(ex):
    assert ex.raw_scores[0, 0] == 4.0  # Q0 = K0 = [1, 1, 1, 1]
    assert ex.scores[0, 0] == 2.0  # / sqrt(4)
    row = [math.exp(s) for s in ex.scores[1]]
    np.testing.assert_allclose(ex.weights[1], [r / sum(row) for r in row], rtol=1e-14)
    np.testing.assert_allclose(ex.exp_sums[1], sum(row), rtol=1e-14)
    out0 = sum(ex.weights[0, j] * ex.v[j] for j in range(3))
    np.testing.assert_allclose(ex.output[0], out0, rtol=1e-14)
    np.testing.assert_allclose(ex.weighted_values[0].sum(axis=0), out0, rtol=1e-14)


def test_section_7_1_masking_renormalises_the_visible_weights(ex):
    w = UNMASKED_WEIGHTS
    assert ex.masked_weights[0].tolist() == [1.0, 0.0, 0.0]
    np.testing.assert_allclose(
        ex.masked_weights[1], [w[1, 0] / (w[1, 0] + w[1, 1]), w[1, 1] / (w[1, 0] + w[1, 1]), 0.0]
    )
    np.testing.assert_allclose(ex.masked_weights[2], w[2], rtol=1e-12)
    assert ex.masked_scores[0, 1] == -np.inf


def test_errata_lists_the_wrong_numbers_and_not_the_right_ones():
    found = {(e.label, e.index): e for e in errata()}
    q10 = found[("Q = X' W_q", (1, 0))]
    assert q10.printed == 1.43 and q10.true == pytest.approx(0.42573, abs=1e-5)
    assert ("K = X' W_k", (1, 1)) in found
    assert ("PE", (1, 0)) not in found  # 0.84 = sin(1) rounded
    assert ("Q = X' W_q", (1, 1)) not in found  # 1.77 is right
    assert ("Q = X' W_q", (2, 2)) not in found  # 0.97: (1.91 + 0.02) / 2 at the chapter's rounding
    assert all(
        e.section in {"2", "3.2", "3.3", "3.4", "4.1", "4.2", "4.3", "4.4", "7.1"}
        for e in found.values()
    )
    assert not any(e.section == "7.1" for e in found.values())  # 7.1 is right


def test_printed_tables_have_the_shapes_of_the_quantities(ex):
    assert PRINTED["weights"].values.shape == ex.weights.shape


def test_the_vocabulary_and_embedding_table_are_the_chapter_s():
    # transcribed from the chapter's set-up: token ids 0-5 and E (6 x 4), one row per token
    assert VOCAB == ("我", "爱", "你", "I", "love", "you")
    assert E.tolist() == [
        [1.0, 0.0, 1.0, 0.0],
        [0.0, 1.0, 0.0, 1.0],
        [1.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 1.0],
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 1.0, 0.0],
    ]


def test_the_given_weights_before_masking_are_distributions_at_the_printed_precision():
    # three printed numbers, each rounded to 0.001, so a row's sum is within 0.0015 of 1
    np.testing.assert_allclose(UNMASKED_WEIGHTS.sum(axis=1), 1.0, atol=0.0015)
    assert (UNMASKED_WEIGHTS > 0).all()


def _hand_weight_1_2(ex) -> float:
    """A[1, 2] the way the chapter computes it, every step at its printed precision."""
    q, k = np.round(ex.q, 2), np.round(ex.k, 2)
    scores = [round(round(float(q[1] @ k[j]), 2) / 2, 2) for j in range(3)]
    exps = [round(math.exp(score), 2) for score in scores]
    return exps[2] / round(sum(exps), 2)


@pytest.mark.parametrize(
    ("name", "index", "hand"),
    [
        # Q1 = [0.43, 1.77, 0.43, 1.77] and K1 = [1.77, 0.43, 1.77, 0.43] at 2 decimals:
        # Q1·K1 = 3.0444 -> 3.04, / 2 = 1.52; the true score is 1.5072
        ("scores", (1, 1), lambda ex: round(4 * 0.43 * 1.77, 2) / 2),
        ("weights", (1, 2), _hand_weight_1_2),  # 0.361; the true weight is 0.3640
        # A[0, 2] at 3 decimals times V[2, 1] at 2: 0.261 x 0.58 = 0.1514; true 0.1525
        ("weighted_values_row0", (2, 1), lambda ex: round(ex.weights[0, 2], 3) * 0.58),
    ],
)
def test_a_number_a_hand_calculation_at_the_chapter_s_precision_gets_is_no_erratum(
    monkeypatch, ex, name, index, hand
):
    printed = PRINTED[name]
    unit = 10.0**-printed.decimals
    value = round(hand(ex), printed.decimals)
    true = chapter._true_values(ex)[name][index]
    assert abs(value - true) > unit / 2  # a wrong number...

    def listed(number: float) -> bool:
        values = printed.values.copy()
        values[index] = number
        monkeypatch.setitem(PRINTED, name, dataclasses.replace(printed, values=values))
        return any((e.quantity, e.index) == (name, index) for e in errata())

    assert not listed(value)  # ...that a careful calculation at the printed precision gets
    assert not listed(round(true, printed.decimals))  # nor is the true value, rounded
    assert listed(value + math.copysign(unit, value - true))  # one unit further: an erratum


@pytest.mark.parametrize("make", [worked_example, lambda: PRINTED["q"], lambda: errata()[0]])
def test_the_worked_example_and_its_errata_are_immutable(make):
    item = make()
    with pytest.raises(dataclasses.FrozenInstanceError):
        item.section = "0"  # type: ignore[misc]


def test_section_4_slips_that_even_the_chapter_s_own_inputs_contradict():
    # by hand from the printed rows: Q0 = [1, 1, 1, 1], K1 = [1.43, 0.84, 1.43, 0.84], so
    # Q0·K1 = 4.54 (printed 3.54); Q1 = [1.43, 1.77, 0.43, 1.77]: Q1·K1 = 5.6334, ...
    found = {
        (name, index): (printed, round(value, 4)) for name, index, printed, value in own_slips()
    }
    assert found == {
        ("raw_scores", (0, 1)): (3.54, 4.54),
        ("raw_scores", (1, 1)): (5.78, 5.6334),
        ("raw_scores", (1, 2)): (6.94, 6.6732),
        ("raw_scores", (2, 1)): (4.56, 4.8164),
        ("raw_scores", (2, 2)): (5.18, 4.2502),
        ("output", (1, 1)): (1.043, 0.9421),  # 0.229·1.00 + 0.277·1.54 + 0.494·0.58
    }


def test_docs_errata_is_the_generated_table():
    assert (ROOT / "docs" / "errata.md").read_text(encoding="utf-8") == errata_markdown()


def test_cli_prints_the_worked_example_and_the_errata():
    result = CliRunner().invoke(main, ["chapter"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    # the page's steps: heading, the chapter's sections and whose numbers, then the matrices
    step = lines.index("2. Queries, keys and values")
    assert (
        lines[step + 1] == "   [chapter §3.1–3.4; The chapter's numbers, recomputed by the engine]"
    )
    q = lines.index("Q (3 × 4)", step)
    assert lines[q + 3].split() == [
        "爱",
        "0.426",
        "1.770",
        "0.426",
        "1.770",
    ]  # not the 1.43 printed
    for heading in ("8. Multi-head attention: head 1", "21. Teacher-forcing loss"):
        assert heading in lines
    errata_result = CliRunner().invoke(main, ["chapter", "--errata"])
    assert errata_result.output == errata_markdown()
    assert result.output.rstrip().endswith(
        "Numbers that differ from the chapter's printed ones: docs/errata.md"
    )


def test_the_terminal_table_lines_up_columns_under_chinese_labels():
    # a CJK character takes two terminal columns: labels are padded to the widest plus two,
    # each number right-aligned in 8 columns (decimals + 5, or a column's label + 2, when
    # wider), 3 decimals by default
    table = format_matrix(np.array([[1.0, -0.5], [0.25, 2.0]]), ["我", "I"], ["d=0", "d=1"])
    assert table.splitlines() == [
        "         d=0     d=1",
        "我     1.000  -0.500",
        "I      0.250   2.000",
    ]
    assert format_matrix(np.array([[1 / 3]]), ["爱"], decimals=4) == "爱     0.3333"
    # a label wider than the numbers widens its column: the loss table's −log P(y_t)
    assert format_matrix(np.array([[0.5]]), ["L"], ["−log P(y_t)"]).splitlines() == [
        "     −log P(y_t)",
        "L          0.500",
    ]
