"""Worked solutions show every intermediate the chapter shows, with the right numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from drills_reference import PARAM_CASES, case_id, given

from quizsvc.drills import DRILL_KINDS, Variant, generate_variant
from quizsvc.drills.text import vector

CASES = [pytest.param(case, id=case_id(case)) for case in PARAM_CASES]


def solution_tensor(variant: Variant, name: str) -> np.ndarray:
    found = [t.values for step in variant.solution for t in step.tensors if t.name == name]
    assert found, f"{variant.kind}: no solution tensor named {name!r}"
    return found[0]


def close(actual: np.ndarray, expected: np.ndarray) -> None:
    np.testing.assert_allclose(actual, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("case", CASES)
def test_every_solution_is_bilingual_and_ends_with_the_answer(case) -> None:
    kind, params = case
    variant = generate_variant(kind, 1, params)
    assert len(variant.solution) >= 2
    for step in variant.solution:
        for part in (step.title, step.text):
            assert part["zh"].strip() and part["en"].strip()
            assert part["zh"] != part["en"] or part["zh"] == "ReLU"
    assert variant.answer in variant.solution[-1].tensors
    for lang in ("zh", "en"):
        assert variant.prompt[lang].strip()


def test_embedding_positional_steps() -> None:
    variant = generate_variant("embedding_positional", 2, {"n": 4, "position": 3})
    token_id = int(given(variant, "ids")[0, 3])
    close(solution_tensor(variant, f"E[{token_id}]")[0], given(variant, "E")[token_id])
    pe = solution_tensor(variant, "PE(3)")[0]
    close(pe, [math.sin(3), math.cos(3), math.sin(3 / 100), math.cos(3 / 100)])
    close(solution_tensor(variant, "angle")[0], [3, 3, 0.03, 0.03])
    assert f"E[{token_id}]" in variant.prompt["en"] and "PE(3)" in variant.prompt["zh"]


def test_projection_steps_show_the_inputs_and_a_worked_row() -> None:
    variant = generate_variant("projection", 4, {"which": "k"})
    first = variant.solution[0]
    assert [t.name for t in first.tensors] == ["X'", "W_k"]
    x, w = given(variant, "X'"), given(variant, "W_k")
    assert "$K[0][0]$ = " in first.text["en"]
    assert first.text["en"].count("K[0][") == 4  # each entry of row 0 written out
    close(variant.answer.values, x @ w)


def test_projection_writes_out_row_0_of_x_against_every_column() -> None:
    variant = generate_variant("projection", 6, {"which": "q", "n": 3})
    x, w = given(variant, "X'"), given(variant, "W_q")
    text = variant.solution[0].text
    assert "Row 0 (“我”):" in text["en"] and "第 0 行（“我”）" in text["zh"]
    for j in range(w.shape[1]):
        line = next(ln for ln in text["en"].splitlines() if ln.startswith(f"- $Q[0][{j}]$ = "))
        assert float(line.rsplit("= ", 1)[1]) == pytest.approx(x[0] @ w[:, j], abs=5e-5)


def test_score_row_steps_hold_q_k_and_the_dot_products() -> None:
    variant = generate_variant("score_row", 5, {"position": 2})
    step = variant.solution[0]
    names = [t.name for t in step.tensors]
    assert names[:2] == ["q2", "K"]
    q, k = given(variant, "q2"), given(variant, "K")
    close(solution_tensor(variant, "q·K^T"), q @ k.T)
    assert r"$\sqrt{d_k} = \sqrt{4} = 2$" in variant.solution[1].text["en"]


def test_softmax_steps_hold_the_exponentials_and_their_sum() -> None:
    variant = generate_variant("softmax_row", 8, {"n": 4})
    scores = given(variant, "scores")
    close(solution_tensor(variant, "e^score"), np.exp(scores))
    close(solution_tensor(variant, "Σ e^score"), [[np.exp(scores).sum()]])


def test_masked_row_solution_shows_minus_infinity_at_the_future_positions() -> None:
    variant = generate_variant("masked_row", 3, {"n": 4, "position": 1})
    masked = solution_tensor(variant, "masked scores")[0]
    scores = given(variant, "scores")[0]
    close(masked[:2], scores[:2])
    assert list(masked[2:]) == [-np.inf, -np.inf]
    assert list(solution_tensor(variant, "e^score")[0][2:]) == [0.0, 0.0]
    assert r"$-\infty$" in variant.solution[0].text["zh"]


def test_attention_output_row_shows_each_weighted_value() -> None:
    variant = generate_variant("attention_output_row", 6, {"position": 0})
    weights, values = given(variant, "A[0]"), given(variant, "V")
    close(solution_tensor(variant, "A[0][j] × V_j"), weights[0][:, None] * values)


def test_multi_head_shows_each_heads_q_k_v_weights_output_and_the_concatenation() -> None:
    variant = generate_variant("multi_head", 2, {"d_model": 6, "n_heads": 3})
    x = given(variant, "X'")
    outputs = []
    for h in (1, 2, 3):
        x_h = x[:, 2 * (h - 1) : 2 * h]
        close(solution_tensor(variant, f"X'{h}"), x_h)
        q = solution_tensor(variant, f"Q{h}")
        k = solution_tensor(variant, f"K{h}")
        v = solution_tensor(variant, f"V{h}")
        close(q, x_h @ given(variant, f"Wq{h}"))
        close(k, x_h @ given(variant, f"Wk{h}"))
        close(v, x_h @ given(variant, f"Wv{h}"))
        close(solution_tensor(variant, f"scores{h}"), q @ k.T / math.sqrt(2))
        weights = solution_tensor(variant, f"A{h}")
        close(weights.sum(axis=1), np.ones(3))
        outputs.append(solution_tensor(variant, f"Out{h}"))
        close(outputs[-1], weights @ v)
    close(solution_tensor(variant, "Concat"), np.concatenate(outputs, axis=1))


def test_multi_head_head_output_shows_only_that_head() -> None:
    variant = generate_variant("multi_head", 2, {"part": "head_output", "head": 2})
    assert [t.name for t in variant.given] == ["X'", "Wq2", "Wk2", "Wv2"]
    names = {t.name for step in variant.solution for t in step.tensors}
    assert {"Q2", "K2", "V2", "A2", "Out2"} <= names
    assert not names & {"Q1", "Out1", "Concat"}
    # head 2 takes dimensions d2, d3 of X' (the rows of its W's) into its own two dimensions
    own = ("H2 d0", "H2 d1")
    assert variant.answer.col_labels == own
    assert [(t.row_labels, t.col_labels) for t in variant.given[1:]] == [(("d2", "d3"), own)] * 3
    prompt = variant.prompt
    assert "Compute Head 2 only: it takes X'[:, 2:4] and uses Wq2, Wk2, Wv2 (2×2)" in prompt["en"]
    assert "Write down its output Out2 (3×2)" in prompt["en"]
    assert "只算 Head 2：它取 X'[:, 2:4]，用 Wq2、Wk2、Wv2（2×2）" in prompt["zh"]
    assert "写出 Head 2 的输出 Out2（3×2）" in prompt["zh"]
    first = variant.solution[0]
    assert first.title == {"zh": "Head 2：Q、K、V", "en": "Head 2: Q, K, V"}
    assert first.text == {
        "zh": "Head 2 取 X'[:, 2:4]（$X'$ 的 d2–d3 列），分别乘以 Wq2、Wk2、Wv2；Q2、K2、V2 在 "
        "Head 2 自己的 $d_k = 2$ 维（H2 d0、H2 d1）里。",
        "en": "Head 2 takes X'[:, 2:4] (columns d2–d3 of $X'$) and multiplies it by Wq2, Wk2 and "
        "Wv2; Q2, K2 and V2 are in Head 2's own $d_k = 2$ dimensions (H2 d0, H2 d1).",
    }
    x_2, *qkv = first.tensors
    assert x_2.name == "X'2" and x_2.col_labels == ("d2", "d3")  # as the rows of Wq2
    assert [t.name for t in qkv] == ["Q2", "K2", "V2"]
    assert all(t.col_labels == own for t in qkv)  # as the columns of Wq2
    assert variant.solution[1].text == {
        "zh": r"分数 $Q_{2} K_{2}^\top / \sqrt{2}$（$\sqrt{2} = 1.414$），逐行 Softmax 得权重，"
        r"再乘以 $V_{2}$。",
        "en": r"Scores $Q_{2} K_{2}^\top / \sqrt{2}$ ($\sqrt{2} = 1.414$), a softmax per row for "
        r"the weights, then multiply by $V_{2}$.",
    }
    assert variant.heatmap.col_labels == ("H2 我", "H2 爱", "H2 你")


def test_multi_head_concat_projection_names_every_heads_slice() -> None:
    variant = generate_variant("multi_head", 4, {"d_model": 6, "n_heads": 3})
    slices = "Head 1: X'[:, 0:2], Head 2: X'[:, 2:4], Head 3: X'[:, 4:6]"
    for lang in ("zh", "en"):
        concat = r"$[\mathrm{Out}_{1} \mid \mathrm{Out}_{2} \mid \mathrm{Out}_{3}]$"
        assert slices in variant.prompt[lang] and concat in variant.prompt[lang]
    titles = [step.title["en"] for step in variant.solution]
    assert titles[:6] == [
        f"Head {h}: {part}" for h in (1, 2, 3) for part in ("Q, K, V", "attention")
    ]
    assert "Head 3 takes X'[:, 4:6] (columns d4–d5 of $X'$)" in variant.solution[4].text["en"]
    assert (
        "(3×6; Out1 fills d0–d1, Out2 fills d2–d3, Out3 fills d4–d5)"
        in variant.solution[6].text["en"]
    )
    assert "Out3 占 d4–d5" in variant.solution[6].text["zh"]
    assert variant.given[-1].row_labels == ("d0", "d1", "d2", "d3", "d4", "d5")  # Wo: Concat's


def test_add_norm_shows_sum_mean_variance_and_normalized_row() -> None:
    variant = generate_variant("add_norm", 9)
    total = given(variant, "x") + given(variant, "Sublayer(x)")
    close(solution_tensor(variant, "x + Sublayer(x)"), total)
    close(solution_tensor(variant, "μ"), [[total.mean()]])
    close(solution_tensor(variant, "σ²"), [[total.var()]])
    close(solution_tensor(variant, "√(σ² + ε)"), [[math.sqrt(total.var() + 1e-5)]])
    assert r"$\varepsilon = 0.00001$" in variant.prompt["en"]  # not Python's 1e-05
    normalized = (total - total.mean()) / math.sqrt(total.var() + 1e-5)
    close(solution_tensor(variant, "normalized"), normalized)
    # each step shows the given numbers it uses: x and Sublayer(x) first, γ and β last
    names = [[t.name for t in step.tensors] for step in variant.solution]
    assert names[0] == ["x", "Sublayer(x)", "x + Sublayer(x)"]
    assert names[-1] == ["γ", "β", "AddNorm"]


def test_ffn_shows_the_pre_activation_and_relu() -> None:
    variant = generate_variant("ffn_row", 4)
    pre = given(variant, "x") @ given(variant, "W1") + given(variant, "b1")
    close(solution_tensor(variant, "x × W1 + b1"), pre)
    close(solution_tensor(variant, "ReLU"), np.maximum(pre, 0))
    assert pre.min() < 0 < pre.max()  # ReLU has something to do
    # each step shows the given numbers it uses: the first layer's, then the second's
    names = [[t.name for t in step.tensors] for step in variant.solution]
    assert names == [["x", "W1", "b1", "x × W1 + b1"], ["ReLU"], ["W2", "b2", "FFN(x)"]]


def test_masked_row_says_which_positions_the_token_sees() -> None:
    variant = generate_variant("masked_row", 0, {"n": 4, "position": 2})
    mask = variant.solution[0]
    assert mask.text["en"].startswith("“love” may only see <s>, I, love; the later positions")
    assert mask.text["zh"].startswith("“love”只能看到 <s>、I、love；")


@pytest.mark.parametrize(("n", "positions"), [(2, {0}), (3, {1}), (4, {1, 2})])
def test_masked_row_draws_a_position_that_sees_some_but_not_all(n, positions) -> None:
    # position 0 sees only itself and the last one masks nothing; with n = 2 only 0 is left
    drawn = {
        generate_variant("masked_row", seed, {"n": n}).params["position"] for seed in range(30)
    }
    assert drawn == positions


def test_cross_attention_output_shows_each_weighted_value_and_their_sum() -> None:
    variant = generate_variant("cross_attention_row", 3, {"n": 3, "position": 1})
    q, k, v = given(variant, "q(I)")[0], given(variant, "K_enc"), given(variant, "V_enc")
    scores = k @ q / math.sqrt(q.size)
    weights = np.exp(scores) / np.exp(scores).sum()
    terms = solution_tensor(variant, "A[j] × V_j")
    close(terms, weights[:, None] * v)
    close(terms.sum(axis=0), variant.answer.values[0])
    written = " + ".join(f"{round(w, 3):g} × $V_{{{j}}}$" for j, w in enumerate(weights))
    assert rf"$\operatorname{{CrossAttn}}$ = {written} = " in variant.solution[-1].text["en"]


def test_cross_attention_shows_scores_and_weights_over_the_source() -> None:
    variant = generate_variant("cross_attention_row", 1, {"position": 2, "n": 4})
    q, k = given(variant, "q(love)"), given(variant, "K_enc")
    close(solution_tensor(variant, "q·K^T"), q @ k.T)
    assert variant.heatmap is not None
    assert variant.heatmap.col_labels == ("我", "爱", "你", "们")
    assert variant.heatmap.row_labels == ("love",)
    close(variant.heatmap.values, solution_tensor(variant, "A"))


def test_teacher_forcing_shows_the_shifted_input_and_labels() -> None:
    variant = generate_variant("teacher_forcing_loss", 5)
    target = given(variant, "target")[0]
    sequences = solution_tensor(variant, "teacher forcing")
    close(sequences[0], [1, *target])  # <s> + target
    close(sequences[1], [*target, 2])  # target + <eos>
    probs = given(variant, "P")
    labels = sequences[1].astype(int)
    close(solution_tensor(variant, "p(label)")[0], probs[np.arange(4), labels])
    close(solution_tensor(variant, "-ln p")[0], -np.log(probs[np.arange(4), labels]))


def test_greedy_shows_the_probabilities() -> None:
    variant = generate_variant("greedy_next_token", 3)
    logits = given(variant, "logits")
    probs = solution_tensor(variant, "p")
    close(probs, np.exp(logits) / np.exp(logits).sum())
    # weights and probabilities are written with 3 decimals, as the chapter prints them
    assert vector(probs, 3) in variant.solution[0].text["en"]


def test_the_softmax_steps_write_e_to_the_score_and_the_weights_as_the_chapter_does() -> None:
    variant = generate_variant("softmax_row", 2)
    scores = given(variant, "scores")[0]
    exps, weights = np.exp(scores), np.exp(scores) / np.exp(scores).sum()
    rounded = ", ".join(f"{round(e, 3):g}" for e in exps)  # as the table beside it
    assert (
        rf"$e^{{\text{{score}}}}$ = [{rounded}], summing to $\Sigma = {round(exps.sum(), 3):g}$"
        in (variant.solution[0].text["en"])
    )
    three = ", ".join(f"{round(w, 3):g}" for w in weights)
    assert variant.solution[1].text["en"].endswith(f"the weights add up to 1: [{three}].")


@pytest.mark.parametrize("kind", sorted(DRILL_KINDS))
def test_heatmaps_are_rows_of_attention_weights(kind: str) -> None:
    has_weights = {
        "softmax_row",
        "masked_row",
        "attention_output_row",
        "multi_head",
        "cross_attention_row",
    }
    variant = generate_variant(kind, 0)
    if kind not in has_weights:
        assert variant.heatmap is None
        return
    assert variant.heatmap is not None
    heatmap = variant.heatmap.values
    assert heatmap.min() >= 0
    n_blocks = heatmap.shape[1] // heatmap.shape[0] if kind == "multi_head" else 1
    sums = heatmap.reshape(heatmap.shape[0], n_blocks, -1).sum(axis=2)
    close(sums, np.ones_like(sums))
