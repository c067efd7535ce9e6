"""Loading PyTorch state_dicts (as dicts of numpy arrays under PyTorch's key names).

The expected outputs come from a naive reference written in PyTorch's own conventions
(y = x Wᵀ + b, in_proj_weight rows [W_q; W_k; W_v]), applied to the state_dict directly.
"""

import dataclasses

import naive_transformer as naive
import numpy as np
import pytest

from engine import (
    TransformerConfig,
    causal_mask,
    decoder_layer,
    encoder_layer,
    forward,
    multi_head_attention,
)
from engine.torch_weights import (
    StateDictError,
    decoder_layer_from_torch,
    encoder_layer_from_torch,
    multi_head_attention_from_torch,
    transformer_from_torch,
)

D, H, FF = 6, 2, 10
CONFIG = TransformerConfig(
    src_vocab_size=7,
    tgt_vocab_size=5,
    d_model=D,
    n_heads=H,
    d_ff=FF,
    n_encoder_layers=2,
    n_decoder_layers=1,
    final_norm=True,
)


def torch_linear(x, weight, bias=None):
    return [
        sum(weight[o][i] * x[i] for i in range(len(x))) + (bias[o] if bias is not None else 0.0)
        for o in range(len(weight))
    ]


def torch_mha(xq, xkv, sd, prefix, causal=False):
    w, b = sd[prefix + "in_proj_weight"].tolist(), sd[prefix + "in_proj_bias"].tolist()
    q = [torch_linear(x, w[:D], b[:D]) for x in xq]
    k = [torch_linear(x, w[D : 2 * D], b[D : 2 * D]) for x in xkv]
    v = [torch_linear(x, w[2 * D :], b[2 * D :]) for x in xkv]
    d_k = D // H
    concat = [[] for _ in xq]
    for h in range(H):
        c = slice(h * d_k, (h + 1) * d_k)
        out, _ = naive.attention(
            [r[c] for r in q],
            [r[c] for r in k],
            [r[c] for r in v],
            (lambda i, j: j <= i) if causal else (lambda i, j: True),
        )
        for i, row in enumerate(out):
            concat[i] += row
    ow, ob = sd[prefix + "out_proj.weight"].tolist(), sd[prefix + "out_proj.bias"].tolist()
    return [torch_linear(r, ow, ob) for r in concat]


def torch_add_norm(x, sub, sd, prefix):
    g, b = sd[prefix + "weight"].tolist(), sd[prefix + "bias"].tolist()
    return [
        naive.layer_norm_row([p + q for p, q in zip(a, s, strict=True)], g, b, 1e-5)
        for a, s in zip(x, sub, strict=True)
    ]


def torch_ffn(x, sd, prefix):
    hidden = [
        max(0.0, v)
        for v in torch_linear(
            x, sd[prefix + "linear1.weight"].tolist(), sd[prefix + "linear1.bias"].tolist()
        )
    ]
    return torch_linear(
        hidden, sd[prefix + "linear2.weight"].tolist(), sd[prefix + "linear2.bias"].tolist()
    )


def torch_encoder_layer(x, sd, prefix=""):
    x = torch_add_norm(x, torch_mha(x, x, sd, prefix + "self_attn."), sd, prefix + "norm1.")
    return torch_add_norm(x, [torch_ffn(r, sd, prefix) for r in x], sd, prefix + "norm2.")


def torch_decoder_layer(y, memory, sd, prefix=""):
    y = torch_add_norm(
        y, torch_mha(y, y, sd, prefix + "self_attn.", causal=True), sd, prefix + "norm1."
    )
    y = torch_add_norm(
        y, torch_mha(y, memory, sd, prefix + "multihead_attn."), sd, prefix + "norm2."
    )
    return torch_add_norm(y, [torch_ffn(r, sd, prefix) for r in y], sd, prefix + "norm3.")


def mha_state(rng, prefix=""):
    return {
        prefix + "in_proj_weight": rng.standard_normal((3 * D, D)) * 0.4,
        prefix + "in_proj_bias": rng.standard_normal(3 * D) * 0.1,
        prefix + "out_proj.weight": rng.standard_normal((D, D)) * 0.4,
        prefix + "out_proj.bias": rng.standard_normal(D) * 0.1,
    }


def norm_state(rng, prefix):
    return {
        prefix + "weight": 1 + 0.1 * rng.standard_normal(D),
        prefix + "bias": 0.1 * rng.standard_normal(D),
    }


