"""Drills on the encoder layer's other sublayers (section 6): Add & Norm, and the FFN."""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from engine.config import TransformerConfig
from engine.layers import add_norm as engine_add_norm
from engine.layers import feed_forward, linear
from engine.params import FeedForwardParams, LayerNormParams
from engine.trace import Trace
from quizsvc.drills.params import AddNormParams, FfnRowParams
from quizsvc.drills.sampling import Rng, halves, tenths
from quizsvc.drills.text import (
    D_MODEL,
    ROUNDING_NOISE,
    Draft,
    dims,
    num,
    row,
    scalar,
    step,
    text,
    vector,
)
from quizsvc.drills.variant import Tensor

# LaTeX of the formulas the steps write out.
SUBLAYER = r"\operatorname{Sublayer}(x)"
STD = r"\sqrt{\sigma^2 + \varepsilon}"
SECOND_LAYER = r"\operatorname{ReLU}(\dots)\, W_2 + b_2"

# The engine's default LayerNorm epsilon, read from the config so the two cannot drift.
LAYER_NORM_EPS = next(
    spec.default for spec in dataclasses.fields(TransformerConfig) if spec.name == "layer_norm_eps"
)

# A row whose variance is small has a small standard deviation: rounding it by hand then
# swings the normalized values (and eps starts to matter).  Such rows are redrawn.  With
# this bound and γ at most 1, a learner who keeps three decimals at every step stays well
# within the default tolerance of 0.02 (two decimals, as the chapter keeps, just within).
_MIN_VARIANCE = 1.0


def add_norm(rng: Rng, p: AddNormParams) -> Draft:
    while True:
        x = tenths(rng, (p.d_model,), -2.0, 2.0)
        sublayer = tenths(rng, (p.d_model,), -1.0, 1.0)
        if np.var(x + sublayer) >= _MIN_VARIANCE:
            break
    gain = rng.integers(1, 3, size=p.d_model) / 2.0  # γ in {0.5, 1}
    bias = tenths(rng, (p.d_model,), -0.5, 0.5)  # β

    trace = Trace()
    engine_add_norm(x, sublayer, LayerNormParams(gain=gain, bias=bias), LAYER_NORM_EPS, trace)
    total, output = trace["sum"], trace["output"]
    # The engine normalizes in one expression; these are its parts, for the worked solution.
    mean = float(total.mean())
    centered = total - mean
    variance = float(np.mean(centered**2))
    std = math.sqrt(variance + LAYER_NORM_EPS)
    normalized = centered / std

    columns = dims(p.d_model)
    given = (
        row("x", x, "x", columns),
        row("Sublayer(x)", sublayer, "Sublayer(x)", columns),
        row("γ", gain, "γ", columns),
        row("β", bias, "β", columns),
    )
    answer = row("AddNorm", output, "LayerNorm", columns)
    # The question's task says how LayerNorm computes; the prompt gives the numbers, ε
    # written out (0.00001, not Python's 1e-05).
    eps = num(LAYER_NORM_EPS, 10)
    prompt = text(
        f"一个 token 的输入 $x$、子层输出 ${SUBLAYER}$、$\\gamma$ 和 $\\beta$ 如下"
        f"（${D_MODEL} = {p.d_model}$）；$\\varepsilon = {eps}$。",
        f"A token's input $x$, the sublayer's output ${SUBLAYER}$, $\\gamma$ and $\\beta$ are "
        f"given (${D_MODEL} = {p.d_model}$); $\\varepsilon = {eps}$.",
    )
    solution = (
        step(
            "残差连接",
            "Residual connection",
            f"$x + {SUBLAYER}$ = {vector(total)}。",
            f"$x + {SUBLAYER}$ = {vector(total)}.",
            *given[:2],
            row("x + Sublayer(x)", total, "sum", columns),
        ),
        step(
            "均值与方差",
            "Mean and variance",
            f"均值 $\\mu = {num(mean)}$；减去均值得 {vector(centered)}；方差 "
            f"$\\sigma^2 = {num(variance)}$；${STD} = {num(std)}$。",
            f"Mean $\\mu = {num(mean)}$; subtracting it gives {vector(centered)}; variance "
            f"$\\sigma^2 = {num(variance)}$; ${STD} = {num(std)}$.",
            scalar("μ", mean, "μ"),
            row("x − μ", centered, "centered", columns),
            scalar("σ²", variance, "σ²"),
            scalar("√(σ² + ε)", std, "std"),
        ),
        step(
            "归一化",
            "Normalize",
            f"$(x - \\mu) / {STD}$ = {vector(normalized)}。",
            f"$(x - \\mu) / {STD}$ = {vector(normalized)}.",
            row("normalized", normalized, "normalized", columns),
        ),
        step(
            "缩放与平移",
            "Scale and shift",
            f"逐维乘以 $\\gamma$ 再加 $\\beta$：{vector(output)}。",
            f"Multiply by $\\gamma$ and add $\\beta$ per dimension: {vector(output)}.",
            *given[2:],
            answer,
        ),
    )
    return Draft(prompt=prompt, given=given, answer=answer, solution=solution)


