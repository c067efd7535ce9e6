"""A numeric chapter question in a real browser, on content with one added (the shipped
content has none): the rules before answering, and after answering the automatic score, the
marks per cell and the matrix as typed, line for line."""

from __future__ import annotations

import re
import shutil

import pytest
from browser_helpers import MASKED_SCORES, REPO, login

try:
    from playwright.sync_api import expect
except ImportError:  # the `chromium` fixture skips (or fails under CI) with the reason
    expect = None


@pytest.fixture(scope="module")
def app_config(tmp_path_factory) -> dict[str, str]:
    content = tmp_path_factory.mktemp("browser-content") / "content"
    shutil.copytree(REPO / "content", content)
    (content / "transformer-by-hand" / "numeric.yaml").write_text(MASKED_SCORES, encoding="utf-8")
    return {"CONTENT_DIR": str(content)}


def test_a_numeric_answer_is_marked_per_cell_and_shown_as_typed(page, student):
    login(page, student)

    question = page.locator("#q-masked-scores")
    expect(question.locator("ul.answer-rules li")).to_have_text(
        [
            re.compile(r"^The answer is a 2 × 2 matrix \(rows × columns\): one row per line"),
            "Answers within ±0.005 of the exact value count as correct.",
            "Worth 1 point.",
            "One try: your answer is final once you submit it.",
        ]
    )
    # two lines, as a learner types a matrix: 3 of 4 cells right (2.89 ± 0.005 wanted)
    question.locator("textarea[name=text]").fill("2, -inf\n2.7, 2.5")
    question.get_by_role("button", name="Submit").click()

    result = page.locator("#q-masked-scores .result")
    expect(result.locator(".auto-score")).to_have_text("Automatic score: 75%")
    # what the browser renders: the line break between the rows is kept
    assert result.locator("p.answer-text").inner_text() == "2, -inf\n2.7, 2.5"
    marks = result.locator("table.marks tbody td")
    expect(marks).to_have_count(4)
    assert [cell.get_attribute("data-correct") for cell in marks.all()] == [
        "true",
        "true",
        "true",
        "false",
    ]
    expect(result.locator(".expected tbody td")).to_have_text(["2", "−∞", "2.7", "2.89"])
    expect(result.locator(".explanation")).to_contain_text("Positions with j > i are set to -∞.")
