"""The inference path: greedy autoregressive decoding, with or without a KV cache."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.config import TransformerConfig
from engine.kv_cache import LayerCache
from engine.layers import causal_mask
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
    memory_mask = source_mask(src_ids, config)  # (b, 1, 1, m), or None
    memory = encode(src_ids, params, config, memory_mask)  # (b, m, d_model)
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
            logits = full[:, -1]  # (b, V)
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
