"""Markdown rendering, localisation, and what a learner may see of a question."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from quizsvc.bank import (
    Bank,
    LocalizedText,
    load_bank,
    localize,
    markdown_text,
    public_question,
    render_markdown,
    solution_view,
)

# One question of each type.  Every secret is a recognisable string or number that
# appears nowhere else, so the public view can be searched for it.
ALL_TYPES = """\
questions:
  - id: pick-one
    type: single_choice
    tags: [qkv]
    prompt: {zh: "选择 **一个**", en: "Pick **one**"}
    choices:
      - {id: A, text: {zh: 甲, en: alpha}}
      - {id: B, text: {zh: 乙, en: beta}}
    correct: B
    explanation: {zh: SECRET-EXPLANATION-ZH, en: SECRET-EXPLANATION-EN}

  - id: pick-some
    type: multiple_choice
    tags: [qkv]
    prompt: {zh: 选择多个, en: Pick several}
    choices:
      - {id: A, text: {zh: 甲, en: alpha}, score: 0.625}
      - {id: B, text: {zh: 乙, en: beta}, score: 0.375}
      - {id: C, text: {zh: 丙, en: gamma}, score: -0.125}
    explanation: {zh: SECRET-MC-EXPLANATION-ZH, en: SECRET-MC-EXPLANATION-EN}

  - id: compute
    type: numeric
    tags: [softmax]
    prompt: {zh: 计算, en: Compute}
    answer: [[0.123, 4.567], [-inf, 8.901]]
    tolerance: {atol: 0.005, rtol: 0}
    explanation: {zh: SECRET-NUMERIC-EXPLANATION-ZH, en: SECRET-NUMERIC-EXPLANATION-EN}

  - id: explain
    type: open
    tags: [multi_head]
    prompt: {zh: 为什么, en: Why}
    reference_answer: {zh: SECRET-REFERENCE-ZH, en: SECRET-REFERENCE-EN}
    rubric:
      - key: secret-rubric-key
        weight: 1
        description: {zh: SECRET-RUBRIC-ZH, en: SECRET-RUBRIC-EN}
        phrases: {zh: [SECRET-PHRASE-ZH], en: [SECRET-PHRASE-EN]}

  - id: drill
    type: drill
    kind: projection
    tags: [qkv]
    prompt: {zh: 计算投影, en: Compute the projection}
    params: {n: 3}
"""

SECRET_NUMBERS = {0.625, 0.375, -0.125, 0.123, 4.567, 8.901}
SECRET_KEYS = {
    "correct",
    "answer",
    "explanation",
    "reference_answer",
    "rubric",
    "score",
    "phrases",
    "key_points",
}


@pytest.fixture
def bank(make_content, drill_kinds) -> Bank:
    return load_bank(make_content({"ch/all.yaml": ALL_TYPES}), drill_kinds)


def walk(value: object) -> Iterator[tuple[str | None, object]]:
    """Every (key, value) pair in a nested view; key is None for list items."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key, item
            yield from walk(item)
    elif isinstance(value, list):
        for item in value:
            yield None, item
            yield from walk(item)


# --- Markdown ---------------------------------------------------------------------


def test_markdown_is_rendered() -> None:
    assert render_markdown("Pick **one**") == "<p>Pick <strong>one</strong></p>\n"
    assert render_markdown("`Q = X × Wq`") == "<p><code>Q = X × Wq</code></p>\n"


def test_raw_html_is_escaped_not_rendered() -> None:
    html = render_markdown('<script>alert("x")</script>\n\nok <b onclick="f()">bold</b>')
    assert "<script" not in html and "<b " not in html
    assert "&lt;script&gt;" in html
    assert "&lt;b onclick=&quot;f()&quot;&gt;bold&lt;/b&gt;" in html


def test_javascript_links_are_not_made_clickable() -> None:
    html = render_markdown("[click](javascript:alert(1))")
    assert "href" not in html


def test_inline_rendering_has_no_paragraph() -> None:
    assert render_markdown("Q *and* K", inline=True) == "Q <em>and</em> K"


def test_markdown_as_plain_text_keeps_the_words_and_the_lines_not_the_marks() -> None:
    source = (
        "Add the encoding, **then** round:\n\n"
        "- `PE(pos, 2i) = sin(...)`\n"
        "- `PE(pos, 2i+1) = cos(...)`\n\n"
        "1. first\n"
        "2. second,\n   on two lines\n\n"
        "See [the chapter](https://example.org) and <b>this</b>.\n\n"
        "```\nq · K^T\n```"
    )
    assert markdown_text(source) == (
        "Add the encoding, then round:\n\n"
        "- PE(pos, 2i) = sin(...)\n"
        "- PE(pos, 2i+1) = cos(...)\n\n"
        "1. first\n"
        "2. second,\n   on two lines\n\n"
        "See the chapter and <b>this</b>.\n\n"  # raw HTML is text here, as it is shown
        "q · K^T"
    )
    assert markdown_text("保留两位小数。") == "保留两位小数。"
    assert markdown_text("") == ""


def test_localize_picks_the_language_and_rejects_others() -> None:
    text = LocalizedText(zh="你好", en="hello")
    assert localize(text, "zh") == "你好"
    assert localize(text, "en") == "hello"
    with pytest.raises(ValueError, match="unsupported language 'fr'"):
        localize(text, "fr")


