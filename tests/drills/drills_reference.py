"""Every drill kind's answer recomputed from a variant's given tensors with plain NumPy.

Written from the chapter's formulas, independently of ``engine`` and ``quizsvc.drills``:
these functions only read the given tensors (by name) and the variant's params, so a
wrong answer key, a given tensor that differs from what the answer was computed from, or
a mislabelled tensor makes the comparison fail.

A ``Rounding`` imitates a learner working by hand: every intermediate result the worked
solution shows (an angle, √d_k, a score, μ, a weight inside a longer computation, a loss)
rounded to ``steps`` decimals, each e^x and their sum to ``exponentials`` decimals, and the
answer to ``answer`` decimals, each half away from zero (四舍五入). ``EXACT`` keeps every
digit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

Array = np.ndarray


def half_up(values: Array | float, decimals: int) -> Array:
    """``values`` rounded to ``decimals`` as learners round: a half goes away from zero."""
    scale = 10.0**decimals
    return np.sign(values) * np.floor(np.abs(values) * scale + 0.5) / scale


@dataclass(frozen=True)
class Rounding:
    """Decimals a learner keeps; None keeps every digit."""

    steps: int | None = None
    exponentials: int | None = None
    answer: int | None = None

    def step(self, values: Array | float) -> Array:
        return _rounded(values, self.steps)

    def exps(self, values: Array) -> Array:
        return _rounded(values, self.exponentials)

    def result(self, values: Array | float) -> Array:
        return _rounded(values, self.answer)


def _rounded(values: Array | float, decimals: int | None) -> Array:
    return np.asarray(values, dtype=float) if decimals is None else half_up(values, decimals)


EXACT = Rounding()


def given(variant, name: str) -> Array:
    matches = [tensor.values for tensor in variant.given if tensor.name == name]
    assert len(matches) == 1, f"{variant.kind} has no single given tensor named {name!r}"
    return matches[0]


def softmax_by_hand(scores: Array, r: Rounding, weights: Rounding | None = None) -> Array:
    """The chapter's 4.3: e^x per score, their sum, then each e^x over the sum; the weights
    are rounded as ``weights`` says (the answer's decimals when they are the answer), else
    as an intermediate step."""
    exps = r.exps(np.exp(scores))
    ratios = exps / r.exps(exps.sum(axis=-1, keepdims=True))
    return r.step(ratios) if weights is None else weights.result(ratios)


def scaled(raw: Array, d_k: int, r: Rounding) -> Array:
    """Dot products over √d_k, with √d_k rounded as a step: the solution shows it."""
    return raw / r.step(math.sqrt(d_k))


def embedding_positional(v, r: Rounding = EXACT) -> Array:
    position = v.params["position"]
    table, ids = given(v, "E"), given(v, "ids")[0].astype(int)
    d_model = table.shape[1]
    dim = np.arange(d_model)
    angle = r.step(position / 10000 ** ((dim - dim % 2) / d_model))
    pe = r.step([math.sin(a) if j % 2 == 0 else math.cos(a) for j, a in enumerate(angle)])
    return r.result(table[ids[position]] + pe)[None]


def projection(v, r: Rounding = EXACT) -> Array:
    weight = {"q": "W_q", "k": "W_k", "v": "W_v"}[v.params["which"]]
    return r.result(given(v, "X'") @ given(v, weight))


def score_row(v, r: Rounding = EXACT) -> Array:
    q, k = given(v, f"q{v.params['position']}"), given(v, "K")
    return r.result(scaled(r.step(q @ k.T), k.shape[1], r))


def masked_score_row(v, r: Rounding = EXACT) -> Array:
    position = v.params["position"]
    q, k = given(v, f"q{position}"), given(v, "K")
    scores = r.result(scaled(r.step(q @ k.T), k.shape[1], r))
    scores[0, position + 1 :] = -np.inf  # the future positions j > i
    return scores


def softmax_row(v, r: Rounding = EXACT) -> Array:
    return softmax_by_hand(given(v, "scores"), r, weights=r)


def masked_row(v, r: Rounding = EXACT) -> Array:
    scores = given(v, "scores").copy()
    scores[0, v.params["position"] + 1 :] = -np.inf
    return softmax_by_hand(scores, r, weights=r)


def attention_output_row(v, r: Rounding = EXACT) -> Array:
    weights = given(v, f"A[{v.params['position']}]")
    return r.result(weights @ given(v, "V"))


def multi_head(v, r: Rounding = EXACT, divide_scores_by: str = "sqrt(d_k)") -> Array:
    """``divide_scores_by`` replays a learner's mistake: "1" (no scaling), "sqrt(d_model)",
    or "inf" (scores all 0: the softmax skipped, uniform weights). On trained weights the
    drill gives one head's projected query row and keys and values: its cross-attention."""
    if v.params.get("weights") == "trained":
        return cross_attention_row(v, r)
    x = given(v, "X'")
    n_heads, d_model = v.params["n_heads"], v.params["d_model"]
    d_k = d_model // n_heads
    divisor = {
        "sqrt(d_k)": math.sqrt(d_k),
        "1": 1.0,
        "sqrt(d_model)": math.sqrt(d_model),
        "inf": math.inf,
    }[divide_scores_by]
    whole = v.params["part"] == "concat_projection"
    heads = range(1, n_heads + 1) if whole else [v.params["head"]]
    outputs = []
    for h in heads:
        x_h = x[:, (h - 1) * d_k : h * d_k]
        q = r.step(x_h @ given(v, f"Wq{h}"))
        k = r.step(x_h @ given(v, f"Wk{h}"))
        values = r.step(x_h @ given(v, f"Wv{h}"))
        weights = softmax_by_hand(r.step(r.step(q @ k.T) / r.step(divisor)), r)
        head = weights @ values
        outputs.append(r.step(head) if whole else r.result(head))
    if not whole:
        return outputs[0]
    return r.result(np.concatenate(outputs, axis=1) @ given(v, "Wo"))


def add_norm(v, r: Rounding = EXACT) -> Array:
    total = given(v, "x") + given(v, "Sublayer(x)")
    centered = total - r.step(total.mean())
    std = r.step(np.sqrt(r.step(np.mean(centered**2)) + 1e-5))
    return r.result(r.step(centered / std) * given(v, "γ") + given(v, "β"))


def ffn_row(v, r: Rounding = EXACT) -> Array:
    hidden = np.maximum(0.0, r.step(given(v, "x") @ given(v, "W1") + given(v, "b1")))
    return r.result(hidden @ given(v, "W2") + given(v, "b2"))


def cross_attention_row(v, r: Rounding = EXACT) -> Array:
    # the query row is named by its decoder token: q(<s>), q(I), ... (a trained variant's
    # sentence has its own words)
    (q,) = [t.values for t in v.given if t.name.startswith("q(")]
    k = given(v, "K_enc")
    scores = r.step(scaled(r.step(q @ k.T), k.shape[1], r))
    if v.params.get("part") == "weights":
        return softmax_by_hand(scores, r, weights=r)
    return r.result(softmax_by_hand(scores, r) @ given(v, "V_enc"))


def teacher_forcing_loss(v, r: Rounding = EXACT) -> Array:
    eos = 2
    labels = [*given(v, "target")[0].astype(int), eos]  # the decoder predicts the next token
    probs = given(v, "P")
    losses = r.step([-math.log(probs[t, label]) for t, label in enumerate(labels)])
    reduction = v.params["reduction"]
    if reduction == "mean":
        loss = losses.mean()
    elif reduction == "sum":
        loss = losses.sum()
    else:
        loss = losses[v.params["position"]]
    return r.result(np.array([[loss]]))


def logit_gradient(v, r: Rounding = EXACT) -> Array:
    """softmax(z) - y, y with ε/V on every one of the V tokens and 1 - ε more on the target."""
    z = given(v, "z")[0]
    eps, target = v.params["label_smoothing"], v.params["target"]
    y = np.full(len(z), eps / len(z))
    y[target] += 1 - eps
    return r.result(softmax_by_hand(z, r) - r.step(y))[None]


def greedy_next_token(v, r: Rounding = EXACT) -> Array:
    """The id in the label of the column with the largest logit ("31 dogs")."""
    (logits,) = [t for t in v.given if t.name == "logits"]
    label = logits.col_labels[int(np.argmax(logits.values[0]))]
    return np.array([[float(label.split()[0])]])


REFERENCE = {
    "embedding_positional": embedding_positional,
    "projection": projection,
    "score_row": score_row,
    "masked_score_row": masked_score_row,
    "softmax_row": softmax_row,
    "masked_row": masked_row,
    "attention_output_row": attention_output_row,
    "multi_head": multi_head,
    "add_norm": add_norm,
    "ffn_row": ffn_row,
    "cross_attention_row": cross_attention_row,
    "teacher_forcing_loss": teacher_forcing_loss,
    "logit_gradient": logit_gradient,
    "greedy_next_token": greedy_next_token,
}


# (kind, params): every kind at its defaults, plus the sizes and options each kind offers.
PARAM_CASES: list[tuple[str, dict]] = [
    *((kind, {}) for kind in REFERENCE),
    ("embedding_positional", {"d_model": 2, "n": 2}),
    ("embedding_positional", {"d_model": 6, "n": 4, "vocab_size": 8, "position": 3}),
    ("projection", {"which": "q", "n": 2, "d_model": 6}),
    ("projection", {"which": "k"}),
    ("projection", {"which": "v", "n": 4, "d_model": 2}),
    ("score_row", {"n": 4, "d_model": 6, "position": 3}),
    ("score_row", {"n": 2, "d_model": 2}),
    ("masked_score_row", {"n": 2, "d_model": 2}),
    ("masked_score_row", {"n": 4, "d_model": 6}),
    ("masked_score_row", {"n": 4, "position": 0}),
    ("softmax_row", {"n": 2}),
    ("softmax_row", {"n": 4}),
    ("masked_row", {"n": 2}),
    ("masked_row", {"n": 4}),
    ("masked_row", {"n": 4, "position": 0}),
    ("attention_output_row", {"n": 4, "d_model": 6}),
    ("attention_output_row", {"n": 2, "d_model": 2, "position": 1}),
    ("multi_head", {"part": "head_output"}),
    ("multi_head", {"part": "head_output", "head": 2, "n": 4}),
    ("multi_head", {"d_model": 6, "n_heads": 3}),
    ("multi_head", {"d_model": 6, "n_heads": 2, "part": "head_output"}),
    ("multi_head", {"d_model": 2, "n_heads": 1, "n": 2}),
    ("add_norm", {"d_model": 2}),
    ("add_norm", {"d_model": 6}),
    ("ffn_row", {"d_model": 2, "d_ff": 2}),
    ("ffn_row", {"d_model": 6, "d_ff": 8}),
    ("cross_attention_row", {"part": "weights"}),
    ("cross_attention_row", {"n": 4, "target_length": 2, "d_model": 6, "position": 1}),
    ("cross_attention_row", {"n": 2, "d_model": 2, "part": "weights"}),
    ("teacher_forcing_loss", {"reduction": "sum"}),
    ("teacher_forcing_loss", {"reduction": "position"}),
    ("teacher_forcing_loss", {"reduction": "position", "position": 0, "target_length": 1}),
    ("teacher_forcing_loss", {"vocab_size": 8, "target_length": 3}),
    ("teacher_forcing_loss", {"vocab_size": 5, "target_length": 3}),  # words must repeat
    ("logit_gradient", {"label_smoothing": 0.1}),  # ε/V = 0.0166...
    ("logit_gradient", {"vocab_size": 5, "label_smoothing": 0.1}),  # ε/V = 0.02
    ("logit_gradient", {"vocab_size": 4, "target": 2}),
    ("logit_gradient", {"vocab_size": 6, "label_smoothing": 0.25, "target": 5}),
    ("greedy_next_token", {"vocab_size": 4, "generated": 0}),
    ("greedy_next_token", {"vocab_size": 8, "generated": 3}),
]


def case_id(case: tuple[str, dict]) -> str:
    kind, params = case
    return kind + "".join(f"-{key}={value}" for key, value in params.items())
