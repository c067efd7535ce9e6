"""The HTML pages as a learner uses them: the language, the chapter quiz, the drills, the
recommended drill and the progress page. Every expected number is worked out by hand in a
comment from the content's rules (3 attempts, 0.1 penalty per extra attempt, mastery
m <- 0.5 * m + 0.5 * score starting at 0)."""

from __future__ import annotations

import html
import re
from urllib.parse import urlsplit

import numpy as np
import pytest
from web_helpers import count, letters_on_page, reading, start, user_id

from quizsvc import practice, store
from quizsvc.web.render import format_number

CHAPTER = "transformer-by-hand"
CHAPTER_URL = f"/chapters/{CHAPTER}"
QKV = "qkv-origin"  # single choice, correct: B, tags [qkv]
TEACHER_FORCING = "teacher-forcing-vs-autoregressive"  # open, rubric weights .2 .2 .2 .2 .1 .1


# --- helpers ---------------------------------------------------------------------------


def drill_state(sessions, name: str, variant_id: int) -> practice.DrillState:
    """The variant as stored in the database (the test's own source of the right answer)."""
    learner = user_id(sessions, name)
    with reading(sessions) as session:
        return practice.drill_state(session, learner, variant_id)


def progress(sessions, name: str) -> dict[str, store.SkillProgress]:
    learner = user_id(sessions, name)
    with reading(sessions) as session:
        return {p.skill: p for p in store.progress_for(session, learner)}


def quiz_answers(sessions, name: str) -> dict[str, store.AnsweredQuestion]:
    learner = user_id(sessions, name)
    with reading(sessions) as session:
        return store.latest_quiz_answers(session, learner)


def grid(values, fmt=lambda v: f"{v:.3f}") -> dict[str, str]:
    """The answer grid's form fields, one per cell."""
    return {f"cell-{r}-{c}": fmt(float(v)) for (r, c), v in np.ndenumerate(values)}


def submit(browser, variant_id: int, form: dict):
    return browser.post(f"/variants/{variant_id}/submissions", form)


def marks(page_html: str) -> list[dict]:
    """The per-cell marks table (#marks): correct?, the submitted value, the interval."""
    table = re.search(r'<table class="matrix marks" id="marks">(.*?)</table>', page_html, re.S)
    assert table, "no marks table"
    cells = re.findall(
        r'<td class="(?:right|wrong)" data-correct="(true|false)">(.*?)</td>', table.group(1), re.S
    )
    found = []
    for correct, body in cells:
        interval = re.search(r'<small class="interval"[^>]*>(.*?)</small>', body)
        submitted = re.search(r'<span class="mark">[✓✗]</span>\s*(\S+)', body)
        found.append(
            {
                "correct": correct == "true",
                "submitted": submitted.group(1),
                "interval": interval.group(1) if interval else None,
            }
        )
    return found


def interval(expected: float, atol: float) -> str:
    """As the page writes an accepted interval (rtol is 0 in every drill of the bank)."""
    return f"[{format_number(expected - atol, 4)}, {format_number(expected + atol, 4)}]"


def attempt_lines(page_html: str) -> list[str]:
    return [" ".join(s.split()) for s in re.findall(r'<li class="attempt">(.*?)</li>', page_html)]


def section(page_html: str, question_id: str) -> str:
    match = re.search(
        rf'<section class="question" id="q-{re.escape(question_id)}".*?</section>', page_html, re.S
    )
    assert match, question_id
    return match.group(0)


def skill_row(page_html: str, skill: str) -> list[str] | None:
    match = re.search(rf'<tr data-skill="{re.escape(skill)}">(.*?)</tr>', page_html, re.S)
    return re.findall(r"<td[^>]*>(.*?)</td>", match.group(1)) if match else None


def lang_toggle(page_html: str) -> tuple[str, str]:
    """The header's language form: where it posts, and the page it leads back to."""
    form = re.search(
        r'<form class="inline" method="post" action="(/lang/[^"]+)">(.*?)</form>', page_html, re.S
    )
    assert form
    back = re.search(r'<input type="hidden" name="next" value="([^"]*)">', form.group(2))
    return form.group(1), html.unescape(back.group(1))


