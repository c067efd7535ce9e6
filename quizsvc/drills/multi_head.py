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
from quizsvc.drills.text import D_MODEL, Draft, dims, num, source_tokens, step, text
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

    # As the chapter's section 5 draws it, head i works in a space of its own: it takes
    # dimensions i·d_k ... of X' (the rows of its Wq, Wk, Wv) and projects them onto its own
    # d_k dimensions ("H2 d0", "H2 d1": the columns of its W's, Q, K, V and Out), which the
    # concatenation lays side by side as d0 ... d_model-1 again.
    def slice_of(index: int) -> slice:
        return slice(index * d_k, (index + 1) * d_k)

    def own(index: int) -> tuple[str, ...]:
        return tuple(f"H{index + 1} {label}" for label in dims(d_k))

    def span(index: int, prefix: str = "") -> str:
        first, last = index * d_k, (index + 1) * d_k - 1
        return f"{prefix}{first}–{prefix}{last}" if d_k > 1 else f"{prefix}{first}"

    given: list[Tensor] = [Tensor("X'", x, tokens, columns)]
    for index in asked:
        for name in ("q", "k", "v"):
            given.append(
                Tensor(
                    f"W{name}{index + 1}", blocks[name][index], columns[slice_of(index)], own(index)
                )
            )
    if whole:
        given.append(Tensor("Wo", w_o, columns, columns))

    head_out = [Tensor(f"Out{i + 1}", heads[i], tokens, own(i)) for i in range(h)]
    answer = Tensor("MultiHead", output, tokens, columns) if whole else head_out[head]
    root = num(math.sqrt(d_k))
    d_k_tex = f"$d_k = {p.d_model}/{h} = {d_k}$"
    outs = r" \mid ".join(rf"\mathrm{{Out}}_{{{i + 1}}}" for i in range(h))
    # The question's own prompt says what to compute and how to round; this one gives the
    # variant's numbers: the sizes, which slice of X' each head takes, and d_k.
    if whole:
        slices = ", ".join(f"Head {i + 1}: X'[:, {i * d_k}:{(i + 1) * d_k}]" for i in range(h))
        head_weights = r"$W_{q,i}$, $W_{k,i}$, $W_{v,i}$"
        out_i = r"$\mathrm{Out}_i$"
        prompt = text(
            f"$X'$（{p.n}×{p.d_model}）分给 {h} 个头，{d_k_tex}：{slices}。"
            f"第 $i$ 个头的 {head_weights} 为 {d_k}×{d_k}，输出 {out_i} 为 {p.n}×{d_k}；"
            f"$[{outs}]$ 为 {p.n}×{p.d_model}，$W_O$ 为 {p.d_model}×{p.d_model}，"
            f"答案为 {p.n}×{p.d_model}。",
            f"$X'$ ({p.n}×{p.d_model}) goes to {h} heads, {d_k_tex}: "
            f"{slices}. Head $i$'s {head_weights} are {d_k}×{d_k} and its output {out_i} "
            f"is {p.n}×{d_k}; $[{outs}]$ is {p.n}×{p.d_model}, $W_O$ {p.d_model}×{p.d_model}, "
            f"the answer {p.n}×{p.d_model}.",
        )
    else:
        one = head + 1
        attention_tex = rf"\operatorname{{softmax}}\left(Q K^\top / \sqrt{{{d_k}}}\right) V"
        prompt = text(
            f"$X'$（{p.n}×{p.d_model}）分给 {h} 个头，{d_k_tex}。"
            f"只算 Head {one}：它取 X'[:, {head * d_k}:{(head + 1) * d_k}]，"
            f"用 Wq{one}、Wk{one}、Wv{one}（{d_k}×{d_k}）算出 $Q$、$K$、$V$，"
            f"再算 ${attention_tex}$。写出 Head {one} 的输出 Out{one}（{p.n}×{d_k}）。",
            f"$X'$ ({p.n}×{p.d_model}) goes to {h} heads, {d_k_tex}. "
            f"Compute Head {one} only: it takes X'[:, {head * d_k}:{(head + 1) * d_k}] and "
            f"uses Wq{one}, Wk{one}, Wv{one} ({d_k}×{d_k}) for its $Q$, $K$ and $V$, then "
            f"${attention_tex}$. Write down its output Out{one} ({p.n}×{d_k}).",
        )

    solution: list[Step] = []
    root_tex = rf"\sqrt{{{d_k}}} = {root}"
    for i in asked:
        name = f"Head {i + 1}"
        scores_tex = rf"Q_{{{i + 1}}} K_{{{i + 1}}}^\top / \sqrt{{{d_k}}}"
        solution.append(
            step(
                f"{name}：Q、K、V",
                f"{name}: Q, K, V",
                f"{name} 取 X'[:, {i * d_k}:{(i + 1) * d_k}]（$X'$ 的 {span(i, 'd')} 列），"
                f"分别乘以 Wq{i + 1}、Wk{i + 1}、Wv{i + 1}；Q{i + 1}、K{i + 1}、V{i + 1} 在 "
                f"{name} 自己的 $d_k = {d_k}$ 维（{'、'.join(own(i))}）里。",
                f"{name} takes X'[:, {i * d_k}:{(i + 1) * d_k}] (columns {span(i, 'd')} of $X'$) "
                f"and multiplies it by Wq{i + 1}, Wk{i + 1} and Wv{i + 1}; Q{i + 1}, K{i + 1} "
                f"and V{i + 1} are in {name}'s own $d_k = {d_k}$ dimensions "
                f"({', '.join(own(i))}).",
                Tensor(f"X'{i + 1}", x[:, slice_of(i)], tokens, columns[slice_of(i)]),
                Tensor(f"Q{i + 1}", q[i], tokens, own(i)),
                Tensor(f"K{i + 1}", k[i], tokens, own(i)),
                Tensor(f"V{i + 1}", v[i], tokens, own(i)),
            )
        )
        solution.append(
            step(
                f"{name}：注意力",
                f"{name}: attention",
                f"分数 ${scores_tex}$（${root_tex}$），逐行 Softmax 得权重，"
                f"再乘以 $V_{{{i + 1}}}$。",
                f"Scores ${scores_tex}$ (${root_tex}$), a softmax per row for the weights, then "
                f"multiply by $V_{{{i + 1}}}$.",
                Tensor(f"scores{i + 1}", scores[i], tokens, tokens),
                Tensor(f"A{i + 1}", attn[i], tokens, tokens),
                head_out[i],
            )
        )
    if whole:
        places_zh = "，".join(f"Out{i + 1} 占 {span(i, 'd')}" for i in range(h))
        places_en = ", ".join(f"Out{i + 1} fills {span(i, 'd')}" for i in range(h))
        solution.append(
            step(
                "拼接并投影",
                "Concatenate and project",
                f"把各头输出并排拼成 {p.n}×{p.d_model} 的矩阵（{places_zh}），"
                f"再乘以 $W_O$ 投影回 ${D_MODEL}$ 维。",
                f"Put the heads' outputs side by side ({p.n}×{p.d_model}; {places_en}) and "
                f"multiply by $W_O$ to project back to ${D_MODEL}$ dimensions.",
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
