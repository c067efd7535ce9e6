"""Numeric and multiple-choice chapter questions, which the shipped content has none of but
instructors add by YAML (docs/authoring.md): what a learner sees before answering (a numeric
answer's shape and tolerance), after answering (the automatic score, per-cell marks, the key,
partial credit), and the instructor's preview of both. Every test runs on a copy of content/
with the questions below added.

Expected values are worked out by hand in comments from the questions' keys and tolerances.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from web_helpers import letters_on_page, reading, user_id

from quizsvc import practice, store
from quizsvc.grading import AnswerRejected, Rejection
from quizsvc.web.context import load_content

CHAPTER_URL = "/chapters/transformer-by-hand"

EXTRA_QUESTIONS = """\
questions:
  - id: masked-scores
    type: numeric
    tags: [masking]
    prompt:
      zh: 写出掩码后的 2×2 分数矩阵。
      en: Write down the 2×2 score matrix after masking.
    answer:
      - [2.0, "-inf"]
      - [2.7, 2.89]
    tolerance: {atol: 0.005, rtol: 0}
    explanation:
      zh: j > i 的位置设为 -∞。
      en: Positions with j > i are set to -∞.

  - id: softmax-of-a-row
    type: numeric
    tags: [softmax]
    prompt:
      zh: 对 [2.8, 1.5, 1.8] 做 Softmax。
      en: Apply the softmax to [2.8, 1.5, 1.8].
    answer: [0.61, 0.166, 0.224]
    tolerance: {atol: 0.001, rtol: 0.01}
    all_or_nothing: true
    explanation:
      zh: 先取指数，再除以它们的和。
      en: Exponentiate, then divide by the sum.

  - id: scale-factor
    type: numeric
    tags: [scores]
    prompt:
      zh: d_k = 4 时，缩放因子 1/√d_k 是多少？
      en: What is the scaling factor 1/√d_k for d_k = 4?
    answer: 0.5
    all_or_nothing: true
    explanation:
      zh: 1/√4 = 0.5。
      en: 1/√4 = 0.5.

  - id: softmax-of-two-equal-scores
    type: numeric
    tags: [softmax]
    prompt:
      zh: 对 [0, 0] 做 Softmax。
      en: Apply the softmax to [0, 0].
    answer: [0.5, 0.5]
    all_or_nothing: true
    explanation:
      zh: 两个相等的分数平分权重。
      en: Two equal scores share the weight equally.

  - id: decoder-differences
    type: multiple_choice
    tags: [masking, cross_attention]
    prompt:
      zh: Decoder 和 Encoder 有哪些关键区别？
      en: Which of these set the decoder apart from the encoder?
    choices:
      - id: A
        text: {zh: Masked Self-Attention, en: Masked self-attention}
        score: 0.5
      - id: B
        text: {zh: 使用位置编码, en: It adds positional encodings}
        score: 0
      - id: C
        text: {zh: Cross-Attention, en: Cross-attention}
        score: 0.5
      - id: D
        text: {zh: 没有 FFN, en: It has no feed-forward network}
        score: -0.5
    explanation:
      zh: Decoder 多了 Masked Self-Attention 和 Cross-Attention，两者都有 FFN。
      en: The decoder adds masked self-attention and cross-attention; both have an FFN.
"""


@pytest.fixture
def content_dir(content_dir) -> Path:
    (content_dir / "transformer-by-hand" / "extra.yaml").write_text(
        EXTRA_QUESTIONS, encoding="utf-8"
    )
    return content_dir


def question_section(page_html: str, question_id: str) -> str:
    match = re.search(
        rf'<section class="question" id="q-{re.escape(question_id)}".*?</section>',
        page_html,
        re.S,
    )
    assert match, question_id
    return match.group(0)


def text_of(fragment: str) -> str:
    """The fragment's text, tags removed and entities decoded, whitespace collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def rules(fragment: str) -> list[str]:
    """The numeric answer's rules list, as text."""
    found = re.search(r'<ul class="rules answer-rules" id="[^"]+">(.*?)</ul>', fragment, re.S)
    assert found, "no rules list"
    return [text_of(item) for item in re.findall(r"<li>(.*?)</li>", found.group(1), re.S)]