def ffn_state(rng, prefix=""):
    return {
        prefix + "linear1.weight": rng.standard_normal((FF, D)) * 0.4,
        prefix + "linear1.bias": rng.standard_normal(FF) * 0.1,
        prefix + "linear2.weight": rng.standard_normal((D, FF)) * 0.4,
        prefix + "linear2.bias": rng.standard_normal(D) * 0.1,
    }


def encoder_state(rng, prefix=""):
    return {
        **mha_state(rng, prefix + "self_attn."),
        **ffn_state(rng, prefix),
        **norm_state(rng, prefix + "norm1."),
        **norm_state(rng, prefix + "norm2."),
    }


def decoder_state(rng, prefix=""):
    return {
        **mha_state(rng, prefix + "self_attn."),
        **mha_state(rng, prefix + "multihead_attn."),
        **ffn_state(rng, prefix),
        **norm_state(rng, prefix + "norm1."),
        **norm_state(rng, prefix + "norm2."),
        **norm_state(rng, prefix + "norm3."),
    }


def test_multihead_attention_state_dict():
    rng = np.random.default_rng(0)
    sd = mha_state(rng)
    x, mem = rng.standard_normal((3, D)), rng.standard_normal((4, D))
    p = multi_head_attention_from_torch(sd, D)
    out = multi_head_attention(x[None], mem[None], p, H)[0]
    np.testing.assert_allclose(out, torch_mha(x.tolist(), mem.tolist(), sd, ""), rtol=1e-11)


def test_multihead_attention_with_separate_projection_weights():
    rng = np.random.default_rng(1)
    sd = mha_state(rng)
    w = sd.pop("in_proj_weight")
    sd |= {"q_proj_weight": w[:D], "k_proj_weight": w[D : 2 * D], "v_proj_weight": w[2 * D :]}
    x = rng.standard_normal((3, D))
    expected = torch_mha(x.tolist(), x.tolist(), {**sd, "in_proj_weight": w}, "")
    out = multi_head_attention(x[None], x[None], multi_head_attention_from_torch(sd, D), H)[0]
    np.testing.assert_allclose(out, expected, rtol=1e-11)


def test_encoder_layer_state_dict():
    rng = np.random.default_rng(2)
    sd = encoder_state(rng)
    x = rng.standard_normal((4, D))
    out = encoder_layer(x[None], encoder_layer_from_torch(sd, CONFIG), CONFIG)[0]
    np.testing.assert_allclose(out, torch_encoder_layer(x.tolist(), sd), rtol=1e-10, atol=1e-12)


def test_decoder_layer_state_dict():
    rng = np.random.default_rng(3)
    sd = decoder_state(rng)
    y, mem = rng.standard_normal((3, D)), rng.standard_normal((5, D))
    p = decoder_layer_from_torch(sd, CONFIG)
    out = decoder_layer(y[None], mem[None], p, CONFIG, self_mask=causal_mask(3))[0]
    expected = torch_decoder_layer(y.tolist(), mem.tolist(), sd)
    np.testing.assert_allclose(out, expected, rtol=1e-10, atol=1e-12)


def full_state(rng, prefix="transformer."):
    sd = {}
    for i in range(CONFIG.n_encoder_layers):
        sd |= encoder_state(rng, f"{prefix}encoder.layers.{i}.")
    for i in range(CONFIG.n_decoder_layers):
        sd |= decoder_state(rng, f"{prefix}decoder.layers.{i}.")
    return (
        sd | norm_state(rng, prefix + "encoder.norm.") | norm_state(rng, prefix + "decoder.norm.")
    )


def test_whole_nn_transformer_state_dict_with_final_norms():
    rng = np.random.default_rng(4)
    sd = full_state(rng)
    src_emb, tgt_emb = rng.standard_normal((7, D)), rng.standard_normal((5, D))
    w_out, b_out = rng.standard_normal((D, 5)), rng.standard_normal(5)
    params = transformer_from_torch(
        sd,
        CONFIG,
        src_embedding=src_emb,
        tgt_embedding=tgt_emb,
        w_out=w_out,
        b_out=b_out,
        prefix="transformer.",
    )
    src, tgt = [3, 4, 5, 6], [1, 3, 4]
    logits = forward(np.array([src]), np.array([tgt]), params, CONFIG)[0]

    p = "transformer."
    x = naive.embed(src, src_emb, scale=False)
    for i in range(CONFIG.n_encoder_layers):
        x = torch_encoder_layer(x, sd, f"{p}encoder.layers.{i}.")
    x = torch_add_norm(x, [[0.0] * D for _ in x], sd, p + "encoder.norm.")
    y = naive.embed(tgt, tgt_emb, scale=False)
    y = torch_decoder_layer(y, x, sd, f"{p}decoder.layers.0.")
    y = torch_add_norm(y, [[0.0] * D for _ in y], sd, p + "decoder.norm.")
    expected = [naive.vec_mat(r, w_out.tolist(), b_out.tolist()) for r in y]
    np.testing.assert_allclose(logits, expected, rtol=1e-10, atol=1e-12)
    assert params.w_out.flags.f_contiguous and not np.shares_memory(params.w_out, w_out)


