"""Parameters from a PyTorch state_dict, given as a dict of numpy arrays (torch not needed).

PyTorch's `nn.Linear` computes y = x Wᵀ + b with `weight` of shape (d_out, d_in); the engine
uses y = x W + b, so every weight is transposed here. `nn.MultiheadAttention` stacks W_q, W_k,
W_v as the rows of `in_proj_weight` (3·d_model, d_model). Only post-LN layers with ReLU
(PyTorch's defaults, `norm_first=False`, `activation="relu"`) compute what the engine computes;
a state_dict does not record those options, so the caller must know them.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from engine.config import TransformerConfig
from engine.params import (
    AttentionParams,
    DecoderLayerParams,
    EncoderLayerParams,
    FeedForwardParams,
    LayerNormParams,
    TransformerParams,
)

Array = np.ndarray


class StateDictError(ValueError):
    """A state_dict is missing keys, has unexpected ones, or has arrays of the wrong shape."""


class _Reader:
    """Takes arrays out of a state_dict by key, checking shapes, remembering what was used."""

    def __init__(self, state_dict: Mapping[str, object], dtype) -> None:
        self.state = state_dict
        self.dtype = dtype
        self.used: set[str] = set()

    def has(self, key: str) -> bool:
        return key in self.state

    def get(self, key: str, shape: tuple[int, ...]) -> Array:
        if key not in self.state:
            raise StateDictError(f"missing key {key!r}")
        array = np.asarray(self.state[key], dtype=self.dtype)
        if array.shape != shape:
            raise StateDictError(f"{key!r} has shape {array.shape}, expected {shape}")
        self.used.add(key)
        return array

    def optional(self, key: str, shape: tuple[int, ...]) -> Array | None:
        return self.get(key, shape) if key in self.state else None

    def check_all_used(self, prefix: str) -> None:
        unexpected = sorted(k for k in self.state if k.startswith(prefix) and k not in self.used)
        if unexpected:
            raise StateDictError(f"unexpected keys: {', '.join(unexpected)}")


def _engine_weight(torch_weight: Array) -> Array:
    """PyTorch's (out, in) weight as the engine's (in, out) one: its transpose, copied so that it
    keeps PyTorch's memory layout (column-major to the engine, see `engine.params`)."""
    return torch_weight.T.copy(order="F")


def _attention(r: _Reader, prefix: str, d: int) -> AttentionParams:
    if r.has(prefix + "in_proj_weight"):
        w_q, w_k, w_v = np.split(r.get(prefix + "in_proj_weight", (3 * d, d)), 3)
    else:  # _qkv_same_embed_dim=False keeps three separate matrices
        w_q, w_k, w_v = (r.get(f"{prefix}{n}_proj_weight", (d, d)) for n in "qkv")
    in_bias = r.optional(prefix + "in_proj_bias", (3 * d,))
    b_q, b_k, b_v = np.split(in_bias, 3) if in_bias is not None else (None, None, None)
    return AttentionParams(
        w_q=_engine_weight(w_q),
        w_k=_engine_weight(w_k),
        w_v=_engine_weight(w_v),
        w_o=_engine_weight(r.get(prefix + "out_proj.weight", (d, d))),
        b_q=b_q,
        b_k=b_k,
        b_v=b_v,
        b_o=r.optional(prefix + "out_proj.bias", (d,)),
    )


def _norm(r: _Reader, prefix: str, d: int) -> LayerNormParams:
    return LayerNormParams(gain=r.get(prefix + "weight", (d,)), bias=r.get(prefix + "bias", (d,)))


def _feed_forward(r: _Reader, prefix: str, d: int, d_ff: int) -> FeedForwardParams:
    return FeedForwardParams(
        w_1=_engine_weight(r.get(prefix + "linear1.weight", (d_ff, d))),
        b_1=r.get(prefix + "linear1.bias", (d_ff,)),
        w_2=_engine_weight(r.get(prefix + "linear2.weight", (d, d_ff))),
        b_2=r.get(prefix + "linear2.bias", (d,)),
    )


def _encoder_layer(r: _Reader, prefix: str, config: TransformerConfig) -> EncoderLayerParams:
    d, f = config.d_model, config.d_ff
    return EncoderLayerParams(
        self_attn=_attention(r, prefix + "self_attn.", d),
        norm1=_norm(r, prefix + "norm1.", d),
        ffn=_feed_forward(r, prefix, d, f),
        norm2=_norm(r, prefix + "norm2.", d),
    )


