"""What the page /model shows of a chapter's trained toy model (engine.trained): its size and
training, its loss curve, its cross-attention on the chapter's sentence 我 爱 你 → I love you
per head and averaged, and its greedy decoding with each step's likeliest tokens."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.chapter_model import ChapterModelRun, sentence_run
from engine.trained import TrainedModel, named_weights

TOP_TOKENS = 5  # the likeliest tokens shown for each greedy step
MILESTONE_EVERY = 50  # steps between the loss curve's values given as text
LOW_LOSS = 0.05  # the loss the page reports the first step below


@dataclass(frozen=True)
class TokenChance:
    token: str
    probability: float
    chosen: bool  # the argmax, appended to the decoder's input


@dataclass(frozen=True)
class DecodingStep:
    prefix: tuple[str, ...]  # the decoder's input, from <s>
    chosen: str
    top: tuple[TokenChance, ...]  # the likeliest tokens, likeliest first
    total: float  # the sum of every token's probability (1)


@dataclass(frozen=True)
class CrossAttention:
    queries: tuple[str, ...]  # the decoder's inputs <s> I love: each predicts the next word
    keys: tuple[str, ...]  # 我 爱 你
    heads: np.ndarray  # (n_heads, queries, keys)

    @property
    def average(self) -> np.ndarray:
        return self.heads.mean(axis=0)


@dataclass(frozen=True)
class ModelCard:
    d_model: int
    n_heads: int
    d_k: int
    d_ff: int
    encoder_layers: int
    decoder_layers: int
    parameters: int
    source_words: int  # the vocabularies without their special tokens
    target_words: int
    target_tokens: int  # the whole target vocabulary, which the output softmax ranges over
    pairs: int | None  # the corpus's sentence pairs, if known
    seed: int
    losses: np.ndarray  # (steps,) the loss of steps 1, 2, ...
    cross_attention: CrossAttention
    decoding: tuple[DecodingStep, ...]

    @property
    def steps(self) -> int:
        return len(self.losses)

    @property
    def curve(self) -> tuple[tuple[int, float], ...]:
        """(step, loss) for every step, from 1."""
        return tuple((step, float(loss)) for step, loss in enumerate(self.losses, start=1))

    @property
    def milestones(self) -> tuple[tuple[int, float], ...]:
        """(step, loss) at the first step, every `MILESTONE_EVERY` steps and the last."""
        picked = sorted({1, *range(MILESTONE_EVERY, self.steps + 1, MILESTONE_EVERY), self.steps})
        return tuple((step, float(self.losses[step - 1])) for step in picked if step >= 1)

    @property
    def first_low_step(self) -> int | None:
        """The first step whose loss is below `LOW_LOSS`."""
        below = np.flatnonzero(self.losses < LOW_LOSS)
        return int(below[0]) + 1 if below.size else None

    @property
    def translation(self) -> str:
        return " ".join(step.chosen for step in self.decoding if step.chosen != "<eos>")


def model_card(model: TrainedModel, pairs: int | None = None) -> ModelCard:
    config = model.config
    run = sentence_run(model.params, model.config, model.source_vocab, model.target_vocab)
    return ModelCard(
        d_model=config.d_model,
        n_heads=config.n_heads,
        d_k=config.d_k,
        d_ff=config.d_ff,
        encoder_layers=config.n_encoder_layers,
        decoder_layers=config.n_decoder_layers,
        parameters=sum(w.size for w in named_weights(model.params).values()),
        source_words=len(model.source_vocab) - 1,  # <pad>
        target_words=len(model.target_vocab) - 3,  # <pad>, <s>, <eos>
        target_tokens=len(model.target_vocab),
        pairs=pairs,
        seed=model.seed,
        losses=np.asarray(model.losses, dtype=float),
        cross_attention=cross_attention(run),
        decoding=decoding_steps(run),
    )


def cross_attention(run: ChapterModelRun) -> CrossAttention:
    """The last decoder layer's cross-attention weights of the queries that predict I, love
    and you (the teacher-forcing pass's first three positions)."""
    last = run.config.n_decoder_layers - 1
    weights = run[f"decoder.{last}.cross_attn.weights"]  # (heads, queries, keys)
    n = len(run.labels) - 1  # the last label is <eos>
    return CrossAttention(
        queries=tuple(run.target_vocab[i] for i in run.decoder_input[:n]),
        keys=tuple(run.source_vocab[i] for i in run.source),
        heads=weights[:, :n, :],
    )


def decoding_steps(run: ChapterModelRun, top: int = TOP_TOKENS) -> tuple[DecodingStep, ...]:
    vocab = run.target_vocab
    steps = []
    for step in run.greedy:
        order = np.argsort(-step.probs, kind="stable")[:top]
        steps.append(
            DecodingStep(
                prefix=tuple(vocab[i] for i in step.prefix),
                chosen=vocab[step.chosen],
                top=tuple(
                    TokenChance(vocab[i], float(step.probs[i]), int(i) == step.chosen)
                    for i in order
                ),
                total=float(step.probs.sum()),
            )
        )
    return tuple(steps)
