"""The fused forward of benchmarks/fused_reference.py against the engine's own forward, which is
the independent formulation of the same pass. numba (and numexpr, for its variant) is not a
dependency: skipped without it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from engine import (
    LayerNormParams,
    TransformerConfig,
    TransformerParams,
    apply_mask,
    causal_mask,
    init_params,
    softmax,
)
from engine.shards import parallel_forward

pytest.importorskip("numba")

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "fused_reference.py"


@pytest.fixture(scope="module")
def fused():
    spec = importlib.util.spec_from_file_location("fused_reference", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def padded_batch(config: TransformerConfig, rng: np.random.Generator):
    """Source and target ids with padding: a padded source tail, a padded target tail, and a
    target whose first position is padding (its first query may attend to nothing)."""
    src = rng.integers(3, config.src_vocab_size, size=(4, 7))
    tgt = rng.integers(3, config.tgt_vocab_size, size=(4, 6))
    src[0, 3:] = config.pad_id
    tgt[1, 4:] = config.pad_id
    tgt[2, 0] = config.pad_id
    return src, tgt


def with_random_norms(params: TransformerParams, rng: np.random.Generator) -> TransformerParams:
    """init_params starts every LayerNorm at gain 1, bias 0, and the output bias at 0, where
    leaving one out would not show."""
    layers = [*params.encoder_layers, *params.decoder_layers]
    norms = [n for layer in layers for n in vars(layer).values() if isinstance(n, LayerNormParams)]
    for norm in [*norms, params.encoder_norm, params.decoder_norm]:
        if norm is not None:
            norm.gain[...] = rng.uniform(0.5, 1.5, norm.gain.shape)
            norm.bias[...] = rng.uniform(-0.5, 0.5, norm.bias.shape)
    params.b_out[...] = rng.uniform(-0.5, 0.5, params.b_out.shape)
    return params


@pytest.mark.parametrize(
    "options",
    [
        {},
        # a large eps, so that a LayerNorm leaving it out would show
        {
            "scale_embeddings": True,
            "final_norm": True,
            "attention_bias": False,
            "layer_norm_eps": 0.1,
        },
    ],
    ids=["paper", "scaled-final-norm-no-attention-bias"],
)
@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("variant", ["NUMBA", "NUMEXPR"])
def test_the_fused_forward_gives_the_engine_s_logits(fused, options, workers, variant):
    if variant == "NUMEXPR":
        pytest.importorskip("numexpr")
    config = TransformerConfig(
        src_vocab_size=11,
        tgt_vocab_size=13,
        d_model=16,
        n_heads=2,
        d_ff=24,
        n_encoder_layers=2,
        n_decoder_layers=2,
        dtype="float32",
        **options,
    )
    rng = np.random.default_rng(0)
    params = with_random_norms(init_params(config, rng), rng)
    src, tgt = padded_batch(config, rng)
    expected = parallel_forward(src, tgt, params, config, workers=workers)
    logits = fused.fused_forward(
        src, tgt, params, config, workers=workers, kernels=getattr(fused, variant)
    )
    assert logits.dtype == np.float32
    np.testing.assert_allclose(logits, expected, rtol=1e-5, atol=1e-5 * np.abs(expected).max())


@pytest.mark.parametrize("causal", [True, False])
def test_the_softmax_kernel_leaves_out_masked_scores_however_large(fused, causal):
    b, h, n = 2, 3, 5
    rng = np.random.default_rng(1)
    # (b, h, m, n), key-major; this large, e^x stays in range only shifted by the scaled peak
    scores = (rng.standard_normal((b, h, n, n)) + 200).astype(np.float32)
    keep = np.ones((b, n), dtype=bool)
    keep[1, 0] = keep[1, 3] = False  # with causal, batch 1's first query may attend to nothing
    mask = keep[:, None, None, :]  # (b, 1, 1, m): may attend
    if causal:
        mask = mask & causal_mask(n)[None, None]  # (b, 1, n, m)
    query_major = scores.swapaxes(-1, -2)  # (b, h, n, m), a view
    # a masked score this large would swamp the others if it entered the softmax's peak
    np.copyto(query_major, np.float32(1e4), where=~mask)
    scale = 1.0 / np.sqrt(8.0)
    expected = softmax(apply_mask(query_major * np.float32(scale), mask))
    fused.scaled_masked_softmax(scores, np.float32(scale), causal, keep)
    np.testing.assert_allclose(query_major, expected, rtol=1e-6, atol=1e-7)
    assert (expected[1, :, 0] == 0).all() == causal  # the query with nothing to attend to


def test_the_vectorizable_exp_is_within_about_one_ulp(fused):
    x = np.linspace(-87, 0, 20_001).astype(np.float32)
    got = np.array([fused.exp_nonpositive(value) for value in x], dtype=np.float32)
    # against float64's exp: float32's own rounding is 6e-8 at most
    np.testing.assert_allclose(got, np.exp(x.astype(np.float64)), rtol=1.5e-7)
