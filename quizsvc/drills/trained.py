"""Drills on the chapter's trained model (``weights: trained``): the numbers a learner is
given come from running the model on a sentence of its corpus, rounded to one decimal, and
the answer is computed from those rounded numbers, as for the random drills.

The sentence, the decoder position and the head are drawn from the seed (or fixed by the
params); every draw is made whether or not its choice is fixed, so fixing one shifts no other.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.corpus import Corpus
from engine.layers import softmax
from engine.model import forward
from engine.trace import Trace
from engine.trained import TrainedModel
from quizsvc.drills.attention import cross_attention_draft
from quizsvc.drills.output import greedy_draft
from quizsvc.drills.params import CrossAttentionRowParams, GreedyNextTokenParams, MultiHeadParams
from quizsvc.drills.sampling import Rng
from quizsvc.drills.text import Draft, num, step, text, vector
from quizsvc.drills.variant import Step, Tensor

Array = np.ndarray

# The model's numbers as the learner gets them: one decimal, as the random drills' tenths.
GIVEN_DECIMALS = 1


@dataclass(frozen=True, eq=False)
class ChapterModel:
    """A chapter's trained model with the corpus it was trained on (``bank.models`` and
    ``bank.corpora``)."""

    model: TrainedModel
    corpus: Corpus


@dataclass(frozen=True)
class Translation:
    """One pair of the corpus run through the model with teacher forcing: the decoder sees
    ``<s>`` and the target, and position t predicts the target's word t (the last, <eos>).
    ``q`` (h, n_target + 1, d_k), ``k`` and ``v`` (h, n_source, d_k) and ``weights``
    (h, n_target + 1, n_source) are the last decoder layer's cross-attention; ``logits``
    (n_target + 1, V) the output layer's."""

    index: int
    source: tuple[str, ...]
    target: tuple[str, ...]
    q: Array
    k: Array
    v: Array
    weights: Array
    logits: Array

    @property
    def decoder(self) -> tuple[str, ...]:
        return ("<s>", *self.target)

    def predicts(self, position: int) -> str:
        return (*self.target, "<eos>")[position]


def translation(chapter: ChapterModel, index: int) -> Translation:
    model, pair = chapter.model, chapter.corpus.pairs[index]
    vocab = chapter.corpus.vocab
    src = np.array([vocab.source_ids(pair.source)])
    decoder_input = np.array([[model.config.bos_id, *vocab.target_ids(pair.target)]])
    trace = Trace()
    forward(src, decoder_input, model.params, model.config, trace)
    layer = f"decoder.{model.config.n_decoder_layers - 1}.cross_attn"
    return Translation(
        index=index,
        source=pair.source,
        target=pair.target,
        q=trace[f"{layer}.q"][0],
        k=trace[f"{layer}.k"][0],
        v=trace[f"{layer}.v"][0],
        weights=trace[f"{layer}.weights"][0],
        logits=trace["logits"][0],
    )


def draw(rng: Rng, chosen: int | None, options: Sequence[int]) -> int:
    """``chosen`` if fixed, else one of ``options`` drawn from the seed; a number is drawn
    either way, so that fixing this choice leaves every later draw as it was."""
    index = int(rng.integers(len(options)))
    return options[index] if chosen is None else chosen


def given(values: Array) -> Array:
    """The model's numbers rounded as the learner gets them (the float nearest the decimal)."""
    return np.round(values * 10**GIVEN_DECIMALS) / 10**GIVEN_DECIMALS


def _sentence(rng: Rng, chosen: int | None, chapter: ChapterModel) -> Translation:
    index = draw(rng, chosen, range(len(chapter.corpus.pairs)))
    if index >= len(chapter.corpus.pairs):
        raise ValueError(
            f"sentence must be less than {len(chapter.corpus.pairs)}, the corpus's pairs"
        )
    return translation(chapter, index)


def _position(rng: Rng, chosen: int | None, sentence: Translation) -> int:
    """A decoder position; when open, one that predicts a word of the target (not <eos>)."""
    position = draw(rng, chosen, range(len(sentence.target)))
    if position > len(sentence.target):
        raise ValueError(
            f"position must be at most {len(sentence.target)} for {' '.join(sentence.decoder)}"
        )
    return position


