"""The decoder's steps (the chapter's sections 7-8): its masking demonstration with its own
numbers, then a model (the engine's tiny seeded one or the trained toy model) through the
decoder, the output softmax, the teacher-forcing loss and greedy decoding."""

from __future__ import annotations

import numpy as np

from engine.chapter import DECODER_TOKENS, UNMASKED_WEIGHTS, WorkedExample
from engine.chapter_model import ChapterModelRun
from quizsvc.messages import N_
from quizsvc.worked_example.encoder import (
    attention_weights,
    dimensions,
    ffn_weights,
    hidden_units,
    layer_norm,
    source_tokens,
    sub,
)
from quizsvc.worked_example.steps import Heatmap, Matrix, Source, Step, symbol, text

OUTPUT_SOFTMAX = (
    r"\mathrm{logits} = H_3 W_{\mathrm{out}},\quad P = \operatorname{softmax}(\mathrm{logits})"
)
CAUSAL_MASK = r"M_{ij} = \begin{cases} 0 & j \le i \\ -\infty & j > i \end{cases}"


def tokens_text(run: ChapterModelRun, ids: tuple[int, ...]) -> str:
    return " ".join(run.target_vocab[i] for i in ids)


def masking_step(ex: WorkedExample) -> Step:
    """Section 7.1: the chapter's given weights of <s> I love, masked."""
    tokens = DECODER_TOKENS
    return Step(
        "masking",
        text(N_("Masking the future: the chapter's demonstration")),
        "7.1",
        Source.CHAPTER,
        (r"A = \operatorname{softmax}\left(S + M\right)", CAUSAL_MASK),
        (
            Matrix(text(N_("A (before masking, given)")), UNMASKED_WEIGHTS, tokens, tokens),
            Matrix(
                text(N_("A (after masking)")),
                ex.masked_weights,
                tokens,
                tokens,
                ("masked_weights",),
                heatmap=Heatmap.ATTENTION,
            ),
        ),
        note=text(
            N_(
                "The chapter gives the weights of <s> I love before masking as data. Masking "
                "sets each future score to −∞ before softmax: every row keeps its visible "
                "weights, scaled up to add to 1."
            )
        ),
    )


def decoder_steps(
    run: ChapterModelRun, ex: WorkedExample | None, source: Source = Source.ENGINE
) -> tuple[Step, ...]:
    """The decoder trained with teacher forcing: its input is <s> and the target at once. With
    the chapter's example `ex`, its masking demonstration too."""
    tokens = tuple(run.target_vocab[i] for i in run.decoder_input)
    vocab = run.target_vocab
    dims, layer = dimensions(run), run.params.decoder_layers[0]
    self_attn, cross = "decoder.0.self_attn", "decoder.0.cross_attn"
    heads = range(run.config.n_heads)
    d_k = run.config.d_k
    input_note = (
        N_(
            "Training feeds the decoder <s> followed by the whole target, I love you, in one "
            "pass (teacher forcing). The target embedding E_tgt is the trained model's."
        )
        if source is Source.TRAINED
        else N_(
            "Training feeds the decoder <s> followed by the whole target, I love you, "
            "in one pass (teacher forcing). I, love and you have their rows of the "
            "chapter's E; <s> and <eos> are seeded."
        )
    )
    return (
        Step(
            "decoder-input",
            text(N_("Decoder input: embedding + positional encoding")),
            "8.1–8.2",
            source,
            (r"Y' = Y + PE",),
            (
                Matrix(symbol("Y"), run["decoder.embedding"], tokens, dims),
                Matrix(symbol("PE"), run.trace["decoder.positional"], tokens, dims),
                Matrix(symbol("Y' = Y + PE"), run["decoder.input"], tokens, dims),
            ),
            given=(Matrix(symbol("E_tgt"), run.params.tgt_embedding, vocab, dims),),
            note=text(input_note),
        ),
        *((masking_step(ex),) if ex is not None else ()),
        Step(
            "decoder-self-attention",
            text(N_("Decoder masked self-attention")),
            "7, 7.1",
            source,
            (
                r"\mathrm{head}_i = \operatorname{softmax}\left(\frac{Q_i K_i^\top}{\sqrt{d_k}}"
                r" + M\right) V_i",
                CAUSAL_MASK,
                r"H_1 = \operatorname{LayerNorm}\left(Y' + \operatorname{MultiHead}(Y')\right)",
            ),
            (
                *(
                    matrix
                    for h in heads
                    for matrix in (
                        Matrix(
                            symbol(f"Q{sub(h + 1)} K{sub(h + 1)}ᵀ / √{d_k} + M"),
                            run[f"{self_attn}.masked_scores"][h],
                            tokens,
                            tokens,
                        ),
                        Matrix(
                            symbol(f"A{sub(h + 1)}"),
                            run[f"{self_attn}.weights"][h],
                            tokens,
                            tokens,
                            heatmap=Heatmap.ATTENTION,
                        ),
                    )
                ),
                Matrix(symbol("MultiHead(Y')"), run[f"{self_attn}.output"], tokens, dims),
                Matrix(symbol("H₁"), run["decoder.0.norm1.output"], tokens, dims),
            ),
            given=attention_weights(layer.self_attn, dims),
        ),
        Step(
            "cross-attention",
            text(N_("Cross-attention")),
            "7.2",
            source,
            (
                r"Q = H_1 W_Q",
                r"K = \mathrm{memory}\, W_K,\quad V = \mathrm{memory}\, W_V",
                r"C = \operatorname{MultiHead}(H_1,\ \mathrm{memory})",
                r"H_2 = \operatorname{LayerNorm}(H_1 + C)",
            ),
            (
                *(
                    Matrix(
                        symbol(f"A{sub(h + 1)}"),
                        run[f"{cross}.weights"][h],
                        tokens,
                        source_tokens(run),
                        heatmap=Heatmap.ATTENTION,
                    )
                    for h in heads
                ),
                Matrix(symbol("C = MultiHead(H₁, memory)"), run[f"{cross}.output"], tokens, dims),
                Matrix(symbol("H₂"), run["decoder.0.norm2.output"], tokens, dims),
            ),
            given=attention_weights(layer.cross_attn, dims),
            note=text(
                N_(
                    "Queries come from the decoder, keys and values from the encoder's output: "
                    "each target position weighs the source tokens 我 爱 你, and no mask is "
                    "needed. The only place where the decoder reads the source."
                )
            ),
        ),
        Step(
            "decoder-ffn",
            text(N_("Decoder FFN and Add & Norm")),
            "6–7",
            source,
            (
                r"H_3 = \operatorname{LayerNorm}\left(H_2 + \operatorname{FFN}(H_2)\right)",
                *layer_norm(source),
            ),
            (
                Matrix(
                    symbol("max(0, H₂ W₁ + b₁)"),
                    run["decoder.0.ffn.hidden"],
                    tokens,
                    hidden_units(run),
                ),
                Matrix(symbol("FFN(H₂)"), run["decoder.0.ffn.output"], tokens, dims),
                Matrix(symbol("H₃"), run["decoder.output"], tokens, dims),
            ),
            given=ffn_weights(layer.ffn, run),
        ),
        Step(
            "output-softmax",
            text(N_("Output projection and softmax")),
            "8.2",
            source,
            (OUTPUT_SOFTMAX,),
            (
                Matrix(symbol("logits"), run["logits"], tokens, vocab),
                Matrix(symbol("P"), run["probs"], tokens, vocab, heatmap=Heatmap.PROBABILITIES),
            ),
            given=(Matrix(symbol("W_out"), run.params.w_out, dims, vocab),),
            note=text(
                N_(
                    "Row t of P is the model's prediction for the token after position t, "
                    "over the target vocabulary."
                )
            ),
        ),
        loss_step(run, tokens, source),
    )


