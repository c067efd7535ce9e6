"""Variants are deterministic, immutable, and survive their JSON record exactly."""

from __future__ import annotations

import copy
import dataclasses
import json
import re
from fractions import Fraction

import numpy as np
import pytest
from drills_reference import PARAM_CASES, case_id

from quizsvc.drills import DRILL_KINDS, Step, Tensor, Variant, generate_variant
from quizsvc.grading import Tolerance

KINDS = sorted(DRILL_KINDS)
CASES = [pytest.param(case, id=case_id(case)) for case in PARAM_CASES]


def as_json_text(variant: Variant) -> str:
    return json.dumps(variant.to_json(), allow_nan=False, ensure_ascii=False, sort_keys=True)


@pytest.mark.parametrize("case", CASES)
def test_same_kind_seed_and_params_give_the_identical_variant(case) -> None:
    kind, params = case
    for seed in (0, 7, 2**40):
        first, second = generate_variant(kind, seed, params), generate_variant(kind, seed, params)
        assert as_json_text(first) == as_json_text(second)
        assert first == second


def test_generation_uses_no_global_random_state() -> None:
    np.random.seed(1)
    first = as_json_text(generate_variant("multi_head", 5))
    np.random.seed(2)
    np.random.random(100)
    assert as_json_text(generate_variant("multi_head", 5)) == first


@pytest.mark.parametrize("kind", KINDS)
def test_different_seeds_give_different_variants(kind: str) -> None:
    texts = {as_json_text(generate_variant(kind, seed)) for seed in range(10)}
    assert len(texts) == 10


@pytest.mark.parametrize("case", CASES)
def test_json_round_trip_rebuilds_the_variant_exactly(case) -> None:
    kind, params = case
    for seed in range(5):
        variant = generate_variant(kind, seed, params)
        record = json.loads(as_json_text(variant))  # allow_nan=False: no bare inf/nan
        rebuilt = Variant.from_json(record)
        assert rebuilt == variant
        assert as_json_text(rebuilt) == as_json_text(variant)


@pytest.mark.parametrize("case", CASES)
def test_recorded_params_regenerate_the_variant(case) -> None:
    # Open choices (positions, which projection, which head) are recorded in params.
    kind, params = case
    for seed in range(5):
        variant = generate_variant(kind, seed, params)
        assert generate_variant(kind, seed, variant.params) == variant
        assert set(variant.params) == set(DRILL_KINDS[kind].params_model.model_fields)


def test_open_choices_are_drawn_and_recorded() -> None:
    positions = {generate_variant("score_row", seed).params["position"] for seed in range(30)}
    assert positions == {0, 1, 2}
    which = {generate_variant("projection", seed).params["which"] for seed in range(30)}
    assert which == {"q", "k", "v"}
    assert generate_variant("projection", 0, {"which": "v"}).answer.name == "V"


def test_fixing_a_choice_keeps_every_other_number_of_the_seed() -> None:
    open_choice = generate_variant("cross_attention_row", 4)
    fixed = generate_variant("cross_attention_row", 4, {"position": 3})
    assert open_choice.given[1:] == fixed.given[1:]  # K_enc, V_enc
    assert np.array_equal(open_choice.given[0].values, fixed.given[0].values)  # q
    assert fixed.params["position"] == 3


def test_infinities_are_written_as_strings_in_json() -> None:
    variant = generate_variant("masked_row", 0, {"n": 4, "position": 1})
    record = variant.to_json()
    masked = next(
        tensor
        for step in record["solution"]
        for tensor in step["tensors"]
        if tensor["name"] == "masked scores"
    )
    assert masked["values"][0][2:] == ["-inf", "-inf"]
    assert all(isinstance(value, float) for value in masked["values"][0][:2])
    rebuilt = Variant.from_json(json.loads(json.dumps(record, allow_nan=False)))
    rebuilt_masked = rebuilt.solution[0].tensors[-1].values
    assert rebuilt_masked[0, 3] == -np.inf


def test_to_json_has_everything_a_client_needs() -> None:
    variant = generate_variant("score_row", 3)
    record = variant.to_json()
    assert record["format"] == 1
    assert record["kind"] == "score_row" and record["seed"] == 3
    assert record["params"] == {"n": 3, "d_model": 4, "position": variant.params["position"]}
    assert set(record["prompt"]) == {"zh", "en"}
    assert record["answer"]["row_labels"] and record["answer"]["col_labels"]
    assert record["tolerance"] == {"atol": 0.01, "rtol": 0.0}
    assert record["all_or_nothing"] is False
    assert record["skill"] == "scores"
    assert record["heatmap"] is None


