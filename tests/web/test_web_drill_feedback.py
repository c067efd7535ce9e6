"""Feedback that teaches, on a drill's page and in the API: beside each wrong cell the known
mistake that explains it, or how far off it is; what the next attempt may score before it is
sent; which score counts after a worse retry.

The drill is the score row, seed 7 (as tests/web/test_web_api.py's): 3 attempts, 0.1 off
per retry, atol 0.01, q and K of d_k = 4 columns, so √d_k = 2. The mistaken answer is worked
out here from the given q and K, not taken from the mistake catalog."""

from __future__ import annotations

import html
import math
import re

import numpy as np
import pytest
import yaml
from web_helpers import reading, start, user_id

from quizsvc import practice, store
from quizsvc.drills.mistakes import MISTAKES, Distance
from quizsvc.web import REPO_ROOT

SPEC = REPO_ROOT / "docs" / "openapi.yaml"
FAR_EN = "Far off (more than 10 times the tolerance): check the method, not only the arithmetic."
FAR_ZH = "相差很远（超过容差的 10 倍）：检查方法，而不只是计算。"
NO_SCALING_EN = "This is the value without the division by √d_k."
NO_SCALING_ZH = "这是没有除以 √d_k 的值。"


@pytest.fixture(autouse=True)
def seed_7(monkeypatch):
    monkeypatch.setattr(practice.secrets, "randbelow", lambda _n: 7)


