"""Encoder and decoder stacks, the output softmax, and the teacher-forcing loss."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from engine.config import TransformerConfig
from engine.kv_cache import LayerCache
from engine.layers import (
    add_norm,
    causal_mask,
    embed,
    feed_forward,
    layer_norm,
    linear,
    log_softmax,
    multi_head_attention,
    padding_mask,
    positional_encoding,
    softmax,
)
from engine.params import DecoderLayerParams, EncoderLayerParams, TransformerParams
from engine.trace import Trace, record, scope

Array = np.ndarray


def embed_with_positions(
    ids: Array, table: Array, config: TransformerConfig, start: int = 0, trace: Trace | None = None
) -> Array:
    """X' = Embedding(ids) + PE, for ids of shape (b, n). Returns (b, n, d_model)."""
    x = embed(ids, table, config.scale_embeddings)  # (b, n, d_model)
    end = start + ids.shape[-1]
    table_size = max(64, 1 << int(end - 1).bit_length())  # a few sizes serve every decoding step
    pe = _positions_table(table_size, config.d_model, table.dtype)[start:end]
    x_prime = x + pe
    if trace is not None:
        record(trace, "embedding", x)
        record(trace, "positional", pe)
        record(trace, "input", x_prime)
    return x_prime


@functools.lru_cache(maxsize=16)
def _positions_table(n_positions: int, d_model: int, dtype: np.dtype) -> Array:
    """The positional encodings of positions 0 .. n_positions-1, computed once per size and
    shared by every caller (so read-only)."""
    table = positional_encoding(n_positions, d_model).astype(dtype)
    table.flags.writeable = False
    return table


def encoder_layer(
    x: Array,
    p: EncoderLayerParams,
    config: TransformerConfig,
    mask: Array | None = None,
    trace: Trace | None = None,
) -> Array:
    """x: (b, n, d_model) -> (b, n, d_model)."""
    attn = multi_head_attention(x, x, p.self_attn, config.n_heads, mask, scope(trace, "self_attn"))
    x = add_norm(x, attn, p.norm1, config.layer_norm_eps, scope(trace, "norm1"))
    ffn = feed_forward(x, p.ffn, scope(trace, "ffn"))
    return add_norm(x, ffn, p.norm2, config.layer_norm_eps, scope(trace, "norm2"))


def decoder_layer(
    y: Array,
    memory: Array | None,
    p: DecoderLayerParams,
    config: TransformerConfig,
    self_mask: Array | None = None,
    memory_mask: Array | None = None,
    trace: Trace | None = None,
    cache: LayerCache | None = None,
) -> Array:
    """y: (b, t, d_model) decoder states; memory: (b, m, d_model) encoder output.

    With a `cache`, y holds only the new positions: their keys and values are appended to the
    cached ones, and the cross-attention keys and values come from the cache, not `memory`.
    """
    self_kv = cache.extend_self(y, p.self_attn, config.n_heads) if cache is not None else None
    attn = multi_head_attention(
        y, y, p.self_attn, config.n_heads, self_mask, scope(trace, "self_attn"), kv=self_kv
    )
    y = add_norm(y, attn, p.norm1, config.layer_norm_eps, scope(trace, "norm1"))
    cross_kv = cache.cross if cache is not None else None
    cross = multi_head_attention(
        y, memory, p.cross_attn, config.n_heads, memory_mask, scope(trace, "cross_attn"), cross_kv
    )
    y = add_norm(y, cross, p.norm2, config.layer_norm_eps, scope(trace, "norm2"))
    ffn = feed_forward(y, p.ffn, scope(trace, "ffn"))
    return add_norm(y, ffn, p.norm3, config.layer_norm_eps, scope(trace, "norm3"))


def source_mask(src_ids: Array, config: TransformerConfig) -> Array | None:
    """(b, 1, 1, m) key-padding mask of the source, or None when nothing is padding."""
    if config.pad_id is None or not np.any(src_ids == config.pad_id):
        return None
    return padding_mask(src_ids, config.pad_id)


def target_mask(tgt_ids: Array, config: TransformerConfig) -> Array:
    """(b, 1, t, t): causal, and no attending to padding."""
    mask = causal_mask(tgt_ids.shape[-1])[None, None]  # (1, 1, t, t)
    if config.pad_id is not None and np.any(tgt_ids == config.pad_id):
        mask = mask & padding_mask(tgt_ids, config.pad_id)
    return mask


def encode(
    src_ids: Array,
    params: TransformerParams,
    config: TransformerConfig,
    src_mask: Array | None = None,
    trace: Trace | None = None,
) -> Array:
    """Source ids (b, n) -> encoder output ("memory") (b, n, d_model)."""
    src_ids = as_batch(src_ids)
    x = embed_with_positions(src_ids, params.src_embedding, config, trace=scope(trace, "encoder"))
    for i, layer in enumerate(params.encoder_layers):
        x = encoder_layer(x, layer, config, src_mask, scope(trace, f"encoder.{i}"))
    if params.encoder_norm is not None:
        x = layer_norm(x, params.encoder_norm, config.layer_norm_eps)
    if trace is not None:
        record(trace, "encoder.output", x)
    return x