def marks(fragment: str) -> list[tuple[bool, str, str | None]]:
    """Each marked cell: (right?, the value given, the accepted interval or value)."""
    table = re.search(r'<table class="matrix marks" id="[^"]+">(.*?)</table>', fragment, re.S)
    assert table, "no marks table"
    found = []
    for correct, body in re.findall(
        r'<td class="(?:right|wrong)" data-correct="(true|false)">(.*?)</td>', table.group(1), re.S
    ):
        given = re.search(r'<span class="mark">[✓✗]</span>\s*(\S+)', body).group(1)
        interval = re.search(r'<small class="interval"[^>]*>(.*?)</small>', body)
        found.append((correct == "true", given, interval.group(1) if interval else None))
    return found


def answer(browser, question_id: str, form: dict):
    response = browser.post(f"{CHAPTER_URL}/questions/{question_id}", form)
    assert response.status_code == 302, response.text
    return browser.get(CHAPTER_URL).text


# --- before answering: the answer's shape and tolerance ----------------------------------


# what every question of one try, worth a point, states after its own rules
ONE_TRY = ["Worth 1 point.", "One try: your answer is final once you submit it."]


def test_a_numeric_question_states_its_answers_shape_and_tolerance_in_the_page_language(
    browser_for,
):
    alice = browser_for("alice")
    alice.post("/lang/en")
    page = alice.get(CHAPTER_URL).text
    assert rules(question_section(page, "masked-scores")) == [
        "The answer is a 2 × 2 matrix (rows × columns): one row per line (or rows separated "
        "by ;), the numbers of a row separated by commas or spaces (write -inf for −∞).",
        "Answers within ±0.005 of the exact value count as correct.",
        *ONE_TRY,
    ]
    assert rules(question_section(page, "softmax-of-a-row")) == [
        "The answer is a row of 3 numbers, separated by commas or spaces (write -inf for −∞).",
        "Answers within ±(0.001 + 0.01 × |exact value|) of the exact value count as correct.",
        "Every cell must be right to score: one wrong cell scores 0.",
        *ONE_TRY,
    ]
    # the default tolerance; all or nothing, but one number is that anyway: no such rule
    assert rules(question_section(page, "scale-factor")) == [
        "The answer is one number (write -inf for −∞).",
        "Answers within ±0.01 of the exact value count as correct.",
        *ONE_TRY,
    ]
    # two numbers are the fewest that all or nothing can matter for
    assert rules(question_section(page, "softmax-of-two-equal-scores")) == [
        "The answer is a row of 2 numbers, separated by commas or spaces (write -inf for −∞).",
        "Answers within ±0.01 of the exact value count as correct.",
        "Every cell must be right to score: one wrong cell scores 0.",
        *ONE_TRY,
    ]
    # the answer box is described by the rules
    section = question_section(page, "masked-scores")
    assert 'aria-describedby="rules-masked-scores"' in section
    assert '<ul class="rules answer-rules" id="rules-masked-scores">' in section

    alice.post("/lang/zh")
    page = alice.get(CHAPTER_URL).text
    assert rules(question_section(page, "softmax-of-a-row")) == [
        "答案是一行 3 个数，用逗号或空格分隔（−∞ 写作 -inf）。",
        "与精确值相差不超过 ±(0.001 + 0.01 × |精确值|) 的答案算对。",
        "所有格子都对才得分：错一格就是 0 分。",
        "本题 1 分。",
        "只有一次机会：提交后即为最终答案。",
    ]


def test_before_answering_no_numeric_key_or_choice_score_is_in_the_page(browser_for):
    alice = browser_for("alice")
    alice.post("/lang/en")
    page = alice.get(CHAPTER_URL).text
    numeric = question_section(page, "masked-scores")
    for secret in ("2.89", "2.7", "Positions with j &gt; i", "marks", "data-correct", "expected"):
        assert secret not in numeric, secret
    choice = question_section(page, "decoder-differences")
    for secret in ("0.5", "−0.5", "data-key", "correct-choice", "both have an FFN"):
        assert secret not in choice, secret


# --- after answering a numeric question --------------------------------------------------


