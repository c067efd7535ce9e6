"""The whole encoder-decoder's gradient: a forward that keeps what the backward needs, and a
backward that returns the gradients in the parameters' own structure (`TransformerParams`).

`forward_with_cache` computes the logits `engine.model.forward` computes; `backward` walks the
same steps in reverse, layer by layer, with the gradients of `engine.backward`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.backward import (
    AttentionCache,
    FeedForwardCache,
    LayerNormCache,
    add_norm_backward,
    add_norm_forward,
    cross_entropy_forward_backward,
    embed_backward,
    feed_forward_backward,
    feed_forward_forward,
    layer_norm_backward,
    layer_norm_forward,
    linear_backward,
    multi_head_attention_backward,
    multi_head_attention_forward,
)
from engine.config import TransformerConfig
from engine.layers import linear
from engine.model import as_batches, embed_with_positions, source_mask, target_mask
from engine.params import DecoderLayerParams, EncoderLayerParams, TransformerParams

Array = np.ndarray


@dataclass
class EncoderLayerCache:
    self_attn: AttentionCache
    norm1: LayerNormCache
    ffn: FeedForwardCache
    norm2: LayerNormCache


@dataclass
class DecoderLayerCache:
    self_attn: AttentionCache
    norm1: LayerNormCache
    cross_attn: AttentionCache
    norm2: LayerNormCache
    ffn: FeedForwardCache
    norm3: LayerNormCache


@dataclass
class ForwardCache:
    """What `backward` needs of one forward pass: the ids, the parameters and each step's cache."""

    src_ids: Array  # (b, m)
    tgt_ids: Array  # (b, t)
    params: TransformerParams
    config: TransformerConfig
    encoder_layers: list[EncoderLayerCache] = field(default_factory=list)
    decoder_layers: list[DecoderLayerCache] = field(default_factory=list)
    encoder_norm: LayerNormCache | None = None
    decoder_norm: LayerNormCache | None = None
    decoder_output: Array | None = None  # (b, t, d_model): the input of the output projection


def encoder_layer_forward(
    x: Array, p: EncoderLayerParams, config: TransformerConfig, mask: Array | None
) -> tuple[Array, EncoderLayerCache]:
    """`engine.model.encoder_layer`, keeping each sublayer's cache. x: (b, n, d_model)."""
    eps = config.layer_norm_eps
    attn, attn_cache = multi_head_attention_forward(x, x, p.self_attn, config.n_heads, mask)
    x, norm1 = add_norm_forward(x, attn, p.norm1, eps)
    ffn, ffn_cache = feed_forward_forward(x, p.ffn)
    x, norm2 = add_norm_forward(x, ffn, p.norm2, eps)
    return x, EncoderLayerCache(attn_cache, norm1, ffn_cache, norm2)


def encoder_layer_backward(
    cache: EncoderLayerCache, p: EncoderLayerParams, d_out: Array
) -> tuple[Array, EncoderLayerParams]:
    """d x_out (b, n, d_model) -> (d x_in, the layer's gradients)."""
    d_sum2, d_norm2 = add_norm_backward(cache.norm2, p.norm2, d_out)
    d_x1, d_ffn = feed_forward_backward(cache.ffn, p.ffn, d_sum2)
    d_x1 += d_sum2  # the residual
    d_sum1, d_norm1 = add_norm_backward(cache.norm1, p.norm1, d_x1)
    d_x_q, d_x_kv, d_attn = multi_head_attention_backward(cache.self_attn, p.self_attn, d_sum1)
    d_x = d_sum1 + d_x_q + d_x_kv  # residual, queries, keys and values all read x
    return d_x, EncoderLayerParams(d_attn, d_norm1, d_ffn, d_norm2)


def decoder_layer_forward(
    y: Array,
    memory: Array,
    p: DecoderLayerParams,
    config: TransformerConfig,
    self_mask: Array | None,
    memory_mask: Array | None,
) -> tuple[Array, DecoderLayerCache]:
    """`engine.model.decoder_layer` (without the decoding cache), keeping each sublayer's."""
    eps, h = config.layer_norm_eps, config.n_heads
    attn, self_cache = multi_head_attention_forward(y, y, p.self_attn, h, self_mask)
    y, norm1 = add_norm_forward(y, attn, p.norm1, eps)
    cross, cross_cache = multi_head_attention_forward(y, memory, p.cross_attn, h, memory_mask)
    y, norm2 = add_norm_forward(y, cross, p.norm2, eps)
    ffn, ffn_cache = feed_forward_forward(y, p.ffn)
    y, norm3 = add_norm_forward(y, ffn, p.norm3, eps)
    return y, DecoderLayerCache(self_cache, norm1, cross_cache, norm2, ffn_cache, norm3)


