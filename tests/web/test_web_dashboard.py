"""The instructor's start page, on work done through the app: the drills' most missed
cells and the known mistake behind most wrong answers."""

from __future__ import annotations

import html
import re

import numpy as np

from quizsvc import practice, store
from quizsvc.drills import Variant
from quizsvc.drills.mistakes import MISTAKES
from quizsvc.selftest import answer_text
from quizsvc.web.context import db

DRILL = "drill-score-row"


def answer_with(browser, make_answer) -> None:
    """Start a score-row variant and answer it with ``make_answer(variant)``."""
    headers = {"X-CSRFToken": browser.token}
    started = browser.client.post(f"/api/drills/{DRILL}/variants", json={}, headers=headers)
    assert started.status_code == 201, started.text
    variant_id = started.get_json()["id"]
    app = browser.client.application
    with app.app_context():
        learner = db().get(store.DrillVariant, variant_id).learner_id
        state = practice.drill_state(db(), learner, variant_id)
        variant: Variant = state.variant
    answer = answer_text(np.asarray(make_answer(variant)))
    response = browser.client.post(
        f"/api/variants/{variant_id}/submissions", json={"answer": answer}, headers=headers
    )
    assert response.status_code == 201, response.text


def unscaled(variant: Variant):
    [answer] = MISTAKES["no_scaling"].answers(variant)
    return answer


def test_the_start_page_names_the_mistake_behind_most_wrong_drill_answers(app, browser_for):
    alice, bob = browser_for("alice"), browser_for("bob")
    answer_with(alice, unscaled)
    answer_with(bob, unscaled)
    answer_with(bob, lambda variant: variant.answer.values)  # right: no cell wrong
    ines = browser_for("ines")
    ines.post("/lang/en")
    page = html.unescape(ines.get("/instructor/").text)
    item = re.search(r'<li data-kind="score_row">(.*?)</li>', page, re.DOTALL).group(1)
    # every cell of both unscaled answers is wrong, of the three submissions
    assert "row 1, column 1: 2 of 3 wrong" in item
    assert f"Most often: {MISTAKES['no_scaling'].template} (2 of 2 wrong answers)" in " ".join(
        item.split()
    )
    assert '<li data-kind="softmax_row">' not in page  # nobody went wrong there