def test_a_numeric_answer_shows_its_automatic_score_marks_key_and_lines_as_typed(
    browser_for, sessions
):
    alice = browser_for("alice")
    alice.post("/lang/en")
    # 2 ✓, -inf ✓, 2.7 ✓, 2.5 ✗ (2.89 ± 0.005): 3 of 4 cells -> 75 %
    typed = "2, -inf\n2.7, 2.5"
    section = question_section(answer(alice, "masked-scores", {"text": typed}), "masked-scores")
    with reading(sessions) as session:
        recorded = store.latest_quiz_answers(session, user_id(sessions, "alice"))
    assert recorded["masked-scores"].score == 0.75

    # graded automatically: no instructor's score
    assert '<p class="auto-score">Automatic score: 75%</p>' in section
    assert "Instructor" not in section
    # as typed, its line break kept (p.answer-text is white-space: pre-wrap)
    assert f'<p class="answer-text">{typed}</p>' in section
    # every cell marked, with what was accepted (the key is shown, so wrong cells' too);
    # a right exact value (−∞) has nothing else to show
    assert marks(section) == [
        (True, "2", "[1.995, 2.005]"),
        (True, "−∞", None),
        (True, "2.7", "[2.695, 2.705]"),
        (False, "2.5", "[2.885, 2.895]"),
    ]
    expected = re.search(r'<div class="expected">(.*?)</div>', section, re.S).group(1)
    assert "<caption>Correct answer <span class='shape'>(2 × 2)</span></caption>" in expected
    assert re.findall(r"<td>([^<]+)</td>", expected) == ["2", "−∞", "2.7", "2.89"]
    # rows and columns numbered from 1, as the grader's messages count them
    assert re.findall(r"<th scope='row'>([^<]*)</th>", expected) == ["1", "2"]
    assert re.findall(r"<th scope='col'>([^<]*)</th>", expected) == ["1", "2"]
    assert "Positions with j &gt; i are set to -∞." in section  # the explanation
    # the rules stay beside the marks
    assert rules(section)[1] == "Answers within ±0.005 of the exact value count as correct."

    alice.post("/lang/zh")
    section = question_section(alice.get(CHAPTER_URL).text, "masked-scores")
    assert '<p class="auto-score">自动评分：75%</p>' in section
    assert "老师评阅" not in section
    assert "<caption>正确答案 <span class='shape'>(2 × 2)</span></caption>" in section


def test_an_all_or_nothing_row_with_one_wrong_cell_scores_zero_and_says_which(browser_for):
    alice = browser_for("alice")
    alice.post("/lang/en")
    # 0.224 accepts 0.224 ± (0.001 + 0.01 × 0.224) = ± 0.00324: 0.23 is out, so 0 %
    page = answer(alice, "softmax-of-a-row", {"text": "0.61 0.166 0.23"})
    section = question_section(page, "softmax-of-a-row")
    assert '<p class="auto-score">Automatic score: 0%</p>' in section
    assert [(right, given) for right, given, _ in marks(section)] == [
        (True, "0.61"),
        (True, "0.166"),
        (False, "0.23"),
    ]
    # 0.61 ± 0.0071 and 0.166 ± 0.00266, 0.224 ± 0.00324, shown to 4 decimals
    assert [interval for _, _, interval in marks(section)] == [
        "[0.6029, 0.6171]",
        "[0.1633, 0.1687]",
        "[0.2208, 0.2272]",
    ]


# --- multiple choice ----------------------------------------------------------------------


def verdict(section: str) -> str:
    line = re.search(r"<p>Your answer: (.*?)</p>", section, re.S).group(1)
    return text_of(line)


@pytest.mark.parametrize(
    ("choices", "shown", "score"),
    [
        (["A"], "Partly right, score 50%", 0.5),  # A: 0.5
        (["A", "C"], "Correct", 1.0),  # 0.5 + 0.5
        (["A", "D"], "Wrong", 0.0),  # 0.5 - 0.5
        (["A", "C", "D"], "Partly right, score 50%", 0.5),  # 1 - 0.5
        (["B"], "Wrong", 0.0),
    ],
)
def test_a_multiple_choice_answer_shows_partial_credit_with_its_score(
    browser_for, sessions, choices, shown, score
):
    alice = browser_for("alice")
    alice.post("/lang/en")
    page = answer(alice, "decoder-differences", {"choice": choices})
    section = question_section(page, "decoder-differences")
    # the chosen choices by the letters the learner reads, in the page's order
    assert verdict(section) == f"{letters_on_page(section, choices)} — {shown}"
    with reading(sessions) as session:
        recorded = store.latest_quiz_answers(session, user_id(sessions, "alice"))
    assert recorded["decoder-differences"].score == score
    assert f'<b class="correct-choice">{letters_on_page(section, ["A", "C"])}</b>' in section


