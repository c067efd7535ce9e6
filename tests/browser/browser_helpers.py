"""Helpers the browser tests share."""

from __future__ import annotations

import re
from pathlib import Path

PASSWORD = "correct horse battery"  # every user the browser tests create
REPO = Path(__file__).resolve().parents[2]

# a numeric question, which the shipped chapter lacks, for the modules that add it
MASKED_SCORES = """\
questions:
  - id: masked-scores
    type: numeric
    tags: [masking]
    prompt:
      zh: 写出掩码后的 2×2 分数矩阵。
      en: Write down the 2×2 score matrix after masking.
    answer:
      - [2.0, "-inf"]
      - [2.7, 2.89]
    tolerance: {atol: 0.005, rtol: 0}
    explanation:
      zh: j > i 的位置设为 -∞。
      en: Positions with j > i are set to -∞.
"""


def login(page, name: str) -> None:
    """Log in through the form and wait for the start page: the chapter for a learner, the
    overview for an instructor."""
    page.goto("/login")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("form.login button[type=submit]")
    page.wait_for_url(re.compile(r"/chapters/transformer-by-hand$|/instructor/$"))
