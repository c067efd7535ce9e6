"""Drills on the decoder's output (section 8): the teacher-forcing loss and greedy decoding."""

from __future__ import annotations

import numpy as np

from engine.config import TransformerConfig
from engine.decoding import next_token
from engine.layers import softmax
from engine.model import cross_entropy, teacher_forcing_batch
from quizsvc.drills.params import GreedyNextTokenParams, TeacherForcingLossParams
from quizsvc.drills.sampling import Rng, tenths
from quizsvc.drills.text import DECODER_TOKENS, Draft, num, row, scalar, step, text, vector
from quizsvc.drills.variant import Tensor
from quizsvc.grading import Tolerance

# The engine's special ids (TransformerConfig defaults), then the chapter's target words.
VOCABULARY = ("<pad>", "<s>", "<eos>", "I", "love", "you", "me", "we")
PAD, BOS, EOS = 0, 1, 2
FIRST_WORD = 3

# A token id is right or wrong.
EXACT = Tolerance(atol=0.0, rtol=0.0)
# A sum of up to four losses each rounded to two decimals can be 0.02 off.
SUM_TOLERANCE = Tolerance(atol=0.02)


def _vocabulary(size: int) -> tuple[str, ...]:
    return VOCABULARY[:size]


def _config(vocab_size: int) -> TransformerConfig:
    return TransformerConfig(
        src_vocab_size=vocab_size,
        tgt_vocab_size=vocab_size,
        d_model=2,
        n_heads=1,
        d_ff=1,
        n_encoder_layers=0,
        n_decoder_layers=0,
        pad_id=PAD,
        bos_id=BOS,
        eos_id=EOS,
    )


def _probability_row(rng: Rng, vocab_size: int, label: int) -> np.ndarray:
    """A predicted distribution in hundredths: the label gets 0.10-0.90, every other id at
    least 0.01 (so no log is -inf), and the row adds up to exactly 100 hundredths."""
    label_share = int(rng.integers(10, 91))
    others = vocab_size - 1
    spread = rng.multinomial(100 - label_share - others, np.full(others, 1.0 / others)) + 1
    shares = np.insert(spread, label, label_share)
    return shares / 100.0


def teacher_forcing_loss(rng: Rng, p: TeacherForcingLossParams) -> Draft:
    vocab = _vocabulary(p.vocab_size)
    config = _config(p.vocab_size)
    words = np.arange(FIRST_WORD, p.vocab_size)
    # Distinct words when the vocabulary has enough, so each label is a different column.
    distinct = len(words) >= p.target_length
    target = [int(i) for i in rng.choice(words, size=p.target_length, replace=not distinct)]
    batch = teacher_forcing_batch([target], config)  # decoder input <s>+target, labels target+<eos>
    decoder_input, labels = batch.decoder_input[0], batch.labels[0]
    steps = len(labels)
    probs = np.stack([_probability_row(rng, p.vocab_size, int(label)) for label in labels])
    position = p.position
    if p.reduction == "position" and position is None:
        position = int(rng.integers(steps))

    # The drill shows the model's predicted distributions; the engine's loss takes logits,
    # and log p are logits whose softmax is p (each row of p adds up to 1).
    logits = np.log(probs)[None]  # (1, steps, vocab)
    per_position = np.array(
        [
            cross_entropy(logits[:, t : t + 1], labels[None, t : t + 1], config.pad_id)
            for t in range(steps)
        ]
    )
    mean = cross_entropy(logits, labels[None], config.pad_id)
    if p.reduction == "mean":
        loss = mean
    elif p.reduction == "sum":
        loss = float(per_position.sum())
    else:
        loss = float(per_position[position])

    input_tokens = tuple(vocab[i] for i in decoder_input)
    label_words = tuple(vocab[i] for i in labels)
    # Each row of P by its position and the token it is to predict: "pos 0 → I".
    predicts = tuple(f"pos {t} → {word}" for t, word in enumerate(label_words))
    columns = tuple(f"{i} {word}" for i, word in enumerate(vocab))
    target_words = " ".join(vocab[i] for i in target)
    given = (
        Tensor(
            "target", np.array([target]), ("target",), tuple(target_words.split()), token_ids=True
        ),
        Tensor("P", probs, predicts, columns),
    )
    answer = scalar("Loss", loss, "Loss" if position is None else predicts[position])
    vocab_text = ", ".join(f"{i} = {word}" for i, word in enumerate(vocab))
    ask_zh = {
        "mean": f"所有 {steps} 个位置交叉熵的平均值（常用的训练 Loss；章节写作各位置误差之和）",
        "sum": f"所有 {steps} 个位置的交叉熵之和（章节中的“所有位置的预测误差之和”）",
        "position": f"位置 {position} 的交叉熵",
    }[p.reduction]
    ask_en = {
        "mean": f"the mean of the cross-entropies of all {steps} positions (the usual training "
        "loss; the chapter writes the loss as their sum)",
        "sum": f"the sum of the cross-entropies of all {steps} positions (the chapter's "
        "“sum of every position's error”)",
        "position": f"the cross-entropy at position {position}",
    }[p.reduction]
    prompt = text(
        f"词表：{vocab_text}。训练时目标句子为 “{target_words}”（ID `{target}`）。"
        "Decoder 的输入是 `<s>` + 目标句子，最后一个位置预测 `<eos>`。"
        "表 $P$ 的“位置 $t$ → $w$”一行是模型在位置 $t$ 预测的概率分布，"
        "$w$ 是这个位置要预测的目标 token。"
        f"计算{ask_zh}。",
        f"Vocabulary: {vocab_text}. The training target is “{target_words}” (ids "
        f"`{target}`). The decoder input is `<s>` + the target, and the last position "
        "predicts `<eos>`. Row “pos $t$ → $w$” of the table $P$ is the model's predicted "
        f"distribution at position $t$, whose target (the token it is to predict) is $w$. "
        f"Compute {ask_en}.",
    )
    picked = probs[np.arange(steps), labels]
    sequences = Tensor(
        "teacher forcing",
        np.stack([decoder_input, labels]).astype(float),
        ("decoder input", "label"),
        tuple(f"pos {t}" for t in range(steps)),
        token_ids=True,
    )
    pairs = ", ".join(f"{a}→{b}" for a, b in zip(input_tokens, label_words, strict=True))
    reduce_zh = {
        "mean": f"取平均：({' + '.join(num(v) for v in per_position)}) / {steps} = {num(loss)}。",
        "sum": f"求和：{' + '.join(num(v) for v in per_position)} = {num(loss)}。",
        "position": f"位置 {position} 的值即答案：{num(loss)}。",
    }[p.reduction]
    reduce_en = {
        "mean": f"Average: ({' + '.join(num(v) for v in per_position)}) / {steps} = {num(loss)}.",
        "sum": f"Sum: {' + '.join(num(v) for v in per_position)} = {num(loss)}.",
        "position": f"Position {position}'s value is the answer: {num(loss)}.",
    }[p.reduction]
    solution = (
        step(
            "错开一位",
            "Shift by one",
            f"Decoder 输入与标签错开一位：{pairs}。",
            f"The decoder input and the labels are shifted by one: {pairs}.",
            sequences,
        ),
        step(
            "取出正确 token 的概率",
            "Pick the probability of the correct token",
            f"每一行取标签那一列：{vector(picked)}。",
            f"Take the label's column in every row: {vector(picked)}.",
            Tensor("P", probs, predicts, columns),
            row("p(label)", picked, "p(label)", predicts),
        ),
        step(
            "交叉熵",
            "Cross-entropy",
            f"$-\\ln p$ = {vector(per_position)}。{reduce_zh}",
            f"$-\\ln p$ = {vector(per_position)}. {reduce_en}",
            row("-ln p", per_position, "-ln p", predicts),
            answer,
        ),
    )
    choices = {"position": position} if p.reduction == "position" else {}
    tolerance = SUM_TOLERANCE if p.reduction == "sum" else None
    return Draft(prompt, given, answer, solution, tolerance=tolerance, choices=choices)