def switch_language(browser, page_html: str, **kwargs):
    """Press the header's language button, as a browser sends its form."""
    action, back = lang_toggle(page_html)
    return browser.post(action, {"next": back}, **kwargs)


# --- language --------------------------------------------------------------------------


ACCEPT_LANGUAGE = [
    ("zh-CN", "zh"),
    ("zh-CN,zh;q=0.9,en;q=0.8", "zh"),
    ("zh", "zh"),
    ("en", "en"),
    ("en-US,en;q=0.9,zh-CN;q=0.5", "en"),
    ("fr-FR", "en"),  # neither: the default, English
    ("", "en"),
]


def test_the_language_follows_accept_language(browser_for):
    alice = browser_for("alice")
    for accept, lang in ACCEPT_LANGUAGE:
        check_language(alice, browser_for(), {"Accept-Language": accept}, lang)


def check_language(alice, anonymous, headers: dict, lang: str) -> None:
    chapter = alice.get(CHAPTER_URL, headers=headers).text
    drills = alice.get("/drills", headers=headers).text
    login = anonymous.get("/login", headers=headers).text
    zh = {
        "ui": "章节测试",
        "question": "Q、K、V 是从哪里算出来的？",
        "drills": "计算练习",
        "drill": "对给定的一行缩放分数做 Softmax",
        "login": "用户名",
    }
    en = {
        "ui": "Chapter quiz",
        "question": "Where are Q, K and V computed from?",
        "drills": "Every drill comes from one real forward pass",
        "drill": "Apply the softmax",
        "login": "User name",
    }
    want, other = (zh, en) if lang == "zh" else (en, zh)
    assert f'<html lang="{"zh-CN" if lang == "zh" else "en"}">' in chapter, headers
    for key, page in (("ui", chapter), ("question", chapter), ("drills", drills)):
        assert want[key] in page, (headers, key)
        assert other[key] not in page, (headers, key)
    assert want["drill"] in drills and other["drill"] not in drills, headers
    assert want["login"] in login and other["login"] not in login, headers


def test_the_language_toggle_switches_and_persists_in_the_session(browser_for):
    alice = browser_for("alice")
    english = {"Accept-Language": "en"}
    page = alice.get(CHAPTER_URL, headers=english)
    assert "Chapter quiz" in page.text
    assert lang_toggle(page.text)[0] == "/lang/zh"

    response = switch_language(alice, page.text, headers=english)
    assert response.status_code == 302
    assert urlsplit(response.headers["Location"]).path == CHAPTER_URL  # back where it was
    for path, chinese in ((CHAPTER_URL, "Q、K、V 是从哪里算出来的？"), ("/progress", "学习进度")):
        page = alice.get(path, headers=english)  # the browser still prefers English
        assert '<html lang="zh-CN">' in page.text, path
        assert chinese in page.text, path
    assert lang_toggle(page.text)[0] == "/lang/en"

    alice.post("/lang/en", headers={"Accept-Language": "zh-CN"})
    page = alice.get(CHAPTER_URL, headers={"Accept-Language": "zh-CN"})
    assert "Where are Q, K and V computed from?" in page.text
    assert alice.post("/lang/fr").status_code == 404


