"""Drill: multi-head attention as the chapter's section 5 draws it.

The chapter gives each head its own slice of X' (``Q1 = X'[:, 0:2] × Wq1``).  The engine,
like the paper, projects the whole of X' and then splits the columns; the two agree
exactly when W_q, W_k and W_v are block-diagonal with the heads' matrices as blocks.  So the
learner gets the per-head d_k × d_k matrices and the engine runs one real
``multi_head_attention`` on their block-diagonal assembly.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from engine.layers import multi_head_attention
from engine.params import AttentionParams
from engine.trace import Trace
from quizsvc.drills.params import MultiHeadParams
from quizsvc.drills.sampling import Rng, block_diagonal, halves, pick, tenths
from quizsvc.drills.text import Draft, dims, num, source_tokens, step, text
from quizsvc.drills.variant import Step, Tensor
from quizsvc.grading import Tolerance

Array = np.ndarray
MAX_DRAWS = 1000  # the hardest params accepted tell the mistakes apart about 1 draw in 8


def tolerance_for(p: MultiHeadParams) -> Tolerance:
    """Scores, weights and head outputs each rounded to 2-3 decimals by hand, then summed
    over d terms (d_model for the projection by Wo, d_k for one head's output): the slack
    grows with d.  0.03 at the defaults (d_model = 4)."""
    terms = p.d_model if p.part == "concat_projection" else p.d_model // p.n_heads
    return Tolerance(atol=round(0.01 + 0.005 * terms, 3))


def _attend(x: Array, weights: AttentionParams, n_heads: int, q_factor: float = 1.0) -> Trace:
    """One real multi-head pass; ``q_factor`` scales W_q, which is how a learner's
    mistakes are replayed (0: uniform weights, sqrt(d_k): scores left unscaled)."""
    if q_factor != 1.0:
        weights = replace(weights, w_q=weights.w_q * q_factor)
    trace = Trace()
    multi_head_attention(x[None], x[None], weights, n_heads, trace=trace)
    return trace


def _tells_mistakes_apart(
    x: Array, weights: AttentionParams, p: MultiHeadParams, tolerance: Tolerance
) -> bool:
    """Whether the usual mistakes (weights spread evenly, as if the scores did not matter;
    no scaling; dividing by sqrt(d_model)) each put at least half the cells of every head's
    output and of the projected output outside the tolerance. Small scores make the
    attention nearly uniform, and then the mistakes would be graded right. A "mistake" that
    computes the same thing (no scaling when d_k = 1, sqrt(d_model) with one head) is none."""
    d_k = p.d_model // p.n_heads
    right = _attend(x, weights, p.n_heads)
    factors = {0.0, math.sqrt(d_k), math.sqrt(d_k / p.d_model)} - {1.0}
    for factor in sorted(factors):
        wrong = _attend(x, weights, p.n_heads, factor)
        for name in ("context", "output"):
            off = np.abs(wrong[name][0] - right[name][0]) > tolerance.atol  # (h, n, d_k) or (n, d)
            share = off.mean(axis=(-2, -1))
            if np.any(share < 0.5):
                return False
    return True


def multi_head(rng: Rng, p: MultiHeadParams) -> Draft:
    h, d_k = p.n_heads, p.d_model // p.n_heads
    tolerance = tolerance_for(p)
    for _ in range(MAX_DRAWS):
        x = tenths(rng, (p.n, p.d_model), -2.0, 2.0)
        blocks = {name: [halves(rng, (d_k, d_k)) for _ in range(h)] for name in ("q", "k", "v")}
        w_o = halves(rng, (p.d_model, p.d_model), zero_share=0.4)
        weights = AttentionParams(
            w_q=block_diagonal(blocks["q"]),
            w_k=block_diagonal(blocks["k"]),
            w_v=block_diagonal(blocks["v"]),
            w_o=w_o,
        )
        if _tells_mistakes_apart(x, weights, p, tolerance):
            break
    else:  # never seen for the params the model accepts (a test draws every combination)
        raise RuntimeError(f"no multi_head variant told the mistakes apart in {MAX_DRAWS} draws")
    whole = p.part == "concat_projection"
    # 0-based from here on; only head_output asks for one head.
    head = 0 if whole else pick(rng, None if p.head is None else p.head - 1, h)

    trace = _attend(x, weights, h)
    q, k, v = trace["q"][0], trace["k"][0], trace["v"][0]  # (h, n, d_k)
    scores, attn = trace["scores"][0], trace["weights"][0]  # (h, n, n)
    heads, concat, output = trace["context"][0], trace["concat"][0], trace["output"][0]

    tokens = source_tokens(p.n)
    columns = dims(p.d_model)
    asked = range(h) if whole else [head]

    def head_columns(index: int) -> tuple[str, ...]:
        return columns[index * d_k : (index + 1) * d_k]

    given: list[Tensor] = [Tensor("X'", x, tokens, columns)]
    for index in asked:
        local = dims(d_k)
        for name in ("q", "k", "v"):
            given.append(Tensor(f"W{name}{index + 1}", blocks[name][index], local, local))
    if whole:
        given.append(Tensor("Wo", w_o, columns, columns))

    head_out = [Tensor(f"Out{i + 1}", heads[i], tokens, head_columns(i)) for i in range(h)]
    answer = (
        Tensor("MultiHead", output, tokens, columns) if whole else head_out[head]
    )  # head_output: the head's own columns of the concatenation
    slices = ", ".join(
        f"Head {i + 1}: X'[:, {i * d_k}:{(i + 1) * d_k}]" for i in (range(h) if whole else [head])
    )
    root = num(math.sqrt(d_k))
    outs = " | ".join(f"Out{i + 1}" for i in range(h))
    if whole:
        prompt = text(
            f"X'（{p.n}×{p.d_model}）按维度切给 {h} 个头，每个头 d_k = {p.d_model}/{h} = {d_k}"
            f"（{slices}）。第 h 个头用自己的 Wqh、Wkh、Wvh（{d_k}×{d_k}）算 "
            f"`Qh = X'_h × Wqh` 等，再做 `softmax(Qh Kh^T / √{d_k}) Vh` 得到 Outh"
            f"（{p.n}×{d_k}）。拼接 `[{outs}]`（{p.n}×{p.d_model}）后乘以 Wo，"
            f"写出多头注意力的输出（{p.n}×{p.d_model}）。",
            f"Split X' ({p.n}×{p.d_model}) across {h} heads by dimension, "
            f"d_k = {p.d_model}/{h} = {d_k} each ({slices}). Head h uses its own Wqh, Wkh, "
            f"Wvh ({d_k}×{d_k}): `Qh = X'_h × Wqh` and so on, then "
            f"`softmax(Qh Kh^T / √{d_k}) Vh` gives Outh ({p.n}×{d_k}). Concatenate "
            f"`[{outs}]` ({p.n}×{p.d_model}) and multiply by Wo. Write down the "
            f"multi-head attention output ({p.n}×{p.d_model}).",
        )
    else:
        prompt = text(
            f"X'（{p.n}×{p.d_model}）按维度切给 {h} 个头，每个头 d_k = {d_k}。"
            f"只算 Head {head + 1}：取 {slices}，用 Wq{head + 1}、Wk{head + 1}、Wv{head + 1}"
            f"（{d_k}×{d_k}）算出 Q、K、V，再算 `softmax(Q K^T / √{d_k}) V`。"
            f"写出 Head {head + 1} 的输出 Out{head + 1}（{p.n}×{d_k}）。",
            f"Split X' ({p.n}×{p.d_model}) across {h} heads by dimension, d_k = {d_k} each. "
            f"Compute Head {head + 1} only: take {slices}, use Wq{head + 1}, Wk{head + 1}, "
            f"Wv{head + 1} ({d_k}×{d_k}) for its Q, K and V, then "
            f"`softmax(Q K^T / √{d_k}) V`. Write down its output Out{head + 1} "
            f"({p.n}×{d_k}).",
        )

    solution: list[Step] = []
    for i in asked:
        name = f"Head {i + 1}"
        local = head_columns(i)
        solution.append(
            step(
                f"{name}：Q、K、V",
                f"{name}: Q, K, V",
                f"取 X' 的第 {i * d_k}–{(i + 1) * d_k - 1} 维，分别乘以 Wq{i + 1}、Wk{i + 1}、"
                f"Wv{i + 1}。",
                f"Take dimensions {i * d_k}–{(i + 1) * d_k - 1} of X' and multiply them by "
                f"Wq{i + 1}, Wk{i + 1} and Wv{i + 1}.",
                Tensor(f"X'{i + 1}", x[:, i * d_k : (i + 1) * d_k], tokens, local),
                Tensor(f"Q{i + 1}", q[i], tokens, local),
                Tensor(f"K{i + 1}", k[i], tokens, local),
                Tensor(f"V{i + 1}", v[i], tokens, local),
            )
        )
        solution.append(
            step(
                f"{name}：注意力",
                f"{name}: attention",
                f"分数 `Q{i + 1} K{i + 1}^T / √{d_k}`（√{d_k} = {root}），逐行 Softmax 得权重，"
                f"再乘以 V{i + 1}。",
                f"Scores `Q{i + 1} K{i + 1}^T / √{d_k}` (√{d_k} = {root}), a softmax per row "
                f"for the weights, then multiply by V{i + 1}.",
                Tensor(f"scores{i + 1}", scores[i], tokens, tokens),
                Tensor(f"A{i + 1}", attn[i], tokens, tokens),
                head_out[i],
            )
        )
    if whole:
        solution.append(
            step(
                "拼接并投影",
                "Concatenate and project",
                f"把各头输出并排拼成 {p.n}×{p.d_model} 的矩阵，再乘以 Wo 投影回 d_model 维。",
                f"Put the heads' outputs side by side ({p.n}×{p.d_model}) and multiply by Wo "
                "to project back to d_model dimensions.",
                Tensor("Concat", concat, tokens, columns),
                answer,
            )
        )

    heatmap_heads = range(h) if whole else [head]
    heatmap = Tensor(
        "A",
        np.concatenate([attn[i] for i in heatmap_heads], axis=1),
        tokens,
        tuple(f"H{i + 1} {token}" for i in heatmap_heads for token in tokens),
    )
    return Draft(
        prompt=prompt,
        given=tuple(given),
        answer=answer,
        solution=tuple(solution),
        heatmap=heatmap,
        tolerance=tolerance,
        choices={} if whole else {"head": head + 1},
    )