def test_partial_credit_is_in_chinese_on_a_chinese_page(browser_for):
    alice = browser_for("alice")
    alice.post("/lang/zh")
    page = answer(alice, "decoder-differences", {"choice": ["C"]})
    section = question_section(page, "decoder-differences")
    assert '<span class="partly-right">部分正确，得分 50%</span>' in section


# --- the instructor's preview -------------------------------------------------------------


def preview_part(page_html: str, css_class: str) -> str:
    start = page_html.index(f'<section class="{css_class}">')
    return page_html[start : page_html.index("</section>", start)]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("question_id", ["masked-scores", "softmax-of-a-row", "scale-factor"])
def test_the_previews_public_view_lists_what_the_learner_is_told(browser_for, lang, question_id):
    alice, ines = browser_for("alice"), browser_for("ines")
    alice.post(f"/lang/{lang}")
    ines.post(f"/lang/{lang}")
    learner = rules(question_section(alice.get(CHAPTER_URL).text, question_id))
    preview = ines.get(f"/instructor/preview?question={question_id}").text
    assert rules(preview_part(preview, "public-view")) == learner
    assert len(learner) >= 2  # the shape and the tolerance at least


def test_the_preview_shows_every_choices_score_including_penalties(browser_for):
    ines = browser_for("ines")
    ines.post("/lang/en")
    page = ines.get("/instructor/preview?question=decoder-differences").text
    public = preview_part(page, "public-view")
    assert "choice-score" not in public and "0.5" not in public
    solution = preview_part(page, "solution-view")
    table = re.search(r'<table class="progress choice-scores".*?</table>', solution, re.S).group(0)
    assert "<caption>What each choice scores (a negative score is the penalty for ticking it)" in (
        table
    )
    rows = re.findall(
        r'<tr data-choice="(\w+)"( class="penalty")?><td><b>\w+\.</b> (.*?)</td>'
        r'<td class="choice-score">([^<]*)</td></tr>',
        table,
    )
    assert rows == [
        ("A", "", "Masked self-attention", "0.5"),
        ("B", "", "It adds positional encodings", "0"),
        ("C", "", "Cross-attention", "0.5"),
        ("D", ' class="penalty"', "It has no feed-forward network", "−0.5"),
    ]
    ines.post("/lang/zh")
    page = ines.get("/instructor/preview?question=decoder-differences").text
    assert "<th>选项</th>" in preview_part(page, "solution-view")


def test_a_numeric_answer_is_neither_listed_nor_reviewable_as_an_open_answer(browser_for, sessions):
    alice = browser_for("alice")
    answer(alice, "masked-scores", {"text": "2.0, -inf\n2.7, 2.89"})
    answer(alice, "why-multi-head", {"text": "each head learns one pattern"})
    with reading(sessions) as session:
        recorded = store.latest_quiz_answers(session, user_id(sessions, "alice"))
    numeric_id = recorded["masked-scores"].answer_id
    open_id = recorded["why-multi-head"].answer_id
    ines = browser_for("ines")
    ines.post("/lang/en")
    page = ines.get(f"/instructor/students/{user_id(sessions, 'alice')}").text
    assert f'data-answer="{open_id}"' in page
    assert f'data-answer="{numeric_id}"' not in page
    assert ines.get(f"/instructor/reviews/{numeric_id}").status_code == 409
    response = ines.post(f"/instructor/reviews/{numeric_id}", {"score": "10"})
    assert response.status_code == 409
    assert "its score is the automatic grader" in html.unescape(response.text)
    with reading(sessions) as session:
        assert (
            store.latest_quiz_answers(session, user_id(sessions, "alice"))["masked-scores"].score
            == 1.0
        )


# --- a key changed after the answer -------------------------------------------------------


def change_key(app, content_dir: Path, old: str, new: str) -> None:
    """Edit the added questions' YAML and make it the live bank, as a content reload does."""
    path = content_dir / "transformer-by-hand" / "extra.yaml"
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")
    app.extensions["quizsvc"].install(load_content(content_dir))


KEY_CHANGED = "The key has changed since you answered; your recorded score stands."