def test_the_language_toggle_on_a_rejected_form_returns_to_the_page(browser_for):
    """A 422 page is the answer to a POST: the toggle must lead back to the page (a GET),
    not to the POST-only URL the page was served at (405)."""
    alice = browser_for("alice")
    rejected = alice.post(f"{CHAPTER_URL}/questions/{QKV}", {})
    assert rejected.status_code == 422
    response = switch_language(alice, rejected.text)
    assert response.status_code == 302
    page = alice.get(response.headers["Location"])
    assert page.status_code == 200
    assert "Q、K、V 是从哪里算出来的？" in page.text

    variant = start(alice, "drill-score-row")
    rejected = submit(alice, variant, {"pasted": "abc"})
    assert rejected.status_code == 422
    assert "剩余次数：3" in rejected.text
    response = switch_language(alice, rejected.text)  # back to English
    assert response.status_code == 302
    assert urlsplit(response.headers["Location"]).path == f"/variants/{variant}"
    page = alice.get(response.headers["Location"])
    assert page.status_code == 200
    assert "Attempts left: 3" in page.text

    # any other page answering a POST (here a failed CSRF check) leads to the start page
    refused = alice.client.post(f"/variants/{variant}/submissions", data={"pasted": "1"})
    assert refused.status_code == 400
    assert urlsplit(switch_language(alice, refused.text).headers["Location"]).path == "/"
    # and the login page keeps where the learner was going
    visitor = browser_for()
    login = visitor.get("/login?next=/progress")
    response = switch_language(visitor, login.text)
    assert response.headers["Location"] == "/login?next=/progress"


# --- the chapter quiz ------------------------------------------------------------------


def test_a_single_choice_answered_right_and_wrong(browser_for, sessions):
    alice, bob = browser_for("alice"), browser_for("bob")
    before = alice.get(CHAPTER_URL).text
    # the fragment brings the learner back to the question if the answer is rejected
    assert f'action="{CHAPTER_URL}/questions/{QKV}#q-{QKV}"' in section(before, QKV)

    response = alice.post(f"{CHAPTER_URL}/questions/{QKV}", {"choice": "B"})
    assert response.status_code == 302
    assert response.headers["Location"] == f"{CHAPTER_URL}#q-{QKV}"
    response = bob.post(f"{CHAPTER_URL}/questions/{QKV}", {"choice": "A"})
    assert response.status_code == 302

    explanation = "Q, K and V are obtained by multiplying the input X by three"
    right = section(alice.get(CHAPTER_URL).text, QKV)
    assert "<form" not in right
    b = letters_on_page(right, ["B"])
    assert re.search(rf"Your answer: <b>{b}</b>\s*— <span class=\"right\">Correct</span>", right)
    assert f'Correct answer: <b class="correct-choice">{b}</b>' in right
    assert explanation in " ".join(right.split())
    wrong = section(bob.get(CHAPTER_URL).text, QKV)
    a, b = letters_on_page(wrong, ["A"]), letters_on_page(wrong, ["B"])
    assert re.search(rf"Your answer: <b>{a}</b>\s*— <span class=\"wrong\">Wrong</span>", wrong)
    assert f'Correct answer: <b class="correct-choice">{b}</b>' in wrong
    assert explanation in " ".join(wrong.split())
    # the other questions are still unanswered, with their forms
    assert "<form" in section(alice.get(CHAPTER_URL).text, "scaling-by-sqrt-dk")

    assert quiz_answers(sessions, "alice")[QKV].score == 1.0
    assert quiz_answers(sessions, "bob")[QKV].score == 0.0
    # a skill counts drills only (the Drills page says qkv is not tried): the chapter's
    # answers are the quiz's line, 1 (or 0) of 4 x 1 + 2 x 2 = 8 points
    for browser, earned in ((alice, 1), (bob, 0)):
        page = browser.get("/progress").text
        assert skill_row(page, "qkv") is None
        assert re.search(
            rf'<ul class="quiz-lines" id="quiz"[^>]*>\s*<li data-final="false"><a href="'
            rf'{CHAPTER_URL}">[^<]+</a>: 1 of 6 questions answered; score so far {earned} of 8'
            r" points.</li>",
            page,
        )

    # one attempt per question: a second answer changes nothing
    response = alice.post(f"{CHAPTER_URL}/questions/{QKV}", {"choice": "A"})
    assert response.status_code == 302
    assert quiz_answers(sessions, "alice")[QKV].score == 1.0
    assert quiz_answers(sessions, "alice")[QKV].choices == ["B"]
    assert count(sessions, store.QuizAnswer) == 2


