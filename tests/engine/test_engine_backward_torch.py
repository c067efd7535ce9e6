"""The engine's gradients against PyTorch autograd on nn.Transformer, float64, the same weights
loaded through `engine.torch_weights`; skipped where torch is not installed."""

import numpy as np
import pytest

from engine import TransformerConfig, positional_encoding, teacher_forcing_batch
from engine.grad_model import loss_and_gradients
from engine.optim import leaves
from engine.torch_weights import transformer_from_torch

torch = pytest.importorskip("torch")

TOLERANCE = 1e-10


def relative_error(a, b) -> float:
    """‖a - b‖ / max(‖a‖, ‖b‖), or the absolute error over 1e-5 for gradients smaller than that:
    b_k's is exactly 0 (softmax cancels a shift shared by every key), so both give round-off,
    up to about 1e-16 here (over 1e-6 that came within a few percent of the tolerance)."""
    scale = max(np.linalg.norm(a), np.linalg.norm(b), 1e-5)
    return float(np.linalg.norm(a - b) / scale)


@pytest.mark.parametrize("smoothing", [0.0, 0.1])
@pytest.mark.parametrize("scale_embeddings", [False, True])
def test_gradients_match_pytorch_autograd(smoothing, scale_embeddings):
    config = TransformerConfig(
        src_vocab_size=11,
        tgt_vocab_size=13,
        d_model=8,
        n_heads=2,
        d_ff=16,
        n_encoder_layers=2,
        n_decoder_layers=2,
        final_norm=True,  # nn.Transformer ends each stack with a LayerNorm
        scale_embeddings=scale_embeddings,
    )
    d, pad = config.d_model, config.pad_id
    torch.manual_seed(0)
    model = torch.nn.Transformer(
        d_model=d,
        nhead=config.n_heads,
        num_encoder_layers=2,
        num_decoder_layers=2,
        dim_feedforward=config.d_ff,
        dropout=0.0,
        batch_first=True,
        dtype=torch.float64,
    ).train()
    with torch.no_grad():  # LayerNorms and biases off their ones and zeros
        for tensor in model.parameters():
            if tensor.ndim == 1:
                tensor.add_(0.3 * torch.randn_like(tensor))
    src_table = torch.randn(config.src_vocab_size, d, dtype=torch.float64, requires_grad=True)
    tgt_table = torch.randn(config.tgt_vocab_size, d, dtype=torch.float64, requires_grad=True)
    w_out = torch.randn(d, config.tgt_vocab_size, dtype=torch.float64, requires_grad=True)
    b_out = torch.randn(config.tgt_vocab_size, dtype=torch.float64, requires_grad=True)

    source = np.array([[3, 4, 5, 6, 7], [8, 4, 9, 0, 0]])  # the second padded
    batch = teacher_forcing_batch([[3, 4, 5], [6]], config)  # decoder length 4, padded
    src, tgt = torch.from_numpy(source), torch.from_numpy(batch.decoder_input)
    labels = torch.from_numpy(batch.labels)
    positions = torch.from_numpy(positional_encoding(5, d))
    factor = d**0.5 if scale_embeddings else 1.0
    t = tgt.shape[1]
    logits = (
        model(
            src_table[src] * factor + positions[: src.shape[1]],
            tgt_table[tgt] * factor + positions[:t],
            tgt_mask=torch.ones(t, t, dtype=torch.bool).triu(1),  # True: may not attend
            src_key_padding_mask=src == pad,
            tgt_key_padding_mask=tgt == pad,
            memory_key_padding_mask=src == pad,
        )
        @ w_out
        + b_out
    )
    torch_loss = torch.nn.functional.cross_entropy(
        logits.reshape(-1, config.tgt_vocab_size),
        labels.reshape(-1),
        ignore_index=pad,
        label_smoothing=smoothing,
    )
    torch_loss.backward()

    def numpy_of(tensor):
        return tensor.detach().numpy()

    params = transformer_from_torch(
        {k: numpy_of(v) for k, v in model.state_dict().items()},
        config,
        src_embedding=numpy_of(src_table),
        tgt_embedding=numpy_of(tgt_table),
        w_out=numpy_of(w_out),
        b_out=numpy_of(b_out),
    )
    # the gradients have the parameters' names and shapes: the same loader lays them out
    torch_grads = transformer_from_torch(
        {k: numpy_of(v.grad) for k, v in model.named_parameters()},
        config,
        src_embedding=numpy_of(src_table.grad),
        tgt_embedding=numpy_of(tgt_table.grad),
        w_out=numpy_of(w_out.grad),
        b_out=numpy_of(b_out.grad),
    )
    loss, grads = loss_and_gradients(
        source, batch.decoder_input, batch.labels, params, config, smoothing
    )
    assert loss == pytest.approx(torch_loss.item(), rel=1e-12)
    ours, theirs = leaves(grads), leaves(torch_grads)
    assert len(ours) == len(theirs) == len(leaves(params))
    errors = [relative_error(a, b) for a, b in zip(ours, theirs, strict=True)]
    assert max(errors) < TOLERANCE, errors