def greedy_next_token(rng: Rng, p: GreedyNextTokenParams) -> Draft:
    vocab = _vocabulary(p.vocab_size)
    while True:
        logits = tenths(rng, (p.vocab_size,), -2.0, 4.0)
        # A tie would leave two right answers (greedy decoding's argmax takes the first), and
        # a decoder that has started a sentence does not predict <pad> or <s> next.
        if np.count_nonzero(logits == logits.max()) == 1 and np.argmax(logits) >= EOS:
            break
    chosen = int(next_token(logits))  # the choice greedy_decode makes
    columns = tuple(f"{i} {word}" for i, word in enumerate(vocab))
    so_far = " ".join(DECODER_TOKENS[: p.generated + 1])
    prompt = text(
        f"推理时 Decoder 已生成 “{so_far}”。下一个位置的输出分数（logits）如下，列名是 token "
        "ID 和词。",
        f"At inference time the decoder has generated “{so_far}” so far. The output scores "
        "(logits) of the next position are given; the columns are the token ids and words.",
    )
    return greedy_draft(logits, columns, chosen, vocab[chosen], prompt)


def greedy_draft(
    logits: np.ndarray, columns: tuple[str, ...], chosen: int, word: str, prompt: dict[str, str]
) -> Draft:
    """Greedy decoding's step over the ``logits`` shown, one per column ("id word"):
    ``chosen`` is the id of the largest, ``word`` its token."""
    probs = softmax(logits)
    at = int(np.argmax(logits))
    logits_row = row("logits", logits, "logits", columns)
    given = (logits_row,)
    answer = Tensor("next token id", np.array([[chosen]]), ("id",), ("",), token_ids=True)
    solution = (
        step(
            "Softmax（可选）",
            "Softmax (optional)",
            f"Softmax 保持大小顺序，所以概率最大的 token 就是 logit 最大的 token："
            f"{vector(probs)}。",
            "The softmax keeps the order, so the most probable token is the one with the "
            f"largest logit: {vector(probs)}.",
            logits_row,
            row("p", probs, "p", columns),
        ),
        step(
            "取最大值",
            "Take the largest",
            f"最大的 logit 是 {num(logits[at])}，对应 ID {chosen}（“{word}”）。",
            f"The largest logit is {num(logits[at])}, at id {chosen} (“{word}”).",
            answer,
        ),
    )
    return Draft(prompt=prompt, given=given, answer=answer, solution=solution, tolerance=EXACT)
