"""A drill added to the content is listed in the section of its skill, not at the end."""

from __future__ import annotations

import pytest
from test_web_drills_list import sections_of

LONGER_MASKED_ROW = """
  - id: drill-masked-row-long
    type: drill
    kind: masked_row
    tags: [masking]
    prompt: {zh: 四个 token 的掩码权重。, en: Masked weights over four tokens.}
    params: {n: 4}
"""


@pytest.fixture
def content_dir(content_dir):
    """The shipped content with a second masked drill at the end of the bank."""
    drills = content_dir / "transformer-by-hand" / "drills.yaml"
    drills.write_text(drills.read_text(encoding="utf-8") + LONGER_MASKED_ROW, encoding="utf-8")
    return content_dir


def test_a_new_drill_slots_into_the_section_of_its_skill(browser_for):
    alice = browser_for("alice")
    alice.post("/lang/en")
    sections = dict(sections_of(alice.get("/drills").text))
    assert sections["Scores, scaling, mask and softmax"] == [
        "score_row",
        "masked_score_row",
        "softmax_row",
        "masked_row",
        "masked_row",
    ]
    assert len(sections) == 10
