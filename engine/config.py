"""Model hyper-parameters, with the paper's defaults."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_DTYPES = {"float32": np.float32, "float64": np.float64}


@dataclass(frozen=True)
class TransformerConfig:
    """Sizes of an encoder-decoder Transformer ("Attention Is All You Need", base model).

    Special token ids default to 0 (<pad>), 1 (<s>), 2 (<eos>); `None` means the vocabulary
    has no such token (the chapter's six-word vocabulary has none).
    """

    src_vocab_size: int
    tgt_vocab_size: int
    d_model: int = 512
    n_heads: int = 8
    d_ff: int = 2048
    n_encoder_layers: int = 6
    n_decoder_layers: int = 6
    layer_norm_eps: float = 1e-5
    scale_embeddings: bool = (
        False  # the paper multiplies embeddings by sqrt(d_model); the chapter does not
    )
    final_norm: bool = (
        False  # PyTorch's nn.Transformer ends each stack with a LayerNorm; the paper does not
    )
    attention_bias: bool = True
    output_bias: bool = True
    pad_id: int | None = 0
    bos_id: int | None = 1
    eos_id: int | None = 2
    dtype: str = "float64"

    def __post_init__(self) -> None:
        for name in (
            "src_vocab_size",
            "tgt_vocab_size",
            "d_model",
            "n_heads",
            "d_ff",
        ):
            _require_positive_int(name, getattr(self, name))
        for name in ("n_encoder_layers", "n_decoder_layers"):
            value = getattr(self, name)
            if not _is_int(value) or value < 0:
                raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
        if self.d_model % self.n_heads:
            raise ValueError(
                f"d_model ({self.d_model}) must be divisible by n_heads ({self.n_heads})"
            )
        if not (isinstance(self.layer_norm_eps, int | float) and self.layer_norm_eps > 0):
            raise ValueError(
                f"layer_norm_eps must be a positive number, got {self.layer_norm_eps!r}"
            )
        if self.dtype not in _DTYPES:
            raise ValueError(f"dtype must be one of {sorted(_DTYPES)}, got {self.dtype!r}")
        for name in ("pad_id", "bos_id", "eos_id"):
            value = getattr(self, name)
            if value is None:
                continue
            if not _is_int(value) or not 0 <= value < self.tgt_vocab_size:
                vocab = self.tgt_vocab_size
                raise ValueError(
                    f"{name} must be None or a token id in [0, {vocab}), got {value!r}"
                )

    @property
    def d_k(self) -> int:
        return self.d_model // self.n_heads

    @property
    def np_dtype(self) -> type[np.floating]:
        return _DTYPES[self.dtype]


def _is_int(value: object) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def _require_positive_int(name: str, value: object) -> None:
    if not _is_int(value) or value <= 0:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
