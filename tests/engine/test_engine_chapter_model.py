"""The chapter's data flow on the tiny seeded model: its inputs are the chapter's, and every
number the worked example shows of it agrees with a second, naive formulation (Python loops)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from naive_transformer import (
    attention,
    cross_entropy,
    forward,
    layer_norm_row,
    to_lists,
    vec_mat,
)

from engine.chapter import VOCAB, E, worked_example
from engine.chapter_model import (
    CONFIG,
    MAX_STEPS,
    SOURCE_IDS,
    SOURCE_VOCAB,
    TARGET_IDS,
    TARGET_VOCAB,
    chapter_model_params,
    chapter_model_run,
    sentence_run,
)


@pytest.fixture(scope="module")
def run():
    return chapter_model_run()


def test_the_source_is_the_chapter_s_and_its_input_the_chapter_s_x_prime(run):
    assert [SOURCE_VOCAB[i] for i in SOURCE_IDS] == ["我", "爱", "你"]
    np.testing.assert_array_equal(run["encoder.input"], worked_example().x_prime)
    # the target words have their rows of the chapter's E
    for word in ("I", "love", "you"):
        np.testing.assert_array_equal(
            run.params.tgt_embedding[TARGET_VOCAB.index(word)], E[VOCAB.index(word)]
        )
    assert [TARGET_VOCAB[i] for i in TARGET_IDS] == ["I", "love", "you"]


def test_the_model_is_the_chapter_s_section_5_with_one_layer_each_side():
    assert (CONFIG.d_model, CONFIG.n_heads, CONFIG.d_k) == (4, 2, 2)
    assert (CONFIG.n_encoder_layers, CONFIG.n_decoder_layers) == (1, 1)


def test_the_seeded_weights_are_tenths_from_minus_one_to_one_and_fixed():
    params, again = chapter_model_params(), chapter_model_params()
    layer = params.encoder_layers[0]
    for weights in (layer.self_attn.w_q, layer.self_attn.w_o, layer.ffn.w_1, params.w_out):
        tenths = weights * 10
        np.testing.assert_array_equal(tenths, np.round(tenths))
        assert np.abs(weights).max() <= 1
    np.testing.assert_array_equal(params.w_out, again.w_out)
    # LayerNorm as before training: no scaling, no shift
    np.testing.assert_array_equal(layer.norm1.gain, np.ones(4))
    np.testing.assert_array_equal(layer.norm1.bias, np.zeros(4))


def test_head_one_by_hand(run):
    # head 1 of the encoder's self-attention: columns 0-1 of Q = X' W_Q, K and V
    x = to_lists(run["encoder.input"])
    p = run.params.encoder_layers[0].self_attn
    q, k, v = ([vec_mat(r, to_lists(w)) for r in x] for w in (p.w_q, p.w_k, p.w_v))
    first_cols = [[row[0], row[1]] for row in q]
    # the softmax of 我's row of scaled scores, written out
    scores = [(q[0][0] * k[j][0] + q[0][1] * k[j][1]) / math.sqrt(2) for j in range(3)]
    exps = [math.exp(s) for s in scores]
    weights = [e / sum(exps) for e in exps]
    np.testing.assert_allclose(run["encoder.0.self_attn.weights"][0][0], weights)
    output, _ = attention(first_cols, [r[:2] for r in k], [r[:2] for r in v], lambda i, j: True)
    np.testing.assert_allclose(run["encoder.0.self_attn.context"][0], output)


def test_layer_norm_of_a_row_by_hand(run):
    row = list(run["encoder.0.norm1.sum"][1])  # 爱's X' + MultiHead(X')
    mean = sum(row) / 4
    variance = sum((v - mean) ** 2 for v in row) / 4
    by_hand = [(v - mean) / math.sqrt(variance + 1e-5) for v in row]
    np.testing.assert_allclose(run["encoder.0.norm1.output"][1], by_hand)
    np.testing.assert_allclose(by_hand, layer_norm_row(row, [1] * 4, [0] * 4, 1e-5))


def test_logits_and_the_loss_agree_with_the_naive_transformer(run):
    decoder_input = [CONFIG.bos_id, *TARGET_IDS]
    assert run.decoder_input == tuple(decoder_input)
    assert run.labels == (*TARGET_IDS, CONFIG.eos_id)
    logits = forward(list(SOURCE_IDS), decoder_input, run.params, CONFIG)
    np.testing.assert_allclose(run["logits"], logits)
    assert run.loss == pytest.approx(cross_entropy(logits, list(run.labels), CONFIG.pad_id))
    # each position's loss is -log of the probability of its label
    for t, label in enumerate(run.labels):
        row = logits[t]
        p_label = math.exp(row[label]) / sum(math.exp(v) for v in row)
        assert run.label_probs[t] == pytest.approx(p_label)
        assert run.position_losses[t] == pytest.approx(-math.log(p_label))
    assert run.loss == pytest.approx(run.position_losses.mean())


def test_each_greedy_step_decodes_its_prefix_and_picks_the_most_likely_token(run):
    steps = run.greedy
    assert 1 <= len(steps) <= MAX_STEPS
    for t, step in enumerate(steps):
        assert step.prefix == (CONFIG.bos_id, *(s.chosen for s in steps[:t]))
        logits = forward(list(SOURCE_IDS), list(step.prefix), run.params, CONFIG)[-1]
        np.testing.assert_allclose(step.logits, logits)
        assert step.chosen == max(range(len(logits)), key=logits.__getitem__)
        assert step.probs.sum() == pytest.approx(1)
    # the first step sees <s> alone, as the first position of teacher forcing does
    np.testing.assert_allclose(steps[0].probs, run["probs"][0])
    # the seed's run stops at <eos>, within the steps it is allowed
    assert steps[-1].chosen == CONFIG.eos_id
    assert all(s.chosen != CONFIG.eos_id for s in steps[:-1])


def test_a_model_whose_vocabulary_lacks_a_word_of_the_sentence_is_refused():
    vocab = tuple(w if w != "love" else "like" for w in TARGET_VOCAB)
    with pytest.raises(ValueError, match="lacks a word of 我 爱 你"):
        sentence_run(chapter_model_params(), CONFIG, SOURCE_VOCAB, vocab)


def test_the_run_carries_the_model_s_config_and_vocabularies(run):
    assert run.config is CONFIG and run.source == SOURCE_IDS
    assert (run.source_vocab, run.target_vocab) == (SOURCE_VOCAB, TARGET_VOCAB)
