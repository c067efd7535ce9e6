"""The inference path: greedy autoregressive decoding, with or without a KV cache."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.config import TransformerConfig
from engine.layers import AttentionParams, causal_mask, project_kv
from engine.model import (
    as_batch,
    decode,
    decoder_layer,
    embed_with_positions,
    encode,
    output_logits,
    source_mask,
)
from engine.params import TransformerParams

Array = np.ndarray


@dataclass
class LayerCache:
    """One decoder layer's cache.

    Self-attention keys and values grow by one row per generated token (written into a
    preallocated buffer, so a step costs the same however long the output is); the
    cross-attention keys and values depend only on the encoder output, so they are computed once.
    """

    self_k: Array  # (b, h, capacity, d_k)
    self_v: Array  # (b, h, capacity, d_k)
    cross: tuple[Array, Array]  # (b, h, m, d_k) each
    length: int = 0

    @classmethod
    def create(
        cls, memory: Array, cross_attn: AttentionParams, config: TransformerConfig, capacity: int
    ) -> LayerCache:
        b, h = memory.shape[0], config.n_heads
        shape = (b, h, capacity, config.d_k)
        return cls(
            self_k=np.empty(shape, dtype=memory.dtype),
            self_v=np.empty(shape, dtype=memory.dtype),
            cross=project_kv(memory, cross_attn, h),
        )

    def extend_self(self, y: Array, p: AttentionParams, n_heads: int) -> tuple[Array, Array]:
        """Append the keys and values of the new positions y (b, t, d_model); return all so far."""
        k_new, v_new = project_kv(y, p, n_heads)  # (b, h, t, d_k)
        end = self.length + k_new.shape[2]
        if end > self.self_k.shape[2]:
            raise ValueError(f"KV cache holds {self.self_k.shape[2]} positions, asked for {end}")
        self.self_k[:, :, self.length : end] = k_new
        self.self_v[:, :, self.length : end] = v_new
        self.length = end
        return self.self_k[:, :, :end], self.self_v[:, :, :end]


@dataclass(frozen=True)
class GreedyResult:
    tokens: Array  # (b, steps): generated ids; after <eos>, <pad> (or <eos> if there is no pad)
    logits: Array  # (b, steps, tgt_vocab): the logits each token was chosen from


def next_token(logits: Array) -> Array:
    """Greedy choice: the highest-scoring token of each row (the first one on a tie)."""
    return np.argmax(logits, axis=-1)


def greedy_decode(
    src_ids: Array,
    params: TransformerParams,
    config: TransformerConfig,
    max_len: int,
    use_cache: bool = True,
    stop_at_eos: bool = True,
) -> GreedyResult:
    """Generate from <s> one token at a time (argmax) until every sequence has emitted <eos>
    or `max_len` tokens exist (only the latter with `stop_at_eos=False`)."""
    if config.bos_id is None:
        raise ValueError("greedy decoding needs a bos_id in the config")
    if not isinstance(max_len, int) or max_len < 1:
        raise ValueError(f"max_len must be a positive integer, got {max_len!r}")
    eos = config.eos_id if stop_at_eos else None
    src_ids = as_batch(src_ids)
    memory_mask = source_mask(src_ids, config)
    memory = encode(src_ids, params, config, memory_mask)
    step = _cached_stepper(memory, params, config, max_len) if use_cache else None

    b = src_ids.shape[0]
    tokens = np.full((b, max_len + 1), config.bos_id, dtype=np.int64)  # column 0 is <s>
    all_logits = []
    finished = np.zeros(b, dtype=bool)
    for t in range(max_len):
        if step is not None:
            logits = step(tokens[:, t : t + 1], t, memory_mask)  # (b, V)
        else:
            prefix = tokens[:, : t + 1]
            full = decode(prefix, memory, params, config, memory_mask, self_mask=causal_mask(t + 1))
            logits = full[:, -1]
        all_logits.append(logits)
        tokens[:, t + 1] = next_token(logits)
        if eos is not None:
            finished |= tokens[:, t + 1] == eos
            if finished.all():
                break

    generated = tokens[:, 1 : len(all_logits) + 1]
    if eos is not None:
        after_eos = np.cumsum(generated == eos, axis=1) - (generated == eos) > 0
        filler = config.pad_id if config.pad_id is not None else eos
        generated = np.where(after_eos, filler, generated)
    return GreedyResult(tokens=generated, logits=np.stack(all_logits, axis=1))


def _cached_stepper(
    memory: Array, params: TransformerParams, config: TransformerConfig, capacity: int
):
    caches = [
        LayerCache.create(memory, layer.cross_attn, config, capacity)
        for layer in params.decoder_layers
    ]

    def step(new_ids: Array, position: int, memory_mask: Array | None) -> Array:
        """Run one new position (b, 1) through the decoder; returns its logits (b, V)."""
        y = embed_with_positions(new_ids, params.tgt_embedding, config, start=position)
        for layer, cache in zip(params.decoder_layers, caches, strict=True):
            # the new position is the latest, so it may attend to every cached one: no mask
            y = decoder_layer(y, None, layer, config, None, memory_mask, cache=cache)
        return output_logits(y, params, config)[:, -1]

    return step