# --- public view ------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_public_view_holds_no_answer_explanation_or_rubric(bank: Bank, lang: str) -> None:
    for question in bank.questions.values():
        view = public_question(question, lang)
        for key, value in walk(view):
            assert key not in SECRET_KEYS, (question.id, key)
            if isinstance(value, str):
                assert "SECRET" not in value.upper(), (question.id, value)
            if isinstance(value, float):
                assert value not in SECRET_NUMBERS, (question.id, value)
        assert "SECRET" not in json.dumps(view, ensure_ascii=False).upper()


def test_public_view_of_a_single_choice_question(bank: Bank) -> None:
    view = public_question(bank.questions["pick-one"], "en")
    # Choice ids must be shown for the learner to answer; which one is correct (B) is not.
    assert view == {
        "id": "pick-one",
        "type": "single_choice",
        "prompt": {"markdown": "Pick **one**", "html": "<p>Pick <strong>one</strong></p>\n"},
        "tags": ["qkv"],
        "points": 1.0,
        "attempts": 1,  # stated before answering: one try unless the author gives more
        "penalty": 0.0,
        "choices": [
            {"id": "A", "text": {"markdown": "alpha", "html": "alpha"}},
            {"id": "B", "text": {"markdown": "beta", "html": "beta"}},
        ],
    }


def test_public_view_states_the_tries_authored_for_a_choice_question(
    make_content, drill_kinds
) -> None:
    text = ALL_TYPES.replace(
        "    correct: B\n", "    correct: B\n    attempts: 2\n    penalty: 0.25\n", 1
    )
    loaded = load_bank(make_content({"ch/all.yaml": text}), drill_kinds)
    view = public_question(loaded.questions["pick-one"], "en")
    assert (view["attempts"], view["penalty"]) == (2, 0.25)
    # a numeric or open question has one try, stated as well
    for question_id in ("compute", "explain"):
        view = public_question(loaded.questions[question_id], "en")
        assert (view["attempts"], view["penalty"]) == (1, 0.0)


def test_public_view_is_in_the_requested_language(bank: Bank) -> None:
    view = public_question(bank.questions["pick-some"], "zh")
    assert view["prompt"]["markdown"] == "选择多个"
    assert [choice["text"]["markdown"] for choice in view["choices"]] == ["甲", "乙", "丙"]


def test_public_view_of_a_numeric_question_gives_shape_not_values(bank: Bank) -> None:
    view = public_question(bank.questions["compute"], "en")
    assert view["answer_shape"] == [2, 2]
    assert view["tolerance"] == {"atol": 0.005, "rtol": 0.0}
    assert view["all_or_nothing"] is False


def test_public_view_of_a_drill(bank: Bank) -> None:
    view = public_question(bank.questions["drill"], "en")
    assert (view["kind"], view["attempts"], view["penalty"]) == ("projection", 3, 0.1)
    assert view["all_or_nothing"] is False  # partial credit unless the author says otherwise
    assert view["tolerance"] is None  # the drill kind's own default applies


def test_public_view_is_json_serialisable(bank: Bank) -> None:
    for question in bank.questions.values():
        json.dumps(public_question(question, "zh"), allow_nan=False)
        json.dumps(solution_view(question, "zh"), allow_nan=False)


# --- after submission ---------------------------------------------------------------


def test_solution_view_reveals_answers_but_not_grader_phrases(bank: Bank) -> None:
    single = solution_view(bank.questions["pick-one"], "en")
    assert single["correct"] == ["B"]
    assert single["explanation"]["markdown"] == "SECRET-EXPLANATION-EN"

    several = solution_view(bank.questions["pick-some"], "en")
    assert several["correct"] == ["A", "B"]
    assert several["explanation"]["markdown"] == "SECRET-MC-EXPLANATION-EN"

    numeric = solution_view(bank.questions["compute"], "zh")
    assert numeric["answer"] == [[0.123, 4.567], ["-inf", 8.901]]
    assert numeric["explanation"]["markdown"] == "SECRET-NUMERIC-EXPLANATION-ZH"

    open_view = solution_view(bank.questions["explain"], "en")
    assert open_view["reference_answer"]["markdown"] == "SECRET-REFERENCE-EN"
    assert open_view["key_points"] == [
        {"key": "secret-rubric-key", "description": "SECRET-RUBRIC-EN"}
    ]
    assert "SECRET-PHRASE" not in json.dumps(open_view)


@pytest.mark.parametrize(
    ("answer", "shape", "shown"),
    [
        ("2.5", [], 2.5),
        ("-inf", [], "-inf"),
        ("[1.5, 2]", [2], [1.5, 2.0]),
        ("[[1, 2]]", [1, 2], [[1.0, 2.0]]),
    ],
)
def test_a_numeric_answer_is_shown_as_written(
    make_content, drill_kinds, answer, shape, shown
) -> None:
    question = f"""\
questions:
  - id: n
    type: numeric
    tags: [softmax]
    prompt: {{zh: 算, en: Compute}}
    answer: {answer}
    all_or_nothing: true
    explanation: {{zh: 解, en: Why}}
"""
    bank = load_bank(make_content({"ch/n.yaml": question}), drill_kinds)
    assert public_question(bank.questions["n"], "en")["answer_shape"] == shape
    assert public_question(bank.questions["n"], "en")["all_or_nothing"] is True
    assert solution_view(bank.questions["n"], "en")["answer"] == shown
