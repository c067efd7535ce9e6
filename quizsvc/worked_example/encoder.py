"""The encoder's steps: the chapter's one-head example (its sections 1-4) as it prints it, then
its section 5-6 description run by a model on the same sentence (engine.chapter_model): the
engine's tiny seeded one, or the trained toy model, whose own embedding then starts the
steps (`trained_input_steps`)."""

from __future__ import annotations

import numpy as np

from engine.chapter import DIMENSIONS, ROW_SUM, TOKENS, VOCAB, W_K, W_Q, W_V, E, WorkedExample
from engine.chapter_model import ChapterModelRun
from engine.params import AttentionParams, FeedForwardParams
from quizsvc.messages import N_
from quizsvc.worked_example.steps import Heatmap, Matrix, Source, Step, symbol, text

SUBSCRIPTS = "₀₁₂₃₄₅₆₇₈₉"
STATISTICS = ("μ", "σ²")  # LayerNorm's mean and variance of each row

# each formula a line of its own that fits a phone's width
LAYER_NORM = (
    r"\operatorname{LayerNorm}(x) = \gamma \odot \frac{x - \mu}{\sqrt{\sigma^2 + \varepsilon}}"
    r" + \beta",
    r"\gamma = 1,\quad \beta = 0,\quad \varepsilon = 10^{-5}",
)
# a trained LayerNorm has learned its γ and β
TRAINED_LAYER_NORM = (LAYER_NORM[0], r"\varepsilon = 10^{-5}")


def dimensions(run: ChapterModelRun) -> tuple[str, ...]:
    """The columns of d_model: d0, d1, ..."""
    return tuple(f"d{i}" for i in range(run.config.d_model))


def hidden_units(run: ChapterModelRun) -> tuple[str, ...]:
    """The FFN's hidden units: h0, h1, ..."""
    return tuple(f"h{i}" for i in range(run.config.d_ff))


def source_tokens(run: ChapterModelRun) -> tuple[str, ...]:
    return tuple(run.source_vocab[i] for i in run.source)


def layer_norm(source: Source) -> tuple[str, ...]:
    return TRAINED_LAYER_NORM if source is Source.TRAINED else LAYER_NORM


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


def attention_weights(p: AttentionParams, dims: tuple[str, ...]) -> tuple[Matrix, ...]:
    return tuple(
        Matrix(symbol(name), weights, dims, dims)
        for name, weights in (("W_Q", p.w_q), ("W_K", p.w_k), ("W_V", p.w_v), ("W_O", p.w_o))
    )


def ffn_weights(p: FeedForwardParams, run: ChapterModelRun) -> tuple[Matrix, ...]:
    dims, hidden = dimensions(run), hidden_units(run)
    return (
        Matrix(symbol("W₁"), p.w_1, dims, hidden),
        Matrix(symbol("b₁"), p.b_1[None], ("b₁",), hidden),
        Matrix(symbol("W₂"), p.w_2, hidden, dims),
        Matrix(symbol("b₂"), p.b_2[None], ("b₂",), dims),
    )


def row_statistics(x: np.ndarray) -> np.ndarray:
    """Each row's mean and (biased) variance, as LayerNorm takes them."""
    return np.c_[x.mean(axis=1), x.var(axis=1)]


def head_columns(run: ChapterModelRun, head: int) -> tuple[str, ...]:
    d_k = run.config.d_k
    return dimensions(run)[head * d_k : (head + 1) * d_k]


def _head_step(run: ChapterModelRun, head: int, source: Source) -> Step:
    tokens, name, d_k = source_tokens(run), "encoder.0.self_attn", run.config.d_k
    n, i, columns = head + 1, sub(head + 1), head_columns(run, head)
    weights = run.params.encoder_layers[0].self_attn
    if head > 0:
        note = N_("Head {head} takes columns {first} to {last} of Q, K and V.")
    elif source is Source.TRAINED:
        note = N_(
            "The trained model has {heads} heads of d_k = {d_k}, each with its own part of "
            "the learned W_Q, W_K and W_V: head {head} takes columns {first} to {last} of Q, K "
            "and V."
        )
    else:
        note = N_(
            "From here on the numbers are the engine's: the same X' through the model of the "
            "chapter's section 5, two heads of d_k = 2, with seeded weights. Head {head} takes "
            "columns {first} to {last} of Q, K and V."
        )
    return Step(
        f"head-{n}",
        text(N_("Multi-head attention: head {head}"), head=n),
        "5",
        source,
        (
            r"Q = X' W_Q,\quad K = X' W_K,\quad V = X' W_V",
            rf"\mathrm{{head}}_{n} = \operatorname{{softmax}}\left("
            rf"\frac{{Q_{n} K_{n}^\top}}{{\sqrt{{{d_k}}}}}\right) V_{n}",
        ),
        (
            Matrix(symbol(f"Q{i}"), run[f"{name}.q"][head], tokens, columns),
            Matrix(symbol(f"K{i}"), run[f"{name}.k"][head], tokens, columns),
            Matrix(symbol(f"V{i}"), run[f"{name}.v"][head], tokens, columns),
            Matrix(symbol(f"Q{i} K{i}ᵀ / √{d_k}"), run[f"{name}.scores"][head], tokens, tokens),
            Matrix(
                symbol(f"A{i}"),
                run[f"{name}.weights"][head],
                tokens,
                tokens,
                heatmap=Heatmap.ATTENTION,
            ),
            Matrix(symbol(f"head{i}"), run[f"{name}.context"][head], tokens, columns),
        ),
        given=attention_weights(weights, dimensions(run))[:3] if head == 0 else (),
        note=text(
            note,
            head=n,
            first=columns[0],
            last=columns[-1],
            heads=run.config.n_heads,
            d_k=d_k,
        ),
    )


