"""The encoder's steps: the chapter's one-head example (its sections 1-4) as it prints it, then
its section 5-6 description run by the engine's tiny model (engine.chapter_model)."""

from __future__ import annotations

import numpy as np

from engine.chapter import DIMENSIONS, ROW_SUM, TOKENS, VOCAB, W_K, W_Q, W_V, E, WorkedExample
from engine.chapter_model import CONFIG, ChapterModelRun
from engine.params import AttentionParams, FeedForwardParams
from quizsvc.messages import N_
from quizsvc.worked_example.steps import Heatmap, Matrix, Source, Step, symbol, text

SUBSCRIPTS = "₀₁₂₃₄₅₆₇₈₉"
D_K = CONFIG.d_model // CONFIG.n_heads
HIDDEN = tuple(f"h{i}" for i in range(CONFIG.d_ff))  # the FFN's hidden units
STATISTICS = ("μ", "σ²")  # LayerNorm's mean and variance of each row

# each formula a line of its own that fits a phone's width
LAYER_NORM = (
    r"\operatorname{LayerNorm}(x) = \gamma \odot \frac{x - \mu}{\sqrt{\sigma^2 + \varepsilon}}"
    r" + \beta",
    r"\gamma = 1,\quad \beta = 0,\quad \varepsilon = 10^{-5}",
)


def sub(number: int) -> str:
    return "".join(SUBSCRIPTS[int(d)] for d in str(number))


def chapter_steps(ex: WorkedExample) -> tuple[Step, ...]:
    """Sections 1-4.4 of the chapter: every number it prints, recomputed."""
    tokens, dims = TOKENS, DIMENSIONS
    square = np.zeros((len(tokens), len(tokens)))
    return (
        Step(
            "embedding",
            text(N_("Tokens → embedding + positional encoding")),
            "1–2",
            Source.CHAPTER,
            (
                r"X_i = E_{\mathrm{id}(t_i)}",
                r"PE_{(p,\,2i)} = \sin\frac{p}{10000^{2i/d}}",
                r"PE_{(p,\,2i+1)} = \cos\frac{p}{10000^{2i/d}}",
                r"X' = X + PE",
            ),
            (
                Matrix(symbol("X"), ex.x, tokens, dims),
                Matrix(symbol("PE"), ex.pe, tokens, dims, ("pe",)),
                Matrix(symbol("X' = X + PE"), ex.x_prime, tokens, dims, ("x_prime",)),
            ),
            given=(Matrix(symbol("E"), E, VOCAB, dims),),
            note=text(
                N_(
                    "我 爱 你 are the ids 0, 1, 2: each picks its row of the embedding table E, "
                    "a lookup with no arithmetic. Positions p count from 0, d = d_model = 4."
                )
            ),
        ),
        Step(
            "qkv",
            text(N_("Queries, keys and values")),
            "3.1–3.4",
            Source.CHAPTER,
            (r"Q = X' W_q,\quad K = X' W_k,\quad V = X' W_v",),
            (
                Matrix(symbol("Q"), ex.q, tokens, dims, ("q",)),
                Matrix(symbol("K"), ex.k, tokens, dims, ("k",)),
                Matrix(symbol("V"), ex.v, tokens, dims, ("v",)),
            ),
            given=tuple(
                Matrix(symbol(name), weights, dims, dims)
                for name, weights in (("W_q", W_Q), ("W_k", W_K), ("W_v", W_V))
            ),
        ),
        Step(
            "scores",
            text(N_("Scores")),
            "4.1",
            Source.CHAPTER,
            (r"S = Q K^\top,\quad S_{ij} = Q_i \cdot K_j",),
            (Matrix(symbol("Q Kᵀ"), ex.raw_scores, tokens, tokens, ("raw_scores",)),),
        ),
        Step(
            "scaling",
            text(N_("Scaling")),
            "4.2",
            Source.CHAPTER,
            (r"\frac{Q K^\top}{\sqrt{d_k}},\quad \sqrt{d_k} = \sqrt{4} = 2",),
            (Matrix(symbol("Q Kᵀ / √d_k"), ex.scores, tokens, tokens, ("scores",)),),
        ),
        Step(
            "mask",
            text(N_("Mask")),
            "7",
            Source.CHAPTER,
            (r"S' = \frac{Q K^\top}{\sqrt{d_k}} + M",),
            (Matrix(symbol("M"), square, tokens, tokens),),
            note=text(
                N_(
                    "A mask adds −∞ where a query may not look; softmax then gives those keys "
                    "weight 0. The encoder may look at every source token (none is padding), "
                    "so its M is all zeros and the scaled scores stay as they are. The "
                    "decoder's mask hides the future."
                )
            ),
        ),
        Step(
            "softmax",
            text(N_("Softmax, row by row")),
            "4.3",
            Source.CHAPTER,
            (r"A_{ij} = \frac{e^{S'_{ij}}}{\sum_k e^{S'_{ik}}}",),
            (
                Matrix(
                    text(N_("e^score (row sums Σ on the right)")),
                    np.c_[ex.exp_scores, ex.exp_sums],
                    tokens,
                    (*tokens, ROW_SUM),
                    ("exp_scores", "exp_sums"),
                ),
                Matrix(
                    symbol("A"), ex.weights, tokens, tokens, ("weights",), heatmap=Heatmap.ATTENTION
                ),
            ),
        ),
        Step(
            "weighted-sum",
            text(N_("Weighted sum")),
            "4.4",
            Source.CHAPTER,
            (r"\mathrm{Output} = A V,\quad \mathrm{Output}_i = \sum_j A_{ij} V_j",),
            (
                # The chapter writes out Output₀, 我's row, term by term, one row per value
                # vector V_j; its misprints there are marked in this table.
                Matrix(
                    text(N_("A[0, j] · V_j (the terms of 我's output Output₀, one row per V_j)")),
                    ex.weighted_values[0],
                    tokens,
                    dims,
                    ("weighted_values_row0",),
                ),
                Matrix(text(N_("Output")), ex.output, tokens, dims, ("output",)),
            ),
        ),
    )


