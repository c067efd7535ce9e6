"""The chapter's data flow end to end, on a tiny model that takes the chapter's numbers where it
gives them and seeded weights where it describes a step without numbers.

The chapter computes one attention head by hand (sections 1-4, `engine.chapter`) and then
describes multi-head attention, Add & Norm, the FFN, the decoder, cross-attention, the output
softmax, the teacher-forcing loss and greedy decoding without numbers. `chapter_model_run()`
runs all of them with the engine on the model of its section 5 (d_model = 4, two heads of
d_k = 2) with one encoder and one decoder layer (the chapter stacks 6). The source is the
chapter's 我 爱 你 embedded by its table E, so the encoder's input is its X'; the target
words I, love, you have their rows of E too. Every other weight is drawn from
`numpy.random.default_rng(SEED)` as a multiple of 0.1 in [-1, 1], which keeps a hand check
short; LayerNorm starts as γ = 1, β = 0, as it does before training.

The weights are not trained, so the model does not translate: the greedy steps show how
decoding proceeds, not a good translation. `sentence_run()` runs any model whose vocabularies
hold the chapter's words (the trained toy model, `engine.trained`) on the same sentence.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.chapter import VOCAB, E
from engine.config import TransformerConfig
from engine.decoding import GreedyResult, greedy_decode
from engine.layers import log_softmax, softmax
from engine.model import teacher_forcing_loss
from engine.params import (
    AttentionParams,
    DecoderLayerParams,
    EncoderLayerParams,
    FeedForwardParams,
    LayerNormParams,
    TransformerParams,
)
from engine.trace import Trace

Array = np.ndarray

# Any seed runs; this one was picked among the first few hundred because its untrained model's
# greedy decoding takes four steps, emits only words and stops at <eos> ("love love you <eos>"),
# which shows every part of the loop (others pick <pad> or never stop).
SEED = 69

# The engine keeps <pad> at id 0 of both vocabularies (TransformerConfig's default pad_id):
# the source's are the chapter's six words after it, the target's <s>, <eos> and its three.
SOURCE_VOCAB = ("<pad>", *VOCAB)
SOURCE_IDS = (1, 2, 3)  # 我 爱 你
TARGET_VOCAB = ("<pad>", "<s>", "<eos>", "I", "love", "you")
TARGET_IDS = (3, 4, 5)  # I love you
MAX_STEPS = len(TARGET_IDS) + 1  # room for the target and its <eos>

CONFIG = TransformerConfig(
    src_vocab_size=len(SOURCE_VOCAB),
    tgt_vocab_size=len(TARGET_VOCAB),
    d_model=4,
    n_heads=2,
    d_ff=8,
    n_encoder_layers=1,
    n_decoder_layers=1,
    attention_bias=False,  # the chapter's Q = X' W_q has none
    output_bias=False,
)


def _tenths(rng: np.random.Generator, *shape: int) -> Array:
    return rng.integers(-10, 11, size=shape) / 10


def _attention(rng: np.random.Generator) -> AttentionParams:
    d = CONFIG.d_model
    return AttentionParams(*(_tenths(rng, d, d) for _ in range(4)))


def _norm() -> LayerNormParams:
    return LayerNormParams(gain=np.ones(CONFIG.d_model), bias=np.zeros(CONFIG.d_model))


def _feed_forward(rng: np.random.Generator) -> FeedForwardParams:
    d, f = CONFIG.d_model, CONFIG.d_ff
    return FeedForwardParams(
        w_1=_tenths(rng, d, f), b_1=_tenths(rng, f), w_2=_tenths(rng, f, d), b_2=_tenths(rng, d)
    )


def chapter_model_params() -> TransformerParams:
    rng = np.random.default_rng(SEED)
    word = {token: E[VOCAB.index(token)] for token in VOCAB}
    src_embedding = np.vstack([np.zeros(CONFIG.d_model), E])
    # <s> and <eos> are not in the chapter's table: seeded; <pad> is never looked up
    specials = _tenths(rng, 2, CONFIG.d_model)
    tgt_embedding = np.vstack(
        [np.zeros(CONFIG.d_model), specials, *(word[t] for t in TARGET_VOCAB[3:])]
    )
    encoder = EncoderLayerParams(_attention(rng), _norm(), _feed_forward(rng), _norm())
    decoder = DecoderLayerParams(
        _attention(rng), _norm(), _attention(rng), _norm(), _feed_forward(rng), _norm()
    )
    return TransformerParams(
        src_embedding=src_embedding,
        tgt_embedding=tgt_embedding,
        encoder_layers=[encoder],
        decoder_layers=[decoder],
        w_out=_tenths(rng, CONFIG.d_model, CONFIG.tgt_vocab_size),
    )


@dataclass(frozen=True)
class GreedyStep:
    prefix: tuple[int, ...]  # the decoder's input at this step, from <s>
    logits: Array  # (tgt_vocab,) of the prefix's last position
    probs: Array  # (tgt_vocab,) softmax of the logits
    chosen: int  # argmax: the token appended for the next step


@dataclass(frozen=True)
class ChapterModelRun:
    params: TransformerParams
    config: TransformerConfig
    source_vocab: tuple[str, ...]  # id -> token
    target_vocab: tuple[str, ...]
    source: tuple[int, ...]  # 我 爱 你
    trace: Trace  # the teacher-forcing pass, named as engine.model records it
    decoder_input: tuple[int, ...]  # <s> I love you
    labels: tuple[int, ...]  # I love you <eos>
    label_probs: Array  # (t,) p(label) at each position
    position_losses: Array  # (t,) -log p(label)
    loss: float  # their mean, as the engine trains
    greedy: tuple[GreedyStep, ...]

    def __getitem__(self, name: str) -> Array:
        """A traced intermediate without its batch axis (`encoder.0.self_attn.weights` is
        (heads, n, n))."""
        return self.trace[name][0]


def chapter_model_run() -> ChapterModelRun:
    return sentence_run(chapter_model_params(), CONFIG, SOURCE_VOCAB, TARGET_VOCAB)


def sentence_run(
    params: TransformerParams,
    config: TransformerConfig,
    source_vocab: tuple[str, ...],
    target_vocab: tuple[str, ...],
) -> ChapterModelRun:
    """The model on the chapter's sentence: 我 爱 你 → I love you with teacher forcing, traced,
    and greedy decoding of 我 爱 你 for up to `MAX_STEPS` tokens. ValueError if a vocabulary
    lacks one of the sentence's words."""
    source_words, target_words = (SOURCE_VOCAB[i] for i in SOURCE_IDS), ("I", "love", "you")
    try:
        source_ids = tuple(source_vocab.index(w) for w in source_words)
        target_ids = [target_vocab.index(w) for w in target_words]
    except ValueError as exc:
        raise ValueError(f"the vocabulary lacks a word of 我 爱 你 → I love you: {exc}") from None
    trace = Trace()
    source = np.array(source_ids)
    loss, logits, batch = teacher_forcing_loss(source, [target_ids], params, config, trace)
    labels = batch.labels[0]
    logp = log_softmax(logits[0])  # (t, vocab)
    picked = logp[np.arange(len(labels)), labels]
    greedy = greedy_decode(source, params, config, max_len=MAX_STEPS)
    return ChapterModelRun(
        params=params,
        config=config,
        source_vocab=tuple(source_vocab),
        target_vocab=tuple(target_vocab),
        source=source_ids,
        trace=trace,
        decoder_input=tuple(int(i) for i in batch.decoder_input[0]),
        labels=tuple(int(i) for i in labels),
        label_probs=np.exp(picked),
        position_losses=-picked,
        loss=loss,
        greedy=_greedy_steps(greedy, config.bos_id),
    )


def _greedy_steps(result: GreedyResult, bos: int) -> tuple[GreedyStep, ...]:
    tokens = [int(t) for t in result.tokens[0]]
    return tuple(
        GreedyStep((bos, *tokens[:t]), logits, softmax(logits), tokens[t])
        for t, logits in enumerate(result.logits[0])  # one per step, up to <eos>
    )