def test_an_open_answer_waits_for_review_its_suggested_score_kept_from_the_learner(
    browser_for, sessions
):
    alice = browser_for("alice")
    unanswered = section(alice.get(CHAPTER_URL).text, TEACHER_FORCING)
    assert "<textarea" in unanswered and "Reference answer" not in unanswered

    # "true target" (weight 0.2) and "parallel" (0.2), nothing of the other four points
    # (0.2 + 0.2 + 0.1 + 0.1): suggested score 0.4 / 1.0 = 40 %
    text = "With teacher forcing the decoder reads the true target, computed in parallel."
    response = alice.post(f"{CHAPTER_URL}/questions/{TEACHER_FORCING}", {"text": text})
    assert response.status_code == 302
    answered = section(alice.get(CHAPTER_URL).text, TEACHER_FORCING)
    assert "<textarea" not in answered
    assert text in answered
    assert "Waiting for an instructor&#39;s review.</p>" in answered
    assert "40%" not in answered and "suggest" not in answered
    assert "Reference answer" in answered
    assert "the decoder's input is the complete target sentence" in " ".join(answered.split())
    # key points: how the per-position losses combine, and why inference is slow
    assert "the loss adds up the errors of all positions" in answered
    assert "N tokens take N forward passes" in answered

    stored = quiz_answers(sessions, "alice")[TEACHER_FORCING]
    assert stored.score is None
    assert stored.suggested_score == pytest.approx(0.4)
    assert stored.text == text
    # not scored yet, so no progress on its skill
    assert progress(sessions, "alice") == {}

    # the same in Chinese: 并行 (0.2) and 逐个 (0.2) -> 40 %, 掩码 (0.1) -> 50 %
    bob = browser_for("bob")
    bob.post("/lang/zh")
    response = bob.post(
        f"{CHAPTER_URL}/questions/{TEACHER_FORCING}",
        {"text": "训练时并行计算，用掩码；推理时逐个生成。"},
    )
    assert response.status_code == 302
    answered = section(bob.get(CHAPTER_URL).text, TEACHER_FORCING)
    assert "等待老师评阅。</p>" in answered
    assert "50%" not in answered and "建议" not in answered
    assert quiz_answers(sessions, "bob")[TEACHER_FORCING].suggested_score == pytest.approx(0.5)
    assert "参考答案" in answered


def test_an_invalid_chapter_answer_is_422_inline_and_records_nothing(browser_for, sessions):
    alice = browser_for("alice")
    cases = [
        (QKV, {}, "Choose an answer before submitting."),
        (QKV, {"choice": ""}, "Choose an answer before submitting."),
        (QKV, {"choice": ["A", "B"]}, "Choose exactly one answer."),
        (QKV, {"choice": "E"}, "&#39;E&#39; is not one of the choices."),
        (TEACHER_FORCING, {"text": "   \n "}, "Write an answer before submitting."),
        (TEACHER_FORCING, {}, "Write an answer before submitting."),
    ]
    for question, form, message in cases:
        response = alice.post(f"{CHAPTER_URL}/questions/{question}", form)
        assert response.status_code == 422, (question, form)
        own = section(response.text, question)
        error = re.search(r'<p class="inline-error" id="error-[^"]+" role="alert">(.*?)</p>', own)
        assert error and error.group(1) == message, (question, form)
        assert "<form" in own  # asked again
        others = response.text.replace(own, "")
        assert 'class="inline-error"' not in others  # only under the question concerned
    assert count(sessions, store.QuizAnswer) == 0
    assert progress(sessions, "alice") == {}
    assert alice.post(f"{CHAPTER_URL}/questions/no-such-question", {"choice": "B"}).status_code == (
        404
    )
    assert alice.post(f"{CHAPTER_URL}/questions/drill-score-row", {"text": "1"}).status_code == 404
    assert alice.get("/chapters/no-such-chapter").status_code == 404
    assert count(sessions, store.QuizAnswer) == 0


def test_resubmitting_an_old_quiz_form_with_another_choice_is_not_an_error(browser_for, sessions):
    """The browser's back button brings back a form with the key it was sent with."""
    alice = browser_for("alice")
    url = f"{CHAPTER_URL}/questions/{QKV}"
    assert alice.post(url, {"choice": "A", "idempotency_key": "form-1"}).status_code == 302
    assert alice.post(url, {"choice": "A", "idempotency_key": "form-1"}).status_code == 302
    response = alice.post(url, {"choice": "B", "idempotency_key": "form-1"})
    assert response.status_code == 302
    assert quiz_answers(sessions, "alice")[QKV].choices == ["A"]
    assert count(sessions, store.QuizAnswer) == 1


