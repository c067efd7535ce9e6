"""What a learner is told when an answer cannot be taken, and where it leaves them: the
paste box beside the grid, errors in Chinese, the question scrolled back to, a variant solved
in another tab, and the address bar of a rejected form."""

from __future__ import annotations

import html
import re
from pathlib import Path

import numpy as np
import pytest
from web_helpers import count, expected_answer, reading, start, user_id

from quizsvc import practice, store
from quizsvc.grading import AnswerRejected, Rejection
from quizsvc.web.context import load_content

REPO = Path(__file__).resolve().parents[2]

CHAPTER_URL = "/chapters/transformer-by-hand"
QKV = "qkv-origin"  # single choice, correct: B
TEACHER_FORCING = "teacher-forcing-vs-autoregressive"  # open


def grid(values) -> dict[str, str]:
    return {f"cell-{r}-{c}": repr(float(v)) for (r, c), v in np.ndenumerate(values)}


def inline_error(page_html: str) -> str:
    match = re.search(r'<p class="inline-error" id="[^"]+" role="alert">(.*?)</p>', page_html)
    assert match, "no inline error"
    return html.unescape(match.group(1))


def error_summary(page_html: str) -> list[str]:
    """The drill form's error summary (above the grid, taking the focus): each problem's
    text, as read (the link to its field is the name before the colon)."""
    match = re.search(
        r'<div class="error-summary" id="answer-error" tabindex="-1" autofocus>(.*?)</div>',
        page_html,
        re.S,
    )
    assert match, "no error summary"
    items = re.findall(r"<li>(.*?)</li>", match.group(1), re.S)
    return [html.unescape(re.sub(r"<[^>]+>", "", item)) for item in items]