def _head(rng: Rng, chosen: int | None, options: Sequence[int], n_heads: int) -> int:
    """A 0-based head: ``chosen`` (1-based) if fixed, else drawn from ``options``."""
    head = draw(rng, None if chosen is None else chosen - 1, options)
    if head >= n_heads:
        raise ValueError(f"head counts from 1 and must be at most {n_heads}, the model's heads")
    return head


# An open head is one whose largest score, from the rounded numbers, is at least this: when
# every score is far below 0, e^x to three decimals (as the prompts say) loses the weights.
LOWEST_TOP_SCORE = -1.0


def workable_heads(sentence: Translation, position: int, heads: Sequence[int]) -> list[int]:
    """Those of ``heads`` whose scores at ``position`` a learner can take through the softmax
    by hand (LOWEST_TOP_SCORE); all of ``heads`` if none can."""
    d_k = sentence.q.shape[-1]
    workable = [
        head
        for head in heads
        if float(np.max(given(sentence.q[head, position]) @ given(sentence.k[head]).T))
        / np.sqrt(d_k)
        >= LOWEST_TOP_SCORE
    ]
    return workable or list(heads)


def aligned_heads(sentence: Translation, position: int) -> list[int]:
    """The heads whose largest weight at ``position`` falls on the source word the heads'
    average puts its largest weight on (there is always one), and of those the workable ones
    (with the shipped model there always are some)."""
    weights = sentence.weights[:, position]  # (h, n_source)
    picked = int(np.argmax(weights.mean(axis=0)))
    aligned = [head for head in range(len(weights)) if int(np.argmax(weights[head])) == picked]
    return workable_heads(sentence, position, aligned)


def _setting(sentence: Translation, position: int, head: int, n_heads: int) -> dict[str, str]:
    """Where a head's numbers come from, for a prompt."""
    source, target = " ".join(sentence.source), " ".join(sentence.target)
    token, next_word = sentence.decoder[position], sentence.predicts(position)
    d_k = sentence.q.shape[-1]
    return text(
        f"训练好的模型把 {source} 翻译成 {target}，Decoder 的输入为 {' '.join(sentence.decoder)}。"
        f"它的 Cross-Attention 有 {n_heads} 个头，每个头 $d_k = {d_k}$。Head {head + 1} 中，"
        f"Decoder 位置 {position}（“{token}”，它预测下一个词“{next_word}”）给出查询向量 $q$；"
        r"$K_{\text{enc}}$、$V_{\text{enc}}$ 由 Encoder 对源句的输出投影而来"
        f"（{len(sentence.source)}×{d_k}，不加掩码）。数字取自模型，保留一位小数。",
        f"The trained model translates {source} into {target}; its decoder input is "
        f"{' '.join(sentence.decoder)}. Its cross-attention has {n_heads} heads of "
        f"$d_k = {d_k}$. In head {head + 1}, decoder position {position} (“{token}”, which "
        f"predicts the next word, “{next_word}”) supplies the query $q$; "
        r"$K_{\text{enc}}$ and $V_{\text{enc}}$ are projected from the encoder's output for "
        f"the source sentence ({len(sentence.source)}×{d_k}, no mask). The numbers are the "
        "model's, rounded to one decimal.",
    )


def _alignment_step(sentence: Translation, position: int, weights: Array, head: int) -> Step:
    """What the head looks at, beside the heads' average (from the model's own numbers)."""
    source = sentence.source
    top = int(np.argmax(weights))
    mean = sentence.weights[:, position].mean(axis=0)
    word, next_word = source[top], sentence.predicts(position)
    mean_top = source[int(np.argmax(mean))]
    return step(
        "它看向哪个词",
        "Where it looks",
        f"Head {head + 1} 把最大的权重 {num(weights[top])} 放在“{word}”上，此时模型要写出"
        f"“{next_word}”。{len(sentence.weights)} 个头的平均权重（模型的原始数字）为 "
        f"{vector(mean, 2)}，最大的在“{mean_top}”上。",
        f"Head {head + 1} puts its largest weight, {num(weights[top])}, on “{word}” while the "
        f"model is about to write “{next_word}”. Averaged over the {len(sentence.weights)} "
        f"heads (the model's own numbers) the weights are {vector(mean, 2)}, the largest on "
        f"“{mean_top}”.",
    )


