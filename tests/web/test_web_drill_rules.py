"""The rules a drill's page states before the learner answers: how close an answer must be,
whether one wrong cell costs everything, and what a further attempt costs, each shown only
where it applies. Runs on a copy of content/ with three more drills: one whose retries are
free, and two at the edges of the rules (two cells, two attempts; one attempt)."""

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
                "Answers within ±0.005 of the exact value count as correct.",
                "Each further attempt takes 10% off the score.",
            ],
        ),
        (  # all or nothing, retries without a penalty
            "drill-softmax-free-retries",
            [
                "Answers within ±0.005 of the exact value count as correct.",
                "Every cell must be right to score: one wrong cell scores 0.",
            ],
        ),
        (  # the smallest answer all or nothing can matter for, the fewest attempts a
            # penalty can
            "drill-softmax-pair",
            [
                "Answers within ±0.005 of the exact value count as correct.",
                "Every cell must be right to score: one wrong cell scores 0.",
                "Each further attempt takes 25% off the score.",
            ],
        ),
        (  # a penalty, but no further attempt for it to apply to
            "drill-softmax-one-attempt",
            ["Answers within ±0.005 of the exact value count as correct."],
        ),
        (  # one token id, one attempt: all or nothing goes without saying
            "drill-greedy-next-token",
            ["Only the exact value counts as correct."],
        ),
    ],
)
def test_a_drill_states_only_the_rules_that_apply_to_it(browser_for, question_id, rules):
    alice = browser_for("alice")
    alice.post("/lang/en")
    assert rules_of_a_new_variant(alice, question_id) == rules