def test_marks_against_a_key_changed_since_the_answer_say_the_recorded_score_stands(
    app, content_dir, browser_for
):
    alice = browser_for("alice")
    alice.post("/lang/en")
    answer(alice, "masked-scores", {"text": "2, -inf\n2.7, 2.89"})  # all 4 right: 100 %
    page = answer(alice, "scale-factor", {"text": "0.5"})
    assert KEY_CHANGED not in page  # the key as answered: marks and score agree

    # 2.89 becomes 2.95 (± 0.005): graded again, 2.89 is wrong, but 100 % was recorded
    change_key(app, content_dir, "[2.7, 2.89]", "[2.7, 2.95]")
    page = alice.get(CHAPTER_URL).text
    section = question_section(page, "masked-scores")
    assert '<p class="auto-score">Automatic score: 100%</p>' in section
    assert marks(section)[3] == (False, "2.89", "[2.945, 2.955]")
    after_marks = section[section.index("</table>") :]
    assert f'<p class="key-changed">{KEY_CHANGED}</p>' in after_marks
    assert KEY_CHANGED not in question_section(page, "scale-factor")  # its key is unchanged

    alice.post("/lang/zh")
    section = question_section(alice.get(CHAPTER_URL).text, "masked-scores")
    assert '<p class="key-changed">你作答之后，这道题的答案改过了；你记录的得分保持不变。</p>' in (
        section
    )


def test_a_key_whose_shape_changed_since_the_answer_says_so_without_marks(
    app, content_dir, browser_for
):
    alice = browser_for("alice")
    alice.post("/lang/en")
    answer(alice, "scale-factor", {"text": "0.5"})
    change_key(app, content_dir, "answer: 0.5\n", "answer: [0.5, 0.25]\n")
    section = question_section(alice.get(CHAPTER_URL).text, "scale-factor")
    assert '<p class="auto-score">Automatic score: 100%</p>' in section
    assert "matrix marks" not in section  # the cells no longer line up with the key's
    assert f'<p class="key-changed">{KEY_CHANGED}</p>' in section


# --- text no database can hold, refused for every caller --------------------------------


@pytest.mark.parametrize(
    ("text", "code", "message"),
    [
        ("2, -inf\x00", Rejection.CONTROL_CHARACTER, "a NUL character ("),
        ("2, -inf \ud800", Rejection.LONE_SURROGATE, "lone surrogate"),
    ],
)
@pytest.mark.parametrize("question_id", ["masked-scores", "why-multi-head"])
def test_answer_question_refuses_text_no_database_can_hold(
    content_dir, sessions, question_id, text, code, message
):
    """Refused by the domain before it grades or stores anything, whoever calls it (the
    chapter page, the API, a script): PostgreSQL refuses NUL, and a lone surrogate has no
    UTF-8 form."""
    with sessions() as session:
        with pytest.raises(AnswerRejected, match=re.escape(message)) as caught:
            practice.answer_question(
                session,
                load_content(content_dir),
                user_id(sessions, "alice"),
                question_id,
                idempotency_key="k",
                text=text,
            )
        assert caught.value.code is code
    with reading(sessions) as session:
        assert store.latest_quiz_answers(session, user_id(sessions, "alice")) == {}


def replace_question(path: Path, new_yaml: str) -> None:
    """Replace the question in a content file that has new_yaml's id (its first line)."""
    text = path.read_text(encoding="utf-8")
    start = text.index(new_yaml.split("\n", 1)[0] + "\n")
    end = text.find("\n  - id: ", start + 1)
    rest = text[end + 1 :] if end != -1 else ""
    path.write_text(text[:start] + new_yaml + rest, encoding="utf-8")