def given_and_expected(sessions, variant_id: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The variant's query row (q0, its first token's) and K, and its expected answer, as
    stored."""
    with reading(sessions) as session:
        state = practice.drill_state(session, user_id(sessions, "alice"), variant_id)
    given = {tensor.name: tensor.values for tensor in state.variant.given}
    return given["q0"], given["K"], state.variant.answer.values


def unscaled_answer(sessions, variant_id: int) -> tuple[np.ndarray, np.ndarray]:
    """The scores q · K^T left undivided by √d_k, and the right (divided) ones."""
    q, keys, expected = given_and_expected(sessions, variant_id)
    raw = q @ keys.T
    assert keys.shape[1] == 4
    assert np.allclose(raw / math.sqrt(4), expected, atol=0.01)  # the drill is what it says
    return raw, expected


def inputs(page_html: str) -> dict[str, dict[str, str]]:
    """Each cell input of the answer form by name: its attributes."""
    found = {}
    for tag in re.findall(r"<input name=\"cell-[^>]*>", page_html):
        attributes = dict(re.findall(r'([\w-]+)="([^"]*)"', tag))
        found[attributes["name"]] = {k: html.unescape(v) for k, v in attributes.items()}
    return found


def notes_box(page_html: str) -> str:
    match = re.search(r'<section class="cell-notes" id="cell-notes".*?</section>', page_html, re.S)
    assert match, "no notes box"
    return match.group(0)


def notes(page_html: str) -> dict[str, tuple[str, str]]:
    """The notes box's notes: the id of each note's words -> (the cell's name, the words)."""
    return {
        note_id: (html.unescape(label), html.unescape(words))
        for label, note_id, words in re.findall(
            r'<span class="cell-note-label"[^>]*>([^<]*)</span>[:：] ?<span id="(note-\d+-\d+)">'
            r"([^<]*)</span>",
            notes_box(page_html),
        )
    }


def summary(page_html: str) -> str:
    match = re.search(r'<p class="cell-notes-summary"[^>]*>([^<]*)</p>', notes_box(page_html))
    assert match, "no summary"
    return html.unescape(match.group(1))


def note_refs(page_html: str) -> dict[str, str]:
    """The number shown beside each flagged cell of the grid: flag id -> number."""
    return dict(
        re.findall(
            r'<span class="cell-flag" id="(flag-\d+-\d+)">.*?</span></span>'
            r'<span class="note-ref" aria-hidden="true">(\d+)</span>',
            page_html,
        )
    )


def submit_mixed(alice, sessions) -> tuple[int, np.ndarray, np.ndarray]:
    """Attempt 1 of a score row: the first score left unscaled (a known mistake), the second
    right, the third 50 (far off, and no mistake's answer: every score here is below 10)."""
    variant_id = start(alice, "drill-score-row")
    raw, expected = unscaled_answer(sessions, variant_id)
    # unscaled, the first score is more than 3 tolerances off: not a rounding matter
    assert abs(raw[0, 0] - expected[0, 0]) > 3 * 0.01
    assert np.abs(raw).max() < 10
    typed = {"cell-0-0": repr(float(raw[0, 0])), "cell-0-1": f"{expected[0, 1]:.3f}"}
    typed["cell-0-2"] = "50"
    assert alice.post(f"/variants/{variant_id}/submissions", typed).status_code == 302
    return variant_id, raw, expected


def test_a_known_mistake_is_named_beside_its_cell_and_a_far_value_is_said_to_be(
    browser_for, sessions
):
    alice = browser_for("alice")
    alice.post("/lang/en")
    variant_id, _raw, expected = submit_mixed(alice, sessions)

    page = alice.get(f"/variants/{variant_id}").text
    cells = inputs(page)
    # each wrong input is described by its flag and its note; the right one by neither
    assert cells["cell-0-0"]["aria-describedby"] == "flag-0-0 note-0-0"
    assert cells["cell-0-2"]["aria-describedby"] == "flag-0-2 note-0-2"
    assert "aria-describedby" not in cells["cell-0-1"]
    assert note_refs(page) == {"flag-0-0": "1", "flag-0-2": "2"}
    # the notes name each cell as its input is labelled
    assert notes(page) == {
        "note-0-0": (cells["cell-0-0"]["aria-label"], NO_SCALING_EN),
        "note-0-2": (cells["cell-0-2"]["aria-label"], FAR_EN),
    }
    assert summary(page) == "2 of 3 cells wrong; 1 explained by a known mistake."
    # the box is under the grid, before the paste box, inside the answer form
    box = page.index('id="cell-notes"')
    assert page.index('<table class="matrix grid">') < box < page.index('id="pasted"')
    assert page.index('id="answer-form"') < box
    # attempts remain: nothing in the notes gives a wrong cell's answer away
    assert "Accepted" not in notes_box(page) and "interval" not in notes_box(page)
    for value in (expected[0, 0], expected[0, 2]):
        assert f"{value:.2f}" not in notes_box(page)

    alice.post("/lang/zh")
    page = alice.get(f"/variants/{variant_id}").text
    cells = inputs(page)
    assert notes(page) == {
        "note-0-0": (cells["cell-0-0"]["aria-label"], NO_SCALING_ZH),
        "note-0-2": (cells["cell-0-2"]["aria-label"], FAR_ZH),
    }
    assert summary(page) == "3 个格子中错了 2 个，其中 1 个可由常见错误解释。"
    assert re.search(r'<p class="cell-notes-title" [^>]*>关于第 1 次作答中填错的格子</p>', page)


def test_a_right_answer_has_no_notes_and_a_finished_one_keeps_them_under_its_marks(
    browser_for, sessions
):
    alice = browser_for("alice")
    alice.post("/lang/en")
    variant_id = start(alice, "drill-score-row")
    assert 'id="cell-notes"' not in alice.get(f"/variants/{variant_id}").text
    raw, expected = unscaled_answer(sessions, variant_id)
    unscaled = {f"cell-0-{c}": repr(float(v)) for c, v in enumerate(raw[0])}
    for _ in range(3):  # the same mistake three times: out of attempts
        assert alice.post(f"/variants/{variant_id}/submissions", unscaled).status_code == 302
    page = alice.get(f"/variants/{variant_id}").text
    assert 'id="answer-form"' not in page
    # every cell wrong (each unscaled score is 0.045 or more off), each by the mistake
    assert np.all(np.abs(raw - expected) > 0.01)
    found = notes(page)
    assert [words for _label, words in found.values()] == [NO_SCALING_EN] * 3
    assert summary(page) == "3 of 3 cells wrong; 3 explained by a known mistake."
    # under the marks, which show each note's number beside the cell
    marks = re.search(r'<table class="matrix marks" id="marks">.*?</table>', page, re.S).group(0)
    assert re.findall(r'<sup class="note-ref" aria-hidden="true">(\d)</sup>', marks) == [
        "1",
        "2",
        "3",
    ]
    assert page.index('id="marks"') < page.index('id="cell-notes"')


def test_a_single_number_s_note_is_its_own_without_a_summary(browser_for, sessions):
    alice = browser_for("alice")
    alice.post("/lang/en")
    variant_id = start(alice, "drill-greedy-next-token")  # one attempt, exact
    with reading(sessions) as session:
        state = practice.drill_state(session, user_id(sessions, "alice"), variant_id)
    token = int(state.variant.answer.values[0, 0])
    other = (token + 1) % 6  # another id of the six-word vocabulary
    response = alice.post(f"/variants/{variant_id}/submissions", {"cell-0-0": str(other)})
    assert response.status_code == 302
    page = alice.get(f"/variants/{variant_id}").text
    box = notes_box(page)
    assert '<p class="cell-notes-title" id="cell-notes-title">About attempt 1</p>' in box
    assert "cell-notes-summary" not in box and "note-ref" not in page
    assert re.search(
        r'<span id="note-0-0">Not the exact value, and only the exact value counts here.</span>',
        box,
    )
    # finished: the accepted value is shown in the marks, as before
    assert re.search(r'<small class="interval" title="Accepted value">' + str(token), page)


def attempt_cost(page_html: str) -> str:
    match = re.search(r'<p class="attempt-cost" id="attempt-cost">([^<]*)</p>', page_html)
    assert match, "no attempt cost"
    return html.unescape(match.group(1))


def test_what_an_attempt_may_score_is_said_beside_the_submit_button(browser_for, sessions):
    alice = browser_for("alice")
    alice.post("/lang/en")
    variant_id = start(alice, "drill-score-row")
    page = alice.get(f"/variants/{variant_id}").text
    actions = re.search(r'<div class="answer-actions">.*?</div>', page, re.S).group(0)
    assert '<button type="submit" aria-describedby="attempts-left attempt-cost">' in actions
    assert '<p class="attempts-left" id="attempts-left">Attempts left: 3</p>' in actions
    # 3 attempts, 0.1 off per retry: 100 %, then 90 %, then 80 % at most
    assert attempt_cost(actions) == (
        "This attempt can score at most 100%; each retry takes 10% more off."
    )
    wrong = {"cell-0-0": "9", "cell-0-1": "9", "cell-0-2": "9"}
    alice.post(f"/variants/{variant_id}/submissions", wrong)
    page = alice.get(f"/variants/{variant_id}").text
    assert attempt_cost(page) == (
        "This attempt can score at most 90%; each retry takes 10% more off."
    )
    alice.post(f"/variants/{variant_id}/submissions", wrong | {"cell-0-0": "8"})
    alice.post("/lang/zh")
    page = alice.get(f"/variants/{variant_id}").text
    assert attempt_cost(page) == "这是你最后一次作答机会，最高可得 80%。"

    # the greedy drill's one attempt, said before it is used
    alice.post("/lang/en")
    greedy = alice.get(f"/variants/{start(alice, 'drill-greedy-next-token')}").text
    assert attempt_cost(greedy) == "This is your only attempt: this drill cannot be retried."


def test_after_a_worse_retry_the_best_score_is_said_to_count_and_does(browser_for, sessions):
    alice = browser_for("alice")
    alice.post("/lang/en")
    variant_id = start(alice, "drill-score-row")
    _q, _k, expected = given_and_expected(sessions, variant_id)
    right = {f"cell-0-{c}": f"{v:.3f}" for c, v in enumerate(expected[0])}
    # attempt 1: two of three right, 67 %; attempt 2: one right, 33 % less 10 % = 23 %
    alice.post(f"/variants/{variant_id}/submissions", right | {"cell-0-2": "50"})
    alice.post(f"/variants/{variant_id}/submissions", right | {"cell-0-1": "50", "cell-0-2": "50"})
    page = alice.get(f"/variants/{variant_id}").text
    score = re.search(r'<p class="variant-score" id="variant-score">([^<]*)</p>', page).group(1)
    assert html.unescape(score) == (
        "Your best score, 67% (attempt 1), counts, not the 23% of attempt 2: a retry never "
        "lowers your score."
    )
    # and so it does: the skill's mastery moves halfway to the variant's best score, 2/3
    with reading(sessions) as session:
        (progress,) = store.progress_for(session, user_id(sessions, "alice"))
    assert progress.mastery == pytest.approx(0.5 * 2 / 3)


def api(browser_for):
    browser = browser_for("alice")
    client, headers = browser.client, {"X-CSRFToken": browser.token}
    return lambda path, body=None: client.post(path, json=body, headers=headers)


def test_the_api_sends_each_wrong_cell_s_diagnosis_in_the_request_s_language(browser_for, sessions):
    post = api(browser_for)
    variant_id = post("/api/drills/drill-score-row/variants").json["id"]
    raw, expected = unscaled_answer(sessions, variant_id)
    answer = [[float(raw[0, 0]), float(expected[0, 1]), 50.0]]
    submissions = f"/api/variants/{variant_id}/submissions"
    for lang, no_scaling, far in (("en", NO_SCALING_EN, FAR_EN), ("zh", NO_SCALING_ZH, FAR_ZH)):
        response = post(f"{submissions}?lang={lang}", {"answer": answer})
        assert response.status_code == 201, response.text
        first, second, third = response.json["submission"]["cells"]
        # 0.71 unscaled is over 10 tolerances off, as 50 is
        assert first["diagnosis"] == {
            "mistakes": [{"code": "no_scaling", "message": no_scaling}],
            "distance": {"code": "far", "message": far},
        }
        assert second["correct"] and "diagnosis" not in second
        assert third["diagnosis"] == {"mistakes": [], "distance": {"code": "far", "message": far}}
        # no interval around a wrong cell while attempts remain
        assert "low" not in first and "low" not in third


def test_the_spec_lists_every_mistake_and_distance_code():
    schemas = yaml.safe_load(SPEC.read_text(encoding="utf-8"))["components"]["schemas"]
    diagnosis = schemas["CellDiagnosis"]["properties"]
    mistake_codes = diagnosis["mistakes"]["items"]["properties"]["code"]["enum"]
    assert mistake_codes == list(MISTAKES)
    assert diagnosis["distance"]["properties"]["code"]["enum"] == [d.value for d in Distance]
