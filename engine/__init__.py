"""A NumPy implementation of the encoder-decoder Transformer of "Attention Is All You Need".

Row-vector convention (Q = X' W_q), batched over a leading batch axis, float32 or float64.
"""

from engine.config import TransformerConfig
from engine.decoding import GreedyResult, greedy_decode, next_token
from engine.kv_cache import LayerCache
from engine.layers import (
    add_norm,
    apply_mask,
    attention,
    causal_mask,
    embed,
    feed_forward,
    layer_norm,
    linear,
    log_softmax,
    merge_heads,
    multi_head_attention,
    padding_mask,
    positional_encoding,
    softmax,
    split_heads,
)
from engine.model import (
    TeacherForcingBatch,
    cross_entropy,
    decode,
    decoder_layer,
    encode,
    encoder_layer,
    forward,
    teacher_forcing_batch,
    teacher_forcing_loss,
)
from engine.params import (
    AttentionParams,
    DecoderLayerParams,
    EncoderLayerParams,
    FeedForwardParams,
    LayerNormParams,
    TransformerParams,
    init_params,
)
from engine.trace import Trace

__all__ = [
    "AttentionParams",
    "DecoderLayerParams",
    "EncoderLayerParams",
    "FeedForwardParams",
    "GreedyResult",
    "LayerCache",
    "LayerNormParams",
    "TeacherForcingBatch",
    "Trace",
    "TransformerConfig",
    "TransformerParams",
    "add_norm",
    "apply_mask",
    "attention",
    "causal_mask",
    "cross_entropy",
    "decode",
    "decoder_layer",
    "embed",
    "encode",
    "encoder_layer",
    "feed_forward",
    "forward",
    "greedy_decode",
    "init_params",
    "layer_norm",
    "linear",
    "log_softmax",
    "merge_heads",
    "multi_head_attention",
    "next_token",
    "padding_mask",
    "positional_encoding",
    "softmax",
    "split_heads",
    "teacher_forcing_batch",
    "teacher_forcing_loss",
]