def encoder_steps(run: ChapterModelRun, source: Source = Source.ENGINE) -> tuple[Step, ...]:
    """Section 5-6 of the chapter, which it describes without numbers: the model's layer."""
    tokens, dims = source_tokens(run), dimensions(run)
    layer = run.params.encoder_layers[0]
    attention = "encoder.0.self_attn"
    heads = tuple(_head_step(run, h, source) for h in range(run.config.n_heads))
    concat = " | ".join(f"head{sub(h + 1)}" for h in range(run.config.n_heads))
    concat_formula = (
        r"\operatorname{Concat} = [\,\mathrm{head}_1 \mid \mathrm{head}_2\,]"
        if run.config.n_heads == 2
        else rf"\operatorname{{Concat}} = [\,\mathrm{{head}}_1 \mid \cdots \mid "
        rf"\mathrm{{head}}_{run.config.n_heads}\,]"
    )
    return (
        *heads,
        Step(
            "concat",
            text(N_("Concatenation and W_O")),
            "5",
            source,
            (
                concat_formula,
                r"\operatorname{MultiHead}(X') = \operatorname{Concat}\; W_O",
            ),
            (
                Matrix(symbol(f"Concat = [{concat}]"), run[f"{attention}.concat"], tokens, dims),
                Matrix(symbol("MultiHead(X')"), run[f"{attention}.output"], tokens, dims),
            ),
            given=attention_weights(layer.self_attn, dims)[3:],
        ),
        Step(
            "add-norm-1",
            text(N_("Add & Norm")),
            "6",
            source,
            (
                r"Z = \operatorname{LayerNorm}\left(X' + \operatorname{MultiHead}(X')\right)",
                *layer_norm(source),
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
            source,
            (r"\operatorname{FFN}(Z) = \max(0,\ Z W_1 + b_1)\, W_2 + b_2",),
            (
                Matrix(
                    symbol("max(0, Z W₁ + b₁)"),
                    run["encoder.0.ffn.hidden"],
                    tokens,
                    hidden_units(run),
                ),
                Matrix(symbol("FFN(Z)"), run["encoder.0.ffn.output"], tokens, dims),
            ),
            given=ffn_weights(layer.ffn, run),
            note=text(
                N_(
                    "Each position separately, through d_ff = {d_ff} hidden units and a ReLU. "
                    "The chapter writes W₂·ReLU(W₁·x + b₁) + b₂ for a column vector x; with "
                    "rows, as Q = X' W_q, the weights come after."
                ),
                d_ff=run.config.d_ff,
            ),
        ),
        Step(
            "add-norm-2",
            text(N_("Add & Norm")),
            "6",
            source,
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
            source,
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


def trained_input_steps(run: ChapterModelRun) -> tuple[Step, ...]:
    """The trained model's own start: its learned embedding of 我 爱 你 plus the positions (its
    self-attention's queries, keys, values, scores and softmax are in the heads' steps)."""
    tokens, dims = source_tokens(run), dimensions(run)
    ids = ", ".join(str(i) for i in run.source)
    return (
        Step(
            "embedding",
            text(N_("Tokens → embedding + positional encoding")),
            "1–2",
            Source.TRAINED,
            (
                r"X_i = E_{\mathrm{id}(t_i)}",
                r"PE_{(p,\,2i)} = \sin\frac{p}{10000^{2i/d}}",
                r"PE_{(p,\,2i+1)} = \cos\frac{p}{10000^{2i/d}}",
                r"X' = X + PE",
            ),
            (
                Matrix(symbol("X"), run["encoder.embedding"], tokens, dims),
                Matrix(symbol("PE"), run.trace["encoder.positional"], tokens, dims),
                Matrix(symbol("X' = X + PE"), run["encoder.input"], tokens, dims),
            ),
            given=(Matrix(symbol("E_src"), run.params.src_embedding, run.source_vocab, dims),),
            note=text(
                N_(
                    "我 爱 你 are the ids {ids} of the trained model's source vocabulary: each "
                    "picks its row of the learned embedding table E_src. Positions p count from "
                    "0, d = d_model = {d_model}."
                ),
                ids=ids,
                d_model=run.config.d_model,
            ),
        ),
    )