def cross_attention_row(rng: Rng, p: CrossAttentionRowParams, chapter: ChapterModel) -> Draft:
    sentence = _sentence(rng, p.sentence, chapter)
    position = _position(rng, p.position, sentence)
    n_heads = len(sentence.weights)
    head = _head(rng, p.head, aligned_heads(sentence, position), n_heads)
    q = given(sentence.q[head, position : position + 1])
    k, v = given(sentence.k[head]), given(sentence.v[head])
    token = sentence.decoder[position]
    intro = _setting(sentence, position, head, n_heads)
    draft = cross_attention_draft(q, k, v, sentence.source, token, p.part, intro)
    assert draft.heatmap is not None  # the weight row
    after = (_alignment_step(sentence, position, draft.heatmap.values[0], head),)
    choices = {"sentence": sentence.index, "position": position, "head": head + 1}
    return dataclasses.replace(draft, solution=draft.solution + after, choices=choices)


def multi_head(rng: Rng, p: MultiHeadParams, chapter: ChapterModel) -> Draft:
    """One head's output at one decoder position of the cross-attention; the heatmap shows
    every head's weights there, computed from the same rounded numbers."""
    sentence = _sentence(rng, p.sentence, chapter)
    position = _position(rng, p.position, sentence)
    n_heads, d_k = sentence.q.shape[0], sentence.q.shape[-1]
    head = _head(rng, p.head, workable_heads(sentence, position, range(n_heads)), n_heads)
    q = given(sentence.q[:, position : position + 1])  # (h, 1, d_k)
    k, v = given(sentence.k), given(sentence.v)
    token = sentence.decoder[position]
    intro = _setting(sentence, position, head, n_heads)
    draft = cross_attention_draft(
        q[head], k[head], v[head], sentence.source, token, "output", intro
    )
    every = np.stack([softmax(q[h] @ k[h].T / np.sqrt(d_k))[0] for h in range(n_heads)])
    heads = tuple(f"H{h + 1}" for h in range(n_heads))
    first, last = head * d_k, (head + 1) * d_k - 1
    place = step(
        "拼接中的位置",
        "Its place in the concatenation",
        f"各头的权重各不相同（热力图）。Out{head + 1} 占拼接结果的 d{first}–d{last} 列，"
        f"再与其余 {n_heads - 1} 个头一起乘以 $W_O$。",
        f"Every head weighs the source words in its own way (the heatmap). Out{head + 1} "
        f"fills columns d{first}–d{last} of the concatenation, which $W_O$ then projects "
        f"with the other {n_heads - 1} heads.",
    )
    after = (_alignment_step(sentence, position, every[head], head), place)
    choices = {"sentence": sentence.index, "position": position, "head": head + 1}
    return dataclasses.replace(
        draft,
        solution=draft.solution + after,
        heatmap=Tensor("A", every, heads, sentence.source),
        choices=choices,
    )


def greedy_next_token(rng: Rng, p: GreedyNextTokenParams, chapter: ChapterModel) -> Draft:
    sentence = _sentence(rng, p.sentence, chapter)
    if p.generated > len(sentence.target):
        raise ValueError(
            f"generated must be at most {len(sentence.target)} for {' '.join(sentence.target)}"
        )
    logits = sentence.logits[p.generated]
    # The candidates the model scores highest, in id order; the largest is what greedy
    # decoding picks, and it stays the largest after rounding (a tie is left out).
    shown = np.sort(np.argsort(-logits, kind="stable")[: p.vocab_size])
    values = given(logits[shown])
    vocab = chapter.model.target_vocab
    columns = tuple(f"{i} {vocab[i]}" for i in shown)
    best = int(shown[int(np.argmax(values))])
    if np.count_nonzero(values == values.max()) > 1:
        raise ValueError("two candidates share the largest rounded logit")
    so_far = " ".join(sentence.decoder[: p.generated + 1])
    prompt = text(
        f"训练好的模型正在把 {' '.join(sentence.source)} 翻译成英文，Decoder 已生成“{so_far}”。"
        f"下面是下一个位置的输出分数（logits）中最大的 {len(shown)} 个（共 {len(vocab)} 个 "
        "token，保留一位小数），列名是 token ID 和词。",
        f"The trained model is translating {' '.join(sentence.source)} into English; the "
        f"decoder has generated “{so_far}” so far. The {len(shown)} largest of the next "
        f"position's output scores (logits; {len(vocab)} tokens in all, rounded to one "
        "decimal) are given; the columns are the token ids and words.",
    )
    draft = greedy_draft(values, columns, best, vocab[best], prompt)
    return dataclasses.replace(draft, choices={"sentence": sentence.index})