def decoder_layer_backward(
    cache: DecoderLayerCache, p: DecoderLayerParams, d_out: Array
) -> tuple[Array, Array, DecoderLayerParams]:
    """d y_out (b, t, d_model) -> (d y_in, d memory (b, m, d_model), the layer's gradients)."""
    d_sum3, d_norm3 = add_norm_backward(cache.norm3, p.norm3, d_out)
    d_y2, d_ffn = feed_forward_backward(cache.ffn, p.ffn, d_sum3)
    d_y2 += d_sum3
    d_sum2, d_norm2 = add_norm_backward(cache.norm2, p.norm2, d_y2)
    d_y1, d_memory, d_cross = multi_head_attention_backward(cache.cross_attn, p.cross_attn, d_sum2)
    d_y1 += d_sum2
    d_sum1, d_norm1 = add_norm_backward(cache.norm1, p.norm1, d_y1)
    d_y_q, d_y_kv, d_self = multi_head_attention_backward(cache.self_attn, p.self_attn, d_sum1)
    d_y = d_sum1 + d_y_q + d_y_kv
    return d_y, d_memory, DecoderLayerParams(d_self, d_norm1, d_cross, d_norm2, d_ffn, d_norm3)


def forward_with_cache(
    src_ids: Array, tgt_ids: Array, params: TransformerParams, config: TransformerConfig
) -> tuple[Array, ForwardCache]:
    """`engine.model.forward`: source ids (b, m) and decoder input ids (b, t) -> logits
    (b, t, tgt_vocab), and the cache `backward` needs."""
    src_ids, tgt_ids = as_batches(src_ids, tgt_ids)
    cache = ForwardCache(src_ids, tgt_ids, params, config)
    memory_mask = source_mask(src_ids, config)  # (b, 1, 1, m), or None
    x = embed_with_positions(src_ids, params.src_embedding, config)  # (b, m, d_model)
    for layer in params.encoder_layers:
        x, layer_cache = encoder_layer_forward(x, layer, config, memory_mask)
        cache.encoder_layers.append(layer_cache)
    if params.encoder_norm is not None:
        x, cache.encoder_norm = layer_norm_forward(x, params.encoder_norm, config.layer_norm_eps)
    memory = x
    y = embed_with_positions(tgt_ids, params.tgt_embedding, config)  # (b, t, d_model)
    self_mask = target_mask(tgt_ids, config)  # (b, 1, t, t)
    for layer in params.decoder_layers:
        y, layer_cache = decoder_layer_forward(y, memory, layer, config, self_mask, memory_mask)
        cache.decoder_layers.append(layer_cache)
    if params.decoder_norm is not None:
        y, cache.decoder_norm = layer_norm_forward(y, params.decoder_norm, config.layer_norm_eps)
    cache.decoder_output = y
    return linear(y, params.w_out, params.b_out), cache  # (b, t, tgt_vocab)


def backward(cache: ForwardCache, d_logits: Array) -> TransformerParams:
    """d logits (b, t, tgt_vocab) -> the gradient of every parameter, as a `TransformerParams`
    of the same shape as the model's (None where the model has None)."""
    params, config = cache.params, cache.config
    d_y, d_w_out, d_b_out = linear_backward(
        cache.decoder_output, params.w_out, d_logits, params.b_out is not None
    )
    d_decoder_norm = None
    if cache.decoder_norm is not None:
        d_y, d_decoder_norm = layer_norm_backward(cache.decoder_norm, params.decoder_norm, d_y)
    d_memory = 0.0
    d_decoder_layers = []
    for layer_cache, layer in zip(
        reversed(cache.decoder_layers), reversed(params.decoder_layers), strict=True
    ):
        d_y, d_mem, d_layer = decoder_layer_backward(layer_cache, layer, d_y)
        d_memory = d_memory + d_mem
        d_decoder_layers.insert(0, d_layer)
    d_tgt_embedding = embed_backward(
        cache.tgt_ids, d_y, config.tgt_vocab_size, config.scale_embeddings
    )
    # with no decoder layers the memory reaches nothing, and gets no gradient
    d_x = np.zeros((*cache.src_ids.shape, config.d_model), config.np_dtype) + d_memory  # (b, m, d)
    d_encoder_norm = None
    if cache.encoder_norm is not None:
        d_x, d_encoder_norm = layer_norm_backward(cache.encoder_norm, params.encoder_norm, d_x)
    d_encoder_layers = []
    for layer_cache, layer in zip(
        reversed(cache.encoder_layers), reversed(params.encoder_layers), strict=True
    ):
        d_x, d_layer = encoder_layer_backward(layer_cache, layer, d_x)
        d_encoder_layers.insert(0, d_layer)
    d_src_embedding = embed_backward(
        cache.src_ids, d_x, config.src_vocab_size, config.scale_embeddings
    )
    return TransformerParams(
        src_embedding=d_src_embedding,
        tgt_embedding=d_tgt_embedding,
        encoder_layers=d_encoder_layers,
        decoder_layers=d_decoder_layers,
        w_out=d_w_out,
        b_out=d_b_out,
        encoder_norm=d_encoder_norm,
        decoder_norm=d_decoder_norm,
    )


def loss_and_gradients(
    src_ids: Array,
    decoder_input: Array,
    labels: Array,
    params: TransformerParams,
    config: TransformerConfig,
    smoothing: float = 0.0,
) -> tuple[float, TransformerParams]:
    """One training step's numbers: the teacher-forcing loss (label-smoothed by ε_ls =
    `smoothing`, padding labels ignored) and the gradient of every parameter."""
    logits, cache = forward_with_cache(src_ids, decoder_input, params, config)
    loss, d_logits = cross_entropy_forward_backward(
        logits, np.asarray(labels), config.pad_id, smoothing
    )
    return loss, backward(cache, d_logits)