def decode(
    tgt_ids: Array,
    memory: Array,
    params: TransformerParams,
    config: TransformerConfig,
    memory_mask: Array | None = None,
    trace: Trace | None = None,
    self_mask: Array | None = None,
) -> Array:
    """Decoder input ids (b, t) and memory (b, m, d_model) -> logits (b, t, tgt_vocab).

    `self_mask` defaults to causal plus target key padding.
    """
    tgt_ids = as_batch(tgt_ids)
    y = embed_with_positions(tgt_ids, params.tgt_embedding, config, trace=scope(trace, "decoder"))
    if self_mask is None:
        self_mask = target_mask(tgt_ids, config)
    for i, layer in enumerate(params.decoder_layers):
        y = decoder_layer(
            y, memory, layer, config, self_mask, memory_mask, scope(trace, f"decoder.{i}")
        )
    return output_logits(y, params, config, trace)


def output_logits(
    y: Array, params: TransformerParams, config: TransformerConfig, trace: Trace | None = None
) -> Array:
    """The final linear layer: decoder output y (b, t, d_model) -> logits (b, t, tgt_vocab)."""
    if params.decoder_norm is not None:
        y = layer_norm(y, params.decoder_norm, config.layer_norm_eps)
    logits = linear(y, params.w_out, params.b_out)  # (b, t, tgt_vocab)
    if trace is not None:
        record(trace, "decoder.output", y)
        record(trace, "logits", logits)
        record(trace, "probs", softmax(logits))
    return logits


def forward(
    src_ids: Array,
    tgt_ids: Array,
    params: TransformerParams,
    config: TransformerConfig,
    trace: Trace | None = None,
) -> Array:
    """One parallel pass over the whole target: logits for every decoder position.

    Source ids (b, m) and decoder input ids (b, t) -> logits (b, t, tgt_vocab).
    (`engine.shards.parallel_forward` runs this on slices of a large batch at once, for speed.)
    """
    src_ids, tgt_ids = as_batches(src_ids, tgt_ids)
    memory_mask = source_mask(src_ids, config)  # (b, 1, 1, m), or None
    memory = encode(src_ids, params, config, memory_mask, trace)  # (b, m, d_model)
    return decode(tgt_ids, memory, params, config, memory_mask, trace)


@dataclass(frozen=True)
class TeacherForcingBatch:
    decoder_input: Array  # (b, t+1): <s> + target, padded
    labels: Array  # (b, t+1): target + <eos>, padded


def teacher_forcing_batch(
    targets: list[list[int]], config: TransformerConfig
) -> TeacherForcingBatch:
    """Decoder input = <s> + target, labels = target + <eos>; shorter targets padded with <pad>."""
    for name in ("bos_id", "eos_id", "pad_id"):
        if getattr(config, name) is None:
            raise ValueError(f"teacher forcing needs a {name} in the config")
    if not targets:
        raise ValueError("teacher forcing needs at least one target sequence")
    width = max(len(t) for t in targets) + 1
    decoder_input = np.full((len(targets), width), config.pad_id, dtype=np.int64)
    labels = np.full((len(targets), width), config.pad_id, dtype=np.int64)
    for row, target in enumerate(targets):
        decoder_input[row, : len(target) + 1] = [config.bos_id, *target]
        labels[row, : len(target) + 1] = [*target, config.eos_id]
    return TeacherForcingBatch(decoder_input, labels)


def cross_entropy(logits: Array, labels: Array, pad_id: int | None) -> float:
    """Mean of -log p(label) over the positions whose label is not padding."""
    logp = log_softmax(logits.astype(np.float64))  # (b, t, vocab)
    picked = np.take_along_axis(logp, labels[..., None], axis=-1)[..., 0]  # (b, t)
    keep = np.ones(labels.shape, dtype=bool) if pad_id is None else labels != pad_id
    if not keep.any():
        raise ValueError("every label is padding: the loss is undefined")
    return float(-picked[keep].mean())


def teacher_forcing_loss(
    src_ids: Array,
    targets: list[list[int]],
    params: TransformerParams,
    config: TransformerConfig,
    trace: Trace | None = None,
) -> tuple[float, Array, TeacherForcingBatch]:
    """The training path: all target positions in one pass. Returns (loss, logits, batch)."""
    batch = teacher_forcing_batch(targets, config)
    logits = forward(src_ids, batch.decoder_input, params, config, trace)
    return cross_entropy(logits, batch.labels, config.pad_id), logits, batch


def as_batches(src_ids: Array, tgt_ids: Array) -> tuple[Array, Array]:
    """Source and target ids as batches (b, m) and (b, t) of the same b."""
    src_ids, tgt_ids = as_batch(src_ids), as_batch(tgt_ids)
    if src_ids.shape[0] != tgt_ids.shape[0]:
        raise ValueError(
            f"source and target batches differ: {src_ids.shape[0]} and {tgt_ids.shape[0]} sequences"
        )
    return src_ids, tgt_ids


def as_batch(ids: Array) -> Array:
    ids = np.asarray(ids)
    if ids.ndim == 1:
        return ids[None, :]
    if ids.ndim != 2:
        raise ValueError(f"token ids must have shape (batch, length), got {ids.shape}")
    return ids
