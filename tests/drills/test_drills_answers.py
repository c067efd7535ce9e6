"""Every kind's answer key equals a plain-NumPy recomputation from its own given tensors,
and the given numbers are hand-friendly (hand rounding: test_drills_rounding.py)."""

from __future__ import annotations

import itertools
import math
import re

import numpy as np
import pytest
from drills_reference import EXACT, PARAM_CASES, REFERENCE, case_id, given, multi_head

from quizsvc.drills import DRILL_KINDS, generate_variant
from quizsvc.drills.sampling import halves, tenths
from quizsvc.grading import grade_numeric

SEEDS = range(12)
CASES = [pytest.param(case, id=case_id(case)) for case in PARAM_CASES]


def test_every_kind_has_a_reference_formula_and_is_covered_by_the_cases() -> None:
    assert set(REFERENCE) == set(DRILL_KINDS)
    assert {kind for kind, _ in PARAM_CASES} == set(DRILL_KINDS)


@pytest.mark.parametrize("case", CASES)
def test_answer_equals_the_formula_applied_to_the_given_tensors(case) -> None:
    kind, params = case
    for seed in SEEDS:
        variant = generate_variant(kind, seed, params)
        expected = REFERENCE[kind](variant, EXACT)
        assert variant.answer.shape == expected.shape, (seed, variant.answer.shape)
        np.testing.assert_allclose(variant.answer.values, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("case", CASES)
def test_a_wrong_first_decimal_is_graded_wrong(case) -> None:
    # The default tolerances must not be so loose that a real mistake passes.
    kind, params = case
    for seed in SEEDS:
        variant = generate_variant(kind, seed, params)
        wrong = variant.answer.values.copy()
        wrong[0, 0] = 0.0 if math.isinf(wrong[0, 0]) else wrong[0, 0] + 0.1
        grade = grade_numeric(wrong, variant.answer.values, variant.tolerance)
        assert not grade.cells[0].correct


MULTI_HEAD_CASES = [c for c in CASES if c.values[0][0] == "multi_head"] + [
    pytest.param(("multi_head", {"d_model": 2, "n_heads": 2}), id="multi_head-d_k=1"),
    pytest.param(
        ("multi_head", {"n": 2, "d_model": 6, "n_heads": 3}), id="multi_head-n=2-three-heads"
    ),
]


def test_every_multi_head_shape_the_params_accept_is_drawn_quickly() -> None:
    # the redraw loop must end for every accepted combination (d_k = 1 once never did)
    for n, d_model, n_heads, part in itertools.product(
        (2, 3, 4), (2, 4, 6), (1, 2, 3), ("head_output", "concat_projection")
    ):
        if d_model % n_heads:
            continue
        params = {"n": n, "d_model": d_model, "n_heads": n_heads, "part": part}
        for seed in range(3):
            generate_variant("multi_head", seed, params)


@pytest.mark.parametrize("case", MULTI_HEAD_CASES)
def test_the_usual_multi_head_mistakes_get_at_most_half_the_cells_right(case) -> None:
    # Small scores make the attention nearly uniform; then skipping the softmax or the
    # scaling would be graded right. The drill redraws such numbers.
    kind, params = case
    for seed in range(40):
        variant = generate_variant(kind, seed, params)
        d_k = variant.params["d_model"] // variant.params["n_heads"]
        # a mistake that computes the right thing is none: no scaling when d_k = 1, and
        # sqrt(d_model) with a single head
        mistakes = (["1"] if d_k > 1 else []) + ["inf"]
        mistakes += ["sqrt(d_model)"] if variant.params["n_heads"] > 1 else []
        for mistake in mistakes:
            wrong = multi_head(variant, EXACT, divide_scores_by=mistake)
            grade = grade_numeric(wrong, variant.answer.values, variant.tolerance)
            right = np.mean([cell.correct for cell in grade.cells])
            assert right <= 0.5, (seed, mistake, right)


# Per kind: (regex over given tensor names, multiplier that makes every entry an integer,
# largest allowed |entry|).  Every given tensor must match one rule.
HAND_FRIENDLY = {
    "embedding_positional": [(r"E", 10, 1.0), (r"ids", 1, 7)],
    "projection": [(r"X'", 10, 2.0), (r"W_[qkv]", 2, 1.0)],
    "score_row": [(r"q\d", 10, 1.5), (r"K", 10, 1.5)],
    "masked_score_row": [(r"q\d", 10, 1.5), (r"K", 10, 1.5)],
    "softmax_row": [(r"scores", 10, 3.0)],
    "masked_row": [(r"scores", 10, 3.0)],
    "attention_output_row": [(r"A\[\d\]", 100, 1.0), (r"V", 10, 2.0)],
    "multi_head": [(r"X'", 10, 2.0), (r"W[qkv]\d|Wo", 2, 1.0)],
    "add_norm": [(r"x|Sublayer\(x\)|β", 10, 2.0), (r"γ", 2, 1.0)],
    "ffn_row": [(r"x|b1|b2", 10, 1.0), (r"W1|W2", 2, 1.0)],
    "cross_attention_row": [(r"q\(.*\)|K_enc|V_enc", 10, 2.0)],
    "teacher_forcing_loss": [(r"target", 1, 7), (r"P", 100, 1.0)],
    "logit_gradient": [(r"z", 10, 3.0)],
    "greedy_next_token": [(r"logits", 10, 4.0)],
}


@pytest.mark.parametrize("case", CASES)
def test_given_numbers_are_hand_friendly(case) -> None:
    kind, params = case
    for seed in SEEDS:
        variant = generate_variant(kind, seed, params)
        for tensor in variant.given:
            rules = [rule for rule in HAND_FRIENDLY[kind] if re.fullmatch(rule[0], tensor.name)]
            assert len(rules) == 1, f"no single rule for {kind} tensor {tensor.name!r}"
            _, multiplier, largest = rules[0]
            scaled = tensor.values * multiplier
            assert np.allclose(scaled, np.round(scaled), rtol=0, atol=1e-9), (tensor.name, seed)
            assert np.abs(tensor.values).max() <= largest, (tensor.name, seed)


def test_hand_friendly_numbers_reach_both_ends_of_their_range() -> None:
    rng = np.random.default_rng(0)
    tenth_steps = np.round(tenths(rng, (3000,), -1.0, 2.0) * 10)
    assert set(tenth_steps.tolist()) == set(range(-10, 21))  # -1.0, -0.9, ..., 2.0
    weights = np.concatenate([halves(rng, (4, 10)) for _ in range(20)], axis=1)
    assert set(weights.ravel().tolist()) == {-1.0, -0.5, 0.0, 0.5, 1.0}
    assert np.any(weights != 0, axis=0).all()  # no column left all zero


def test_attention_weights_and_probabilities_given_add_up_to_one() -> None:
    for seed in SEEDS:
        weights = generate_variant("attention_output_row", seed).given[0].values
        assert weights.min() > 0 and math.isclose(weights.sum(), 1.0)
        probs = generate_variant("teacher_forcing_loss", seed).given[1].values
        assert probs.min() > 0 and np.allclose(probs.sum(axis=1), 1.0)


def test_answer_shapes_follow_the_params() -> None:
    shapes = {
        ("embedding_positional", (("d_model", 6),)): (1, 6),
        ("projection", (("n", 2), ("d_model", 6))): (2, 6),
        ("score_row", (("n", 4),)): (1, 4),
        ("softmax_row", (("n", 2),)): (1, 2),
        ("masked_row", (("n", 4),)): (1, 4),
        ("attention_output_row", (("d_model", 2),)): (1, 2),
        ("multi_head", ()): (3, 4),
        ("multi_head", (("part", "head_output"), ("d_model", 6), ("n_heads", 3))): (3, 2),
        ("add_norm", (("d_model", 6),)): (1, 6),
        ("ffn_row", (("d_model", 2), ("d_ff", 8))): (1, 2),
        ("cross_attention_row", (("n", 2),)): (1, 4),
        ("cross_attention_row", (("n", 2), ("part", "weights"))): (1, 2),
        ("teacher_forcing_loss", ()): (1, 1),
        ("logit_gradient", ()): (1, 6),
        ("logit_gradient", (("vocab_size", 4),)): (1, 4),
        ("greedy_next_token", ()): (1, 1),
    }
    for (kind, params), shape in shapes.items():
        assert generate_variant(kind, 3, dict(params)).answer.shape == shape, (kind, params)


def test_masked_row_weights_are_zero_exactly_at_the_future_positions() -> None:
    for seed in SEEDS:
        variant = generate_variant("masked_row", seed, {"n": 4})
        position = variant.params["position"]
        weights = variant.answer.values[0]
        assert np.all(weights[position + 1 :] == 0.0)
        assert np.all(weights[: position + 1] > 0.0)
        # An open position masks something and sees more than itself.
        assert 1 <= position <= 2


def test_greedy_answer_is_a_unique_argmax_and_an_integer_word_or_eos() -> None:
    answers = set()
    for seed in range(50):
        variant = generate_variant("greedy_next_token", seed)
        logits = variant.given[0].values[0]
        answer = variant.answer.values[0, 0]
        assert answer == int(answer) and answer >= 2  # not <pad> or <s>
        assert np.count_nonzero(logits == logits.max()) == 1
        assert variant.all_or_nothing and variant.tolerance.atol == 0
        answers.add(int(answer))
    assert 2 in answers and answers - {2}  # <eos> can be the next token, and so can words


def test_greedy_prompt_names_the_tokens_generated_so_far() -> None:
    variant = generate_variant("greedy_next_token", 0, {"generated": 2})
    assert "“<s> I love”" in variant.prompt["en"] and "“<s> I love”" in variant.prompt["zh"]


@pytest.mark.parametrize("seed", range(5))
def test_teacher_forcing_targets_are_distinct_words_when_the_vocabulary_has_enough(seed) -> None:
    # vocabulary <pad> <s> <eos> I love you: three words for three target positions
    variant = generate_variant("teacher_forcing_loss", seed, {"target_length": 3})
    assert sorted(given(variant, "target")[0].tolist()) == [3, 4, 5]


@pytest.mark.parametrize(
    "params",
    [{}, {"target_length": 1}, {"vocab_size": 5, "target_length": 3}, {"reduction": "position"}],
)
def test_teacher_forcing_labels_each_row_by_its_position_and_the_token_it_predicts(params) -> None:
    vocabulary = ["<pad>", "<s>", "<eos>", "I", "love", "you", "me", "we"]
    for seed in range(5):
        variant = generate_variant("teacher_forcing_loss", seed, params)
        target = [int(i) for i in given(variant, "target")[0]]
        predicted = [vocabulary[i] for i in [*target, 2]]  # the target, then <eos>
        labels = tuple(f"pos {t} → {word}" for t, word in enumerate(predicted))
        [probabilities] = [t for t in variant.given if t.name == "P"]
        assert probabilities.row_labels == labels
        per_position = {
            t.name: t for step in variant.solution for t in step.tensors if t.name != "P"
        }
        assert per_position["p(label)"].col_labels == labels
        assert per_position["-ln p"].col_labels == labels
        position = variant.params["position"]
        assert variant.answer.row_labels == ("Loss" if position is None else labels[position],)
        assert "pos $t$ → $w$" in variant.prompt["en"] and "位置 $t$ → $w$" in variant.prompt["zh"]


def test_teacher_forcing_mean_loss_by_hand_example() -> None:
    # One case worked through independently: labels are the target shifted left + <eos>.
    variant = generate_variant("teacher_forcing_loss", 0, {"target_length": 1})
    target = int(variant.given[0].values[0, 0])
    probs = variant.given[1].values
    expected = (-math.log(probs[0, target]) - math.log(probs[1, 2])) / 2
    assert variant.answer.values[0, 0] == pytest.approx(expected, abs=1e-12)
