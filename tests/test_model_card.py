"""What the page /model shows of the trained toy model, checked independently: the
cross-attention of each head recomputed from the weights with plain numpy, the greedy steps'
probabilities, and the loss curve against the model's training log."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from engine.corpus import corpus_hash
from engine.trained import load_trained
from quizsvc.worked_example.model_card import model_card

MODEL = str(Path(__file__).parents[1] / "content" / "transformer-by-hand" / "model") + "/"


@pytest.fixture(scope="module")
def model():
    return load_trained(
        MODEL + "model.npz", corpus_hash(MODEL + "corpus.tsv", MODEL + "vocab.json")
    )


@pytest.fixture(scope="module")
def card(model):
    return model_card(model, pairs=40)


def positions(n: int, d: int) -> np.ndarray:
    p, i = np.arange(n)[:, None], np.arange(d)[None, :]
    angle = p / 10000 ** ((i - i % 2) / d)
    return np.where(i % 2 == 0, np.sin(angle), np.cos(angle))


def norm(x, p, eps):
    mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * p.gain + p.bias


def heads(q_in, kv_in, p, h, mask=None):
    """Each head's weights (h, n_q, n_k) and the attention's output."""
    q, k, v = q_in @ p.w_q + p.b_q, kv_in @ p.w_k + p.b_k, kv_in @ p.w_v + p.b_v
    d_k = q.shape[1] // h
    weights, outputs = [], []
    for head in range(h):
        cols = slice(head * d_k, (head + 1) * d_k)
        scores = q[:, cols] @ k[:, cols].T / math.sqrt(d_k)
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        e = np.exp(scores - scores.max(axis=1, keepdims=True))
        weights.append(e / e.sum(axis=1, keepdims=True))
        outputs.append(weights[-1] @ v[:, cols])
    return np.array(weights), np.hstack(outputs) @ p.w_o + p.b_o


def ffn(x, p):
    return np.maximum(0, x @ p.w_1 + p.b_1) @ p.w_2 + p.b_2


def test_each_head_s_cross_attention_recomputed_from_the_weights(model, card):
    params, config = model.params, model.config
    h, eps = config.n_heads, config.layer_norm_eps
    src = [model.source_vocab.index(w) for w in ["我", "爱", "你"]]
    tgt = [model.target_vocab.index(w) for w in ["<s>", "I", "love"]]
    x = params.src_embedding[src] + positions(3, config.d_model)
    enc = params.encoder_layers[0]
    x = norm(x + heads(x, x, enc.self_attn, h)[1], enc.norm1, eps)
    memory = norm(x + ffn(x, enc.ffn), enc.norm2, eps)
    y = params.tgt_embedding[tgt] + positions(3, config.d_model)
    dec = params.decoder_layers[0]
    causal = np.tril(np.ones((3, 3), dtype=bool))
    y = norm(y + heads(y, y, dec.self_attn, h, causal)[1], dec.norm1, eps)
    expected, _ = heads(y, memory, dec.cross_attn, h)

    attention = card.cross_attention
    assert attention.queries == ("<s>", "I", "love") and attention.keys == ("我", "爱", "你")
    assert attention.heads.shape == (4, 3, 3)
    np.testing.assert_allclose(attention.heads, expected, atol=1e-12)
    np.testing.assert_allclose(attention.average, expected.mean(axis=0), atol=1e-12)
    # docs/training.md's table: each row's largest weight on the word it translates
    np.testing.assert_allclose(
        attention.average, [[0.85, 0.09, 0.06], [0.09, 0.77, 0.14], [0.00, 0.14, 0.85]], atol=0.005
    )


def test_the_greedy_steps_translate_and_each_chooses_its_likeliest_token(card):
    assert [step.chosen for step in card.decoding] == ["I", "love", "you", "<eos>"]
    assert [step.prefix for step in card.decoding] == [
        ("<s>",),
        ("<s>", "I"),
        ("<s>", "I", "love"),
        ("<s>", "I", "love", "you"),
    ]
    assert card.translation == "I love you"
    for step in card.decoding:
        assert step.total == pytest.approx(1.0, abs=1e-12)
        chances = [t.probability for t in step.top]
        assert len(step.top) == 5 and chances == sorted(chances, reverse=True)
        assert [t.chosen for t in step.top] == [True, False, False, False, False]
        assert step.top[0].token == step.chosen and step.top[0].probability > 0.999
        assert len({t.token for t in step.top}) == 5


def test_the_loss_curve_is_the_training_log(model, card):
    assert card.steps == len(model.losses) == 300
    assert [step for step, _ in card.curve] == list(range(1, 301))
    np.testing.assert_array_equal([loss for _, loss in card.curve], model.losses)
    assert [step for step, _ in card.milestones] == [1, 50, 100, 150, 200, 250, 300]
    for step, loss in card.milestones:
        assert loss == model.losses[step - 1]
    first_low = next(i + 1 for i, loss in enumerate(model.losses) if loss < 0.05)
    assert card.first_low_step == first_low == 59  # docs/training.md


def test_the_size_is_docs_training_md_s(card):
    assert (card.d_model, card.n_heads, card.d_k, card.d_ff) == (32, 4, 8, 64)
    assert (card.encoder_layers, card.decoder_layers) == (1, 1)
    assert card.parameters == 24_388
    assert (card.source_words, card.target_words, card.target_tokens) == (20, 33, 36)
    assert card.seed == 0 and card.pairs == 40
