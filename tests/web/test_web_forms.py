"""The answer forms' hidden idempotency key as the pages' forms read it: a key the store
cannot take (a tampered form) gives the form's page again with a 400 and a message, never a
500; a form without a key still gets a fresh one. And a form's fields come from the posted
form alone, never from a JSON body."""

from __future__ import annotations

import html
import json
import re

import pytest
from web_helpers import count, expected_answer, reading, start

from quizsvc import store

CHAPTER_URL = "/chapters/transformer-by-hand"
OPEN_QUESTION = "teacher-forcing-vs-autoregressive"
SINGLE_CHOICE = "qkv-origin"  # correct: B

KEY_REFUSED = {
    "en": "The form's hidden key (idempotency_key) is blank, longer than 128 characters or "
    "holds characters that cannot be stored, so nothing was recorded. Reload the page and "
    "send the form again.",
    "zh": "表单的隐藏键（idempotency_key）为空、超过 128 个字符或含有无法保存的字符，"
    "因此没有记录任何内容。请刷新页面后再提交。",
}
DAMAGED_KEYS = ["   ", "k" * 129, "k\x00"]


def inline_error(page_html: str) -> str:
    match = re.search(r'<p class="inline-error" id="[^"]+" role="alert">(.*?)</p>', page_html)
    assert match, "no inline error"
    return html.unescape(match.group(1))


def error_summary(page_html: str) -> list[str]:
    match = re.search(r'<div class="error-summary"[^>]*>(.*?)</div>', page_html, re.S)
    assert match, "no error summary"
    items = re.findall(r"<li>(.*?)</li>", match.group(1), re.S)
    return [html.unescape(re.sub(r"<[^>]+>", "", item)) for item in items]


def grid(values) -> dict[str, str]:
    return {f"cell-0-{c}": repr(float(v)) for c, v in enumerate(values.ravel())}


def attempts_used(sessions, variant_id: int) -> int:
    with reading(sessions) as session:
        return store.load_variant(session, variant_id).attempts_used


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("key", DAMAGED_KEYS)
def test_a_chapter_answer_with_a_damaged_key_is_refused_on_its_page(
    browser_for, sessions, key, lang
):
    alice = browser_for("alice")
    alice.post(f"/lang/{lang}")
    typed = "the decoder sees the true target while training"
    response = alice.post(
        f"{CHAPTER_URL}/questions/{OPEN_QUESTION}", {"text": typed, "idempotency_key": key}
    )
    assert response.status_code == 400
    assert inline_error(response.text) == KEY_REFUSED[lang]
    # the answer typed is there to send again, with a fresh key from the page
    assert f">{typed}</textarea>" in response.text
    assert count(sessions, store.QuizAnswer) == 0


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("key", DAMAGED_KEYS)
def test_a_drill_answer_with_a_damaged_key_is_refused_on_its_page(browser_for, sessions, key, lang):
    alice = browser_for("alice")
    alice.post(f"/lang/{lang}")
    variant_id = start(alice, "drill-score-row")  # a 1 x 3 grid
    sent = grid(expected_answer(sessions, "alice", variant_id))
    response = alice.post(f"/variants/{variant_id}/submissions", {**sent, "idempotency_key": key})
    assert response.status_code == 400
    assert error_summary(response.text) == [KEY_REFUSED[lang]]
    for name, value in sent.items():  # the grid as it was sent
        assert f'name="{name}" id="{name}"' in response.text
        assert re.search(rf'name="{name}"[^>]* value="{re.escape(value)}"', response.text)
    assert attempts_used(sessions, variant_id) == 0


def test_a_key_of_the_longest_length_the_store_takes_is_taken(browser_for, sessions):
    alice = browser_for("alice")
    url = f"{CHAPTER_URL}/questions/{SINGLE_CHOICE}"
    response = alice.post(url, {"choice": "B", "idempotency_key": "k" * 128})
    assert response.status_code == 302
    assert count(sessions, store.QuizAnswer) == 1


@pytest.mark.parametrize("form", [{}, {"idempotency_key": ""}])
def test_a_drill_answer_without_a_key_gets_a_fresh_one_each_time(browser_for, sessions, form):
    alice = browser_for("alice")
    variant_id = start(alice, "drill-score-row")
    wrong = grid(expected_answer(sessions, "alice", variant_id) + 0.25)
    for attempt in (1, 2):
        response = alice.post(f"/variants/{variant_id}/submissions", {**wrong, **form})
        assert response.status_code == 302
        assert attempts_used(sessions, variant_id) == attempt  # not taken for a replay


def test_a_form_is_read_from_its_posted_fields_never_from_a_json_body(browser_for, sessions):
    alice = browser_for("alice")
    url = f"{CHAPTER_URL}/questions/{SINGLE_CHOICE}"
    body = json.dumps({"choice": ["B"], "idempotency_key": 7, "csrf_token": alice.token})
    response = alice.client.post(
        url, data=body, headers={"Content-Type": "application/json", "X-CSRFToken": alice.token}
    )
    assert response.status_code == 422  # as a form ticking no choice
    assert inline_error(response.text) == "Choose an answer before submitting."
    assert count(sessions, store.QuizAnswer) == 0
