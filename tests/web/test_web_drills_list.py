"""The drills page lists the drills under the steps of the chapter's data flow, in the
chapter's order, each with the learner's state: not tried, in progress, mastered."""

from __future__ import annotations

import html
import re

import numpy as np
from web_helpers import expected_answer, start

from quizsvc.drills import DRILL_KINDS
from quizsvc.web.drill_list import DRILL_SECTIONS, OTHER_SECTION, DrillSection, sectioned

# the chapter's order, as the issue lists its steps, with the bank's drills in each
CHAPTER_ORDER = [
    ("Embedding and positional encoding", ["embedding_positional"]),
    ("Q, K and V projections", ["projection"]),
    (
        "Scores, scaling, mask and softmax",
        ["score_row", "masked_score_row", "softmax_row", "masked_row"],
    ),
    ("Attention output", ["attention_output_row"]),
    ("Multi-head attention", ["multi_head"]),
    ("Add & Norm", ["add_norm"]),
    ("Feed-forward network", ["ffn_row"]),
    ("Cross-attention", ["cross_attention_row"]),
    ("Teacher forcing and the loss", ["teacher_forcing_loss", "logit_gradient"]),
    ("Decoding", ["greedy_next_token"]),
]


def sections_of(page: str) -> list[tuple[str, list[str]]]:
    """Each section's heading (its number left out) and the kinds of its drills."""
    found = []
    for block in re.findall(r'<section class="drill-group".*?</section>', page, re.S):
        heading = re.search(r"<h2[^>]*>(.*?)</h2>", block, re.S).group(1)
        heading = " ".join(html.unescape(re.sub(r"<span[^>]*>\d+</span>", "", heading)).split())
        found.append((heading, re.findall(r'<li data-kind="(\w+)"', block)))
    return found


def states_of(page: str) -> dict[str, str]:
    return dict(re.findall(r'<li data-kind="(\w+)" data-state="([\w-]+)"', page))


def test_the_drills_are_listed_under_the_chapters_steps_in_its_order(browser_for):
    alice = browser_for("alice")
    alice.post("/lang/en")
    page = alice.get("/drills").text
    assert sections_of(page) == CHAPTER_ORDER
    # numbered 1 to 10, each section named by its heading
    numbers = re.findall(r'<span class="group-number" aria-hidden="true">(\d+)</span>', page)
    assert numbers == [str(n) for n in range(1, 11)]
    assert page.count('aria-labelledby="heading-') == 10

    alice.post("/lang/zh")
    headings = [heading for heading, _ in sections_of(alice.get("/drills").text)]
    assert headings[:3] == ["词嵌入与位置编码", "Q、K、V 投影", "分数、缩放、掩码与 Softmax"]
    assert headings[-1] == "自回归解码"


def test_every_drill_kinds_skill_has_its_section():
    listed = [skill for section in DRILL_SECTIONS for skill in section.skills]
    assert len(listed) == len(set(listed))  # one section per skill
    assert {kind.skill for kind in DRILL_KINDS.values()} <= set(listed)


def test_a_skill_no_section_lists_goes_to_a_last_section_of_its_own(app):
    with app.test_request_context():
        drills = [
            {"id": "a", "skill_tag": "decoding"},
            {"id": "b", "skill_tag": "something_new"},
            {"id": "c", "skill_tag": "qkv"},
        ]
        # in the sections' order, whatever the drills' order
        sections = sectioned(
            drills, (DrillSection("qkv", ("qkv",), "QKV"), DrillSection("decoding", ("decoding",)))
        )
        assert [(s["key"], s["heading"], [d["id"] for d in s["drills"]]) for s in sections] == [
            ("qkv", "QKV", ["c"]),
            ("decoding", "Decoding", ["a"]),
            (OTHER_SECTION.key, "Other drills", ["b"]),
        ]


def test_each_drill_shows_not_tried_in_progress_or_mastered(browser_for, sessions):
    alice = browser_for("alice")
    alice.post("/lang/en")
    assert set(states_of(alice.get("/drills").text).values()) == {"not-tried"}

    # started: in progress, also after a wrong attempt
    variant = start(alice, "drill-softmax-row")
    assert states_of(alice.get("/drills").text)["softmax_row"] == "in-progress"
    wrong = expected_answer(sessions, "alice", variant) + 1
    form = {f"cell-0-{c}": repr(float(v)) for c, v in enumerate(wrong[0])}
    assert alice.post(f"/variants/{variant}/submissions", form).status_code == 302
    assert states_of(alice.get("/drills").text)["softmax_row"] == "in-progress"

    # right at the first attempt: mastered
    variant = start(alice, "drill-projection")
    right = expected_answer(sessions, "alice", variant)
    form = {f"cell-{r}-{c}": repr(float(v)) for (r, c), v in np.ndenumerate(right)}
    assert alice.post(f"/variants/{variant}/submissions", form).status_code == 302
    page = alice.get("/drills").text
    assert states_of(page)["projection"] == "mastered"
    assert re.search(
        r'id="status-drill-projection"><span class="state mastered">Mastered</span>', page
    )
    assert '<span class="state in-progress">In progress</span>' in page
    assert '<span class="state not-tried">Not tried</span>' in page

    alice.post("/lang/zh")
    page = alice.get("/drills").text
    assert '<span class="state mastered">已掌握</span>' in page
    assert '<span class="state in-progress">进行中</span>' in page
    assert '<span class="state not-tried">还没做过</span>' in page


def test_the_suggested_drill_is_marked_in_the_list_and_offered_first(browser_for):
    alice = browser_for("alice")
    alice.post("/lang/en")
    page = alice.get("/drills").text
    # the recommendation comes before the list, and its drill is marked in the list
    assert page.index('id="recommended"') < page.index('class="drill-group"')
    suggested = re.findall(r'<li data-kind="(\w+)" data-state="[\w-]+" class="suggested">', page)
    assert suggested == ["embedding_positional"]
    assert page.count("Suggested next</span>") == 1
