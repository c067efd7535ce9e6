"""The rules a drill's page states before the learner answers: the decimals to give, a
masked cell's answer, how close an answer must be, whether one wrong cell costs everything,
and what a further attempt costs (or that there is none), each shown only where it applies.
Runs on a copy of content/ with three more drills: one whose retries are free, and two at the
edges of the rules (two cells, two attempts; one attempt)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

EXTRA_DRILLS = """\
questions:
  - id: drill-softmax-free-retries
    type: drill
    kind: softmax_row
    tags: [softmax]
    prompt:
      zh: 对这一行分数做 Softmax，保留三位小数。
      en: Apply the softmax to this row of scores. Round to three decimals.
    params: {}
    tolerance: {atol: 0.005, rtol: 0}
    attempts: 2
    penalty: 0
    all_or_nothing: true

  - id: drill-softmax-pair
    type: drill
    kind: softmax_row
    tags: [softmax]
    prompt:
      zh: 对这两个分数做 Softmax，保留三位小数。
      en: Apply the softmax to these two scores. Round to three decimals.
    params: {n: 2}
    tolerance: {atol: 0.005, rtol: 0}
    attempts: 2
    penalty: 0.25
    all_or_nothing: true

  - id: drill-softmax-one-attempt
    type: drill
    kind: softmax_row
    tags: [softmax]
    prompt:
      zh: 对这一行分数做 Softmax，保留三位小数。
      en: Apply the softmax to this row of scores. Round to three decimals.
    params: {}
    tolerance: {atol: 0.005, rtol: 0}
    attempts: 1
    penalty: 0.5
"""


@pytest.fixture
def content_dir(content_dir) -> Path:
    (content_dir / "transformer-by-hand" / "extra-drills.yaml").write_text(
        EXTRA_DRILLS, encoding="utf-8"
    )
    return content_dir


def rules_of_a_new_variant(browser, question_id: str) -> list[str]:
    started = browser.post(f"/drills/{question_id}/variants")
    assert started.status_code == 302, started.text
    page = browser.get(started.headers["Location"]).text
    found = re.search(r'<ul class="rules" id="rules">(.*?)</ul>', page, re.S)
    assert found, "no rules"
    return [html.unescape(rule) for rule in re.findall(r"<li>(.*?)</li>", found.group(1))]


@pytest.mark.parametrize(
    ("question_id", "rules"),
    [
        (  # three attempts, 10 % off each further one (the defaults)
            "drill-softmax-row",
            [
                "Keep 3 decimals in each intermediate result and give the answer to 3.",
                "Answers within ±0.005 of the exact value count as correct.",
                "Each further attempt takes 10% off the score.",
            ],
        ),
        (  # all or nothing, retries without a penalty
            "drill-softmax-free-retries",
            [
                "Keep 3 decimals in each intermediate result and give the answer to 3.",
                "Answers within ±0.005 of the exact value count as correct.",
                "Every cell must be right to score: one wrong cell scores 0.",
            ],
        ),
        (  # the smallest answer all or nothing can matter for, the fewest attempts a
            # penalty can
            "drill-softmax-pair",
            [
                "Keep 3 decimals in each intermediate result and give the answer to 3.",
                "Answers within ±0.005 of the exact value count as correct.",
                "Every cell must be right to score: one wrong cell scores 0.",
                "Each further attempt takes 25% off the score.",
            ],
        ),
        (  # a penalty, but no further attempt for it to apply to
            "drill-softmax-one-attempt",
            [
                "Keep 3 decimals in each intermediate result and give the answer to 3.",
                "Answers within ±0.005 of the exact value count as correct.",
                "One attempt: this drill cannot be retried.",
            ],
        ),
        (  # one token id, one attempt: all or nothing goes without saying
            "drill-greedy-next-token",
            [
                "Answer with a whole number: the token's id.",
                "Only the exact value counts as correct.",
                "One attempt: this drill cannot be retried.",
            ],
        ),
        (  # the chapter's masked step: -inf where the weights would be 0
            "drill-masked-score-row",
            [
                "Keep 3 decimals in each intermediate result and give the answer to 2.",
                "Write -inf in a masked cell (−∞ works too).",
                "Answers within ±0.01 of the exact value count as correct.",
                "Each further attempt takes 10% off the score.",
            ],
        ),
        (
            "drill-masked-row",
            [
                "Keep 3 decimals in each intermediate result and give the answer to 3.",
                "Write 0 in a masked cell.",
                "Answers within ±0.005 of the exact value count as correct.",
                "Each further attempt takes 10% off the score.",
            ],
        ),
        (  # products of tenths and halves: nothing to round on the way
            "drill-attention-output-row",
            [
                "Give the answer to 2 decimals.",
                "Answers within ±0.01 of the exact value count as correct.",
                "Each further attempt takes 10% off the score.",
            ],
        ),
        (
            "drill-multi-head",
            [
                "Keep 3 decimals in each intermediate result (4 in eˣ and their sum) and give "
                "the answer to 2.",
                "Answers within ±0.03 of the exact value count as correct.",
                "Each further attempt takes 10% off the score.",
            ],
        ),
    ],
)
def test_a_drill_states_only_the_rules_that_apply_to_it(browser_for, question_id, rules):
    alice = browser_for("alice")
    alice.post("/lang/en")
    assert rules_of_a_new_variant(alice, question_id) == rules


def test_the_rules_in_chinese(browser_for):
    alice = browser_for("alice")
    alice.post("/lang/zh")
    assert rules_of_a_new_variant(alice, "drill-masked-score-row") == [
        "中间结果保留 3 位小数，答案保留 2 位小数。",
        "被屏蔽的格子写 -inf（也可写 −∞ 或 负无穷）。",
        "与精确值相差不超过 ±0.01 的答案算对。",
        "每多尝试一次，得分扣 10%。",
    ]
    assert rules_of_a_new_variant(alice, "drill-greedy-next-token")[::2] == [
        "答案写一个整数：token 的 ID。",
        "只有一次作答机会，不能重做。",
    ]
