"""The mistake catalog: every mistake, on every kind it claims, is found on the cells it
changes, and a right answer gets no diagnosis."""

from __future__ import annotations

import numpy as np
import pytest
from drills_reference import PARAM_CASES, case_id

from quizsvc.drills import DRILL_KINDS, generate_variant
from quizsvc.drills.mistakes import (
    DISTANCE_MESSAGES,
    MISTAKES,
    ROUNDING_TOLERANCES,
    CellDiagnosis,
    Distance,
    diagnose,
    distance,
    mistakes_for,
)
from quizsvc.grading import CellResult, grade_numeric

SEEDS = range(6)

# Params under which a mistake can happen (a transposed answer has to fit the grid).
PARAMS: dict[tuple[str, str], dict] = {
    ("transposed", "projection"): {"n": 4, "d_model": 4},
    ("transposed", "multi_head"): {"n": 4, "d_model": 4},
    ("scores_not_weights", "cross_attention_row"): {"part": "weights"},
    ("smoothing_ignored", "logit_gradient"): {"label_smoothing": 0.1},
}
CLAIMED = [
    pytest.param(code, kind, id=f"{code}-{kind}")
    for code, mistake in MISTAKES.items()
    if code != "rounded_early"
    for kind in sorted(mistake.kinds)
]


def test_every_mistake_claims_real_kinds_and_has_a_template() -> None:
    for code, mistake in MISTAKES.items():
        assert mistake.code == code and mistake.kinds <= set(DRILL_KINDS), code
        assert mistake.template.endswith(".") and mistake.template[0].isupper(), code


@pytest.mark.parametrize(("code", "kind"), CLAIMED)
def test_submitting_a_mistakes_answer_is_diagnosed_as_it_on_the_cells_it_changes(
    code, kind
) -> None:
    mistake = MISTAKES[code]
    diagnosed = 0
    for seed in SEEDS:
        variant = generate_variant(kind, seed, PARAMS.get((code, kind), {}))
        answers = mistake.answers(variant)
        assert answers, (code, kind, seed)
        for answer in answers:
            grade = grade_numeric(answer, variant.answer.values, variant.tolerance)
            wrong = {(cell.row, cell.col) for cell in grade.cells if not cell.correct}
            cells = diagnose(variant, answer)
            assert {(cell.row, cell.col) for cell in cells} == wrong
            for cell in cells:
                assert code in cell.codes, (seed, cell)
            diagnosed += len(cells)
    assert diagnosed, f"{code} never changed a cell of {kind}"


@pytest.mark.parametrize("case", [pytest.param(case, id=case_id(case)) for case in PARAM_CASES])
def test_a_right_answer_gets_no_diagnosis(case) -> None:
    kind, params = case
    for seed in range(3):
        variant = generate_variant(kind, seed, params)
        assert diagnose(variant, variant.answer.values) == ()
        for mistake in mistakes_for(kind):
            for answer in mistake.answers(variant):
                assert answer.shape == variant.answer.shape, (mistake.code, kind)


@pytest.mark.parametrize("kind", sorted(MISTAKES["rounded_early"].kinds))
def test_a_value_a_few_tolerances_off_is_correct_up_to_rounding(kind) -> None:
    for seed in SEEDS:
        variant = generate_variant(kind, seed)
        expected = variant.answer.values
        finite = np.isfinite(expected)
        step = variant.tolerance.atol
        close = np.where(finite, expected + 2 * step, expected)
        cells = diagnose(variant, close)
        assert len(cells) == finite.sum()
        assert all("rounded_early" in cell.codes for cell in cells)
        far = np.where(finite, expected + (ROUNDING_TOLERANCES + 1) * step, expected)
        assert all("rounded_early" not in cell.codes for cell in diagnose(variant, far))


def test_an_unexplained_cell_says_how_far_off_it_is() -> None:
    variant = generate_variant("score_row", 3, {"n": 3, "d_model": 4, "position": 0})
    submitted = variant.answer.values.copy()
    submitted[0, 1] += 0.37
    (cell,) = diagnose(variant, submitted)
    assert (cell.row, cell.col, cell.codes) == (0, 1, ())
    assert cell.off_by == pytest.approx(0.37)


