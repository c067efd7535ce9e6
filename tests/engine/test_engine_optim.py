"""Adam, the paper's learning-rate schedule and clipping, against values worked by hand."""

import math

import numpy as np
import pytest

from engine import TransformerConfig, init_params, optim, teacher_forcing_batch
from engine.grad_model import loss_and_gradients
from engine.optim import Adam, clip_by_global_norm, global_norm, learning_rate, leaves


def test_schedule_by_hand():
    # d_model 16, warmup 4: 16^-0.5 = 1/4; 4^-1.5 = 1/8
    assert learning_rate(1, 16, 4) == pytest.approx(1 / 4 * 1 / 8, rel=1e-15)
    assert learning_rate(2, 16, 4) == pytest.approx(1 / 4 * 2 / 8, rel=1e-15)
    assert learning_rate(4, 16, 4) == pytest.approx(1 / 4 * 1 / 2, rel=1e-15)  # the peak
    assert learning_rate(16, 16, 4) == pytest.approx(1 / 4 * 1 / 4, rel=1e-15)


def test_schedule_of_the_base_model_peaks_at_warmup():
    rates = [learning_rate(step, 512) for step in range(1, 20001)]
    assert int(np.argmax(rates)) + 1 == 4000
    assert max(rates) == pytest.approx(1 / math.sqrt(512 * 4000), rel=1e-15)  # ≈ 7.0e-4
    # four times the steps past the peak: half the rate
    assert learning_rate(16000, 512) == pytest.approx(max(rates) / 2, rel=1e-15)


def test_schedule_refuses_step_zero():
    with pytest.raises(ValueError, match="steps count from 1"):
        learning_rate(0, 512)


def test_adam_first_two_steps_by_hand():
    theta = np.array([1.0, -2.0])
    adam = Adam([theta], lr=0.1)
    adam.step([np.array([0.5, -0.1])])
    # step 1: m̂ = g, v̂ = g², so each entry moves by lr · g / (|g| + ε)
    expected_1 = np.array([1.0 - 0.1 * 0.5 / (0.5 + 1e-9), -2.0 + 0.1 * 0.1 / (0.1 + 1e-9)])
    np.testing.assert_allclose(theta, expected_1, rtol=1e-15)
    adam.step([np.array([0.5, 0.3])])
    # m = 0.9 (0.05, -0.01) + 0.1 (0.5, 0.3) = (0.095, 0.021)
    # v = 0.98 (0.005, 0.0002) + 0.02 (0.25, 0.09) = (0.0099, 0.001996)
    m_hat = np.array([0.095, 0.021]) / (1 - 0.9**2)
    v_hat = np.array([0.0099, 0.001996]) / (1 - 0.98**2)
    expected_2 = expected_1 - 0.1 * m_hat / (np.sqrt(v_hat) + 1e-9)
    np.testing.assert_allclose(theta, expected_2, rtol=1e-14)
    assert m_hat[0] == pytest.approx(0.5) and v_hat[0] == pytest.approx(0.25)


def test_adam_follows_the_schedule():
    theta = np.array([0.0])
    adam = Adam([theta], d_model=16, warmup=4)
    adam.step([np.array([2.0])])
    np.testing.assert_allclose(theta, [-1 / 32 * 2.0 / (2.0 + 1e-9)], rtol=1e-15)
    assert adam.rate() == learning_rate(1, 16, 4)


def test_adam_needs_a_schedule_or_a_rate_and_matching_gradients():
    with pytest.raises(ValueError, match="either d_model"):
        Adam([np.zeros(2)])
    with pytest.raises(ValueError, match="structure"):
        Adam([np.zeros(2)], lr=0.1).step([np.zeros(3)])


def test_adam_updates_in_blocks_whatever_the_layouts(monkeypatch):
    # blocks of 5 entries: a (3, 4) weight is updated in three blocks, the last one short
    monkeypatch.setattr(optim, "BLOCK", 5)
    rng = np.random.default_rng(0)
    start = rng.standard_normal((3, 4))
    weight = np.asfortranarray(start)  # column-major, as the engine's weights
    bias = np.array([0.5, -0.5])
    grads = [[np.ascontiguousarray(rng.standard_normal((3, 4))), np.array([1.0, 2.0])]]
    grads.append([np.asfortranarray(rng.standard_normal((3, 4))), np.array([-1.0, 0.25])])
    adam = Adam([weight, bias], lr=0.1)
    m, v, expected = np.zeros((3, 4)), np.zeros((3, 4)), start.copy()
    for t, (g, g_bias) in enumerate(grads, start=1):
        adam.step([g, g_bias])
        m = 0.9 * m + 0.1 * g
        v = 0.98 * v + 0.02 * g * g
        expected -= 0.1 * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.98**t)) + 1e-9)
    np.testing.assert_allclose(weight, expected, rtol=1e-14, atol=1e-15)
    assert weight.flags.f_contiguous  # updated in place
    assert global_norm(grads[0]) == pytest.approx(np.sqrt(np.sum(grads[0][0] ** 2) + 5.0))


def test_clipping_scales_to_the_given_norm():
    grads = [np.array([3.0, 4.0]), np.array([[12.0]])]  # norm sqrt(9 + 16 + 144) = 13
    assert clip_by_global_norm(grads, 6.5) == 13.0
    np.testing.assert_allclose(grads[0], [1.5, 2.0], rtol=1e-15)
    np.testing.assert_allclose(grads[1], [[6.0]], rtol=1e-15)
    assert global_norm(grads) == pytest.approx(6.5, rel=1e-15)
    assert clip_by_global_norm(grads, 100.0) == pytest.approx(6.5)  # under the limit: unchanged
    np.testing.assert_allclose(grads[0], [1.5, 2.0], rtol=1e-15)


def test_adam_clips_before_updating():
    theta = np.array([0.0, 0.0])
    adam = Adam([theta], lr=0.1, max_grad_norm=1.0)
    grads = [np.array([30.0, 40.0])]
    assert adam.step(grads) == 50.0
    np.testing.assert_allclose(grads[0], [0.6, 0.8], rtol=1e-15)
    np.testing.assert_allclose(adam.m[0], [0.06, 0.08], rtol=1e-15)


def test_adam_lowers_a_small_model_s_loss():
    config = TransformerConfig(
        src_vocab_size=9,
        tgt_vocab_size=9,
        d_model=8,
        n_heads=2,
        d_ff=16,
        n_encoder_layers=1,
        n_decoder_layers=1,
    )
    params = init_params(config, np.random.default_rng(0))
    batch = teacher_forcing_batch([[3, 4, 5], [6, 7]], config)
    source = np.array([[5, 4, 3], [8, 7, 0]])
    adam = Adam(params, lr=0.01, max_grad_norm=5.0)
    first = None
    for _ in range(60):
        loss, grads = loss_and_gradients(source, batch.decoder_input, batch.labels, params, config)
        first = loss if first is None else first
        adam.step(grads)
    assert loss < first / 4
    assert len(adam.params) == len(leaves(params))
