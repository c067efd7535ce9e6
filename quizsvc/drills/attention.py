"""Drills on one attention head (sections 3, 4 and 7 of the chapter).

Each answer is computed by the engine from exactly the numbers the learner is given:
``engine.layers.linear`` for projections and weighted sums, ``engine.layers.attention``
(with a trace) for scores, weights and outputs, ``engine.layers.softmax`` and
``causal_mask`` for rows of scores given directly.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from engine.layers import apply_mask, attention, causal_mask, linear, softmax
from engine.trace import Trace
from quizsvc.drills.conventions import Conventions, Rounding
from quizsvc.drills.params import (
    AttentionOutputRowParams,
    CrossAttentionRowParams,
    MaskedRowParams,
    MaskedScoreRowParams,
    ProjectionParams,
    ScoreRowParams,
    SoftmaxRowParams,
)
from quizsvc.drills.sampling import Rng, halves, hundredths_summing_to_one, pick, tenths
from quizsvc.drills.text import (
    DECODER_TOKENS,
    Draft,
    dims,
    dot_text,
    num,
    row,
    scalar,
    source_tokens,
    step,
    text,
    vector,
    weighted_sum,
)
from quizsvc.drills.variant import Step, Tensor
from quizsvc.grading import Tolerance

# Tolerance for answers that are attention weights: the chapter gives them to 3 decimals.
WEIGHTS_TOLERANCE = Tolerance(atol=0.005)

# LaTeX of the formulas the steps write out.
SQRT_D_K = r"\sqrt{d_k}"
EXP_SCORE = r"e^{\text{score}}"
ENCODER_SCORES = r"q K_{\text{enc}}^\top / \sqrt{d_k}"
ENCODER_WEIGHTS = r"\operatorname{softmax}\left(" + ENCODER_SCORES + r"\right)"

# (matrix, weight name, zh role, en role) per projection.
_PROJECTIONS = {
    "q": ("Q", "W_q", "查询（Query）", "query"),
    "k": ("K", "W_k", "键（Key）", "key"),
    "v": ("V", "W_v", "值（Value）", "value"),
}


def projection(rng: Rng, p: ProjectionParams) -> Draft:
    x = tenths(rng, (p.n, p.d_model), -1.0, 2.0)
    w = halves(rng, (p.d_model, p.d_model))
    which = p.which if p.which != "random" else ("q", "k", "v")[int(rng.integers(3))]
    name, weight, role_zh, role_en = _PROJECTIONS[which]
    result = linear(x, w)  # the engine's projection, as in multi_head_attention

    tokens = source_tokens(p.n)
    columns = dims(p.d_model)
    given = (Tensor("X'", x, tokens, columns), Tensor(weight, w, columns, columns))
    answer = Tensor(name, result, tokens, columns)
    shape = (
        rf"$({p.n} \times {p.d_model}) \times ({p.d_model} \times {p.d_model}) = "
        rf"({p.n} \times {p.d_model})$"
    )
    prompt = text(
        f"已知位置感知的输入 $X'$（{p.n}×{p.d_model}，每行一个 token）和权重矩阵 ${weight}$"
        f"（{p.d_model}×{p.d_model}）：本题求{role_zh}矩阵 ${name}$（{p.n}×{p.d_model}）。",
        f"Given the position-aware input $X'$ ({p.n}×{p.d_model}, one row per token) and the "
        f"weight matrix ${weight}$ ({p.d_model}×{p.d_model}): this variant asks for the "
        f"{role_en} matrix ${name}$ ({p.n}×{p.d_model}).",
    )
    first_row = "\n".join(
        f"- ${name}[0][{j}]$ = {dot_text(x[0], w[:, j])}" for j in range(p.d_model)
    )
    solution = (
        step(
            "逐元素点积",
            "One dot product per entry",
            f"{shape}。${name}[i][j]$ 是 $X'$ 第 $i$ 行与 ${weight}$ 第 $j$ 列的点积。第 0 行"
            f"（“{tokens[0]}”）：\n\n{first_row}",
            f"{shape}. ${name}[i][j]$ is the dot product of row $i$ of $X'$ with column $j$ of "
            f"${weight}$. Row 0 (“{tokens[0]}”):\n\n{first_row}",
            *given,
        ),
        step(
            "结果",
            "Result",
            f"其余各行同理，得到 ${name}$：",
            f"The other rows work the same way, giving ${name}$:",
            answer,
        ),
    )
    return Draft(prompt, given, answer, solution, choices={"which": which})


def score_row(rng: Rng, p: ScoreRowParams) -> Draft:
    q = tenths(rng, (1, p.d_model), -1.0, 1.5)
    k = tenths(rng, (p.n, p.d_model), -1.0, 1.5)
    position = pick(rng, p.position, p.n)
    trace = Trace()
    attention(q, k, k, trace=trace)  # values do not affect the scores; K stands in for V
    raw = trace["raw_scores"][0]
    scores = trace["scores"][0]

    tokens = source_tokens(p.n)
    token = tokens[position]
    columns = dims(p.d_model)
    given = (row(f"q{position}", q, token, columns), Tensor("K", k, tokens, columns))
    answer = row("scores", scores, token, tokens)
    scaled = f"q_{{{position}}} K^\\top / {SQRT_D_K}"
    prompt = text(
        f"位置 {position}（“{token}”）的查询向量为 $q_{{{position}}}$，所有 token 的键矩阵为 $K$"
        f"（{p.n}×{p.d_model}）。计算这一行缩放后的注意力分数 "
        f"${scaled}$（$d_k = {p.d_model}$），共 {p.n} 个数。",
        f"The query vector of position {position} (“{token}”) is $q_{{{position}}}$; the key "
        f"matrix of all tokens is $K$ ({p.n}×{p.d_model}). Compute this row of scaled "
        f"attention scores, ${scaled}$ with $d_k = {p.d_model}$: {p.n} numbers.",
    )
    solution = _dot_and_scale_steps(position, q, k, raw, scores, tokens, given, answer)
    return Draft(prompt, given, answer, solution, choices={"position": position})


def _dot_and_scale_steps(
    position: int,
    q: np.ndarray,
    k: np.ndarray,
    raw: np.ndarray,
    scores: np.ndarray,
    tokens: Sequence[str],
    given: tuple[Tensor, ...],
    scaled: Tensor,
) -> tuple[Step, Step]:
    """A query's dot products with every key, then their scaling by √d_k (shown as `scaled`):
    the first two steps of every scores drill."""
    token, d_model = tokens[position], q.shape[-1]
    products = "\n".join(f"- {tokens[j]}: {dot_text(q[0], k[j])}" for j in range(len(tokens)))
    root = math.sqrt(d_model)
    return (
        step(
            "点积 q·K^T",
            "Dot products q·K^T",
            f"$q_{{{position}}}$ 与 $K$ 的每一行做点积：\n\n{products}",
            f"Take the dot product of $q_{{{position}}}$ with every row of $K$:\n\n{products}",
            *given,
            row("q·K^T", raw, token, tokens),
        ),
        step(
            "缩放",
            "Scale",
            f"${SQRT_D_K} = \\sqrt{{{d_model}}} = {num(root)}$，每个点积除以它：{vector(scores)}。",
            f"${SQRT_D_K} = \\sqrt{{{d_model}}} = {num(root)}$; divide every dot product by "
            f"it: {vector(scores)}.",
            scaled,
        ),
    )


def masked_score_row(rng: Rng, p: MaskedScoreRowParams) -> Draft:
    """The chapter's masked self-attention up to the softmax: scaled scores, then -inf at the
    future positions (section 7.1)."""
    q = tenths(rng, (1, p.d_model), -1.0, 1.5)
    k = tenths(rng, (p.n, p.d_model), -1.0, 1.5)
    position = _masked_position(rng, p.position, p.n)
    trace = Trace()
    # values do not affect the scores; K stands in for V
    attention(q, k, k, mask=causal_mask(p.n)[position], trace=trace)
    raw, scores = trace["raw_scores"][0], trace["scores"][0]
    masked = trace["masked_scores"][0]

    tokens = DECODER_TOKENS[: p.n]
    token = tokens[position]
    columns = dims(p.d_model)
    given = (row(f"q{position}", q, token, columns), Tensor("K", k, tokens, columns))
    answer = row("masked scores", masked, token, tokens)
    visible = "、".join(tokens[: position + 1])
    visible_en = ", ".join(tokens[: position + 1])
    prompt = text(
        f"Decoder 的输入为 {' '.join(tokens)}。在 Masked Self-Attention 中，位置 {position}"
        f"（“{token}”）的查询向量为 $q_{{{position}}}$，Decoder 各位置的键矩阵为 $K$"
        f"（{p.n}×{p.d_model}），$d_k = {p.d_model}$。它的未来位置是 $j > {position}$。"
        f"写出这一行掩码后的缩放分数，共 {p.n} 个数。",
        f"The decoder input is {' '.join(tokens)}. In masked self-attention, position "
        f"{position} (“{token}”) has the query vector $q_{{{position}}}$; the key matrix of the "
        f"decoder positions is $K$ ({p.n}×{p.d_model}) and $d_k = {p.d_model}$. Its future "
        f"positions are $j > {position}$. Write down this row of scaled, masked scores: "
        f"{p.n} numbers.",
    )
    solution = (
        *_dot_and_scale_steps(
            position, q, k, raw, scores, tokens, given, row("scores", scores, token, tokens)
        ),
        step(
            "掩码",
            "Mask",
            f"“{token}”只能看到 {visible}；之后的位置设为 $-\\infty$（Softmax 后权重为 0）："
            f"{vector(masked)}。",
            f"“{token}” may only see {visible_en}; the later positions become $-\\infty$ "
            f"(weight 0 after the softmax): {vector(masked)}.",
            answer,
        ),
    )
    return Draft(prompt, given, answer, solution, choices={"position": position})


def softmax_row(rng: Rng, p: SoftmaxRowParams) -> Draft:
    scores = tenths(rng, (p.n,), -1.0, 3.0)
    weights = softmax(scores)

    tokens = source_tokens(p.n)
    label = "score"
    given = (row("scores", scores, label, tokens),)
    answer = row("A", weights, "weight", tokens)
    prompt = text(
        f"一行缩放后的注意力分数为 {vector(scores)}（对 {'、'.join(tokens)}）。",
        f"A row of scaled attention scores is {vector(scores)} (over {', '.join(tokens)}).",
    )
    solution = _softmax_steps(scores, weights, label, tokens, answer)
    return Draft(prompt=prompt, given=given, answer=answer, solution=solution, heatmap=answer)


def masked_row(rng: Rng, p: MaskedRowParams) -> Draft:
    scores = tenths(rng, (p.n,), -1.0, 3.0)
    position = _masked_position(rng, p.position, p.n)
    # The engine's own masking step (as in attention()), then its softmax (-inf -> exactly 0).
    masked = apply_mask(scores.copy(), causal_mask(p.n)[position])
    weights = softmax(masked)

    tokens = DECODER_TOKENS[: p.n]
    token = tokens[position]
    given = (row("scores", scores, token, tokens),)
    answer = row("A", weights, token, tokens)
    visible = "、".join(tokens[: position + 1])
    visible_en = ", ".join(tokens[: position + 1])
    prompt = text(
        f"Decoder 的输入为 {' '.join(tokens)}。位置 {position}（“{token}”）在 Masked "
        f"Self-Attention 中的缩放分数（掩码前）为 {vector(scores)}；它的未来位置是 "
        f"$j > {position}$。",
        f"The decoder input is {' '.join(tokens)}. In masked self-attention, the scaled "
        f"scores of position {position} (“{token}”) before masking are {vector(scores)}; "
        f"its future positions are $j > {position}$.",
    )
    mask_step = step(
        "掩码",
        "Mask",
        f"“{token}”只能看到 {visible}；之后的位置设为 $-\\infty$：{vector(masked)}。",
        f"“{token}” may only see {visible_en}; the later positions become $-\\infty$: "
        f"{vector(masked)}.",
        *given,
        row("masked scores", masked, token, tokens),
    )
    solution = (mask_step, *_softmax_steps(masked, weights, token, tokens, answer))
    return Draft(prompt, given, answer, solution, heatmap=answer, choices={"position": position})


def attention_output_row(rng: Rng, p: AttentionOutputRowParams) -> Draft:
    weights = hundredths_summing_to_one(rng, p.n)
    v = tenths(rng, (p.n, p.d_model), -1.0, 2.0)
    position = pick(rng, p.position, p.n)
    output = linear(weights[None, :], v)[0]  # A V, the engine's weighted sum of values

    tokens = source_tokens(p.n)
    token = tokens[position]
    columns = dims(p.d_model)
    weight_row = row(f"A[{position}]", weights, token, tokens)
    given = (weight_row, Tensor("V", v, tokens, columns))
    answer = row(f"Output{position}", output, token, columns)
    output_tex = f"\\mathrm{{Output}}_{{{position}}}"
    sum_tex = f"{output_tex} = \\sum_j A[{position}][j] \\times V_j"
    prompt = text(
        f"位置 {position}（“{token}”）的注意力权重为 $A[{position}]$，值矩阵为 $V$"
        f"（{p.n}×{p.d_model}）。计算该 token 的输出 ${sum_tex}$（1×{p.d_model}）。",
        f"The attention weights of position {position} (“{token}”) are $A[{position}]$ and the "
        f"value matrix is $V$ ({p.n}×{p.d_model}). Compute the token's output "
        f"${sum_tex}$ (1×{p.d_model}).",
    )
    weighted = weights[:, None] * v
    terms = weighted_sum(weights, "V")
    solution = (
        step(
            "加权",
            "Weight each value",
            f"${output_tex} = {terms}$。每一行 $V_j$ 乘以它的权重：",
            f"${output_tex} = {terms}$. Multiply each row $V_j$ by its weight:",
            *given,
            Tensor(f"A[{position}][j] × V_j", weighted, tokens, columns),
        ),
        step(
            "求和",
            "Sum",
            f"把上表各行逐维相加：{vector(output)}。",
            f"Add the rows of that table dimension by dimension: {vector(output)}.",
            answer,
        ),
    )
    return Draft(
        prompt, given, answer, solution, heatmap=weight_row, choices={"position": position}
    )


def cross_attention_row(rng: Rng, p: CrossAttentionRowParams) -> Draft:
    q = tenths(rng, (1, p.d_model), -1.0, 1.5)
    k = tenths(rng, (p.n, p.d_model), -1.0, 1.5)
    v = tenths(rng, (p.n, p.d_model), -1.0, 2.0)
    position = pick(rng, p.position, p.target_length)
    sources = source_tokens(p.n)
    token = DECODER_TOKENS[position]
    k_enc, v_enc = r"$K_{\text{enc}}$", r"$V_{\text{enc}}$"
    decoder = " ".join(DECODER_TOKENS[: p.target_length])
    intro = text(
        f"Decoder 输入为 {decoder}，源句为 {' '.join(sources)}。在 Cross-Attention 中，Decoder "
        f"位置 {position}（“{token}”）给出查询向量 $q$；{k_enc}、{v_enc} 来自 Encoder 的输出"
        f"（{p.n}×{p.d_model}，不加掩码）。$d_k = {p.d_model}$。",
        f"The decoder input is {decoder} and the source sentence {' '.join(sources)}. In "
        f"cross-attention, decoder position {position} (“{token}”) supplies the query $q$; "
        f"{k_enc} and {v_enc} come from the encoder output ({p.n}×{p.d_model}, no mask). "
        f"$d_k = {p.d_model}$.",
    )
    draft = cross_attention_draft(q, k, v, sources, token, p.part, intro)
    return dataclasses.replace(draft, choices={"position": position})


def cross_attention_draft(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    sources: Sequence[str],
    token: str,
    part: str,
    intro: dict[str, str],
    after: tuple[Step, ...] = (),
) -> Draft:
    """A decoder position's cross-attention computed from its query row ``q`` (1 × d_k) and
    the encoder's ``k`` and ``v`` (n × d_k) over the source words ``sources``: the weight row
    (``part`` weights) or the output row. ``intro`` says where the numbers come from; the
    prompt goes on with what to compute. ``after``: steps that follow the computation."""
    trace = Trace()
    attention(q, k, v, trace=trace)  # no mask: a decoder position may see the whole source
    raw, scores = trace["raw_scores"][0], trace["scores"][0]
    weights, output = trace["weights"][0], trace["context"][0]

    sources = tuple(sources)
    n, d_k = k.shape
    columns = dims(d_k)
    root = math.sqrt(d_k)
    given = (
        row(f"q({token})", q, token, columns),
        Tensor("K_enc", k, sources, columns),
        Tensor("V_enc", v, sources, columns),
    )
    weight_row = row("A", weights, token, sources)
    output_row = row("CrossAttn", output, token, columns)
    wants_weights = part == "weights"
    answer = weight_row if wants_weights else output_row
    output_tex = ENCODER_WEIGHTS + r" V_{\text{enc}}"
    ask_zh = (
        f"这一行的注意力权重 ${ENCODER_WEIGHTS}$（1×{n}）"
        if wants_weights
        else f"该位置的 Cross-Attention 输出 ${output_tex}$（1×{d_k}）"
    )
    ask_en = (
        f"this row of attention weights, ${ENCODER_WEIGHTS}$ (1×{n})"
        if wants_weights
        else f"the cross-attention output of that position, ${output_tex}$ (1×{d_k})"
    )
    prompt = text(f"{intro['zh']}计算{ask_zh}。", f"{intro['en']} Compute {ask_en}.")
    products = "\n".join(f"- {sources[j]}: {dot_text(q[0], k[j])}" for j in range(n))
    score_step = step(
        "分数",
        "Scores",
        f"$q$ 与 Encoder 每个位置的 $K$ 做点积，再除以 ${SQRT_D_K} = {num(root)}$：\n\n{products}",
        f"Dot $q$ with the key of every encoder position, then divide by "
        f"${SQRT_D_K} = {num(root)}$:\n\n{products}",
        *given,
        row("q·K^T", raw, token, sources),
        row("scores", scores, token, sources),
    )
    softmax_steps = _softmax_steps(scores, weights, token, sources, weight_row)
    solution: tuple[Step, ...] = (score_step, *softmax_steps)
    if not wants_weights:
        cross = rf"$\operatorname{{CrossAttn}}$ = {weighted_sum(weights, 'V')} = {vector(output)}"
        solution += (
            step(
                "加权求和",
                "Weighted sum",
                f"{cross}。",
                f"{cross}.",
                Tensor("A[j] × V_j", weights[:, None] * v, sources, columns),
                output_row,
            ),
        )
    return Draft(
        prompt=prompt,
        given=given,
        answer=answer,
        solution=solution + after,
        heatmap=weight_row,
        tolerance=WEIGHTS_TOLERANCE if wants_weights else None,
    )


def cross_attention_conventions(params: Mapping[str, Any]) -> Conventions:
    """Attention weights to three decimals, as the softmax drills ask for them (and as
    WEIGHTS_TOLERANCE grades them); the output to two."""
    return Conventions(Rounding(answer=3 if params.get("part") == "weights" else 2, intermediate=3))


def _masked_position(rng: Rng, chosen: int | None, n: int) -> int:
    """``chosen``, else a decoder position with a past and a future: position 0 only sees
    itself and the last position masks nothing, so an open position is drawn from 1 .. n-2
    (n = 2 leaves only 0)."""
    if chosen is not None:
        return chosen
    return int(rng.integers(1, n - 1)) if n >= 3 else 0


def _softmax_steps(
    scores: np.ndarray, weights: np.ndarray, label: str, columns: tuple[str, ...], result: Tensor
) -> tuple[Step, ...]:
    """The chapter's hand softmax (section 4.3): e^x of each score, their sum, the ratios."""
    exps = np.exp(scores)  # e^-inf = 0: a masked position gets no weight
    total = float(exps.sum())
    return (
        step(
            "指数",
            "Exponentials",
            f"${EXP_SCORE}$ = {vector(exps)}，求和 $\\Sigma = {num(total)}$。",
            f"${EXP_SCORE}$ = {vector(exps)}, summing to $\\Sigma = {num(total)}$.",
            row("e^score", exps, label, columns),
            scalar("Σ e^score", total, label),
        ),
        step(
            "归一化",
            "Normalize",
            f"每个 ${EXP_SCORE}$ 除以 $\\Sigma$，得到和为 1 的权重：{vector(weights)}。",
            f"Divide every ${EXP_SCORE}$ by $\\Sigma$; the weights add up to 1: {vector(weights)}.",
            result,
        ),
    )
