"""The notes under a drill's grid after a wrong attempt, at a phone's size (390 x 844) and a
laptop's (1280 x 800), in zh and en: the box is shown, in the screen's width, each wrong
input described by its note; the page never scrolls sideways; axe finds nothing.

The score row of seed 7 is answered with its scores left undivided by √d_k (worked out here
from the given q and K), a 3 x 4 projection with every cell 1 off (far off: 100 tolerances),
twelve notes."""

from __future__ import annotations

import math
import uuid

import numpy as np
import pytest
from browser_helpers import PASSWORD, choose_language, login

from quizsvc import practice, store

try:
    from playwright.sync_api import expect
except ImportError:  # the `chromium` fixture skips (or fails under CI) with the reason
    expect = None

SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}
AXE_OPTIONS = {
    "runOnly": {
        "type": "tag",
        "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"],
    },
    "resultTypes": ["violations"],
}
NOTES = {
    "en": ("This is the value without the division by √d_k.", "Far off (more than 10 times"),
    "zh": ("这是没有除以 √d_k 的值。", "相差很远（超过容差的 10 倍）"),
}


@pytest.fixture(scope="module")
def learner(live_server) -> dict:
    """A student with two drills answered wrong once."""
    name = f"feedback-{uuid.uuid4().hex[:8]}"
    bank = live_server.app.extensions["quizsvc"].bank
    with live_server.sessions() as session:
        learner_id = store.create_user(session, name=name, role="student", password=PASSWORD).id
        scores = practice.start_drill(session, bank, learner_id, "drill-score-row", seed=7).id
        given = practice.drill_state(session, learner_id, scores).variant.given
        projection = practice.start_drill(session, bank, learner_id, "drill-projection", seed=7).id
        state = practice.drill_state(session, learner_id, projection)
        q, keys = given[0].values, given[1].values
        unscaled = q @ keys.T  # √d_k left out
        assert np.all(np.abs(unscaled - unscaled / math.sqrt(keys.shape[1])) > 0.03)
        answers = {
            "scores": (scores, unscaled),
            "projection": (projection, state.variant.answer.values + 1),
        }
        for variant_id, values in answers.values():
            text = "\n".join(" ".join(repr(float(v)) for v in row) for row in values)
            practice.submit_drill(session, learner_id, variant_id, text, uuid.uuid4().hex)
    return {"name": name, **answers}


@pytest.mark.parametrize("language", ["zh", "en"])
def test_the_notes_box_fits_every_screen_and_describes_each_wrong_cell(
    page, axe, learner, language
):
    login(page, learner["name"])
    choose_language(page, language)
    explained, far = NOTES[language]
    for drill, (variant_id, values) in (
        ("scores", learner["scores"]),
        ("projection", learner["projection"]),
    ):
        page.goto(f"/variants/{variant_id}")
        notes = page.locator("#cell-notes")
        for size_name, size in SIZES.items():
            where = f"{language} {size_name} {drill}"
            page.set_viewport_size(size)
            page.evaluate("() => new Promise(r => requestAnimationFrame(() => setTimeout(r)))")
            expect(notes).to_be_visible()
            box = notes.bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= size["width"], where
            assert page.evaluate("document.documentElement.scrollWidth") <= size["width"], where
            # each wrong input described by its note, whose words say why
            for (r, c), _value in np.ndenumerate(values):
                cell = page.locator(f"input[name=cell-{r}-{c}]")
                described = (cell.get_attribute("aria-describedby") or "").split()
                assert f"note-{r}-{c}" in described, (where, r, c, described)
                words = page.locator(f"#note-{r}-{c}").text_content()
                assert words.startswith(explained if drill == "scores" else far), (where, words)
            results = axe.run(page, options=AXE_OPTIONS).response
            assert results["violations"] == [], (
                where,
                [(v["id"], [n["html"][:120] for n in v["nodes"]]) for v in results["violations"]],
            )
