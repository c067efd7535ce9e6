"""The logit-gradient drill: ∂L/∂z = softmax(z) - y at one position, checked against a case
worked by hand, against central finite differences of the engine's cross-entropy (and of a
label-smoothed cross-entropy written here from the prompt's words), and its mistakes against
answers recomputed here."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.model import cross_entropy
from quizsvc.drills import generate_variant
from quizsvc.drills.mistakes import diagnose

VOCABULARY = ("<pad>", "<s>", "<eos>", "I", "love", "you")
STEP = 1e-6


def logits_of(variant) -> np.ndarray:
    [z] = [tensor.values[0] for tensor in variant.given if tensor.name == "z"]
    return z


def softmax_by_hand(z: np.ndarray) -> np.ndarray:
    exps = [math.exp(value) for value in z]
    return np.array([e / sum(exps) for e in exps])


def target_distribution(target: int, size: int, eps: float) -> np.ndarray:
    """As the prompt says: ε/V on each of the V tokens, and 1 - ε more on the target."""
    return np.array([eps / size + (1 - eps if v == target else 0.0) for v in range(size)])


def smoothed_loss(z: np.ndarray, target: int, eps: float) -> float:
    """-Σ_v y_v ln softmax(z)_v, from the formula in the prompt."""
    y = target_distribution(target, len(z), eps)
    log_p = z - z.max() - math.log(sum(math.exp(value - z.max()) for value in z))
    return float(-(y * log_p).sum())


def central_differences(loss, z: np.ndarray, target: int) -> np.ndarray:
    """(L(z + h e_v) - L(z - h e_v)) / 2h for each v, of ``loss(logits, target)``."""
    gradient = np.empty_like(z)
    for v in range(len(z)):
        up, down = z.copy(), z.copy()
        up[v] += STEP
        down[v] -= STEP
        gradient[v] = (loss(up, target) - loss(down, target)) / (2 * STEP)
    return gradient


def engine_loss(logits: np.ndarray, target: int) -> float:
    return cross_entropy(logits[None, None], np.array([[target]]), pad_id=None)


def test_a_case_worked_by_hand() -> None:
    variant = generate_variant("logit_gradient", 6, {"vocab_size": 4, "target": 2})
    np.testing.assert_array_equal(logits_of(variant), [0.2, 0.7, 0.6, -0.3])
    # e^z from a table: 1.221, 2.014, 1.822, 0.741; Σ = 5.798; softmax(z) = 0.211, 0.347,
    # 0.314, 0.128; the target is <eos> (2), so 1 comes off its cell: 0.314 - 1 = -0.686.
    by_hand = np.array([0.211, 0.347, -0.686, 0.128])
    np.testing.assert_allclose(variant.answer.values[0], by_hand, atol=0.001)
    assert diagnose(variant, by_hand[None, :]) == ()  # graded right as rounded


@pytest.mark.parametrize("params", [{}, {"vocab_size": 4}, {"vocab_size": 5}])
def test_the_answer_is_the_finite_difference_gradient_of_the_engines_cross_entropy(params) -> None:
    for seed in range(20):
        variant = generate_variant("logit_gradient", seed, params)
        z, target = logits_of(variant), variant.params["target"]
        numeric = central_differences(engine_loss, z, target)
        np.testing.assert_allclose(variant.answer.values[0], numeric, atol=1e-8)
        one_hot = np.eye(len(z))[target]
        np.testing.assert_allclose(variant.answer.values[0], softmax_by_hand(z) - one_hot)


@pytest.mark.parametrize(
    ("eps", "size"), [(0.1, 6), (0.1, 5), (0.25, 4), (0.5, 6)], ids=lambda x: str(x)
)
def test_label_smoothing_spreads_eps_over_every_token(eps, size) -> None:
    for seed in range(10):
        variant = generate_variant(
            "logit_gradient", seed, {"label_smoothing": eps, "vocab_size": size}
        )
        z, target = logits_of(variant), variant.params["target"]
        numeric = central_differences(
            lambda logits, label: smoothed_loss(logits, label, eps), z, target
        )
        np.testing.assert_allclose(variant.answer.values[0], numeric, atol=1e-8)
        assert abs(variant.answer.values.sum()) < 1e-12  # softmax and y both add up to 1


def test_the_prompt_states_the_target_and_the_smoothed_values() -> None:
    variant = generate_variant("logit_gradient", 1, {"label_smoothing": 0.1, "vocab_size": 5})
    word = VOCABULARY[variant.params["target"]]
    for lang in ("en", "zh"):
        prompt = variant.prompt[lang]
        assert f"“{word}”" in prompt and "0.02" in prompt and "0.92" in prompt, lang
        assert "\\varepsilon = 0.1" in prompt
    plain = generate_variant("logit_gradient", 1)
    assert "one-hot" in plain.prompt["en"] and "one-hot" in plain.prompt["zh"]
    assert "varepsilon" not in plain.prompt["en"]


def test_the_target_is_eos_or_a_word_and_a_fixed_one_is_kept() -> None:
    targets = {generate_variant("logit_gradient", seed).params["target"] for seed in range(60)}
    assert targets == {2, 3, 4, 5}
    fixed = generate_variant("logit_gradient", 7, {"target": 3})
    drawn = generate_variant("logit_gradient", 7)
    assert fixed.params["target"] == 3
    np.testing.assert_array_equal(logits_of(fixed), logits_of(drawn))  # drawn after the logits
    # the variant's recorded params give it again
    again = generate_variant("logit_gradient", 7, drawn.params)
    np.testing.assert_array_equal(again.answer.values, drawn.answer.values)


@pytest.mark.parametrize(
    ("params", "problem"),
    [
        ({"target": 6}, "target must be less than vocab_size = 6"),
        ({"vocab_size": 4, "target": 4}, "target must be less than vocab_size = 4"),
        ({"target": 1}, "greater than or equal to 2"),
        ({"label_smoothing": 1.0}, "less than 1"),
        ({"label_smoothing": -0.1}, "greater than or equal to 0"),
        ({"label_smoothing": True}, "valid number"),
        ({"label_smoothing": "0.1"}, "valid number"),
        ({"vocab_size": 7}, "less than or equal to 6"),
    ],
)
def test_bad_params_are_refused_with_the_field_named(params, problem) -> None:
    with pytest.raises(ValueError, match="logit_gradient") as raised:
        generate_variant("logit_gradient", 0, params)
    assert problem in str(raised.value)


# --- the mistakes, each answer recomputed here from the given logits ----------------------


def codes_at(variant, submitted: np.ndarray) -> dict[int, tuple[str, ...]]:
    return {cell.col: cell.named for cell in diagnose(variant, submitted[None, :])}


@pytest.mark.parametrize("seed", range(8))
def test_answering_the_softmax_is_named_at_the_target(seed) -> None:
    variant = generate_variant("logit_gradient", seed)
    target = variant.params["target"]
    codes = codes_at(variant, softmax_by_hand(logits_of(variant)))
    assert codes == {target: ("softmax_not_gradient",)}  # p - 0 is right elsewhere


@pytest.mark.parametrize("seed", range(8))
def test_one_hot_minus_softmax_is_named_as_the_sign_flipped(seed) -> None:
    variant = generate_variant("logit_gradient", seed)
    z = logits_of(variant)
    flipped = np.eye(len(z))[variant.params["target"]] - softmax_by_hand(z)
    codes = codes_at(variant, flipped)
    assert codes and all("gradient_sign_flipped" in named for named in codes.values())
    # a probability below half the tolerance reads the same with either sign
    big = np.abs(variant.answer.values[0]) > 0.005
    assert set(codes) == set(np.flatnonzero(big))


@pytest.mark.parametrize("seed", range(8))
def test_logits_minus_the_target_is_named(seed) -> None:
    variant = generate_variant("logit_gradient", seed)
    z = logits_of(variant)
    codes = codes_at(variant, z - np.eye(len(z))[variant.params["target"]])
    assert codes and all("logits_not_softmax" in named for named in codes.values())


@pytest.mark.parametrize("seed", range(8))
def test_ignoring_label_smoothing_is_named_on_every_cell(seed) -> None:
    variant = generate_variant("logit_gradient", seed, {"label_smoothing": 0.1, "vocab_size": 5})
    z, target = logits_of(variant), variant.params["target"]
    codes = codes_at(variant, softmax_by_hand(z) - np.eye(5)[target])
    # every cell is off by ε/V = 0.02 (the target's by 0.02 - 0.1 = -0.08); elsewhere the
    # one-hot's 0 leaves softmax(z) itself, which forgetting y altogether gives too
    assert set(codes) == set(range(5))
    assert codes[target] == ("smoothing_ignored",)
    assert all("smoothing_ignored" in named for named in codes.values())
    # and the right answer with smoothing asked is the gradient with y = 0.02 / 0.92
    right = softmax_by_hand(z) - target_distribution(target, 5, 0.1)
    assert diagnose(variant, right[None, :]) == ()


def test_without_smoothing_no_cell_is_blamed_on_it() -> None:
    variant = generate_variant("logit_gradient", 3)
    z = logits_of(variant)
    off = softmax_by_hand(z) - np.eye(len(z))[variant.params["target"]] + 0.02
    for cell in diagnose(variant, off[None, :]):
        assert "smoothing_ignored" not in cell.codes