def test_an_answer_to_a_question_that_changed_type_is_shown_as_recorded(
    app, content_dir, browser_for
):
    alice = browser_for("alice")
    alice.post("/lang/en")
    answer(alice, "why-multi-head", {"text": "each head learns one pattern"})  # awaiting review
    answer(alice, "scale-factor", {"text": "0.5"})  # numeric: 100 %
    answer(alice, "masked-scores", {"text": "2, -inf; 2.7, 2.5"})  # numeric: 3 of 4, 75 %
    # the open question becomes a numeric one under the same id, the numeric one a choice
    numeric = (
        "  - id: why-multi-head\n    type: numeric\n    tags: [multi_head]\n    prompt:\n"
        "      zh: 多少个头\n      en: How many heads\n    answer: 8\n"
        "    explanation: {zh: 八个, en: Eight}\n"
    )
    replace_question(content_dir / "transformer-by-hand" / "questions.yaml", numeric)
    choice = (
        "  - id: scale-factor\n    type: single_choice\n    tags: [scores]\n    prompt:\n"
        "      zh: 缩放因子\n      en: The scaling factor\n    choices:\n"
        "      - {id: A, text: {zh: '0.5', en: '0.5'}}\n"
        "      - {id: B, text: {zh: '2', en: '2'}}\n    correct: A\n"
        "    explanation: {zh: 一半, en: Half}\n"
    )
    replace_question(content_dir / "transformer-by-hand" / "extra.yaml", choice)
    # and a numeric one an open one: its typed text is no open answer awaiting review
    open_question = (
        "  - id: masked-scores\n    type: open\n    tags: [masking]\n    prompt:\n"
        "      zh: 为什么要掩码\n      en: Why mask\n"
        "    reference_answer: {zh: 不看未来, en: Not to see the future}\n"
        "    rubric:\n      - key: future\n        weight: 1\n"
        "        description: {zh: 未来, en: the future}\n"
        "        phrases: {zh: [未来], en: [future]}\n\n"
    )
    replace_question(content_dir / "transformer-by-hand" / "extra.yaml", open_question)
    app.extensions["quizsvc"].install(load_content(content_dir))

    page = alice.get(CHAPTER_URL)
    assert page.status_code == 200
    changed = "This question has changed its type since you answered it."
    assert changed in question_section(page.text, "why-multi-head")
    assert "Your recorded score: awaiting review." in question_section(page.text, "why-multi-head")
    assert changed in question_section(page.text, "scale-factor")
    assert "Your recorded score: 100%." in question_section(page.text, "scale-factor")
    assert changed in question_section(page.text, "masked-scores")
    assert "Your recorded score: 75%." in question_section(page.text, "masked-scores")


def test_a_multiple_choice_answer_with_nothing_ticked_is_refused_and_keeps_the_attempt(
    browser_for, sessions
):
    alice = browser_for("alice")
    alice.post("/lang/en")
    alice.get(CHAPTER_URL)
    response = alice.post(f"{CHAPTER_URL}/questions/decoder-differences", {})
    assert response.status_code == 422
    assert "Choose an answer before submitting." in response.text
    with reading(sessions) as session:
        assert "decoder-differences" not in store.latest_quiz_answers(
            session, user_id(sessions, "alice")
        )
    page = answer(alice, "decoder-differences", {"choice": ["A", "C"]})
    assert "decoder-differences" in page


def test_an_empty_value_among_the_ticked_choices_is_not_recorded(browser_for, sessions):
    alice = browser_for("alice")
    alice.post("/lang/en")
    answer(alice, "decoder-differences", {"choice": ["A", "", "C"]})
    with reading(sessions) as session:
        recorded = store.latest_quiz_answers(session, user_id(sessions, "alice"))
    assert (recorded["decoder-differences"].choices, recorded["decoder-differences"].score) == (
        ["A", "C"],
        1.0,
    )


# --- through the JSON API -------------------------------------------------------------------


@pytest.mark.parametrize(
    "question_id, body, takes",
    [
        # "answer" is what a drill submission takes: a numeric question takes text
        ("masked-scores", {"answer": [[2, "-inf"], [2.7, 2.89]]}, '"text"'),
        ("masked-scores", {"choices": ["2"]}, '"text"'),
        ("decoder-differences", {"text": "A, B"}, '"choices"'),
        ("qkv-origin", {"answer": "B"}, '"choices"'),
        ("why-multi-head", {"choices": ["A"]}, '"text"'),
    ],
)
def test_an_api_answer_in_the_wrong_field_is_422_naming_the_field_the_question_takes(
    app, sessions, question_id, body, takes
):
    with sessions() as session:
        token = store.issue_api_token(session, "alice")
    client, auth = app.test_client(), {"Authorization": f"Bearer {token}"}
    refused = client.post(f"/api/questions/{question_id}/answers", json=body, headers=auth)
    assert refused.status_code == 422
    assert refused.json["error"]["code"] == "invalid_answer"
    assert f"takes its answer in {takes}" in refused.json["error"]["message"], refused.json
    # nothing was recorded: the question still takes its answer
    right = {"masked-scores": {"text": "2, -inf; 2.7, 2.89"}}.get(question_id, {"choices": ["B"]})
    if question_id != "why-multi-head":
        answered = client.post(f"/api/questions/{question_id}/answers", json=right, headers=auth)
        assert answered.status_code == 201
