"""The one step of the backward pass a learner can do by hand: the gradient of one position's
cross-entropy loss with respect to its output logits, ∂L/∂z = softmax(z) - y.

The numbers come from the engine: ``engine.backward.smoothed_targets`` builds y (one-hot, or
with label smoothing ε spread evenly over all V tokens: ε/V everywhere plus 1 - ε on the
target, as PyTorch's ``label_smoothing``) and ``cross_entropy_forward_backward`` gives the
answer. The functions after the kind recompute what a learner making a known mistake would
answer (``quizsvc.drills.mistakes``).
"""

from __future__ import annotations

import numpy as np

from engine.backward import cross_entropy_forward_backward, smoothed_targets
from engine.layers import softmax
from quizsvc.drills.params import LogitGradientParams
from quizsvc.drills.sampling import Rng, tenths
from quizsvc.drills.text import Draft, num, row, scalar, step, text, vector
from quizsvc.drills.variant import Variant

# The engine's special ids (TransformerConfig defaults), then the chapter's target words.
VOCABULARY = ("<pad>", "<s>", "<eos>", "I", "love", "you")
# A decoder position predicts <eos> or a word, never <pad> (ignored by the loss) or <s>.
FIRST_LABEL = 2
GRADIENT = "∂L/∂z"


def _targets(target: int, vocab_size: int, smoothing: float) -> np.ndarray:
    """y for one position, as the engine's loss builds it."""
    return smoothed_targets(np.array([target]), vocab_size, smoothing)[0]


def logit_gradient(rng: Rng, p: LogitGradientParams) -> Draft:
    vocab = VOCABULARY[: p.vocab_size]
    logits = tenths(rng, (p.vocab_size,), -2.0, 3.0)
    target = p.target
    if target is None:  # drawn last, as every kind's open choice
        target = FIRST_LABEL + int(rng.integers(p.vocab_size - FIRST_LABEL))
    eps = p.label_smoothing
    loss, d_logits = cross_entropy_forward_backward(
        logits[None, None], np.array([[target]]), pad_id=None, smoothing=eps
    )
    gradient = d_logits[0, 0]
    probs = softmax(logits)
    exps = np.exp(logits)
    y = _targets(target, p.vocab_size, eps)

    columns = tuple(f"{i} {word}" for i, word in enumerate(vocab))
    word = vocab[target]
    given = (row("z", logits, "logits", columns),)
    answer = row(GRADIENT, gradient, GRADIENT, columns)
    vocab_text = ", ".join(f"{i} = {w}" for i, w in enumerate(vocab))
    if eps:
        spread, top = num(eps / p.vocab_size), num(1 - eps + eps / p.vocab_size)
        target_zh = (
            f"使用标签平滑 $\\varepsilon = {num(eps)}$：$y$ 在全部 $V = {p.vocab_size}$ 个 token 上"
            f"各取 $\\varepsilon / V$ = {spread}，目标 token 再加上 $1 - \\varepsilon$，"
            f"即 {top}。"
        )
        target_en = (
            f"With label smoothing $\\varepsilon = {num(eps)}$: $y$ is $\\varepsilon / V$ = "
            f"{spread} on each of the $V = {p.vocab_size}$ tokens, and the target token gets "
            f"$1 - \\varepsilon$ more, {top}."
        )
        y_zh = f"每个 token 取 {spread}，“{word}”取 {top}：{vector(y)}。"
        y_en = f"{spread} on every token and {top} on “{word}”: {vector(y)}."
    else:
        target_zh = "不使用标签平滑：$y$ 是目标 token 的 one-hot 向量。"
        target_en = "No label smoothing: $y$ is the one-hot vector of the target token."
        y_zh = f"One-hot：“{word}”（ID {target}）处为 1，其余为 0：{vector(y)}。"
        y_en = f"One-hot: 1 at “{word}” (id {target}), 0 elsewhere: {vector(y)}."
    prompt = text(
        f"词表：{vocab_text}。训练时 Decoder 的某个位置要预测 “{word}”（ID {target}），"
        f"它的输出 logits $z$ 如下，列名是 token ID 和词。{target_zh}",
        f"Vocabulary: {vocab_text}. During training one decoder position is to predict "
        f"“{word}” (id {target}); its output logits $z$ are given, the columns being the "
        f"token ids and words. {target_en}",
    )
    solution = (
        step(
            "Softmax 概率",
            "Softmax probabilities",
            f"$e^{{z}}$ = {vector(exps)}，求和 $\\Sigma = {num(exps.sum())}$；"
            f"每个除以 $\\Sigma$：$\\operatorname{{softmax}}(z)$ = {vector(probs)}。",
            f"$e^{{z}}$ = {vector(exps)}, summing to $\\Sigma = {num(exps.sum())}$; each over "
            f"$\\Sigma$: $\\operatorname{{softmax}}(z)$ = {vector(probs)}.",
            *given,
            row("e^z", exps, "e^z", columns),
            scalar("Σ e^z", float(exps.sum()), "Σ e^z"),
            row("softmax(z)", probs, "softmax(z)", columns),
        ),
        step("目标分布 y", "The target distribution y", y_zh, y_en, row("y", y, "y", columns)),
        step(
            "相减",
            "Subtract",
            f"$\\partial L / \\partial z = \\operatorname{{softmax}}(z) - y$ = {vector(gradient)}"
            f"（各项之和为 0；这个位置的 Loss 为 {num(loss)}）。",
            f"$\\partial L / \\partial z = \\operatorname{{softmax}}(z) - y$ = {vector(gradient)} "
            f"(it adds up to 0; this position's loss is {num(loss)}).",
            answer,
        ),
    )
    return Draft(prompt, given, answer, solution, choices={"target": target})


# --- what a learner making a known mistake answers, from a variant's given logits ---------


def _parts(variant: Variant) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The given logits z, softmax(z) and the target distribution y the variant asks for."""
    logits = next(t.values for t in variant.given if t.name == "z")
    params = variant.params
    y = _targets(params["target"], params["vocab_size"], params["label_smoothing"])
    return logits, softmax(logits), y[None, :]


def softmax_only(variant: Variant) -> tuple[np.ndarray, ...]:
    _, probs, _ = _parts(variant)
    return (probs,)


def sign_flipped(variant: Variant) -> tuple[np.ndarray, ...]:
    _, probs, y = _parts(variant)
    return (y - probs,)


def logits_not_softmax(variant: Variant) -> tuple[np.ndarray, ...]:
    logits, _, y = _parts(variant)
    return (logits - y,)


def smoothing_ignored(variant: Variant) -> tuple[np.ndarray, ...]:
    if not variant.params["label_smoothing"]:
        return ()
    _, probs, _ = _parts(variant)
    return (probs - _targets(variant.params["target"], variant.params["vocab_size"], 0.0),)