# --- drills ----------------------------------------------------------------------------


def test_a_drill_answered_wrong_then_right(browser_for, sessions):
    alice = browser_for("alice")
    variant_id = start(alice, "drill-softmax-row")
    state = drill_state(sessions, "alice", variant_id)
    variant = state.variant
    expected = variant.answer.values  # 1 x 3 attention weights, atol 0.005
    assert expected.shape == (1, 3)
    assert variant.heatmap is not None
    atol = variant.tolerance.atol
    assert (atol, variant.tolerance.rtol) == (0.005, 0.0)

    page = alice.get(f"/variants/{variant_id}").text
    assert "Attempts left: 3" in page
    assert 'id="marks"' not in page

    # the first weight right, the other two 0.1 off: raw 1/3, no penalty on attempt 1
    wrong = expected.copy()
    wrong[0, 1:] += 0.1
    response = submit(alice, variant_id, grid(wrong))
    assert response.status_code == 302
    assert response.headers["Location"] == f"/variants/{variant_id}"
    page = alice.get(f"/variants/{variant_id}").text
    assert attempt_lines(page) == ["Attempt 1: score 33%"]  # no deduction to speak of
    assert "Attempts left: 2" in page
    assert marks(page) == [
        {
            "correct": True,
            "submitted": format_number(round(expected[0, 0], 3), 4),
            "interval": interval(expected[0, 0], atol),
        },
        # wrong cells say what was typed, not what was wanted, while attempts remain
        *(
            {"correct": False, "submitted": format_number(round(v, 3), 4), "interval": None}
            for v in wrong[0, 1:]
        ),
    ]
    assert 'id="answer-form"' in page
    assert "Worked solution" not in page and "<svg" not in page

    # now right (to 3 decimals, well inside ±0.005): raw 100 %, penalty 0.1 * (2 - 1)
    response = submit(alice, variant_id, grid(expected))
    assert response.status_code == 302
    page = alice.get(f"/variants/{variant_id}").text
    assert attempt_lines(page) == [
        "Attempt 1: score 33%",
        "Attempt 2: score 90% (100% right, minus 10% for retrying)",
    ]
    assert [m["correct"] for m in marks(page)] == [True, True, True]
    assert [m["interval"] for m in marks(page)] == [interval(v, atol) for v in expected[0]]
    assert 'id="answer-form"' not in page and "Attempts left" not in page
    assert '<section class="expected"><h2>Correct answer</h2>' in page
    expected_table = re.search(r'<section class="expected">(.*?)</section>', page, re.S).group(1)
    assert [f"<td>{format_number(v)}</td>" in expected_table for v in expected[0]] == [True] * 3
    solution = re.search(r'<section class="solution">(.*)</section>', page, re.S).group(1)
    assert "<h2>Worked solution</h2>" in solution
    assert solution.count('<div class="step">') == len(variant.solution) >= 2
    for n, step in enumerate(variant.solution, start=1):
        assert f"<h3>{n}. {step.title['en']}</h3>" in solution
    heatmap = re.search(r"<svg class='heatmap'.*?</svg>", page, re.S)
    assert heatmap, "softmax_row has a heatmap"
    rows, cols = variant.heatmap.shape
    # a square per weight (a title in each), then the legend's five steps
    assert heatmap.group(0).count("<rect ") == rows * cols + 5
    for v in variant.heatmap.values.ravel():
        assert f">{format_number(v, 2)}</text>" in heatmap.group(0)
    assert 'id="new-variant"' in page

    # solved: no more submissions, and the page says it is solved (not "no attempts left")
    response = submit(alice, variant_id, grid(expected))
    assert response.status_code == 302
    page = alice.get(f"/variants/{variant_id}").text
    assert "You have already solved this variant" in page
    assert "No attempts left." not in page
    assert drill_state(sessions, "alice", variant_id).stored.attempts_used == 2
    assert count(sessions, store.Submission) == 2

    # progress: two attempts; the variant counts once, at its best (1/3, then 0.9): 0.9 / 2
    row = skill_row(alice.get("/progress").text, "softmax")
    assert row[:5] == ["Softmax", "2", "90%", "90%", "45%"]
    assert progress(sessions, "alice")["softmax"].mastery == pytest.approx(0.45)


