"""Parameters as plain dataclasses of arrays, and their initialisation.

Row-vector convention, as in the chapter: a linear layer is `y = x @ w + b` with `w` of shape
(d_in, d_out). (PyTorch stores the transpose; see `engine.torch_weights`.) The weight matrices
made here and by `engine.torch_weights` are column-major in memory, i.e. laid out as PyTorch's
(d_out, d_in) rows, which decoding reads fastest (`engine.layers.FEW_ROWS`); any layout computes
the same.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.config import TransformerConfig

Array = np.ndarray


@dataclass
class AttentionParams:
    w_q: Array  # (d_model, d_model)
    w_k: Array  # (d_model, d_model)
    w_v: Array  # (d_model, d_model)
    w_o: Array  # (d_model, d_model)
    b_q: Array | None = None  # (d_model,)
    b_k: Array | None = None
    b_v: Array | None = None
    b_o: Array | None = None


@dataclass
class LayerNormParams:
    gain: Array  # (d_model,)  gamma
    bias: Array  # (d_model,)  beta


@dataclass
class FeedForwardParams:
    w_1: Array  # (d_model, d_ff)
    b_1: Array  # (d_ff,)
    w_2: Array  # (d_ff, d_model)
    b_2: Array  # (d_model,)


@dataclass
class EncoderLayerParams:
    self_attn: AttentionParams
    norm1: LayerNormParams
    ffn: FeedForwardParams
    norm2: LayerNormParams


@dataclass
class DecoderLayerParams:
    self_attn: AttentionParams
    norm1: LayerNormParams
    cross_attn: AttentionParams
    norm2: LayerNormParams
    ffn: FeedForwardParams
    norm3: LayerNormParams


@dataclass
class TransformerParams:
    src_embedding: Array  # (src_vocab, d_model)
    tgt_embedding: Array  # (tgt_vocab, d_model)
    encoder_layers: list[EncoderLayerParams]
    decoder_layers: list[DecoderLayerParams]
    w_out: Array  # (d_model, tgt_vocab)
    b_out: Array | None = None  # (tgt_vocab,)
    encoder_norm: LayerNormParams | None = None
    decoder_norm: LayerNormParams | None = None


def _glorot(rng: np.random.Generator, d_in: int, d_out: int, dtype) -> Array:
    limit = np.sqrt(6.0 / (d_in + d_out))
    # column-major, as PyTorch stores a Linear's (out, in) weight: see layers.FEW_ROWS
    return rng.uniform(-limit, limit, size=(d_in, d_out)).astype(dtype, order="F")


def _small(rng: np.random.Generator, size: int, dtype) -> Array:
    return rng.normal(0.0, 0.02, size=size).astype(dtype)


def init_attention(rng: np.random.Generator, config: TransformerConfig) -> AttentionParams:
    d, dt = config.d_model, config.np_dtype
    weights = [_glorot(rng, d, d, dt) for _ in range(4)]
    biases = [_small(rng, d, dt) if config.attention_bias else None for _ in range(4)]
    return AttentionParams(*weights, *biases)


def init_layer_norm(config: TransformerConfig) -> LayerNormParams:
    d, dt = config.d_model, config.np_dtype
    return LayerNormParams(gain=np.ones(d, dtype=dt), bias=np.zeros(d, dtype=dt))


def init_feed_forward(rng: np.random.Generator, config: TransformerConfig) -> FeedForwardParams:
    d, f, dt = config.d_model, config.d_ff, config.np_dtype
    return FeedForwardParams(
        w_1=_glorot(rng, d, f, dt),
        b_1=_small(rng, f, dt),
        w_2=_glorot(rng, f, d, dt),
        b_2=_small(rng, d, dt),
    )


def init_params(config: TransformerConfig, rng: np.random.Generator) -> TransformerParams:
    """Random parameters drawn from `rng` (never from numpy's global state)."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError("rng must be a numpy.random.Generator, e.g. numpy.random.default_rng(0)")
    d, dt = config.d_model, config.np_dtype
    encoder_layers = [
        EncoderLayerParams(
            self_attn=init_attention(rng, config),
            norm1=init_layer_norm(config),
            ffn=init_feed_forward(rng, config),
            norm2=init_layer_norm(config),
        )
        for _ in range(config.n_encoder_layers)
    ]
    decoder_layers = [
        DecoderLayerParams(
            self_attn=init_attention(rng, config),
            norm1=init_layer_norm(config),
            cross_attn=init_attention(rng, config),
            norm2=init_layer_norm(config),
            ffn=init_feed_forward(rng, config),
            norm3=init_layer_norm(config),
        )
        for _ in range(config.n_decoder_layers)
    ]
    return TransformerParams(
        src_embedding=rng.normal(0.0, d**-0.5, size=(config.src_vocab_size, d)).astype(dt),
        tgt_embedding=rng.normal(0.0, d**-0.5, size=(config.tgt_vocab_size, d)).astype(dt),
        encoder_layers=encoder_layers,
        decoder_layers=decoder_layers,
        w_out=_glorot(rng, d, config.tgt_vocab_size, dt),
        b_out=np.zeros(config.tgt_vocab_size, dtype=dt) if config.output_bias else None,
        encoder_norm=init_layer_norm(config) if config.final_norm else None,
        decoder_norm=init_layer_norm(config) if config.final_norm else None,
    )
