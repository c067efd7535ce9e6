"""The answer grid as the server writes it and reads it: a keyboard with a minus in every cell,
a −∞ button beside each cell where the answer may be minus infinity, −∞ taken in every way a
learner types it, and a matrix of the wrong shape refused, naming both shapes, without using
an attempt. (tests/browser drives the grid's script: arrow keys, pasting, the buttons.)"""

from __future__ import annotations

import dataclasses
import html
import re

import numpy as np
import pytest
from web_helpers import reading, start, user_id

from quizsvc import practice, store
from quizsvc.drills import Tensor

MINUS_INFINITY_FORMS = ["-inf", "−inf", "-∞", "−∞", "-INF", "−Inf", "-Infinity", "−INFINITY"]


def issue_masked_scores(app, sessions, name: str) -> tuple[int, np.ndarray]:
    """A variant of the masked weights drill whose answer is the masked, scaled scores (the
    chapter's step before the softmax: −∞ where a token may not look): its id and answer."""
    bank = app.extensions["quizsvc"].bank
    question = bank.questions["drill-masked-row"]
    variant = practice.build_variant(question, seed=3)
    weights = variant.answer.values
    masked = weights == 0
    scores = np.full(weights.shape, -np.inf)
    scores[~masked] = np.round(np.log(weights[~masked]) + 1.5, 2)
    answer = variant.answer
    with_scores = dataclasses.replace(
        variant, answer=Tensor("masked scores", scores, answer.row_labels, answer.col_labels)
    )
    with sessions() as session:
        issued = store.issue_variant(
            session,
            learner_id=user_id(sessions, name),
            question_id=question.id,
            kind=question.kind,
            seed=3,
            params=variant.params,
            variant_json=with_scores.to_json(),
            content_version=bank.version,
            attempts_allowed=question.attempts,
            penalty=question.penalty,
            skill=variant.skill,
        )
    return issued.id, scores


def cell_inputs(page: str) -> list[str]:
    return re.findall(r'<input name="cell-\d+-\d+"[^>]*>', page)


def attempts_used(sessions, variant_id: int) -> int:
    with reading(sessions) as session:
        return store.load_variant(session, variant_id).attempts_used


def test_every_cell_offers_a_keyboard_with_a_minus_and_leaves_inf_as_typed(browser_for):
    alice = browser_for("alice")
    for question in ("drill-projection", "drill-teacher-forcing-loss"):  # a grid, a number
        page = alice.get(f"/variants/{start(alice, question)}").text
        for cell in cell_inputs(page):
            # the text keyboard: an iPhone's decimal pad has no "-"
            assert 'inputmode="text"' in cell, cell
            # no capital I, no "info" for "inf"
            for attribute in ('autocapitalize="off"', 'autocorrect="off"', 'spellcheck="false"'):
                assert attribute in cell, (attribute, cell)


def test_a_grid_whose_answer_may_be_minus_infinity_has_a_button_beside_each_cell(
    app, browser_for, sessions
):
    alice = browser_for("alice")
    alice.post("/lang/en")
    variant_id, scores = issue_masked_scores(app, sessions, "alice")
    assert np.isneginf(scores).any() and np.isfinite(scores).any()
    page = alice.get(f"/variants/{variant_id}").text
    buttons = re.findall(
        r'<button type="button" class="fill-minus-infinity"[^>]*>[^<]*</button>', page
    )
    # one beside every cell, masked or not (or the buttons would tell which are masked)
    assert len(buttons) == scores.size == len(cell_inputs(page))
    names = re.findall(r'<input name="cell-0-(\d)"[^>]*aria-label="([^"]+)"', page)
    for (col, cell_name), button in zip(names, buttons, strict=True):
        assert f'data-cell="cell-0-{col}"' in button
        # named by its cell, the visible "−∞" first; hidden until the script makes it work
        assert f'aria-label="−∞ into {cell_name}"' in button
        assert " hidden>−∞</button>" in button
    assert page.count('class="cell-field with-infinity"') == scores.size

    alice.post("/lang/zh")
    page = alice.get(f"/variants/{variant_id}").text
    assert re.search(r'aria-label="在 [^"]+ 填入 −∞"', page)

    # a drill whose answer is finite has none
    page = alice.get(f"/variants/{start(alice, 'drill-masked-row')}").text
    assert "fill-minus-infinity" not in page and "with-infinity" not in page


@pytest.mark.parametrize("typed", MINUS_INFINITY_FORMS)
def test_minus_infinity_is_right_in_every_form_a_learner_types(app, browser_for, sessions, typed):
    alice = browser_for("alice")
    alice.post("/lang/en")
    variant_id, scores = issue_masked_scores(app, sessions, "alice")
    form = {f"cell-0-{c}": typed if np.isneginf(v) else f"{v:.2f}" for c, v in enumerate(scores[0])}
    response = alice.post(f"/variants/{variant_id}/submissions", form)
    assert response.status_code == 302, html.unescape(response.text)[:300]
    page = alice.get(f"/variants/{variant_id}").text
    assert "Attempt 1: score 100%" in page, typed


def test_plus_infinity_in_a_masked_cell_is_wrong(app, browser_for, sessions):
    alice = browser_for("alice")
    alice.post("/lang/en")
    variant_id, scores = issue_masked_scores(app, sessions, "alice")
    masked = int(np.isneginf(scores[0]).sum())
    form = {f"cell-0-{c}": "∞" if np.isneginf(v) else f"{v:.2f}" for c, v in enumerate(scores[0])}
    assert alice.post(f"/variants/{variant_id}/submissions", form).status_code == 302
    right = scores.size - masked
    score = f"{round(100 * right / scores.size)}%"
    assert f"Attempt 1: score {score}" in alice.get(f"/variants/{variant_id}").text


def test_a_matrix_of_the_wrong_shape_is_refused_naming_both_shapes_and_uses_no_attempt(
    browser_for, sessions
):
    alice = browser_for("alice")
    alice.post("/lang/en")
    variant_id = start(alice, "drill-projection")  # a 3 x 4 grid
    url = f"/variants/{variant_id}/submissions"
    # the same count of values in another shape: both shapes named
    response = alice.post(url, {"pasted": "1 2 3\n4 5 6\n7 8 9\n1 2 3"})
    assert response.status_code == 422
    text = html.unescape(response.text)
    assert "Your answer could not be read, so no attempt was used." in text
    assert "expected 3 × 4 values, got 4 × 3" in text
    # another count: the grid's shape and the count
    response = alice.post(url, {"pasted": "1 2\n3 4"})
    assert response.status_code == 422
    assert "expected 3 × 4 values, got 4" in html.unescape(response.text)
    assert attempts_used(sessions, variant_id) == 0
    assert "Attempts left: 3" in response.text

    alice.post("/lang/zh")
    response = alice.post(url, {"pasted": "1 2 3\n4 5 6\n7 8 9\n1 2 3"})
    assert response.status_code == 422
    text = html.unescape(response.text)
    assert "无法读取你的答案，这次不计入次数。" in text
    assert "应为 3 × 4 个值，实际是 4 × 3" in text
    assert attempts_used(sessions, variant_id) == 0
