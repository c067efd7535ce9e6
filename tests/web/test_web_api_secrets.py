"""Nothing the learner is to work out is sent before they have submitted.

Drills: every drill kind is generated with its expected answer, worked solution and heatmap
replaced by marker values; no response may contain a marker until the variant is finished,
and then it must (so the check is seen to work).  Chapter questions: the bank's own secret
texts (explanations, reference answers, rubric descriptions and phrases) and correct choices
must not appear before answering, and the key must appear after.
"""

from __future__ import annotations

import dataclasses
import html
import json
import re

import numpy as np
import pytest

from quizsvc import practice, store
from quizsvc.bank import DrillQuestion, OpenQuestion
from quizsvc.drills import Step, Tensor, Variant
from quizsvc.web import REPO_ROOT
from quizsvc.web.context import load_content

BANK = load_content(REPO_ROOT / "content")
DRILLS = [q.id for q in BANK.questions.values() if isinstance(q, DrillQuestion)]
CHAPTER = BANK.chapters[0].id
QUESTIONS = [q for q in BANK.questions_in(CHAPTER) if not isinstance(q, DrillQuestion)]
MARKER = 4242.4242
MARKER_TEXT = "SECRET-STEP"
FINISHED_ONLY = {"expected_answer", "solution", "heatmap"}


@pytest.fixture
def api_for(browser_for):
    def make(name: str):
        browser = browser_for(name)
        headers = {"X-CSRFToken": browser.token}

        class Api:
            client = browser.client

            @staticmethod
            def get(path):
                return browser.client.get(path, headers=headers)

            @staticmethod
            def post(path, body=None):
                return browser.client.post(path, json=body, headers=headers)

        return Api

    return make


def marked(tensor: Tensor) -> Tensor:
    # the marker is no token id: a tensor of ids becomes one of numbers
    return dataclasses.replace(tensor, values=np.full(tensor.shape, MARKER), token_ids=False)


@pytest.fixture
def marked_variants(monkeypatch):
    """Every variant built from now on has markers for its answer, solution and heatmap."""
    build = practice.build_variant

    def build_marked(question, seed, chapter=None) -> Variant:
        real = build(question, seed, chapter)
        steps = tuple(
            Step(
                title={"zh": f"{MARKER_TEXT}-title", "en": f"{MARKER_TEXT}-title"},
                text={"zh": f"{MARKER_TEXT}-zh", "en": f"{MARKER_TEXT}-en"},
                tensors=tuple(marked(t) for t in step.tensors),
            )
            for step in real.solution
        )
        return dataclasses.replace(
            real,
            answer=marked(real.answer),
            solution=steps,
            heatmap=None if real.heatmap is None else marked(real.heatmap),
        )

    monkeypatch.setattr(practice, "build_variant", build_marked)


def assert_nothing_secret(response) -> None:
    assert response.status_code in (200, 201), response.text
    text = response.get_data(as_text=True)
    assert str(MARKER)[:6] not in text  # "4242.4": the value and any interval around it
    assert MARKER_TEXT not in text


def keys(value: object) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys(v)}
    return set()


def nested_lists(value: object) -> list[list]:
    if isinstance(value, dict):
        return [x for v in value.values() for x in nested_lists(v)]
    if isinstance(value, list):
        return [value, *(x for v in value for x in nested_lists(v))]
    return []


@pytest.mark.parametrize("question_id", DRILLS)
def test_a_variant_shows_no_answer_solution_or_heatmap_until_finished(
    question_id, api_for, marked_variants, sessions
):
    alice = api_for("alice")
    started = alice.post(f"/api/drills/{question_id}/variants")
    assert_nothing_secret(started)
    variant = started.json
    assert not FINISHED_ONLY & keys(variant)
    rows, cols = variant["answer"]["shape"]
    # the marker really is this variant's expected answer
    with sessions() as session:
        stored = store.load_variant(session, variant["id"])
    assert Variant.from_json(stored.variant_json).answer.values[0, 0] == MARKER

    for lang in ("en", "zh"):
        shown = alice.get(f"/api/variants/{variant['id']}?lang={lang}")
        assert_nothing_secret(shown)
        assert not FINISHED_ONLY & keys(shown.json)

    submit = f"/api/variants/{variant['id']}/submissions"
    zeros = [[0] * cols for _ in range(rows)]
    for attempt in range(1, variant["attempts_allowed"]):
        wrong = alice.post(submit, {"answer": zeros, "idempotency_key": f"k{attempt}"})
        assert wrong.status_code == 201
        assert_nothing_secret(wrong)
        assert not FINISHED_ONLY & keys(wrong.json)
        assert_nothing_secret(alice.get(f"/api/variants/{variant['id']}"))

    last = alice.post(submit, {"answer": zeros, "idempotency_key": "last"})
    assert last.status_code == 201
    assert last.json["variant"]["finished"] is True
    # out of attempts: now the answer, the interval around each cell and the solution show
    finished = alice.get(f"/api/variants/{variant['id']}").json
    assert finished["expected_answer"]["values"] == [[MARKER] * cols] * rows
    cell = finished["submissions"][-1]["cells"][0]
    assert cell["low"] <= MARKER <= cell["high"]
    assert finished["solution"][0]["text"]["markdown"] == f"{MARKER_TEXT}-en"