def test_loading_errors_name_the_problem():
    rng = np.random.default_rng(5)
    sd = encoder_state(rng)
    with pytest.raises(StateDictError, match=r"missing key 'norm2\.bias'"):
        encoder_layer_from_torch({k: v for k, v in sd.items() if k != "norm2.bias"}, CONFIG)
    bad_shape = sd | {"linear1.weight": np.zeros((D, FF))}
    with pytest.raises(
        StateDictError, match=r"'linear1.weight' has shape \(6, 10\), expected \(10, 6\)"
    ):
        encoder_layer_from_torch(bad_shape, CONFIG)
    with pytest.raises(StateDictError, match=r"unexpected keys: norm3\.weight"):
        encoder_layer_from_torch(sd | {"norm3.weight": np.ones(D)}, CONFIG)
    no_norm = dataclasses.replace(CONFIG, final_norm=False)
    with pytest.raises(
        StateDictError, match=r"has final encoder/decoder norms but config\.final_norm is False"
    ):
        transformer_from_torch(
            full_state(rng, ""),
            no_norm,
            src_embedding=np.zeros((7, D)),
            tgt_embedding=np.zeros((5, D)),
            w_out=np.zeros((D, 5)),
        )
    with pytest.raises(StateDictError, match=r"'w_out' has shape \(5, 6\)"):
        transformer_from_torch(
            full_state(rng, ""),
            CONFIG,
            src_embedding=np.zeros((7, D)),
            tgt_embedding=np.zeros((5, D)),
            w_out=np.zeros((5, D)),
        )


def test_loaded_weights_take_the_configs_dtype():
    rng = np.random.default_rng(6)
    config32 = dataclasses.replace(CONFIG, dtype="float32")
    p = encoder_layer_from_torch(encoder_state(rng), config32)
    assert p.self_attn.w_q.dtype == np.float32 and p.norm1.gain.dtype == np.float32


def test_loaded_weight_matrices_are_column_major_copies_of_the_state_dicts():
    # PyTorch's (out, in) rows are the engine's (in, out) columns; a copy, so that changing the
    # loaded parameters never changes the caller's state_dict
    rng = np.random.default_rng(7)
    sd = encoder_state(rng)
    before = {k: v.copy() for k, v in sd.items()}
    p = encoder_layer_from_torch(sd, CONFIG)
    for w in (p.self_attn.w_q, p.self_attn.w_o, p.ffn.w_1, p.ffn.w_2):
        assert w.flags.f_contiguous and not w.flags.c_contiguous
        w *= 2
    assert all(np.array_equal(sd[k], before[k]) for k in sd)


def test_every_loader_refuses_keys_it_did_not_use():
    rng = np.random.default_rng(7)
    extra = {"stray.weight": np.ones(D)}
    with pytest.raises(StateDictError, match=r"unexpected keys: stray\.weight"):
        multi_head_attention_from_torch(mha_state(rng) | extra, D)
    with pytest.raises(StateDictError, match=r"unexpected keys: stray\.weight"):
        decoder_layer_from_torch(decoder_state(rng) | extra, CONFIG)
    with pytest.raises(StateDictError, match=r"unexpected keys: transformer\.stray\.weight"):
        transformer_from_torch(
            full_state(rng) | {"transformer.stray.weight": np.ones(D)},
            CONFIG,
            prefix="transformer.",
            src_embedding=np.zeros((7, D)),
            tgt_embedding=np.zeros((5, D)),
            w_out=np.zeros((D, 5)),
        )


def test_one_final_norm_without_the_other_is_reported_missing():
    rng = np.random.default_rng(8)
    state = {
        k: v for k, v in full_state(rng).items() if not k.startswith("transformer.decoder.norm")
    }
    with pytest.raises(StateDictError, match=r"missing key 'transformer\.decoder\.norm\.weight'"):
        transformer_from_torch(
            state,
            CONFIG,
            prefix="transformer.",
            src_embedding=np.zeros((7, D)),
            tgt_embedding=np.zeros((5, D)),
            w_out=np.zeros((D, 5)),
        )