def labels(sessions, name: str, variant_id: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The answer's row and column headers, as the grid shows them."""
    with reading(sessions) as session:
        answer = practice.drill_state(session, user_id(sessions, name), variant_id).variant.answer
        return answer.row_labels, answer.col_labels


def attempts_used(sessions, name: str, variant_id: int) -> int:
    with reading(sessions) as session:
        return store.load_variant(session, variant_id).attempts_used


# --- the paste box and the grid -------------------------------------------------------


def test_text_left_in_the_paste_box_never_silently_overrides_the_grid(browser_for, sessions):
    alice = browser_for("alice")
    variant_id = start(alice, "drill-score-row")  # a 1 x 3 grid
    right = expected_answer(sessions, "alice", variant_id)
    url = f"/variants/{variant_id}/submissions"

    # a paste error says it is the paste box's, and links the learner to that box
    response = alice.post(url, {"pasted": "1, 2"})
    assert response.status_code == 422
    assert error_summary(response.text) == [
        "Paste a matrix: expected 1 × 3 values (rows × columns), got 1 × 2"
    ]
    assert '<li><a href="#pasted">Paste a matrix</a>: <span id="error-pasted">' in response.text
    textarea = re.search(r"<textarea name=\"pasted\"[^>]*>([^<]*)</textarea>", response.text)
    assert 'aria-invalid="true"' in textarea.group(0)
    assert 'aria-describedby="paste-help error-pasted"' in textarea.group(0)
    assert textarea.group(1) == "1, 2"  # kept, to be corrected
    assert response.text.count("autofocus") == 1  # the summary's

    # the learner fixes the grid, but the old text is still in the box: not the same paste
    # error again, and not the box's answer either, but what to do about the two
    response = alice.post(url, {**grid(right), "pasted": "1, 2"})
    assert response.status_code == 422
    assert error_summary(response.text) == [
        "The grid and the “Paste a matrix” box hold different answers: "
        "empty one of them, then submit again."
    ]
    # so are numbers of the same shape, and a box the grader cannot read
    off_by_one = ", ".join(repr(float(v) + 1) for v in right[0])
    for other in (off_by_one, "abc"):
        response = alice.post(url, {**grid(right), "pasted": other})
        assert response.status_code == 422, other
        assert "hold different answers" in error_summary(response.text)[0], other
    # a half-filled grid beside a whole pasted matrix is just as ambiguous
    response = alice.post(url, {"cell-0-0": "1", "pasted": "1, 2, 3"})
    assert response.status_code == 422
    assert "hold different answers" in error_summary(response.text)[0]
    assert attempts_used(sessions, "alice", variant_id) == 0

    # the same numbers in both (say the box was copied into the grid) are one answer
    pasted = ", ".join(repr(float(v)) for v in right[0])
    response = alice.post(url, {**grid(right), "pasted": f"[{pasted}]"})
    assert response.status_code == 302
    assert attempts_used(sessions, "alice", variant_id) == 1
    page = alice.get(f"/variants/{variant_id}").text
    assert "Attempt 1: score 100%" in page


def test_the_paste_box_is_read_only_while_the_grid_is_empty(browser_for, sessions):
    alice = browser_for("alice")
    variant_id = start(alice, "drill-score-row")
    right = expected_answer(sessions, "alice", variant_id)
    pasted = " ".join(repr(float(v)) for v in right[0])
    response = alice.post(f"/variants/{variant_id}/submissions", {"pasted": pasted})
    assert response.status_code == 302
    assert "Attempt 1: score 100%" in alice.get(f"/variants/{variant_id}").text


# --- errors in the learner's language ---------------------------------------------------


def test_a_rejected_drill_answer_is_explained_in_chinese(browser_for, sessions):
    alice = browser_for("alice")
    alice.post("/lang/zh")
    variant_id = start(alice, "drill-score-row")
    url = f"/variants/{variant_id}/submissions"
    (query,), keys = labels(sessions, "alice", variant_id)
    assert keys == ("我", "爱", "你")  # the chapter's sentence; the query is one of them
    cases = [
        ({"pasted": "1, 2"}, ["粘贴矩阵：应为 1 × 3 个值（行 × 列），实际是 1 × 2"]),
        ({"pasted": "1; 2; 3"}, ["粘贴矩阵：应为 1 × 3 个值（行 × 列），实际是 3 × 1"]),
        (
            {"pasted": "1 2\n3"},
            [
                "粘贴矩阵：应为 1 × 3 个值（行 × 列），"
                "但各行长短不一：第 2 行有 1 个值，第 1 行有 2 个"
            ],
        ),
        ({"cell-0-0": "1", "cell-0-2": "2"}, [f"{query}, 爱：没有填写"]),
        ({"cell-0-0": "abc", "cell-0-1": "1", "cell-0-2": "2"}, [f"{query}, 我：“abc”不是数字"]),
        (
            {"cell-0-0": "1", "cell-0-1": "2", "pasted": "3"},
            ["表格和“粘贴矩阵”框里的答案不一致：请清空其中一个，再提交。"],
        ),
        ({}, ["还没有填写答案。"]),
    ]
    for form, messages in cases:
        response = alice.post(url, form)
        assert response.status_code == 422, form
        assert error_summary(response.text) == messages, form
        assert "无法读取你的答案，这次不计入次数。请改正以下问题，再提交：" in response.text
        assert not re.search(r"[A-Za-z]{4,}", " ".join(messages))  # no English left in it
    assert attempts_used(sessions, "alice", variant_id) == 0


def test_a_rejected_chapter_answer_is_explained_in_chinese(browser_for, sessions):
    alice = browser_for("alice")
    alice.post("/lang/zh")
    cases = [
        # each a sentence of its own: a full stop after the grader's clause
        (QKV, {}, "请先选择答案，再提交。"),
        (QKV, {"choice": ["A", "B"]}, "只能选择一个答案。"),
        (QKV, {"choice": "E"}, "“E”不是选项之一。"),
        (TEACHER_FORCING, {"text": "  "}, "请先写下答案，再提交。"),
    ]
    for question, form, message in cases:
        response = alice.post(f"{CHAPTER_URL}/questions/{question}", form)
        assert response.status_code == 422, form
        assert inline_error(response.text) == message, form
    assert count(sessions, store.QuizAnswer) == 0


# --- back to the question ---------------------------------------------------------------


def test_a_rejected_chapter_answer_brings_the_learner_back_to_the_question(browser_for):
    alice = browser_for("alice")
    page = alice.get(CHAPTER_URL).text
    actions = re.findall(r'<form method="post" action="([^"]+)"[^>]*>', page)
    assert len(actions) == 6
    for action in actions:  # the page the browser shows after a 422 opens at the question
        question = re.fullmatch(rf"{CHAPTER_URL}/questions/([\w-]+)#q-([\w-]+)", action)
        assert question and question.group(1) == question.group(2), action

    response = alice.post(f"{CHAPTER_URL}/questions/{QKV}", {})
    assert response.status_code == 422
    own = re.search(rf'<section class="question" id="q-{QKV}".*?</section>', response.text, re.S)
    own = own.group(0)
    # the first choice takes the focus (as the fragment, it scrolls the question into view),
    # and the choices are described by the error
    # (the first in the learner's own order)
    first = re.search(r'<input type="radio" name="choice" value="[A-D]"[^>]*>', own).group(0)
    assert "autofocus" in first
    # (and by the question's rules: its points and tries)
    assert f'<fieldset class="choices" aria-describedby="rules-{QKV} error-{QKV}">' in own
    assert f'id="error-{QKV}"' in own
    assert response.text.count("autofocus") == 1  # no other question takes it

    response = alice.post(f"{CHAPTER_URL}/questions/{TEACHER_FORCING}", {"text": " "})
    textarea = re.search(r"<textarea [^>]*>", response.text).group(0)
    described_by = f'aria-describedby="rules-{TEACHER_FORCING} error-{TEACHER_FORCING}"'
    assert "autofocus" in textarea and described_by in textarea


# --- a variant solved in another tab ----------------------------------------------------


def test_a_variant_solved_in_another_tab_says_it_is_solved(browser_for, sessions):
    alice = browser_for("alice")
    variant_id = start(alice, "drill-softmax-row")
    right = expected_answer(sessions, "alice", variant_id)
    tabs = [alice.get(f"/variants/{variant_id}").text for _ in range(2)]
    key_a, key_b = (re.search(r'name="idempotency_key" value="([^"]+)"', t).group(1) for t in tabs)
    url = f"/variants/{variant_id}/submissions"

    assert alice.post(url, {**grid(right), "idempotency_key": key_a}).status_code == 302
    wrong = {**grid(right + 0.1), "idempotency_key": key_b}
    response = alice.post(url, wrong)  # tab B, still showing the form
    assert response.status_code == 302
    page = alice.get(response.headers["Location"]).text
    assert "You have already solved this variant (perhaps in another tab)" in page
    assert "No attempts left." not in page
    assert 'id="marks"' in page and "Worked solution" in page  # shown, not hidden
    assert attempts_used(sessions, "alice", variant_id) == 1


# --- the address bar of a rejected form ------------------------------------------------


def test_the_address_of_a_form_leads_to_its_page_not_to_a_405(browser_for, sessions):
    alice = browser_for("alice")
    variant_id = start(alice, "drill-score-row")
    before = count(sessions, store.DrillVariant), count(sessions, store.QuizAnswer)

    # what the address bar shows after a 422, reloaded or opened from a bookmark
    rejected = alice.post(f"/variants/{variant_id}/submissions", {"cell-0-0": "1"})
    assert rejected.status_code == 422
    response = alice.get(f"/variants/{variant_id}/submissions")
    assert response.status_code == 302
    assert response.headers["Location"] == f"/variants/{variant_id}"

    response = alice.get(f"{CHAPTER_URL}/questions/{QKV}")
    assert response.status_code == 302
    assert response.headers["Location"] == f"{CHAPTER_URL}#q-{QKV}"

    for path in (
        "/drills/recommended",
        "/drills/drill-score-row/start",
        "/drills/drill-score-row/variants",
    ):
        response = alice.get(path)
        assert response.status_code == 302, path
        assert response.headers["Location"] == "/drills", path
    # a GET never starts a variant or records an answer
    assert (count(sessions, store.DrillVariant), count(sessions, store.QuizAnswer)) == before


# --- the grid cell to fix ---------------------------------------------------------------


def cell_input(page_html: str, name: str) -> str:
    match = re.search(rf'<input name="{name}"[^>]*>', page_html)
    assert match, name
    return match.group(0)


def assert_marked_cells(page_html: str, *names: str) -> None:
    """These cells, and no other field, are marked invalid and described by their own
    message in the summary, which takes the focus."""
    for name in names:
        cell = cell_input(page_html, name)
        assert 'class="cell invalid"' in cell and 'aria-invalid="true"' in cell, cell
        assert f'aria-describedby="error-{name}"' in cell, cell
        link = rf'<li><a href="#{name}">[^<]+</a>(?:: |：)<span id="error-{name}">'
        assert re.search(link, page_html), name
    assert page_html.count('aria-invalid="true"') == len(names)
    assert page_html.count("autofocus") == 1
    assert '<div class="error-summary" id="answer-error" tabindex="-1" autofocus>' in page_html


def filled_grid(rows: int, cols: int, **cells: str) -> dict[str, str]:
    """A grid of 1s with the named cells (cell_0_1="abc") holding what is given."""
    form = {f"cell-{r}-{c}": "1" for r in range(rows) for c in range(cols)}
    form.update({name.replace("_", "-"): value for name, value in cells.items()})
    return form


def test_a_grid_cell_the_grader_cannot_read_is_marked_and_focused(browser_for, sessions):
    alice = browser_for("alice")
    alice.post("/lang/en")
    variant_id = start(alice, "drill-projection")  # a 3 x 4 grid
    url = f"/variants/{variant_id}/submissions"
    assert labels(sessions, "alice", variant_id) == (("我", "爱", "你"), ("d0", "d1", "d2", "d3"))
    cases = [
        (filled_grid(3, 4, cell_0_1="abc"), "cell-0-1", "我, d1: “abc” is not a number"),
        (filled_grid(3, 4, cell_2_3="1/0"), "cell-2-3", "你, d3: “1/0” divides by zero"),
        (filled_grid(3, 4, cell_1_0="nan"), "cell-1-0", "爱, d0: NaN is not a number you can "
         "be graded on"),
        (filled_grid(3, 4, cell_1_1="1e999"), "cell-1-1", "爱, d1: “1e999” is too large to be "
         "a finite number (write inf if you mean infinity)"),
        (filled_grid(3, 4, cell_0_0="[1]"), "cell-0-0", "我, d0: “[1]” is not a number"),
    ]  # fmt: skip
    for form, name, problem in cases:
        response = alice.post(url, form)
        assert response.status_code == 422, form
        assert error_summary(response.text) == [problem]
        assert_marked_cells(response.text, name)
    assert attempts_used(sessions, "alice", variant_id) == 0


def test_every_grid_cell_to_fix_is_reported_at_once_by_its_headers(browser_for, sessions):
    """The review's case: an empty cell, "abc", a decimal comma and a fraction. The first
    three are listed together, in the grid's order, each named by its row and column headers
    and each marked; "1/2" is a fraction the grader reads (0.5), so it is not one of them."""
    alice = browser_for("alice")
    alice.post("/lang/en")
    variant_id = start(alice, "drill-projection")  # a 3 x 4 grid
    assert labels(sessions, "alice", variant_id) == (("我", "爱", "你"), ("d0", "d1", "d2", "d3"))
    url = f"/variants/{variant_id}/submissions"
    form = filled_grid(3, 4, cell_0_1="", cell_0_2="abc", cell_1_1="0,95", cell_2_0="1/2")
    response = alice.post(url, form)
    assert response.status_code == 422
    assert error_summary(response.text) == [
        "我, d1: empty",
        "我, d2: “abc” is not a number",
        "爱, d1: “0,95” has a decimal comma: write 0.95",
    ]
    assert_marked_cells(response.text, "cell-0-1", "cell-0-2", "cell-1-1")
    # the summary comes before the grid, inside the form the page opens at
    page = response.text
    assert page.index('id="answer-form"') < page.index('id="answer-error"')
    assert page.index('id="answer-error"') < page.index('<table class="matrix grid">')
    # everything typed stays where it was typed
    for name, value in form.items():
        assert f'value="{value}"' in cell_input(page, name), name

    alice.post("/lang/zh")
    response = alice.post(url, form)
    assert error_summary(response.text) == [
        "我, d1：没有填写",
        "我, d2：“abc”不是数字",
        "爱, d1：“0,95”用逗号作了小数点：请写 0.95",
    ]
    assert_marked_cells(response.text, "cell-0-1", "cell-0-2", "cell-1-1")

    # nothing typed at all: one problem, not twelve "empty" cells
    alice.post("/lang/en")
    response = alice.post(url, {})
    assert error_summary(response.text) == ["No answer was entered."]
    assert 'aria-describedby="error-cell-0-0"' in cell_input(response.text, "cell-0-0")
    assert attempts_used(sessions, "alice", variant_id) == 0


def test_a_grid_cell_holding_more_than_one_number_is_named_and_marked(browser_for, sessions):
    alice = browser_for("alice")
    alice.post("/lang/en")
    variant_id = start(alice, "drill-projection")  # a 3 x 4 grid
    url = f"/variants/{variant_id}/submissions"
    one = "is more than one number: type just one"
    cases = [
        ("0,5", "爱, d2: “0,5” has a decimal comma: write 0.5"),
        ("-1，25", "爱, d2: “-1，25” has a decimal comma: write -1.25"),
        ("0,481", "爱, d2: “0,481” has a decimal comma: write 0.481"),  # 0 thousands: no
        # three digits after it: a thousands separator as much as a decimal comma
        (
            "1,250",
            "爱, d2: “1,250”: is the comma a decimal point or a thousands separator? "
            "Write 1.250 or 1250",
        ),
        (
            "-12，500",
            "爱, d2: “-12，500”: is the comma a decimal point or a thousands "
            "separator? Write -12.500 or -12500",
        ),
        ("0.5 0.1", f"爱, d2: “0.5 0.1” {one}"),
        (", 0.5", f"爱, d2: “, 0.5” {one}"),  # would leave a value out
        ("0.5;0.1", f"爱, d2: “0.5;0.1” {one}"),  # would end the row
        ("1 abc", f"爱, d2: “1 abc” {one}"),
    ]
    for value, problem in cases:
        response = alice.post(url, filled_grid(3, 4, cell_1_2=value))
        assert response.status_code == 422, value
        assert error_summary(response.text) == [problem]
        assert_marked_cells(response.text, "cell-1-2")

    alice.post("/lang/zh")
    response = alice.post(url, filled_grid(3, 4, cell_0_0="0,5"))
    assert error_summary(response.text) == ["我, d0：“0,5”用逗号作了小数点：请写 0.5"]
    response = alice.post(url, filled_grid(3, 4, cell_0_0="1,250"))
    assert error_summary(response.text) == [
        "我, d0：“1,250”里的逗号不知是小数点还是千位分隔：小数请写 1.250，整数请写 1250"
    ]
    assert_marked_cells(response.text, "cell-0-0")
    assert attempts_used(sessions, "alice", variant_id) == 0


def test_one_number_a_cell_may_be_written_with_spaces_is_taken(browser_for, sessions):
    alice = browser_for("alice")
    variant_id = start(alice, "drill-score-row")  # a 1 x 3 grid
    form = {"cell-0-0": "1 / 3", "cell-0-1": "-inf", "cell-0-2": "２．５"}
    assert alice.post(f"/variants/{variant_id}/submissions", form).status_code == 302
    assert attempts_used(sessions, "alice", variant_id) == 1


def test_a_separator_typed_after_a_cells_number_is_left_out(browser_for, sessions):
    alice = browser_for("alice")
    variant_id = start(alice, "drill-score-row")  # a 1 x 3 grid
    expected = expected_answer(sessions, "alice", variant_id)[0]
    # as typed in a list, one value after another, before moving on to the next cell
    form = {
        "cell-0-0": f"{float(expected[0])!r},",
        "cell-0-1": f"{float(expected[1])!r}；",
        "cell-0-2": f"{float(expected[2])!r} 、 ",
    }
    assert alice.post(f"/variants/{variant_id}/submissions", form).status_code == 302
    assert latest_score(sessions, "alice", variant_id) == 1.0


def ime_typed(value: float) -> str:
    """A number as a Chinese input method in Chinese punctuation mode types it: full-width
    digits, "。" for the decimal point, the word processor's en dash for the minus."""
    full_width = str.maketrans("0123456789", "０１２３４５６７８９")
    return f"{value:.6f}".replace(".", "。").replace("-", "–").translate(full_width)


def test_numbers_as_a_chinese_input_method_types_them_are_graded(browser_for, sessions):
    alice = browser_for("alice")
    variant_id = start(alice, "drill-projection")  # a 3 x 4 grid
    expected = expected_answer(sessions, "alice", variant_id)
    form = {f"cell-{r}-{c}": ime_typed(v) for (r, c), v in np.ndenumerate(expected)}
    # a power of ten written by hand, and a fraction the engine's tenths give exactly
    form["cell-0-0"] = f"{expected[0, 0] * 1000:.3f} × 10^-3"
    assert alice.post(f"/variants/{variant_id}/submissions", form).status_code == 302
    assert latest_score(sessions, "alice", variant_id) == 1.0


def test_a_huge_number_a_learner_typed_is_shown_back_whole(browser_for, sessions):
    """Any finite number is an answer (a wrong one here): the graded page shows it back, in
    full, as the table's cells show every number."""
    alice = browser_for("alice")
    variant_id = start(alice, "drill-projection")
    expected = expected_answer(sessions, "alice", variant_id)
    form = {f"cell-{r}-{c}": f"{v}" for (r, c), v in np.ndenumerate(expected)}
    form["cell-0-0"] = "-1e300"
    assert alice.post(f"/variants/{variant_id}/submissions", form).status_code == 302
    page = alice.get(f"/variants/{variant_id}")
    assert page.status_code == 200
    assert "−" + f"{1e300:.0f}" in page.text


def test_a_phone_offers_a_keyboard_with_a_minus_in_every_cell(browser_for):
    """inputmode="decimal" gives an iPhone its decimal pad, digits and a point only: no "-"
    for the negative values most drills have, no "/" or "inf". A cell takes the text
    keyboard (and the Chinese input method, whose full-width text the grader reads)."""
    alice = browser_for("alice")
    for question in ("drill-projection", "drill-teacher-forcing-loss"):  # a grid, a number
        page = alice.get(f"/variants/{start(alice, question)}").text
        cell = cell_input(page, "cell-0-0")
        assert re.findall(r'inputmode="([^"]*)"', cell) == ["text"], cell


def latest_score(sessions, name: str, variant_id: int) -> float:
    with reading(sessions) as session:
        state = practice.drill_state(session, user_id(sessions, name), variant_id)
        return state.submissions[-1].score


# --- text no database can hold ----------------------------------------------------------


def test_a_nul_typed_into_an_open_answer_is_refused_inline(browser_for, sessions):
    """PostgreSQL refuses NUL in a text column: a 500 there before, now the page's 422."""
    alice = browser_for("alice")
    url = f"{CHAPTER_URL}/questions/{TEACHER_FORCING}"
    alice.post("/lang/en")
    response = alice.post(url, {"text": "the true target\x00 in parallel"})
    assert response.status_code == 422
    assert inline_error(response.text) == "Answer contains a NUL character (\\u0000)."
    alice.post("/lang/zh")
    response = alice.post(url, {"text": "\x00"})
    assert response.status_code == 422
    assert inline_error(response.text) == "答案里有控制字符。"
    assert count(sessions, store.QuizAnswer) == 0


def test_submit_drill_refuses_a_lone_surrogate_before_reading_numbers(sessions):
    """Forms cannot send one (browsers encode it as U+FFFD) and the API refuses it first; a
    script calling the domain gets the rejection too, not a message quoting it."""
    bank = load_content(REPO / "content")
    learner = user_id(sessions, "alice")
    with sessions() as session:
        variant_id = practice.start_drill(session, bank, learner, "drill-score-row").id
        with pytest.raises(AnswerRejected) as caught:
            practice.submit_drill(session, learner, variant_id, "1, 2\ud800, 3", "k")
        assert caught.value.code is Rejection.LONE_SURROGATE
    assert attempts_used(sessions, "alice", variant_id) == 0


def test_answer_question_refuses_drills_and_unknown_questions(sessions):
    bank = load_content(REPO / "content")
    learner = user_id(sessions, "alice")
    with sessions() as session:
        for question_id in ("drill-softmax-row", "no-such-question"):
            with pytest.raises(practice.PracticeError, match=f"no question '{question_id}'"):
                practice.answer_question(
                    session, bank, learner, question_id, idempotency_key="k", text="1"
                )
    assert count(sessions, store.QuizAnswer) == 0