@pytest.mark.parametrize("question_id", DRILLS)
def test_a_new_variant_does_not_contain_its_real_answer(question_id, api_for, sessions):
    alice = api_for("alice")
    for _ in range(3):  # a few seeds
        started = alice.post(f"/api/drills/{question_id}/variants")
        assert started.status_code == 201
        with sessions() as session:
            real = Variant.from_json(store.load_variant(session, started.json["id"]).variant_json)
        for response in (started, alice.get(f"/api/variants/{started.json['id']}")):
            assert real.answer.to_json()["values"] not in nested_lists(response.json)
            assert not FINISHED_ONLY & keys(response.json)
            assert "values" not in response.json["answer"]
            for step in real.solution:
                assert step.text["en"] not in response.get_data(as_text=True)


# --- chapter questions --------------------------------------------------------------------


def strings(value: object) -> list[str]:
    """Every string in a JSON value, keys included, also with HTML entities decoded; HTML
    without its elements' names (a formula's MathML has a <semantics> element, which is no
    rubric phrase), every attribute and text kept."""
    if isinstance(value, str):
        value = re.sub(r"</?[A-Za-z][\w-]*", "<", value)
        return [value, html.unescape(value)]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def public_text(lang: str) -> str:
    """Everything a learner may read before answering: ids, prompts, choices and tags."""
    parts = []
    for question in BANK.questions.values():
        parts += [question.id, getattr(question.prompt, lang)]
        parts += [getattr(c.text, lang) for c in getattr(question, "choices", ())]
        parts += question.tags
    return "\n".join(parts).casefold()


def secret_texts(lang: str) -> list[str]:
    """Opening words of every explanation, reference answer and rubric description, and the
    rubric phrases that appear nowhere in public text (the others give nothing away)."""
    public = public_text(lang)
    secrets = []
    for question in QUESTIONS:
        for field in ("explanation", "reference_answer"):
            if text := getattr(question, field, None):
                secrets.append(re.sub(r"\s+", " ", getattr(text, lang))[:30])
        if isinstance(question, OpenQuestion):
            for point in question.rubric:
                secrets.append(getattr(point.description, lang))
                secrets += [p for p in getattr(point.phrases, lang) if p.casefold() not in public]
    return secrets


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_unanswered_questions_hold_no_key_explanation_or_rubric(lang, api_for):
    alice = api_for("alice")
    listed = alice.get(f"/api/chapters/{CHAPTER}/questions?lang={lang}").json["questions"]
    assert len(listed) == len(QUESTIONS)
    found = [s.casefold() for s in strings(listed)]
    secrets = secret_texts(lang)
    assert len(secrets) > 20
    for secret in secrets:
        assert not any(secret.casefold() in s for s in found), secret
    for item in listed:
        assert not {
            "correct",
            "explanation",
            "reference_answer",
            "key_points",
            "rubric",
            "phrases",
            "score",
            "answer",
        } & keys(item["question"]), item
        for choice in item["question"].get("choices", []):
            assert set(choice) == {"id", "label", "text"}


def test_answered_questions_show_their_key_but_never_the_rubric_phrases(api_for):
    alice = api_for("alice")
    for question in QUESTIONS:
        body = {"text": "an answer"} if isinstance(question, OpenQuestion) else {"choices": ["A"]}
        response = alice.post(f"/api/questions/{question.id}/answers?lang=en", body)
        assert response.status_code == 201, response.text
        assert "phrases" not in keys(response.json)
    listed = alice.get(f"/api/chapters/{CHAPTER}/questions?lang=en").json["questions"]
    text = json.dumps(listed, ensure_ascii=False)
    for question, item in zip(QUESTIONS, listed, strict=True):
        view = item["question"]
        if isinstance(question, OpenQuestion):
            assert view["reference_answer"]["markdown"] == question.reference_answer.en
            assert [p["description"] for p in view["key_points"]] == [
                p.description.en for p in question.rubric
            ]
            assert all(set(p) == {"key", "description"} for p in view["key_points"])
        else:
            assert view["correct"] == [question.correct]
            assert view["explanation"]["markdown"] == question.explanation.en
    assert "phrases" not in text
    # bob has answered nothing: he still sees none of it
    bobs = api_for("bob").get(f"/api/chapters/{CHAPTER}/questions?lang=en").json["questions"]
    assert all(i["learner_answer"] is None and "correct" not in i["question"] for i in bobs)
