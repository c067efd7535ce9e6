"""A variant read through the API says everything needed to answer it: a client that has
read one variant response, and nothing else, knows what to compute in its language, how many
decimals to give, how close is close enough, LayerNorm's ε and how a masked cell is written;
token ids come as JSON integers."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
import yaml

from quizsvc import store
from quizsvc.drills import Variant
from quizsvc.web.context import load_content

DRILLS_YAML = "transformer-by-hand/drills.yaml"


class Api:
    def __init__(self, client, headers: dict[str, str]) -> None:
        self.client = client
        self.headers = headers

    def get(self, path: str, **headers: str):
        return self.client.get(path, headers={**self.headers, **headers})

    def post(self, path: str, body: object = None, **headers: str):
        return self.client.post(path, json=body, headers={**self.headers, **headers})


@pytest.fixture
def alice(browser_for) -> Api:
    browser = browser_for("alice")
    return Api(browser.client, {"X-CSRFToken": browser.token})


def parsed(response) -> dict:
    """The body as strict JSON (no NaN or Infinity), integers and floats kept apart."""
    assert response.status_code in (200, 201), response.text

    def refuse(constant: str):
        raise AssertionError(f"{constant} in a JSON response")

    return json.loads(response.get_data(as_text=True), parse_constant=refuse)


def authored_prompt(content_dir, question_id: str, lang: str) -> str:
    questions = yaml.safe_load((content_dir / DRILLS_YAML).read_text(encoding="utf-8"))
    [question] = [q for q in questions["questions"] if q["id"] == question_id]
    return question["prompt"][lang]


def stored_variant(sessions, variant_id: int) -> Variant:
    with sessions() as session:
        return Variant.from_json(store.load_variant(session, variant_id).variant_json)


@pytest.mark.parametrize(
    ("lang", "asked_by"),
    [("zh", "query"), ("en", "query"), ("zh", "header"), ("en", "header")],
)
def test_the_task_comes_with_the_variant_in_the_language_asked_for(
    alice, content_dir, lang, asked_by
):
    if asked_by == "query":
        started = alice.post(f"/api/drills/drill-score-row/variants?lang={lang}")
    else:
        started = alice.post("/api/drills/drill-score-row/variants", **{"Accept-Language": lang})
    variant = parsed(started)
    authored = authored_prompt(content_dir, "drill-score-row", lang)
    task = variant["task"]
    assert task["markdown"] == authored
    # the formula drawn as MathML, its LaTeX kept as the text alternative
    assert "<math " in task["html"] and 'alttext="q K^\\top / \\sqrt{d_k}"' in task["html"]
    # the plain text: the formula as its LaTeX between dollars, the rounding as authored
    assert "$q K^\\top / \\sqrt{d_k}$" in task["text"]
    rounding_words = "答案保留两位小数" if lang == "zh" else "Round to two decimals."
    assert rounding_words in task["text"]
    # the variant's own numbers, in the same language
    assert variant["prompt"]["text"].startswith("位置 " if lang == "zh" else "The query vector")
    # the same facts as data
    assert variant["rounding"] == {"answer": 2, "intermediate": 3, "exponentials": None}
    assert variant["tolerance"] == {"atol": 0.01, "rtol": 0.0}
    assert (variant["eps"], variant["masked_cell"]) == (None, None)
    assert (variant["attempts_allowed"], variant["penalty"]) == (3, 0.1)
    # and every read of it says the same
    again = parsed(alice.get(f"/api/variants/{variant['id']}?lang={lang}"))
    assert (again["task"], again["prompt"]) == (task, variant["prompt"])


def test_the_masked_score_row_says_a_masked_cell_is_minus_infinity(alice, content_dir, sessions):
    variant = parsed(alice.post("/api/drills/drill-masked-score-row/variants?lang=en"))
    assert variant["masked_cell"] == "-inf"
    assert "`-inf` for the masked positions" in variant["task"]["markdown"]
    assert variant["rounding"]["answer"] == 2
    # answered as the variant says, "-inf" at the future positions, it is right
    expected = stored_variant(sessions, variant["id"]).answer.values
    answer = [["-inf" if math.isinf(v) else float(v) for v in row] for row in expected]
    assert answer[0].count("-inf") >= 1
    result = parsed(alice.post(f"/api/variants/{variant['id']}/submissions", {"answer": answer}))
    assert result["submission"]["raw_score"] == 1.0
    shown = result["variant"]["expected_answer"]["values"][0]
    assert [v == "-inf" for v in shown] == [math.isinf(v) for v in expected[0]]


def test_masked_weights_say_a_masked_cell_is_0_to_three_decimals(alice):
    variant = parsed(alice.post("/api/drills/drill-masked-row/variants?lang=zh"))
    assert variant["masked_cell"] == 0
    assert variant["rounding"] == {"answer": 3, "intermediate": 3, "exponentials": None}
    assert "被屏蔽的位置写 0" in variant["task"]["text"]


def test_add_and_norm_gives_layer_norm_s_eps(alice):
    variant = parsed(alice.post("/api/drills/drill-add-norm/variants?lang=en"))
    assert variant["eps"] == 1e-05
    # as the variant's own text writes it
    assert "$\\varepsilon = 0.00001$" in variant["prompt"]["text"]
    assert "$\\sqrt{\\sigma^2 + \\varepsilon}$" in variant["task"]["text"]
    assert variant["tolerance"] == {"atol": 0.02, "rtol": 0.0}


def test_multi_head_asks_for_a_fourth_decimal_in_the_exponentials(alice):
    variant = parsed(alice.post("/api/drills/drill-multi-head/variants?lang=en"))
    assert variant["rounding"] == {"answer": 2, "intermediate": 3, "exponentials": 4}


def test_given_token_ids_are_json_integers(alice, sessions):
    embedding = parsed(alice.post("/api/drills/drill-embedding-positional/variants"))
    [ids] = [t for t in embedding["given"] if t["name"] == "ids"]
    assert ids["token_ids"] is True
    assert all(type(i) is int for i in ids["values"][0])
    stored = stored_variant(sessions, embedding["id"])
    assert ids["values"] == stored.given[1].values.astype(int).tolist()
    [table] = [t for t in embedding["given"] if t["name"] == "E"]
    assert table["token_ids"] is False
    assert all(type(v) is float for row in table["values"] for v in row)

    loss = parsed(alice.post("/api/drills/drill-teacher-forcing-loss/variants"))
    [target] = [t for t in loss["given"] if t["name"] == "target"]
    assert target["token_ids"] is True
    assert all(type(i) is int and i >= 3 for i in target["values"][0])  # words, not <s>


def test_the_greedy_drill_s_token_ids_are_integers_in_the_answer_and_the_marks(alice, sessions):
    variant = parsed(alice.post("/api/drills/drill-greedy-next-token/variants?lang=en"))
    assert variant["answer"]["token_ids"] is True
    assert variant["rounding"] == {"answer": 0, "intermediate": None, "exponentials": None}
    assert (variant["attempts_allowed"], variant["all_or_nothing"]) == (1, True)
    # the columns of the shown logits are "id word" (the trained model's largest few)
    logits = stored_variant(sessions, variant["id"]).given[0]
    chosen = int(logits.col_labels[int(np.argmax(logits.values[0]))].split()[0])
    result = parsed(
        alice.post(f"/api/variants/{variant['id']}/submissions", {"answer": f"{chosen}.0"})
    )
    submission = result["submission"]
    assert submission["answer"] == [[chosen]] and type(submission["answer"][0][0]) is int
    [cell] = submission["cells"]
    assert all(type(cell[key]) is int for key in ("submitted", "low", "high"))
    expected = result["variant"]["expected_answer"]
    assert expected["token_ids"] is True and expected["values"] == [[chosen]]
    assert type(expected["values"][0][0]) is int
    ids_in_solution = [
        t for s in result["variant"]["solution"] for t in s["tensors"] if t["token_ids"]
    ]
    assert ids_in_solution and all(
        type(v) is int for t in ids_in_solution for row in t["values"] for v in row
    )


def test_a_token_id_given_as_a_fraction_comes_back_as_it_was_sent(alice):
    variant = parsed(alice.post("/api/drills/drill-greedy-next-token/variants"))
    result = parsed(alice.post(f"/api/variants/{variant['id']}/submissions", {"answer": "2.5"}))
    assert result["submission"]["answer"] == [[2.5]]
    assert result["submission"]["raw_score"] == 0.0


def test_a_variant_whose_drill_left_the_bank_still_has_its_numbers_and_conventions(
    app, alice, content_dir
):
    variant = parsed(alice.post("/api/drills/drill-masked-score-row/variants?lang=en"))
    path = content_dir / DRILLS_YAML
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    document["questions"] = [
        q for q in document["questions"] if q["id"] != "drill-masked-score-row"
    ]
    path.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    app.extensions["quizsvc"].install(load_content(content_dir))

    shown = parsed(alice.get(f"/api/variants/{variant['id']}?lang=en"))
    assert shown["task"] is None
    assert shown["prompt"] == variant["prompt"] and shown["given"] == variant["given"]
    assert (shown["masked_cell"], shown["rounding"]) == ("-inf", variant["rounding"])


# --- the drill's page says the same ---------------------------------------------------------


def decimals_rule(rounding: dict) -> str:
    answer, steps, exps = rounding["answer"], rounding["intermediate"], rounding["exponentials"]
    if answer == 0:
        return "Answer with a whole number: the token's id."
    if steps is None:
        return f"Give the answer to {answer} decimals."
    if exps is None:
        return f"Keep {steps} decimals in each intermediate result and give the answer to {answer}."
    return (
        f"Keep {steps} decimals in each intermediate result ({exps} in eˣ and their sum) and "
        f"give the answer to {answer}."
    )


def drill_ids(content_dir) -> list[str]:
    questions = yaml.safe_load((content_dir / DRILLS_YAML).read_text(encoding="utf-8"))
    return [q["id"] for q in questions["questions"]]


def test_each_drill_s_page_shows_what_its_json_says(browser_for, content_dir):
    alice = browser_for("alice")
    alice.post("/lang/en")
    for question_id in drill_ids(content_dir):
        started = alice.post(f"/drills/{question_id}/variants")
        variant_id = started.headers["Location"].rsplit("/", 1)[1]
        page = alice.get(f"/variants/{variant_id}").text
        variant = parsed(alice.get(f"/api/variants/{variant_id}?lang=en"))
        # the task and the variant's numbers, as the JSON renders them
        assert variant["task"]["html"] in page, question_id
        assert variant["prompt"]["html"] in page, question_id
        rules = page[page.index('<ul class="rules"') : page.index("</ul>", page.index("rules"))]
        assert decimals_rule(variant["rounding"]) in rules.replace("&#39;", "'"), question_id
        if variant["masked_cell"] == "-inf":
            assert "Write -inf in a masked cell" in rules
        elif variant["masked_cell"] is not None:
            assert f"Write {variant['masked_cell']:g} in a masked cell." in rules
        else:
            assert "masked cell" not in rules
        if variant["eps"] is not None:
            assert f'alttext="\\varepsilon = {variant["eps"]:.5f}"' in page
        tolerance = variant["tolerance"]
        assert tolerance["rtol"] == 0
        atol = f"{tolerance['atol']:g}"
        assert (
            "Only the exact value counts as correct." in rules
            if tolerance["atol"] == 0
            else f"±{atol} of the exact value" in rules
        ), question_id
        assert f"Attempts left: {variant['attempts_left']}" in page
        if variant["attempts_allowed"] == 1:
            assert "One attempt: this drill cannot be retried." in rules
        else:
            assert f"takes {round(variant['penalty'] * 100)}% off the score" in rules
        rows, cols = variant["answer"]["shape"]
        assert len(re.findall(r'<input name="cell-\d+-\d+"', page)) == rows * cols


def test_the_loss_drill_labels_each_row_by_what_it_predicts_in_json_and_on_the_page(
    browser_for,
):
    alice = browser_for("alice")
    alice.post("/lang/zh")
    started = alice.post("/drills/drill-teacher-forcing-loss/variants")
    variant_id = started.headers["Location"].rsplit("/", 1)[1]
    variant = parsed(alice.get(f"/api/variants/{variant_id}"))
    [target] = [t["values"][0] for t in variant["given"] if t["name"] == "target"]
    [p] = [t for t in variant["given"] if t["name"] == "P"]
    words = {3: "I", 4: "love", 5: "you", 2: "<eos>"}
    predicted = [words[i] for i in [*target, 2]]
    assert p["row_labels"] == [f"pos {t} → {w}" for t, w in enumerate(predicted)]
    page = alice.get(f"/variants/{variant_id}").text
    headers = re.findall(r"<th scope=['\"]row['\"][^>]*>([^<]*)</th>", page)
    for t, word in enumerate(predicted):
        assert f"位置 {t} → {word}".replace("<", "&lt;").replace(">", "&gt;") in headers