def test_from_json_rejects_records_it_does_not_know() -> None:
    record = generate_variant("softmax_row", 1).to_json()
    with pytest.raises(ValueError, match="format"):
        Variant.from_json({**record, "format": 2})
    without_answer = {key: value for key, value in record.items() if key != "answer"}
    with pytest.raises(ValueError, match="answer"):
        Variant.from_json(without_answer)
    bad_value = copy.deepcopy(record)
    bad_value["answer"]["values"][0][0] = "nan"
    with pytest.raises(ValueError):
        Variant.from_json(bad_value)
    ragged = copy.deepcopy(record)
    ragged["given"][0]["values"] = [[1.0, 2.0], [3.0]]
    with pytest.raises(ValueError, match="different lengths"):
        Variant.from_json(ragged)


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda r: r["answer"].pop("col_labels"), "tensor is missing col_labels"),
        (lambda r: r["answer"].update(values=[1.0, 2.0]), "must be a list of rows"),
        (lambda r: r["answer"].update(values="[[1.0]]"), "must be a list of rows"),
        (lambda r: r["answer"]["values"][0].__setitem__(0, True), "expected a number"),
        (lambda r: r["tolerance"].pop("rtol"), "tolerance is missing rtol"),
        (lambda r: r.update(given=["X'"]), "tensor must be a mapping, got str"),
    ],
)
def test_from_json_says_what_is_wrong_with_a_damaged_record(damage, message) -> None:
    record = copy.deepcopy(generate_variant("softmax_row", 1).to_json())
    damage(record)
    with pytest.raises(ValueError, match=message):
        Variant.from_json(record)


def test_tensor_labels_are_strings_and_a_tensor_equals_only_tensors() -> None:
    tensor = Tensor("v", np.zeros((1, 2)), (0,), (1, 2))
    assert tensor.row_labels == ("0",) and tensor.col_labels == ("1", "2")
    assert tensor != "v" and tensor != tensor.values.tolist()


@pytest.mark.parametrize("kind", sorted(DRILL_KINDS))
def test_a_kind_s_default_tolerance_is_what_its_default_variant_is_graded_with(kind) -> None:
    assert generate_variant(kind, 0).tolerance == DRILL_KINDS[kind].default_tolerance


def test_only_a_token_id_is_graded_all_or_nothing() -> None:
    # a numeric answer earns credit per cell; a single id is right or wrong
    graded_whole = {kind for kind in DRILL_KINDS if generate_variant(kind, 0).all_or_nothing}
    assert graded_whole == {"greedy_next_token"}


def test_drill_kinds_are_immutable() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        DRILL_KINDS["projection"].skill = "attention"  # type: ignore[misc]


