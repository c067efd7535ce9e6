"""The chapter's cross-attention and greedy decoding drills default to its trained model: the
API and the drill page give a sentence of the corpus and one head's numbers (d_k = 8), and
grade an answer worked out from them, here with plain NumPy from the given tensors."""

from __future__ import annotations

import html
import json
import math
import re

import numpy as np
import pytest
from web_helpers import start

from quizsvc import practice

CROSS = "drill-cross-attention-row"


@pytest.fixture(autouse=True)
def seed_7(monkeypatch):
    monkeypatch.setattr(practice.secrets, "randbelow", lambda _n: 7)


def by_hand(given: dict[str, np.ndarray]) -> np.ndarray:
    """softmax(q K^T / √d_k) V from the given q, K_enc and V_enc, to two decimals."""
    (q,) = [values for name, values in given.items() if name.startswith("q(")]
    k, v = given["K_enc"], given["V_enc"]
    scores = q @ k.T / math.sqrt(k.shape[1])
    weights = np.exp(scores - scores.max()) / np.exp(scores - scores.max()).sum()
    return np.round(weights @ v, 2)


def test_the_api_gives_a_trained_cross_attention_variant_and_grades_it(browser_for):
    alice = browser_for("alice")
    api = {"X-CSRFToken": alice.token}
    response = alice.client.post(f"/api/drills/{CROSS}/variants?lang=en", headers=api)
    assert response.status_code == 201, response.text
    variant = json.loads(response.get_data(as_text=True))
    given = {t["name"]: np.array(t["values"]) for t in variant["given"]}
    assert [values.shape for values in given.values()] == [(1, 8), (3, 8), (3, 8)]
    # the model's numbers to one decimal
    for values in given.values():
        assert np.array_equal(values, np.round(values, 1))
    # seed 7 draws the corpus's pair 37 (line 38): 他 认识 你 -> he knows you
    prompt = html.unescape(variant["prompt"]["html"])
    assert "The trained model translates 他 认识 你 into he knows you" in prompt
    assert given["K_enc"].shape[0] == 3 and variant["given"][1]["row_labels"] == [
        "他",
        "认识",
        "你",
    ]
    answer = by_hand(given)
    result = alice.client.post(
        f"/api/variants/{variant['id']}/submissions",
        json={"answer": answer.tolist()},
        headers=api,
    )
    assert result.status_code in (200, 201), result.text
    body = json.loads(result.get_data(as_text=True))
    assert body["submission"]["score"] == 1.0
    last = body["variant"]["solution"][-1]
    assert last["title"] == "Where it looks"


def test_the_drill_page_shows_the_sentence_and_takes_the_answer(browser_for):
    alice = browser_for("alice")
    alice.post("/lang/zh")
    variant_id = start(alice, CROSS)
    page = alice.get(f"/variants/{variant_id}").text
    assert "训练好的模型把 他 认识 你 翻译成 he knows you" in html.unescape(page)
    assert len(re.findall(r'<input name="cell-0-\d+"', page)) == 8
    variant = json.loads(alice.get(f"/api/variants/{variant_id}?lang=zh").get_data(as_text=True))
    given = {t["name"]: np.array(t["values"]) for t in variant["given"]}
    typed = {f"cell-0-{c}": f"{value:.2f}" for c, value in enumerate(by_hand(given)[0])}
    assert alice.post(f"/variants/{variant_id}/submissions", typed).status_code == 302
    page = html.unescape(alice.get(f"/variants/{variant_id}").text)
    assert "它看向哪个词" in page  # the solution's last step, shown once solved
    assert 'id="answer-form"' not in page