def test_a_drill_without_attention_weights_shows_its_solution_but_no_heatmap(browser_for, sessions):
    alice = browser_for("alice")
    variant_id = start(alice, "drill-score-row")
    variant = drill_state(sessions, "alice", variant_id).variant
    assert variant.heatmap is None  # score_row: scores, not weights
    response = submit(alice, variant_id, grid(variant.answer.values, fmt=repr))
    assert response.status_code == 302
    page = alice.get(f"/variants/{variant_id}").text
    assert attempt_lines(page) == ["Attempt 1: score 100%"]
    assert "Worked solution" in page
    assert "<svg" not in page and "Attention weights heatmap" not in page


def test_invalid_drill_input_is_422_inline_and_uses_no_attempt(browser_for, sessions):
    alice = browser_for("alice")
    variant_id = start(alice, "drill-score-row")  # a 1 x 3 grid
    (query,) = drill_state(sessions, "alice", variant_id).variant.answer.row_labels
    box = '<a href="#pasted">Paste a matrix</a>: '
    cases = [
        (
            {"cell-0-0": "abc", "cell-0-1": "1", "cell-0-2": "2"},
            f'<a href="#cell-0-0">{query}, 我</a>: “abc” is not a number',
        ),
        (
            {"cell-0-0": "1", "cell-0-1": "", "cell-0-2": "2"},
            f'<a href="#cell-0-1">{query}, 爱</a>: empty',
        ),
        ({"cell-0-0": "1", "cell-0-1": "2"}, f'<a href="#cell-0-2">{query}, 你</a>: empty'),
        ({"pasted": "1, 2"}, f"{box}expected 1 × 3 values (rows × columns), got 1 × 2"),
        ({"pasted": "1; 2; 3"}, f"{box}expected 1 × 3 values (rows × columns), got 3 × 1"),
        (
            {"pasted": "1, nan, 2"},
            f"{box}NaN is not a number you can be graded on (row 1, value 2)",
        ),
        ({"pasted": "[[1, 2, 3]"}, f"{box}unbalanced brackets: a '[' is never closed"),
    ]
    for form, message in cases:
        response = submit(alice, variant_id, form)
        assert response.status_code == 422, form
        summary = re.search(
            r'<div class="error-summary" id="answer-error" tabindex="-1" autofocus>(.*?)</div>',
            response.text,
            re.S,
        )
        assert summary, form
        problems = re.findall(r"<li>(.*?)</li>", summary.group(1))
        assert [html.unescape(re.sub("</?span[^>]*>", "", p)) for p in problems] == [message]
        assert "Attempts left: 3" in response.text
        # what was typed stays in the grid, to be corrected rather than retyped
        for name, value in form.items():
            if name.startswith("cell-"):
                assert f'name="{name}"' in response.text
                assert re.search(rf'name="{name}"[^>]*value="{re.escape(value)}"', response.text)
    assert drill_state(sessions, "alice", variant_id).stored.attempts_used == 0
    assert count(sessions, store.Submission) == 0
    assert progress(sessions, "alice") == {}

    alice.post("/lang/zh")
    response = submit(alice, variant_id, {"pasted": "abc"})
    assert response.status_code == 422
    assert (
        '<a href="#pasted">粘贴矩阵</a>：<span id="error-pasted">'
        "无法把“abc”读成数字（第 1 行第 1 个值）</span></li>" in response.text
    )
    assert "剩余次数：3" in response.text


