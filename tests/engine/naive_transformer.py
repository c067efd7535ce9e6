"""A deliberately naive Transformer for the tests: one sequence at a time, Python loops over
lists of floats, `math` instead of numpy. Slow and obvious, so it can be trusted as a second
formulation of what the engine vectorises."""

from __future__ import annotations

import math

NEG_INF = float("-inf")


def to_lists(array) -> list:
    return array.tolist()


def vec_mat(x: list[float], w: list[list[float]], b: list[float] | None = None) -> list[float]:
    """Row vector x (d_in) times w (d_in x d_out), plus b."""
    out = []
    for j in range(len(w[0])):
        total = 0.0
        for i in range(len(x)):
            total += x[i] * w[i][j]
        out.append(total + (b[j] if b is not None else 0.0))
    return out


def softmax_row(row: list[float]) -> list[float]:
    finite = [s for s in row if s != NEG_INF]
    if not finite:
        return [0.0] * len(row)
    peak = max(finite)
    exps = [0.0 if s == NEG_INF else math.exp(s - peak) for s in row]
    total = sum(exps)
    return [e / total for e in exps]


def attention(q_rows, k_rows, v_rows, allowed) -> tuple[list, list]:
    """allowed(i, j) says whether query i may attend to key j."""
    d_k = len(q_rows[0])
    outputs, weights = [], []
    for i, q in enumerate(q_rows):
        scores = []
        for j, k in enumerate(k_rows):
            if allowed(i, j):
                scores.append(sum(q[t] * k[t] for t in range(d_k)) / math.sqrt(d_k))
            else:
                scores.append(NEG_INF)
        w = softmax_row(scores)
        weights.append(w)
        outputs.append(
            [sum(w[j] * v_rows[j][c] for j in range(len(v_rows))) for c in range(len(v_rows[0]))]
        )
    return outputs, weights


def _bias(array):
    return None if array is None else to_lists(array)


def multi_head_attention(xq_rows, xkv_rows, p, n_heads, allowed):
    """Each head uses its own column block of the full projections, as the paper defines."""
    wq, wk, wv, wo = (to_lists(w) for w in (p.w_q, p.w_k, p.w_v, p.w_o))
    q = [vec_mat(x, wq, _bias(p.b_q)) for x in xq_rows]
    k = [vec_mat(x, wk, _bias(p.b_k)) for x in xkv_rows]
    v = [vec_mat(x, wv, _bias(p.b_v)) for x in xkv_rows]
    d_model = len(wq[0])
    d_k = d_model // n_heads
    concat = [[] for _ in xq_rows]
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out, _ = attention(
            [r[cols] for r in q], [r[cols] for r in k], [r[cols] for r in v], allowed
        )
        for i, row in enumerate(out):
            concat[i].extend(row)
    return [vec_mat(row, wo, _bias(p.b_o)) for row in concat]


def layer_norm_row(x: list[float], gain, bias, eps: float) -> list[float]:
    mean = sum(x) / len(x)
    var = sum((v - mean) ** 2 for v in x) / len(x)
    return [
        (v - mean) / math.sqrt(var + eps) * g + b for v, g, b in zip(x, gain, bias, strict=True)
    ]


def add_norm(x_rows, sub_rows, p, eps):
    gain, bias = to_lists(p.gain), to_lists(p.bias)
    return [
        layer_norm_row([a + b for a, b in zip(x, s, strict=True)], gain, bias, eps)
        for x, s in zip(x_rows, sub_rows, strict=True)
    ]


def feed_forward_row(x: list[float], p) -> list[float]:
    hidden = [max(0.0, v) for v in vec_mat(x, to_lists(p.w_1), to_lists(p.b_1))]
    return vec_mat(hidden, to_lists(p.w_2), to_lists(p.b_2))


def positional_encoding_row(pos: int, d_model: int) -> list[float]:
    row = []
    for c in range(d_model):
        i = c // 2
        angle = pos / 10000 ** (2 * i / d_model)
        row.append(math.sin(angle) if c % 2 == 0 else math.cos(angle))
    return row


def embed(ids, table, scale: bool) -> list[list[float]]:
    d_model = table.shape[1]
    factor = math.sqrt(d_model) if scale else 1.0
    return [
        [
            e * factor + pe
            for e, pe in zip(to_lists(table[t]), positional_encoding_row(pos, d_model), strict=True)
        ]
        for pos, t in enumerate(ids)
    ]


def encoder_layer(x_rows, p, n_heads, eps, key_allowed):
    attn = multi_head_attention(x_rows, x_rows, p.self_attn, n_heads, lambda i, j: key_allowed(j))
    x_rows = add_norm(x_rows, attn, p.norm1, eps)
    return add_norm(x_rows, [feed_forward_row(x, p.ffn) for x in x_rows], p.norm2, eps)


def decoder_layer(y_rows, memory, p, n_heads, eps, tgt_key_allowed, src_key_allowed):
    def causal(i, j):
        return j <= i and tgt_key_allowed(j)

    attn = multi_head_attention(y_rows, y_rows, p.self_attn, n_heads, causal)
    y_rows = add_norm(y_rows, attn, p.norm1, eps)
    cross = multi_head_attention(
        y_rows, memory, p.cross_attn, n_heads, lambda i, j: src_key_allowed(j)
    )
    y_rows = add_norm(y_rows, cross, p.norm2, eps)
    return add_norm(y_rows, [feed_forward_row(y, p.ffn) for y in y_rows], p.norm3, eps)


def forward(src_ids, tgt_ids, params, config) -> list[list[float]]:
    """Logits (t x vocab) for one source and one decoder-input sequence (lists of ints)."""
    eps, h = config.layer_norm_eps, config.n_heads

    def src_ok(j):
        return config.pad_id is None or src_ids[j] != config.pad_id

    def tgt_ok(j):
        return config.pad_id is None or tgt_ids[j] != config.pad_id

    x = embed(src_ids, params.src_embedding, config.scale_embeddings)
    for layer in params.encoder_layers:
        x = encoder_layer(x, layer, h, eps, src_ok)
    if params.encoder_norm is not None:
        x = [
            layer_norm_row(
                r, to_lists(params.encoder_norm.gain), to_lists(params.encoder_norm.bias), eps
            )
            for r in x
        ]
    y = embed(tgt_ids, params.tgt_embedding, config.scale_embeddings)
    for layer in params.decoder_layers:
        y = decoder_layer(y, x, layer, h, eps, tgt_ok, src_ok)
    if params.decoder_norm is not None:
        y = [
            layer_norm_row(
                r, to_lists(params.decoder_norm.gain), to_lists(params.decoder_norm.bias), eps
            )
            for r in y
        ]
    return [vec_mat(r, to_lists(params.w_out), _bias(params.b_out)) for r in y]


def cross_entropy(logits_rows, labels, pad_id) -> float:
    losses = []
    for row, label in zip(logits_rows, labels, strict=True):
        if label == pad_id:
            continue
        peak = max(row)
        log_total = peak + math.log(sum(math.exp(v - peak) for v in row))
        losses.append(log_total - row[label])
    return sum(losses) / len(losses)