def loss_step(run: ChapterModelRun, tokens: tuple[str, ...], source: Source) -> Step:
    labels = tuple(run.target_vocab[i] for i in run.labels)
    positions = tuple(f"{token} → {label}" for token, label in zip(tokens, labels, strict=True))
    total = float(run.position_losses.sum())
    return Step(
        "loss",
        text(N_("Teacher-forcing loss")),
        "8.1",
        source,
        (r"\mathcal{L} = -\frac{1}{T} \sum_{t=1}^{T} \log P_{t,\,y_t}",),
        (
            Matrix(
                text(N_("Each position and the token it should predict")),
                np.c_[run.label_probs, run.position_losses],
                positions,
                ("P(y_t)", "−log P(y_t)"),
            ),
            Matrix(
                text(N_("Loss")), np.array([[total, run.loss]]), ("L",), ("Σ", f"Σ / {len(labels)}")
            ),
        ),
        note=text(
            N_(
                "The labels are the decoder's input shifted by one: I love you <eos>. The chapter "
                "adds the positions' losses up; the engine, like PyTorch, takes their mean."
            )
        ),
    )


def greedy_steps(run: ChapterModelRun, source: Source = Source.ENGINE) -> tuple[Step, ...]:
    """Inference: one decoder pass per new token, each on what has been generated so far."""
    steps = []
    eos = run.config.eos_id
    output = tokens_text(run, tuple(s.chosen for s in run.greedy if s.chosen != eos))
    for number, step in enumerate(run.greedy, start=1):
        prefix, chosen = tokens_text(run, step.prefix), run.target_vocab[step.chosen]
        if step.chosen != eos:
            note = N_(
                "The encoder's output is computed once; the decoder reads the tokens so far, "
                "{prefix}, and the last position's P gives the next token: the largest, "
                "{token}."
            )
        elif source is Source.TRAINED:
            note = N_(
                "The decoder reads {prefix}; the largest probability is <eos>, so decoding "
                "stops. The trained model translates 我 爱 你 as {output}."
            )
        else:
            note = N_(
                "The decoder reads {prefix}; the largest probability is <eos>, so decoding "
                "stops. Untrained, the model does not translate: the steps show how decoding "
                "runs."
            )
        steps.append(
            Step(
                f"greedy-{number}",
                text(
                    N_("Greedy step {step}: {prefix} → {token}"),
                    step=number,
                    prefix=prefix,
                    token=chosen,
                ),
                "8.1",
                source,
                (r"y_t = \underset{w}{\operatorname{argmax}}\, P(w \mid y_{<t},\ x)",),
                (
                    Matrix(
                        text(N_("The last position's logits and P")),
                        np.vstack([step.logits, step.probs]),
                        ("logits", "P"),
                        run.target_vocab,
                    ),
                ),
                note=text(note, prefix=prefix, token=chosen, output=output),
            )
        )
    return tuple(steps)