def test_a_finite_number_for_a_masked_score_is_infinitely_off() -> None:
    variant = generate_variant("masked_score_row", 1, {"n": 3, "position": 1})
    submitted = variant.answer.values.copy()
    submitted[0, 2] = 0.0
    (cell,) = diagnose(variant, submitted)
    assert (cell.col, cell.off_by) == (2, np.inf)


def test_forgetting_the_scaling_on_a_score_row_is_named_cell_by_cell() -> None:
    # the dot products q·K^T themselves, from the given q and K (√d_k = 2 left out)
    variant = generate_variant("score_row", 0, {"n": 2, "d_model": 4, "position": 0})
    raw = variant.given[0].values @ variant.given[1].values.T
    cells = diagnose(variant, raw)
    changed = np.abs(raw - variant.answer.values)[0] > variant.tolerance.atol
    assert [cell.col for cell in cells] == list(np.flatnonzero(changed))
    assert all("no_scaling" in cell.codes for cell in cells)


def test_how_far_a_cell_is_off_is_counted_in_its_tolerance() -> None:
    # score_row's tolerance is atol 0.01 (rtol 0): 0.02 off is within 3 tolerances, 0.05
    # within 10, 0.5 beyond
    variant = generate_variant("score_row", 3, {"n": 3, "d_model": 4, "position": 0})
    assert (variant.tolerance.atol, variant.tolerance.rtol) == (0.01, 0.0)
    submitted = variant.answer.values + np.array([[0.02, 0.05, -0.5]])
    assert [cell.distance for cell in diagnose(variant, submitted)] == [
        Distance.JUST_OUTSIDE,
        Distance.WITHIN_TEN_TOLERANCES,
        Distance.FAR,
    ]


def test_a_relative_tolerance_widens_what_counts_as_close() -> None:
    # expected 100 within ±(0 + 0.01 × 100) = ±1: 2.5 off is 2.5 tolerances, 9 off is 9,
    # 11 off is 11
    def cell(submitted: float) -> CellResult:
        return CellResult(0, 0, submitted, 100.0, False, 99.0, 101.0)

    assert distance(cell(102.5)) is Distance.JUST_OUTSIDE
    assert distance(cell(91.0)) is Distance.WITHIN_TEN_TOLERANCES
    assert distance(cell(111.0)) is Distance.FAR


def test_infinities_where_they_do_not_belong_are_named_as_such() -> None:
    variant = generate_variant("masked_score_row", 1, {"n": 3, "position": 1})
    expected = variant.answer.values
    assert np.isneginf(expected[0, 2]) and np.isfinite(expected[0, 0])
    submitted = expected.copy()
    submitted[0, 0] = -np.inf  # a number's place
    submitted[0, 2] = 0.0  # a masked cell's
    cells = {cell.col: cell.distance for cell in diagnose(variant, submitted)}
    assert cells == {0: Distance.NOT_FINITE, 2: Distance.INFINITELY_FAR}


def test_a_wrong_token_id_is_not_exact_however_close() -> None:
    variant = generate_variant("greedy_next_token", 2)
    expected = variant.answer.values
    (cell,) = diagnose(variant, expected + 1)
    assert (cell.codes, cell.distance) == ((), Distance.NOT_EXACT)


def test_every_distance_has_a_message() -> None:
    assert set(DISTANCE_MESSAGES) == set(Distance)
    for message in DISTANCE_MESSAGES.values():
        assert message.endswith(".") and message[0].isupper(), message


def test_a_page_names_rounding_only_when_no_other_mistake_explains_the_cell() -> None:
    def cell(*codes: str) -> CellDiagnosis:
        return CellDiagnosis(0, 0, codes, 0.05, Distance.JUST_OUTSIDE)

    assert cell("no_scaling", "rounded_early").named == ("no_scaling",)
    assert cell("rounded_early").named == ("rounded_early",)
    assert cell().named == ()
