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


def page_text(response) -> str:
    """The page's text as read, without its markup (the error summary's links)."""
    return html.unescape(re.sub(r"<[^>]+>", "", response.text))


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


# A 3 × 4 grid (drill-projection) sent a matrix of another shape, or rows of different
# lengths: what each language says, written out here as a learner reads it.
WRONG_SHAPES = [
    (
        "1 2 3\n4 5 6\n7 8 9\n1 2 3",  # as many values, another layout
        "wrong_shape",
        "expected 3 × 4 values (rows × columns), got 4 × 3",
        "应为 3 × 4 个值（行 × 列），实际是 4 × 3",
    ),
    (
        "1 2 3 4",  # one row of the four columns
        "wrong_shape",
        "expected 3 × 4 values (rows × columns), got 1 × 4",
        "应为 3 × 4 个值（行 × 列），实际是 1 × 4",
    ),
    (
        "1 2 3 4\n5 6 7 8\n9 10 11",  # the third row one short
        "wrong_shape_ragged",
        "expected 3 × 4 values (rows × columns), but the rows differ in length: "
        "row 3 has 3 values, row 1 has 4",
        "应为 3 × 4 个值（行 × 列），但各行长短不一：第 3 行有 3 个值，第 1 行有 4 个",
    ),
    (
        "1 2 3 4\n5\n6 7 8 9",
        "wrong_shape_ragged",
        "expected 3 × 4 values (rows × columns), but the rows differ in length: "
        "row 2 has 1 value, row 1 has 4",
        "应为 3 × 4 个值（行 × 列），但各行长短不一：第 2 行有 1 个值，第 1 行有 4 个",
    ),
]


@pytest.mark.parametrize(("pasted", "reason", "en", "zh"), WRONG_SHAPES)
def test_a_matrix_of_the_wrong_shape_is_refused_naming_both_shapes_and_uses_no_attempt(
    browser_for, sessions, pasted, reason, en, zh
):
    alice = browser_for("alice")
    alice.post("/lang/en")
    variant_id = start(alice, "drill-projection")
    url = f"/variants/{variant_id}/submissions"
    response = alice.post(url, {"pasted": pasted})
    assert response.status_code == 422
    text = page_text(response)
    assert "Your answer could not be read, so no attempt was used." in text
    assert f"Paste a matrix: {en}" in text

    alice.post("/lang/zh")
    response = alice.post(url, {"pasted": pasted})
    assert response.status_code == 422
    text = page_text(response)
    assert "无法读取你的答案，这次不计入次数。" in text
    assert f"粘贴矩阵：{zh}" in text
    assert attempts_used(sessions, variant_id) == 0


@pytest.mark.parametrize(("pasted", "reason", "en", "zh"), WRONG_SHAPES)
def test_the_api_refuses_a_wrong_shape_in_the_requests_language_using_no_attempt(
    browser_for, sessions, pasted, reason, en, zh
):
    alice = browser_for("alice")
    alice.post("/lang/zh")  # the site's language: a request's own choice goes first
    variant_id = start(alice, "drill-projection")
    url = f"/api/variants/{variant_id}/submissions"
    headers = {"X-CSRFToken": alice.token}
    rows = [[float(value) for value in line.split()] for line in pasted.splitlines()]
    for body in ({"answer": pasted}, {"answer": rows}):
        for query, language, message in [
            ("?lang=en", None, en),
            ("?lang=zh", None, zh),
            ("", "en-GB,en;q=0.9", en),
            ("", "zh-CN", zh),
            ("", None, zh),  # neither: the site's
        ]:
            sent = headers | ({"Accept-Language": language} if language else {})
            response = alice.client.post(url + query, json=body, headers=sent)
            assert response.status_code == 422, response.text
            error = response.json["error"]
            assert error == {
                "status": 422,
                "code": "invalid_answer",
                "message": message,
                "reason": reason,
            }
    assert attempts_used(sessions, variant_id) == 0
