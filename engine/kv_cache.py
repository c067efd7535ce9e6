"""The decoder's key/value cache: what greedy decoding keeps of each layer between steps."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.config import TransformerConfig
from engine.layers import project_kv
from engine.params import AttentionParams

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
