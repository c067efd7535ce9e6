"""Drill: embedding lookup plus sinusoidal positional encoding for one token (sections 1-2)."""

from __future__ import annotations

import numpy as np

from engine.config import TransformerConfig
from engine.model import embed_with_positions
from engine.trace import Trace
from quizsvc.drills.params import EmbeddingPositionalParams
from quizsvc.drills.sampling import Rng, pick, tenths
from quizsvc.drills.text import D_MODEL, Draft, dims, row, step, text, vector
from quizsvc.drills.variant import Tensor

# The chapter's six words first (ids 0-5 as in its vocab), then two more for larger vocabularies.
VOCABULARY = ("我", "爱", "你", "I", "love", "you", "们", "we")


def embedding_positional(rng: Rng, p: EmbeddingPositionalParams) -> Draft:
    table = tenths(rng, (p.vocab_size, p.d_model), -1.0, 1.0)
    ids = rng.integers(0, p.vocab_size, size=p.n)
    position = pick(rng, p.position, p.n)
    token_id = int(ids[position])
    word = VOCABULARY[token_id]

    config = TransformerConfig(
        src_vocab_size=p.vocab_size,
        tgt_vocab_size=p.vocab_size,
        d_model=p.d_model,
        n_heads=1,
        d_ff=1,
        n_encoder_layers=0,
        n_decoder_layers=0,
    )
    trace = Trace()
    embed_with_positions(ids[None, :], table, config, trace=trace)
    looked_up = trace["embedding"][0, position]
    encoding = trace["positional"][position]
    x_prime = trace["input"][0, position]
    # Shown so the learner can check each sin/cos argument; PE itself comes from the engine.
    angles = position / np.power(10000.0, (np.arange(p.d_model) // 2 * 2) / p.d_model)

    columns = dims(p.d_model)
    given = (
        Tensor(
            "E",
            table,
            tuple(f"{i} {VOCABULARY[i]}" for i in range(p.vocab_size)),
            columns,
        ),
        Tensor(
            "ids", ids[None, :], ("ids",), tuple(f"pos {j}" for j in range(p.n)), token_ids=True
        ),
    )
    label = f"pos {position} {word}"
    answer = row(f"X'{position}", x_prime, label, columns)
    ids_text = ", ".join(str(int(i)) for i in ids)
    # The question's task states the PE formula and the rounding; the prompt gives this
    # variant's numbers only, so the formula is said once.
    asked = f"X'_{{{position}}} = E[{token_id}] + PE({position})"
    prompt = text(
        f"一个句子的 token ID 依次为 `[{ids_text}]`（位置从 0 开始）；Embedding 矩阵 $E$ 为 "
        f"{p.vocab_size}×{p.d_model}，第 $k$ 行是 ID 为 $k$ 的词；${D_MODEL} = {p.d_model}$。"
        f"求位置 {position} 上的 token（ID {token_id}，“{word}”）的 "
        f"${asked}$（1×{p.d_model}）。",
        f"A sentence has the token ids `[{ids_text}]` (positions count from 0); the embedding "
        f"matrix $E$ is {p.vocab_size}×{p.d_model}, row $k$ belonging to id $k$; "
        f"${D_MODEL} = {p.d_model}$. Find ${asked}$ "
        f"(1×{p.d_model}) for the token at position {position} (id {token_id}, “{word}”).",
    )
    angle = f"\\mathit{{pos}} / 10000^{{2i/{p.d_model}}}"
    solution = (
        step(
            "查表",
            "Look up",
            f"Embedding 是查表，不做乘法：取 $E$ 的第 {token_id} 行。",
            f"The embedding is a lookup, not a multiplication: take row {token_id} of $E$.",
            row(f"E[{token_id}]", looked_up, f"{token_id} {word}", columns),
        ),
        step(
            "位置编码",
            "Positional encoding",
            f"$\\mathit{{pos}} = {position}$。维度 $2i$ 和 $2i+1$ 共用角度 ${angle}$ = "
            f"{vector(angles)}；偶数维取 $\\sin$，奇数维取 $\\cos$："
            f"$PE({position})$ = {vector(encoding)}。",
            f"$\\mathit{{pos}} = {position}$. Dimensions $2i$ and $2i+1$ share the angle "
            f"${angle}$ = {vector(angles)}; even dimensions take its sine, odd ones its cosine: "
            f"$PE({position})$ = {vector(encoding)}.",
            row("angle", angles, label, columns),
            row(f"PE({position})", encoding, label, columns),
        ),
        step(
            "相加",
            "Add",
            f"逐维相加：${asked}$ = {vector(x_prime)}。",
            f"Add dimension by dimension: ${asked}$ = {vector(x_prime)}.",
            answer,
        ),
    )
    return Draft(prompt, given, answer, solution, choices={"position": position})