def test_a_drill_out_of_attempts_takes_no_more_answers(browser_for, sessions):
    alice = browser_for("alice")
    variant_id = start(alice, "drill-softmax-row")
    variant = drill_state(sessions, "alice", variant_id).variant
    expected = variant.answer.values
    # attempt 1: none right: raw 0, score 0
    # attempt 2: one right: raw 1/3, penalty min(1/3, 0.1) = 0.1, score 0.2333
    # attempt 3: two right: raw 2/3, penalty min(2/3, 0.2) = 0.2, score 0.4667
    for right in (0, 1, 2):
        answer = expected.copy()
        answer[0, right:] += 0.1
        assert submit(alice, variant_id, grid(answer)).status_code == 302
    page = alice.get(f"/variants/{variant_id}").text
    assert attempt_lines(page) == [
        "Attempt 1: score 0%",
        "Attempt 2: score 23% (33% right, minus 10% for retrying)",
        "Attempt 3: score 47% (67% right, minus 20% for retrying)",
    ]
    # finished: the form is gone, and now the wrong cell shows its interval too
    assert 'id="answer-form"' not in page
    assert [m["correct"] for m in marks(page)] == [True, True, False]
    assert marks(page)[2]["interval"] == interval(expected[0, 2], variant.tolerance.atol)
    assert "Worked solution" in page and "<svg class='heatmap'" in page

    response = submit(alice, variant_id, grid(expected))
    assert response.status_code == 302
    assert "No attempts left." in alice.get(f"/variants/{variant_id}").text
    state = drill_state(sessions, "alice", variant_id)
    assert state.stored.attempts_used == 3
    assert not state.solved
    assert len(state.submissions) == 3
    # the variant counts once, at its best attempt (0.4667): mastery 0.2333
    assert skill_row(alice.get("/progress").text, "softmax")[:5] == [
        "Softmax",
        "3",
        "47%",
        "47%",
        "23%",
    ]

    # a drill with one attempt (the next token's id, all or nothing): one wrong answer ends it
    variant_id = start(alice, "drill-greedy-next-token")
    expected = drill_state(sessions, "alice", variant_id).variant.answer.values
    wrong = int(expected[0, 0]) + 1
    assert submit(alice, variant_id, {"cell-0-0": str(wrong)}).status_code == 302
    page = alice.get(f"/variants/{variant_id}").text
    assert attempt_lines(page) == ["Attempt 1: score 0%"]
    assert 'id="answer-form"' not in page and "Worked solution" in page
    assert submit(alice, variant_id, grid(expected, fmt=str)).status_code == 302
    assert drill_state(sessions, "alice", variant_id).stored.attempts_used == 1


def test_the_same_drill_form_sent_twice_counts_once(browser_for, sessions):
    alice = browser_for("alice")
    variant_id = start(alice, "drill-softmax-row")
    page = alice.get(f"/variants/{variant_id}").text
    key = re.search(r'name="idempotency_key" value="([^"]+)"', page).group(1)
    expected = drill_state(sessions, "alice", variant_id).variant.answer.values
    wrong = expected + 0.1

    first = submit(alice, variant_id, {**grid(wrong), "idempotency_key": key})
    again = submit(alice, variant_id, {**grid(wrong), "idempotency_key": key})  # double click
    assert (first.status_code, again.status_code) == (302, 302)
    assert drill_state(sessions, "alice", variant_id).stored.attempts_used == 1

    # back button: the old form (old key) with a changed answer is not recorded under the
    # old key, and is no server error either
    response = submit(alice, variant_id, {**grid(expected), "idempotency_key": key})
    assert response.status_code == 302
    assert response.headers["Location"] == f"/variants/{variant_id}"
    page = alice.get(f"/variants/{variant_id}").text
    assert "This form was already sent, so the changed answer was not recorded." in page
    state = drill_state(sessions, "alice", variant_id)
    assert state.stored.attempts_used == 1 and not state.solved