def attention_weights(p: AttentionParams) -> tuple[Matrix, ...]:
    dims = DIMENSIONS
    return tuple(
        Matrix(symbol(name), weights, dims, dims)
        for name, weights in (("W_Q", p.w_q), ("W_K", p.w_k), ("W_V", p.w_v), ("W_O", p.w_o))
    )


def ffn_weights(p: FeedForwardParams) -> tuple[Matrix, ...]:
    return (
        Matrix(symbol("W₁"), p.w_1, DIMENSIONS, HIDDEN),
        Matrix(symbol("b₁"), p.b_1[None], ("b₁",), HIDDEN),
        Matrix(symbol("W₂"), p.w_2, HIDDEN, DIMENSIONS),
        Matrix(symbol("b₂"), p.b_2[None], ("b₂",), DIMENSIONS),
    )


def row_statistics(x: np.ndarray) -> np.ndarray:
    """Each row's mean and (biased) variance, as LayerNorm takes them."""
    return np.c_[x.mean(axis=1), x.var(axis=1)]


def head_columns(head: int) -> tuple[str, ...]:
    return DIMENSIONS[head * D_K : (head + 1) * D_K]


def _head_step(run: ChapterModelRun, head: int) -> Step:
    tokens, name = TOKENS, "encoder.0.self_attn"
    n, i, columns = head + 1, sub(head + 1), head_columns(head)
    weights = run.params.encoder_layers[0].self_attn
    note = (
        N_(
            "From here on the numbers are the engine's: the same X' through the model of the "
            "chapter's section 5, two heads of d_k = 2, with seeded weights. Head {head} takes "
            "columns {first} to {last} of Q, K and V."
        )
        if head == 0
        else N_("Head {head} takes columns {first} to {last} of Q, K and V.")
    )
    return Step(
        f"head-{n}",
        text(N_("Multi-head attention: head {head}"), head=n),
        "5",
        Source.ENGINE,
        (
            r"Q = X' W_Q,\quad K = X' W_K,\quad V = X' W_V",
            rf"\mathrm{{head}}_{n} = \operatorname{{softmax}}\left("
            rf"\frac{{Q_{n} K_{n}^\top}}{{\sqrt{{{D_K}}}}}\right) V_{n}",
        ),
        (
            Matrix(symbol(f"Q{i}"), run[f"{name}.q"][head], tokens, columns),
            Matrix(symbol(f"K{i}"), run[f"{name}.k"][head], tokens, columns),
            Matrix(symbol(f"V{i}"), run[f"{name}.v"][head], tokens, columns),
            Matrix(symbol(f"Q{i} K{i}ᵀ / √{D_K}"), run[f"{name}.scores"][head], tokens, tokens),
            Matrix(
                symbol(f"A{i}"),
                run[f"{name}.weights"][head],
                tokens,
                tokens,
                heatmap=Heatmap.ATTENTION,
            ),
            Matrix(symbol(f"head{i}"), run[f"{name}.context"][head], tokens, columns),
        ),
        given=attention_weights(weights)[:3] if head == 0 else (),
        note=text(note, head=n, first=columns[0], last=columns[-1]),
    )