def _decoder_layer(r: _Reader, prefix: str, config: TransformerConfig) -> DecoderLayerParams:
    d, f = config.d_model, config.d_ff
    return DecoderLayerParams(
        self_attn=_attention(r, prefix + "self_attn.", d),
        norm1=_norm(r, prefix + "norm1.", d),
        cross_attn=_attention(r, prefix + "multihead_attn.", d),
        norm2=_norm(r, prefix + "norm2.", d),
        ffn=_feed_forward(r, prefix, d, f),
        norm3=_norm(r, prefix + "norm3.", d),
    )


def multi_head_attention_from_torch(
    state_dict: Mapping[str, object], d_model: int, dtype=np.float64
) -> AttentionParams:
    """From `nn.MultiheadAttention(d_model, h).state_dict()`."""
    r = _Reader(state_dict, dtype)
    params = _attention(r, "", d_model)
    r.check_all_used("")
    return params


def encoder_layer_from_torch(
    state_dict: Mapping[str, object], config: TransformerConfig
) -> EncoderLayerParams:
    """From `nn.TransformerEncoderLayer(d_model, h, d_ff).state_dict()`."""
    r = _Reader(state_dict, config.np_dtype)
    params = _encoder_layer(r, "", config)
    r.check_all_used("")
    return params


def decoder_layer_from_torch(
    state_dict: Mapping[str, object], config: TransformerConfig
) -> DecoderLayerParams:
    """From `nn.TransformerDecoderLayer(d_model, h, d_ff).state_dict()`."""
    r = _Reader(state_dict, config.np_dtype)
    params = _decoder_layer(r, "", config)
    r.check_all_used("")
    return params


def transformer_from_torch(
    state_dict: Mapping[str, object],
    config: TransformerConfig,
    *,
    src_embedding: Array,
    tgt_embedding: Array,
    w_out: Array,
    b_out: Array | None = None,
    prefix: str = "",
) -> TransformerParams:
    """From `nn.Transformer(...).state_dict()` (keys under `prefix`, e.g. "transformer.").

    nn.Transformer has no embeddings or output layer, so they are passed in the engine's own
    layout: embeddings (vocab, d_model), w_out (d_model, tgt_vocab). Its final LayerNorms
    (`encoder.norm`, `decoder.norm`) are loaded when present; `config.final_norm` must agree.
    """
    r = _Reader(state_dict, config.np_dtype)
    d = config.d_model
    encoder_layers = [
        _encoder_layer(r, f"{prefix}encoder.layers.{i}.", config)
        for i in range(config.n_encoder_layers)
    ]
    decoder_layers = [
        _decoder_layer(r, f"{prefix}decoder.layers.{i}.", config)
        for i in range(config.n_decoder_layers)
    ]
    has_norms = r.has(f"{prefix}encoder.norm.weight") or r.has(f"{prefix}decoder.norm.weight")
    if has_norms != config.final_norm:
        raise StateDictError(
            f"the state_dict {'has' if has_norms else 'has no'} final encoder/decoder norms "
            f"but config.final_norm is {config.final_norm}"
        )
    encoder_norm = _norm(r, f"{prefix}encoder.norm.", d) if has_norms else None
    decoder_norm = _norm(r, f"{prefix}decoder.norm.", d) if has_norms else None
    r.check_all_used(prefix)
    extra = {
        "src_embedding": (src_embedding, (config.src_vocab_size, d)),
        "tgt_embedding": (tgt_embedding, (config.tgt_vocab_size, d)),
        "w_out": (w_out, (d, config.tgt_vocab_size)),
    }
    if b_out is not None:
        extra["b_out"] = (b_out, (config.tgt_vocab_size,))
    arrays = _Reader({name: array for name, (array, _) in extra.items()}, config.np_dtype)
    converted = {name: arrays.get(name, shape) for name, (_, shape) in extra.items()}
    converted["w_out"] = converted["w_out"].copy(order="F")  # as every weight matrix here
    return TransformerParams(
        encoder_layers=encoder_layers,
        decoder_layers=decoder_layers,
        encoder_norm=encoder_norm,
        decoder_norm=decoder_norm,
        b_out=converted.pop("b_out", None),
        **converted,
    )