def test_variant_is_immutable() -> None:
    variant = generate_variant("ffn_row", 2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        variant.seed = 3  # type: ignore[misc]
    with pytest.raises(ValueError):
        variant.answer.values[0, 0] = 1.0
    with pytest.raises(ValueError):
        variant.given[0].values[0, 0] = 1.0


def test_tensor_validates_its_shape_labels_and_values() -> None:
    with pytest.raises(ValueError, match="2-D"):
        Tensor("v", np.zeros(3), ("r",), ("a", "b", "c"))
    with pytest.raises(ValueError, match="labels"):
        Tensor("v", np.zeros((1, 3)), ("r",), ("a", "b"))
    with pytest.raises(ValueError, match="NaN"):
        Tensor("v", np.array([[np.nan]]), ("r",), ("c",))
    negative_zero = Tensor("v", np.array([[-0.0]]), ("r",), ("c",))
    zero = Tensor("v", np.array([[0.0]]), ("r",), ("c",))
    assert negative_zero == zero and hash(negative_zero) == hash(zero)
    assert str(negative_zero.values[0, 0]) == "0.0"
    assert Tensor("v", np.array([[1.0]]), ("r",), ("c",)) != Tensor(
        "v", np.array([[1.0]]), ("r",), ("d",)
    )


def test_steps_and_tensors_are_immutable() -> None:
    tensor = Tensor("v", np.zeros((1, 1)), ("r",), ("c",))
    step = Step(title={"zh": "题", "en": "t"}, text={"zh": "文", "en": "x"}, tensors=[tensor])
    with pytest.raises(dataclasses.FrozenInstanceError):
        tensor.name = "w"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        step.tensors = ()  # type: ignore[misc]
    assert step.tensors == (tensor,)  # a list given becomes a tuple


def test_a_step_checks_its_text_and_tensors() -> None:
    title = {"zh": "题", "en": "t"}
    with pytest.raises(ValueError, match="step text"):
        Step(title=title, text={"en": "only English"})
    with pytest.raises(TypeError, match="step tensors must be Tensor objects"):
        Step(title=title, text=title, tensors=(np.zeros((1, 1)),))


def test_a_variant_checks_what_it_holds_and_copies_its_params() -> None:
    variant = generate_variant("softmax_row", 0)
    tensor = variant.answer
    with pytest.raises(TypeError, match="answer must be a Tensor"):
        dataclasses.replace(variant, answer=tensor.values)
    with pytest.raises(TypeError, match="heatmap must be a Tensor or None"):
        dataclasses.replace(variant, heatmap=tensor.values)
    with pytest.raises(TypeError, match="solution must hold Step objects"):
        dataclasses.replace(variant, solution=[tensor])
    with pytest.raises(TypeError, match="given tensors must be Tensor objects"):
        dataclasses.replace(variant, given=[tensor.values])
    params = {"n": 3}
    copied = dataclasses.replace(variant, params=params, solution=list(variant.solution))
    params["n"] = 4
    assert copied.params == {"n": 3} and isinstance(copied.solution, tuple)


def test_with_scoring_applies_a_question_s_tolerance_and_all_or_nothing() -> None:
    variant = generate_variant("softmax_row", 0)
    assert variant.with_scoring(None, False).tolerance == variant.tolerance
    assert variant.with_scoring(Tolerance(atol=0.5), False).tolerance == Tolerance(atol=0.5)
    assert variant.with_scoring(None, True).all_or_nothing
    greedy = generate_variant("greedy_next_token", 0)  # the kind itself is all-or-nothing
    assert greedy.with_scoring(None, False).all_or_nothing


def test_a_stored_step_missing_a_key_is_a_value_error() -> None:
    record = generate_variant("softmax_row", 0).to_json()
    del record["solution"][0]["tensors"]
    with pytest.raises(ValueError, match="step is missing tensors"):
        Variant.from_json(record)


def test_step_and_variant_require_both_languages() -> None:
    with pytest.raises(ValueError, match="zh"):
        Step(title={"en": "t"}, text={"zh": "z", "en": "e"})
    variant = generate_variant("greedy_next_token", 0)
    with pytest.raises(ValueError, match="prompt"):
        dataclasses.replace(variant, prompt={"en": "only English"})
    with pytest.raises(TypeError, match="Tolerance"):
        dataclasses.replace(variant, tolerance={"atol": 0})
    assert dataclasses.replace(variant, tolerance=Tolerance(atol=1)).tolerance.atol == 1


def exact(values: np.ndarray, denominator: int) -> list[list[Fraction]]:
    """Given tenths (denominator 10) or halves (2) as the exact fractions they stand for."""
    return [[Fraction(round(v * denominator), denominator) for v in row] for row in values]


def test_a_value_exact_arithmetic_makes_0_is_stored_as_0_not_float_noise() -> None:
    # projection seed 27 once stored V[2][2] = 8.326672684688674e-17 (as its JSON and the API
    # showed): recomputed here in exact fractions from the given tenths and halves
    variant = generate_variant("projection", 27)
    x, w = (exact(t.values, d) for t, d in zip(variant.given, (10, 2), strict=True))
    product = [
        [sum(a * b for a, b in zip(r, c, strict=True)) for c in zip(*w, strict=True)] for r in x
    ]
    zeros = [(i, j) for i, r in enumerate(product) for j, value in enumerate(r) if value == 0]
    assert zeros  # the case this test is about
    record = variant.to_json()
    for i, j in zeros:
        assert record["answer"]["values"][i][j] == 0.0
    assert not re.search(r"\de-\d", as_json_text(variant))  # no 8.3e-17 anywhere


@pytest.mark.parametrize("kind", KINDS)
def test_no_tensor_holds_float_noise(kind) -> None:
    for seed in range(60):
        variant = generate_variant(kind, seed)
        tensors = [
            *variant.given,
            variant.answer,
            *(t for s in variant.solution for t in s.tensors),
        ]
        for tensor in tensors:
            values = tensor.values[np.isfinite(tensor.values)]
            assert not ((values != 0) & (np.abs(values) < 1e-9)).any(), (seed, tensor.name)


@pytest.mark.parametrize("kind", ["softmax_row", "projection"], ids=["heatmap", "no heatmap"])
def test_with_each_tensor_changes_every_tensor_a_variant_holds(kind) -> None:
    from quizsvc.drills import with_each_tensor

    variant = generate_variant(kind, 3)
    seen: list[str] = []

    def renamed(tensor: Tensor) -> Tensor:
        seen.append(tensor.name)
        return dataclasses.replace(tensor, name=f"<{tensor.name}>")

    changed = with_each_tensor(variant, renamed)
    tensors = [*variant.given, variant.answer, *(t for s in variant.solution for t in s.tensors)]
    if variant.heatmap is not None:
        tensors.append(variant.heatmap)
    assert seen == [t.name for t in tensors]
    changed_tensors = [
        *changed.given,
        changed.answer,
        *(t for s in changed.solution for t in s.tensors),
        *([changed.heatmap] if changed.heatmap is not None else []),
    ]
    assert [t.name for t in changed_tensors] == [f"<{t.name}>" for t in tensors]
    assert (changed.heatmap is None) == (kind == "projection")
    # everything else as it was
    assert (changed.prompt, changed.seed, changed.params) == (
        variant.prompt,
        variant.seed,
        variant.params,
    )
    assert [s.title for s in changed.solution] == [s.title for s in variant.solution]