def encoder_steps(run: ChapterModelRun) -> tuple[Step, ...]:
    """Section 5-6 of the chapter, which it describes without numbers: the engine's layer."""
    tokens, dims = TOKENS, DIMENSIONS
    layer = run.params.encoder_layers[0]
    attention = "encoder.0.self_attn"
    heads = tuple(_head_step(run, h) for h in range(CONFIG.n_heads))
    concat = " | ".join(f"head{sub(h + 1)}" for h in range(CONFIG.n_heads))
    return (
        *heads,
        Step(
            "concat",
            text(N_("Concatenation and W_O")),
            "5",
            Source.ENGINE,
            (
                r"\operatorname{Concat} = [\,\mathrm{head}_1 \mid \mathrm{head}_2\,]",
                r"\operatorname{MultiHead}(X') = \operatorname{Concat}\; W_O",
            ),
            (
                Matrix(symbol(f"Concat = [{concat}]"), run[f"{attention}.concat"], tokens, dims),
                Matrix(symbol("MultiHead(X')"), run[f"{attention}.output"], tokens, dims),
            ),
            given=attention_weights(layer.self_attn)[3:],
        ),
        Step(
            "add-norm-1",
            text(N_("Add & Norm")),
            "6",
            Source.ENGINE,
            (
                r"Z = \operatorname{LayerNorm}\left(X' + \operatorname{MultiHead}(X')\right)",
                *LAYER_NORM,
            ),
            (
                Matrix(symbol("X' + MultiHead(X')"), run["encoder.0.norm1.sum"], tokens, dims),
                Matrix(
                    text(N_("Mean μ and variance σ² of each row")),
                    row_statistics(run["encoder.0.norm1.sum"]),
                    tokens,
                    STATISTICS,
                ),
                Matrix(symbol("Z"), run["encoder.0.norm1.output"], tokens, dims),
            ),
        ),
        Step(
            "ffn",
            text(N_("Feed-forward network (FFN)")),
            "6",
            Source.ENGINE,
            (r"\operatorname{FFN}(Z) = \max(0,\ Z W_1 + b_1)\, W_2 + b_2",),
            (
                Matrix(symbol("max(0, Z W₁ + b₁)"), run["encoder.0.ffn.hidden"], tokens, HIDDEN),
                Matrix(symbol("FFN(Z)"), run["encoder.0.ffn.output"], tokens, dims),
            ),
            given=ffn_weights(layer.ffn),
            note=text(
                N_(
                    "Each position separately, through d_ff = 8 hidden units and a ReLU. The "
                    "chapter writes W₂·ReLU(W₁·x + b₁) + b₂ for a column vector x; with rows, "
                    "as Q = X' W_q, the weights come after."
                )
            ),
        ),
        Step(
            "add-norm-2",
            text(N_("Add & Norm")),
            "6",
            Source.ENGINE,
            (r"\operatorname{LayerNorm}\left(Z + \operatorname{FFN}(Z)\right)",),
            (
                Matrix(symbol("Z + FFN(Z)"), run["encoder.0.norm2.sum"], tokens, dims),
                Matrix(
                    text(N_("Mean μ and variance σ² of each row")),
                    row_statistics(run["encoder.0.norm2.sum"]),
                    tokens,
                    STATISTICS,
                ),
                Matrix(
                    symbol("LayerNorm(Z + FFN(Z))"), run["encoder.0.norm2.output"], tokens, dims
                ),
            ),
        ),
        Step(
            "encoder-output",
            text(N_("Encoder output")),
            "6, 8.2",
            Source.ENGINE,
            (r"\mathrm{memory} = \operatorname{Encoder}(X')",),
            (Matrix(text(N_("memory")), run["encoder.output"], tokens, dims),),
            note=text(
                N_(
                    "Same shape as the input X', so layers stack: the chapter's model has 6, "
                    "this one 1. Every decoder layer's cross-attention reads this output."
                )
            ),
        ),
    )