def test_next_recommended_picks_an_unpracticed_skill_first(app, browser_for, sessions):
    alice = browser_for("alice")
    drills = [q.id for q in app.extensions["quizsvc"].bank.questions.values() if q.type == "drill"]
    assert drills[:3] == ["drill-embedding-positional", "drill-projection", "drill-score-row"]

    def recommended() -> str:
        response = alice.post("/drills/recommended")
        assert response.status_code == 302
        variant_id = int(response.headers["Location"].rsplit("/", 1)[1])
        return drill_state(sessions, "alice", variant_id).stored.question_id

    # nothing practised: the bank's first drill
    assert recommended() == "drill-embedding-positional"
    assert 'id="next-recommended"' in alice.get("/drills").text

    # embedding solved (mastery 0.5), projection all wrong (mastery 0): the next is the
    # first skill never practised, score_row, not the weakest practised one (projection)
    variant_id = start(alice, "drill-embedding-positional")
    right = drill_state(sessions, "alice", variant_id).variant.answer.values
    assert submit(alice, variant_id, grid(right, fmt=repr)).status_code == 302
    variant_id = start(alice, "drill-projection")
    wrong = drill_state(sessions, "alice", variant_id).variant.answer.values + 5
    assert submit(alice, variant_id, grid(wrong)).status_code == 302
    mastery = {s: p.mastery for s, p in progress(sessions, "alice").items()}
    assert mastery == {"positional_encoding": 0.5, "qkv": 0.0}
    assert recommended() == "drill-score-row"

    # once every skill has been practised: the lowest mastery
    learner = user_id(sessions, "alice")
    bank = app.extensions["quizsvc"].bank
    for question_id in drills:
        if question_id in ("drill-embedding-positional", "drill-projection"):
            continue
        with sessions() as session:
            issued = practice.start_drill(session, bank, learner, question_id, seed=7)
            state = practice.drill_state(session, learner, issued.id)
            values = state.variant.answer.values.tolist()
            answer = "\n".join(" ".join(repr(v) for v in row) for row in values)
            practice.submit_drill(session, learner, issued.id, answer, f"k-{question_id}")
    # each right at once; masking twice (the masked scores, then the masked weights), and
    # teacher forcing twice (the loss, then its gradient at the logits)
    mastery = {s: p.mastery for s, p in progress(sessions, "alice").items() if s != "qkv"}
    assert mastery.pop("masking") == mastery.pop("teacher_forcing") == 0.75
    assert set(mastery.values()) == {0.5}
    assert recommended() == "drill-projection"


def test_the_progress_page_follows_the_drills(browser_for, sessions):
    alice = browser_for("alice")
    page = alice.get("/progress").text
    assert "Nothing yet. Try a drill." in page
    assert 'id="skills"' not in page

    # score_row solved at once: score 1, mastery 0.5 * 0 + 0.5 * 1 = 0.5
    first = start(alice, "drill-score-row")
    right = drill_state(sessions, "alice", first).variant.answer.values
    assert submit(alice, first, grid(right, fmt=repr)).status_code == 302
    page = alice.get("/progress").text
    assert "Nothing yet" not in page
    assert skill_row(page, "scores")[:5] == ["Attention scores", "1", "100%", "100%", "50%"]

    # a new variant, two of three cells right: score 2/3, mastery 0.25 + 0.3333 = 0.5833
    second = start(alice, "drill-score-row")
    answer = drill_state(sessions, "alice", second).variant.answer.values.copy()
    answer[0, 0] += 1
    assert submit(alice, second, grid(answer, fmt=repr)).status_code == 302
    page = alice.get("/progress").text
    assert skill_row(page, "scores")[:5] == ["Attention scores", "2", "100%", "67%", "58%"]
    assert re.search(r"<text [^>]*>Attention scores</text>", page)  # the mastery bar chart
    assert ">58%</text>" in page
    # the drill's title, linked to the variant; not its id
    history = re.findall(
        r'<li data-question="drill-score-row">.*?<a href="([^"]+)">([^<]*)</a>'
        r" \((\w+)\) — ([^<]*)</li>",
        page,
        re.S,
    )
    title = "One row of scaled attention scores"
    assert history == [
        (f"/variants/{second}", title, "Drill", "67%"),
        (f"/variants/{first}", title, "Drill", "100%"),
    ]
    assert list(progress(sessions, "alice")) == ["scores"]
