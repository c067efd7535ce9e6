"""How the drills write numbers into prompts and worked solutions."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
import yaml

from quizsvc.bank import formula_problems
from quizsvc.drills.registry import DRILL_KINDS, generate_variant
from quizsvc.drills.text import dot_text, num, row, vector, weighted_sum


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1 / 3, "0.333"),  # three decimals unless asked otherwise, as the pages' tables
        (2.5, "2.5"),  # no trailing zeros
        (3.0, "3"),
        (-0.00001, "0"),  # never "-0"
        (2.8e-17, "0"),  # float noise where exact arithmetic gives 0
        (np.float32(0.25), "0.25"),
        (3.5625, "3.563"),  # 四舍五入: a half away from zero, as learners round by hand
        (-0.0625, "-0.063"),
        (0.0625 + 1e-12, "0.063"),
        (2.0005 - 1e-12, "2"),
        # a learner's answer can be any float; its digits are the float's own
        (1e30, f"{1e30:.0f}"),
        (-1.7976931348623157e308, f"{-1.7976931348623157e308:.0f}"),
        (math.inf, "∞"),
        (-math.inf, "-∞"),
    ],
)
def test_num_writes_a_number_for_prose(value, expected) -> None:
    assert num(value) == expected


def test_num_and_vector_take_the_digits_asked_for() -> None:
    assert num(2 / 3, 2) == "0.67"
    assert vector(np.array([[1 / 3, -0.5], [-math.inf, 0.0]])) == "[0.333, -0.5, -∞, 0]"
    assert vector([0.12345, 1.0], 4) == "[0.1235, 1]"


def test_dot_text_writes_every_product_and_the_sum() -> None:
    assert dot_text(np.array([1.0, 0.2]), np.array([0.5, -1.0])) == "1×0.5 + 0.2×(-1) = 0.3"
    assert dot_text(np.array([[1 / 3]]), np.array([3.0]), 2) == "0.333×3 = 1"
    assert dot_text(np.array([1 / 3]), np.array([1.0])) == "0.333×1 = 0.333"


def test_weighted_sum_writes_each_weight_times_its_row() -> None:
    # text around a formula per row, so that a long sum can break between its terms
    assert weighted_sum(np.array([0.2, 1 / 3]), "V") == "0.2 × $V_{0}$ + 0.333 × $V_{1}$"


def test_row_is_a_one_row_tensor() -> None:
    tensor = row("A", np.array([0.5, 0.5]), "I", ["我", "爱"])
    assert tensor.shape == (1, 2) and tensor.row_labels == ("I",)
    assert tensor.col_labels == ("我", "爱")


DRILLS_YAML = Path(__file__).resolve().parents[2] / "content/transformer-by-hand/drills.yaml"


def drill_questions() -> list[dict]:
    return yaml.safe_load(DRILLS_YAML.read_text(encoding="utf-8"))["questions"]


@pytest.mark.parametrize("question", drill_questions(), ids=lambda q: q["id"])
def test_a_variants_prompt_does_not_repeat_a_formula_its_task_states(question) -> None:
    # The page shows the question's prompt (the task: what to compute, how to round) above
    # the variant's (its numbers): a formula (an equation or a quotient, not a symbol such as
    # $K$ that both name) belongs to one of them.
    for lang in ("zh", "en"):
        written = re.findall(r"\$([^$]+)\$", question["prompt"][lang])
        formulas = {f for f in written if "=" in f or "/" in f}
        for seed in range(5):
            prompt = generate_variant(question["kind"], seed, question["params"]).prompt[lang]
            assert [f for f in formulas if f in prompt] == [], (lang, seed, prompt)


def test_the_pe_formula_is_stated_once_in_the_task() -> None:
    task = next(q for q in drill_questions() if q["kind"] == "embedding_positional")["prompt"]
    variant = generate_variant("embedding_positional", 1)
    for lang in ("zh", "en"):
        angle = r"\frac{\mathit{pos}}{10000^{2i/d_{\text{model}}}}"
        assert rf"$$PE_{{(\mathit{{pos}},\,2i)}} = \sin\left({angle}\right)$$" in task[lang]
        assert "sin" not in variant.prompt[lang] and "cos" not in variant.prompt[lang]
    assert "$X'_{2} = E[2] + PE(2)$（1×4）" in variant.prompt["zh"]  # what the variant asks


def test_pe_in_the_prose_is_rounded_as_its_table_shows_it() -> None:
    # position 2 of seed 1: sin 2 = 0.9093, cos 2 = -0.4161, sin 0.02 = 0.0200, cos 0.02 =
    # 0.9998, which a table at three decimals shows as 1
    step = generate_variant("embedding_positional", 1).solution[1]
    assert "$PE(2)$ = [0.909, -0.416, 0.02, 1]" in step.text["en"]


def test_no_prompt_or_step_writes_more_decimals_than_the_tables() -> None:
    # every number but the constant ε = 0.00001, which no table shows
    more = re.compile(r"(?<![\d.])(?<!\\varepsilon = )\d+\.\d{4,}")
    for kind in DRILL_KINDS:
        for seed in range(20):
            variant = generate_variant(kind, seed)
            texts = [variant.prompt, *(step.text for step in variant.solution)]
            found = [m for t in texts for lang in ("zh", "en") for m in more.findall(t[lang])]
            assert found == [], (kind, seed, found)


# Written out as the chapter prints them, outside a formula: a square root, a transpose, a
# subscript ("d_k"), Greek letters, or an equation in code. (A row of numbers is text, which can
# break between its numbers as a formula cannot: -∞ is one of them.)
PLAIN_NOTATION = re.compile(r"√|\^T|\bd_k\b|\bd_model\b|[σμεγβΣ]|`[^`]*[=×/][^`]*`")


def test_every_formula_in_the_prompts_and_steps_is_latex_that_renders() -> None:
    for kind in DRILL_KINDS:
        for seed in range(20):
            variant = generate_variant(kind, seed)
            for text in [variant.prompt, *(step.text for step in variant.solution)]:
                for lang in ("zh", "en"):
                    assert formula_problems(text[lang]) == [], (kind, seed, text[lang])
                    prose = re.sub(r"\$[^$]+\$", "", text[lang])
                    assert not PLAIN_NOTATION.findall(prose), (kind, seed, prose)