def ffn_row(rng: Rng, p: FfnRowParams) -> Draft:
    # Redrawn until ReLU has work to do: some hidden units negative, some positive (float
    # noise around an exact 0 is neither).
    while True:
        x = tenths(rng, (p.d_model,), -1.0, 1.0)
        w_1 = halves(rng, (p.d_model, p.d_ff))
        b_1 = tenths(rng, (p.d_ff,), -0.5, 0.5)
        pre_activation = linear(x, w_1, b_1)
        if pre_activation.min() < -ROUNDING_NOISE and pre_activation.max() > ROUNDING_NOISE:
            break
    # ... and until the second layer adds something: a row of zeros in W2 under the only
    # active unit would make the answer b2 itself, which the learner is given.
    while True:
        w_2 = halves(rng, (p.d_ff, p.d_model))
        b_2 = tenths(rng, (p.d_model,), -0.5, 0.5)
        if np.any(np.abs(np.maximum(pre_activation, 0) @ w_2) > ROUNDING_NOISE):
            break

    trace = Trace()
    feed_forward(x, FeedForwardParams(w_1=w_1, b_1=b_1, w_2=w_2, b_2=b_2), trace)
    hidden, output = trace["hidden"], trace["output"]

    columns = dims(p.d_model)
    units = dims(p.d_ff, "h")
    given = (
        row("x", x, "x", columns),
        Tensor("W1", w_1, columns, units),
        row("b1", b_1, "b1", units),
        Tensor("W2", w_2, units, columns),
        row("b2", b_2, "b2", columns),
    )
    answer = row("FFN(x)", output, "FFN(x)", columns)
    # The question's task states the FFN formula; the prompt gives the sizes.
    d_ff = f"$d_{{\\text{{ff}}}} = {p.d_ff}$"
    prompt = text(
        f"$x$ 为 1×{p.d_model}；$W_1$ 为 {p.d_model}×{p.d_ff}，$b_1$ 为 1×{p.d_ff}（{d_ff}）；"
        f"$W_2$ 为 {p.d_ff}×{p.d_model}，$b_2$ 为 1×{p.d_model}。",
        f"$x$ is 1×{p.d_model}; $W_1$ is {p.d_model}×{p.d_ff} and $b_1$ 1×{p.d_ff} "
        f"({d_ff}); $W_2$ is {p.d_ff}×{p.d_model} and $b_2$ 1×{p.d_model}.",
    )
    solution = (
        step(
            "第一层",
            "First layer",
            f"$x W_1 + b_1$ = {vector(pre_activation)}。",
            f"$x W_1 + b_1$ = {vector(pre_activation)}.",
            *given[:3],
            row("x × W1 + b1", pre_activation, "pre-activation", units),
        ),
        step(
            "ReLU",
            "ReLU",
            f"负数变 0，其余不变：{vector(hidden)}。",
            f"Negative entries become 0, the rest stay: {vector(hidden)}.",
            row("ReLU", hidden, "hidden", units),
        ),
        step(
            "第二层",
            "Second layer",
            f"${SECOND_LAYER}$ = {vector(output)}。",
            f"${SECOND_LAYER}$ = {vector(output)}.",
            *given[3:],
            answer,
        ),
    )
    return Draft(prompt=prompt, given=given, answer=answer, solution=solution)
