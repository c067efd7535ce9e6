"""A learner in a real browser: logging in, the chapter quiz, a drill answered wrong and
then right in the answer grid, the worked solution and heatmap, the language toggle, the
progress page, and pasting a whole matrix into the grid (static/drill.js).

Expected numbers are worked out by hand in comments: 3 attempts, 0.1 penalty per extra
attempt, mastery m <- 0.5 * m + 0.5 * score starting at 0 for each item (an answer, or a
drill variant at its best attempt).
"""

from __future__ import annotations

import re

import numpy as np
from browser_helpers import PASSWORD, login
from sqlalchemy import select

from quizsvc import practice, store

try:
    from playwright.sync_api import expect
except ImportError:  # the `chromium` fixture skips (or fails under CI) with the reason
    expect = None


def drill_state(live_server, name: str, variant_id: int) -> practice.DrillState:
    """The variant as the server stored it: where the test gets the right answer from."""
    with live_server.sessions() as session:
        store.begin_read_only(session)
        learner = session.scalar(select(store.User.id).where(store.User.name == name))
        return practice.drill_state(session, learner, variant_id)


def start_drill(page, kind: str) -> int:
    page.goto("/drills")
    page.click(f"li[data-kind={kind}] button[type=submit]")
    page.wait_for_url(re.compile(r"/variants/\d+$"))
    return int(page.url.rsplit("/", 1)[1])


def type_grid(page, values: np.ndarray) -> None:
    """Type every cell of the answer grid, as a learner does, key by key."""
    for (r, c), value in np.ndenumerate(values):
        cell = page.locator(f"input[name=cell-{r}-{c}]")
        cell.fill("")
        cell.press_sequentially(f"{value:.3f}")


def submit_answer(page) -> None:
    with page.expect_navigation():  # the same URL after the redirect: wait for the new page
        page.click("#answer-form button[type=submit]")


def answer_choice(page, question_id: str, choice: str, verdict: str) -> None:
    question = page.locator(f"#q-{question_id}")
    # the page letters the choices A, B, C, ... in the learner's own order of their ids
    order = question.locator("input[name=choice]").evaluate_all("els => els.map(e => e.value)")
    letter = dict(zip(order, "ABCDEFGH", strict=False))
    question.locator(f"input[name=choice][value={choice}]").check()
    question.get_by_role("button", name="Submit").click()
    result = page.locator(f"#q-{question_id} .result")
    expect(result).to_contain_text(f"Your answer: {letter[choice]} — {verdict}")
    expect(result.locator(".correct-choice")).to_have_text(letter["B"])
    expect(result.locator(".explanation")).to_be_visible()


def answer_open(page, question_id: str, text: str) -> None:
    question = page.locator(f"#q-{question_id}")
    question.locator("textarea[name=text]").fill(text)
    question.get_by_role("button", name="Submit").click()
    # the rubric's suggestion is the instructor's, never the learner's
    expect(page.locator(f"#q-{question_id} .pending")).to_have_text(
        "Waiting for an instructor's review."
    )
    expect(page.locator(f"#q-{question_id} .reference")).to_be_visible()


def skill_cells(page, skill: str):
    return page.locator(f"#skills tr[data-skill={skill}] td")


def test_a_learner_takes_the_quiz_does_a_drill_and_sees_progress(page, live_server, student):
    login(page, student)
    expect(page.locator("h1")).to_contain_text("Transformer by Hand")

    # the chapter quiz: four single choices (the key is B for all four), two open answers
    for question_id in ("qkv-origin", "scaling-by-sqrt-dk", "cross-attention-sources"):
        answer_choice(page, question_id, "B", "Correct")
    answer_choice(page, "masked-self-attention", "A", "Wrong")
    answer_open(
        page,
        "teacher-forcing-vs-autoregressive",
        "With teacher forcing the decoder reads the true target, computed in parallel.",
    )
    answer_open(
        page, "why-multi-head", "Each head has its own weights; the outputs are concatenated."
    )
    expect(page.locator("section.question form")).to_have_count(0)  # all six answered
    # three right of 1 point each, the open ones (2 points each) waiting
    expect(page.locator("#quiz-total")).to_have_text(
        "Score so far: 3 of 8 points. 2 answers await an instructor's review."
    )
    expect(page.locator("#quiz-nav a[data-status=answered]")).to_have_count(4)
    expect(page.locator("#quiz-nav a[data-status=awaiting_review]")).to_have_count(2)

    # progress so far: no skill (they count drills), the chapter's quiz on its own line
    page.click("header nav >> text=Progress")
    expect(page.locator("#skills")).to_have_count(0)
    expect(page.locator("#quiz li")).to_contain_text(
        "6 of 6 questions answered; score so far 3 of 8 points. "
        "2 answers await an instructor's review."
    )

    # a drill with attention weights, so it has a heatmap: wrong first, then right
    variant_id = start_drill(page, "softmax_row")
    variant = drill_state(live_server, student, variant_id).variant
    expected = variant.answer.values
    assert expected.shape == (1, 3) and variant.heatmap is not None
    expect(page.locator(".attempts-left")).to_have_text("Attempts left: 3")
    expect(page.locator("svg.heatmap")).to_have_count(0)
    expect(page.locator("section.solution")).to_have_count(0)

    wrong = expected.copy()
    wrong[0, 1:] += 0.1  # the first weight right, the other two 0.1 off
    type_grid(page, wrong)
    submit_answer(page)
    expect(page.locator(".attempt")).to_have_text(["Attempt 1: score 33%"])
    expect(page.locator("#marks td[data-correct=true]")).to_have_count(1)
    expect(page.locator("#marks td[data-correct=false]")).to_have_count(2)
    expect(page.locator("#marks td[data-correct=false] .interval")).to_have_count(0)
    expect(page.locator("#marks td[data-correct=true] .interval")).to_have_count(1)
    expect(page.locator(".attempts-left")).to_have_text("Attempts left: 2")
    expect(page.locator("svg.heatmap")).to_have_count(0)

    type_grid(page, expected)  # right to 3 decimals; raw 100 %, penalty 0.1 * (2 - 1)
    submit_answer(page)
    expect(page.locator(".attempt").nth(1)).to_have_text(
        "Attempt 2: score 90% (100% right, minus 10% for retrying)"
    )
    expect(page.locator("#marks td[data-correct=true]")).to_have_count(3)
    expect(page.locator("#answer-form")).to_have_count(0)
    expect(page.locator("section.solution h2")).to_have_text("Worked solution")
    expect(page.locator("section.solution .step")).to_have_count(len(variant.solution))
    heatmap = page.locator("svg.heatmap")
    expect(heatmap).to_be_visible()
    expect(heatmap.locator(":scope > rect")).to_have_count(expected.size)  # the legend's apart

    # progress: two attempts at one variant, which counts at its best (0.9): 0.5 * 0.9
    page.click("header nav >> text=Progress")
    expect(skill_cells(page, "softmax")).to_have_text(
        # the time as an English page writes one (Babel): "Mar 5, 2026, 09:30 UTC"
        [
            "Softmax",
            "2",
            "90%",
            "90%",
            "45%",
            re.compile(r"^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d\d:\d\d UTC$"),
        ]
    )

    # the language toggle: the interface (and the content) switch to Chinese, and stay so
    page.click("#lang-toggle")
    expect(page.locator("h1")).to_have_text("学习进度")
    expect(page.locator("header nav")).to_contain_text("章节测试")
    expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
    page.click("header nav >> text=章节测试")
    expect(page.locator("#q-qkv-origin .prompt")).to_have_text("Q、K、V 是从哪里算出来的？")
    expect(page.locator("#q-qkv-origin .result")).to_contain_text("正确")
    page.goto(f"/variants/{variant_id}")
    expect(page.locator("section.solution h2")).to_have_text("详细解答")
    page.click("#lang-toggle")
    expect(page.locator("section.solution h2")).to_have_text("Worked solution")


PASTE = """([selector, text]) => {
    const data = new DataTransfer();
    data.setData("text/plain", text);
    const event = new ClipboardEvent(
        "paste", {clipboardData: data, bubbles: true, cancelable: true});
    return document.querySelector(selector).dispatchEvent(event);  // false: default prevented
}"""


def paste(page, cell: str, text: str) -> bool:
    return page.evaluate(PASTE, [f"input[name={cell}]", text])


def grid_values(page, rows: int, cols: int) -> list[list[str]]:
    return [
        [page.input_value(f"input[name=cell-{r}-{c}]") for c in range(cols)] for r in range(rows)
    ]


def test_pasting_a_matrix_into_the_first_cell_fills_the_grid(page, live_server, student):
    login(page, student)
    variant_id = start_drill(page, "projection")  # a 3 x 4 grid
    expected = drill_state(live_server, student, variant_id).variant.answer.values
    rows, cols = expected.shape
    assert (rows, cols) == (3, 4)
    text = "\n".join(", ".join(f"{v:.3f}" for v in row) for row in expected)
    wanted = [[f"{v:.3f}" for v in row] for row in expected]

    assert paste(page, "cell-0-0", text) is False  # the script took the paste over
    assert grid_values(page, rows, cols) == wanted

    # from another cell, with ; between rows: fills from there
    assert paste(page, "cell-1-2", "1 2; 4 5") is False
    assert grid_values(page, rows, cols)[1:] == [
        [*wanted[1][:2], "1", "2"],
        [*wanted[2][:2], "4", "5"],
    ]
    # a single number is left to the browser's own paste
    assert paste(page, "cell-2-3", "0.5") is True
    assert page.input_value("input[name=cell-2-3]") == "5"

    assert paste(page, "cell-0-0", text) is False
    submit_answer(page)
    expect(page.locator(".attempt")).to_have_text(["Attempt 1: score 100%"])
    expect(page.locator("#marks td[data-correct=true]")).to_have_count(rows * cols)


def test_pasting_a_bracketed_matrix_fills_the_grid(page, live_server, student):
    login(page, student)
    variant_id = start_drill(page, "projection")
    expected = drill_state(live_server, student, variant_id).variant.answer.values
    text = "[" + ", ".join("[" + ", ".join(f"{v:.3f}" for v in row) + "]" for row in expected) + "]"
    paste(page, "cell-0-0", text)
    assert grid_values(page, *expected.shape) == [[f"{v:.3f}" for v in row] for row in expected]


def test_a_pasted_matrix_that_does_not_fit_from_its_cell_is_never_cut_at_the_edge(
    page, live_server, student
):
    login(page, student)
    variant_id = start_drill(page, "projection")  # a 3 x 4 grid
    expected = drill_state(live_server, student, variant_id).variant.answer.values
    whole = "\n".join("\t".join(f"{v:.3f}" for v in row) for row in expected)
    wanted = [[f"{v:.3f}" for v in row] for row in expected]
    status = page.locator(".grid-status")

    # the whole answer, pasted while the focus was in another cell: it fills the grid
    assert paste(page, "cell-1-2", whole) is False
    assert grid_values(page, 3, 4) == wanted
    expect(status).to_have_text(
        "The pasted 3 × 4 matrix did not fit from that cell: it fills the whole grid, "
        "from the top left."
    )

    # three rows from the second: two would fall off the grid's edge, unseen
    assert paste(page, "cell-1-2", "1 2 3; 4 5 6; 7 8 9") is False
    assert grid_values(page, 3, 4) == wanted  # nothing changed
    expect(status).to_have_text(
        "Nothing was pasted: the pasted matrix is 3 × 3, and from that cell it does not fit "
        "the 3 × 4 grid."
    )
    # one column too many: the same, even from the first cell
    assert paste(page, "cell-0-0", "1 2 3 4 5") is False
    assert grid_values(page, 3, 4) == wanted
    expect(status).to_contain_text("the pasted matrix is 1 × 5")

    page.click("#lang-toggle")
    expect(page.locator("h1")).to_contain_text("计算练习")  # the page in Chinese, loaded
    paste(page, "cell-2-0", "1 2; 3 4")
    expect(page.locator(".grid-status")).to_have_text(
        "没有粘贴：粘贴的是 2 行 × 2 列，从这一格起放不下（表格是 3 行 × 4 列）。"
    )


def test_a_matrix_with_rows_of_different_lengths_is_never_pasted_and_its_uneven_row_named(
    page, live_server, student
):
    login(page, student)
    start_drill(page, "projection")  # a 3 x 4 grid
    status = page.locator(".grid-status")
    # it would fit from the first cell, but a cell of the third row would stay empty
    assert paste(page, "cell-0-0", "1 2 3 4\n5 6 7 8\n9 10 11") is False
    assert grid_values(page, 3, 4) == [[""] * 4] * 3  # nothing pasted
    expect(status).to_have_text(
        "Nothing was pasted: the rows of the pasted matrix differ in length "
        "(row 3 holds 3, row 1 holds 4)."
    )
    box = page.locator("textarea[name=pasted]")
    box.fill("1 2 3 4\n5\n6 7 8 9")
    box.blur()
    expect(page.locator(".paste-status")).to_have_text(
        "Not copied into the grid: the rows of the matrix in the box differ in length "
        "(row 2 holds 1, row 1 holds 4)."
    )
    assert box.input_value() == "1 2 3 4\n5\n6 7 8 9"  # left for the learner to fix

    page.click("#lang-toggle")
    expect(page.locator("h1")).to_contain_text("计算练习")
    paste(page, "cell-0-0", "1 2\n3 4 5")
    expect(page.locator(".grid-status")).to_have_text(
        "没有粘贴：粘贴的矩阵各行长短不一（第 2 行有 3 个值，第 1 行有 2 个）。"
    )


def test_numpys_print_of_an_array_pasted_into_a_cell_fills_the_grid(page, live_server, student):
    login(page, student)
    variant_id = start_drill(page, "projection")  # a 3 x 4 grid
    expected = drill_state(live_server, student, variant_id).variant.answer.values
    with np.printoptions(precision=3, floatmode="fixed"):
        printed = repr(expected.astype(np.float32))  # array([[...],\n       [...]], dtype=float32)
    assert printed.startswith("array([[") and printed.endswith("dtype=float32)")
    assert paste(page, "cell-0-0", printed) is False
    assert grid_values(page, 3, 4) == [[f"{v:.3f}" for v in row] for row in expected]
    # a Python tuple with powers of ten, as a learner writes a row by hand (all wrong: the
    # drill's values are below 10)
    assert paste(page, "cell-0-0", "(1 × 10^(2), 2×10^2, 3e2, 400)") is False
    assert grid_values(page, 3, 4)[0] == ["1×10^2", "2×10^2", "3e2", "400"]
    submit_answer(page)
    expect(page.locator(".attempt")).to_have_text(["Attempt 1: score 67%"])  # 8 of 12 right


def test_a_matrix_typed_into_the_box_is_sent_by_one_click_on_submit(page, live_server, student):
    """The box is copied into the grid when it is left, that is as the Submit button is
    pressed: the status line this shows must not push the button from under the pointer
    before the button is released."""
    login(page, student)
    variant_id = start_drill(page, "score_row")  # a 1 x 3 grid
    expected = drill_state(live_server, student, variant_id).variant.answer.values
    page.fill("textarea[name=pasted]", "，".join(f"{v:.4f}" for v in expected[0]))
    with page.expect_navigation():
        page.click("#answer-form button[type=submit]")  # the mouse, pressed then released
    expect(page.locator(".attempt")).to_have_text(["Attempt 1: score 100%"])


def test_what_is_typed_survives_a_reload_and_a_login_that_ended_before_it_was_sent(
    page, live_server, student
):
    login(page, student)
    variant_id = start_drill(page, "score_row")  # a 1 x 3 grid
    expected = drill_state(live_server, student, variant_id).variant.answer.values
    typed = [f"{v:.3f}" for v in expected[0]]
    page.locator("input[name=cell-0-0]").press_sequentially(typed[0])
    page.locator("input[name=cell-0-1]").press_sequentially("9")
    page.reload()  # a phone's pull to refresh
    assert grid_values(page, 1, 3) == [[typed[0], "9", ""]]
    page.goto("/progress")
    page.go_back()
    assert grid_values(page, 1, 3) == [[typed[0], "9", ""]]

    # logged out in another tab, then the answer is finished and sent here
    other = page.context.new_page()
    other.goto("/progress")
    other.click("header form[action$='/logout'] button")
    other.wait_for_url(re.compile(r"/login"))
    page.fill("input[name=cell-0-1]", typed[1])
    page.fill("input[name=cell-0-2]", typed[2])
    submit_answer(page)
    expect(page.locator(".flash")).to_have_text(
        "You had been logged out (in another tab, say), so the form was not sent. "
        "Log in and send it again."
    )
    page.fill("input[name=name]", student)
    page.fill("input[name=password]", PASSWORD)
    page.click("form.login button[type=submit]")
    page.wait_for_url(re.compile(rf"/variants/{variant_id}"))
    assert grid_values(page, 1, 3) == [typed]  # back at the drill, as it was typed
    submit_answer(page)
    expect(page.locator(".attempt")).to_have_text(["Attempt 1: score 100%"])

    # a graded attempt's page shows what was graded, never an older draft; the variant is
    # solved, and its drafts are gone
    page.reload()
    assert page.locator("input.cell").count() == 0
    assert page.evaluate("Object.keys(sessionStorage)") == []


def test_a_chapter_answer_being_written_survives_the_language_toggle_and_a_reload(page, student):
    login(page, student)
    question = page.locator("#q-teacher-forcing-vs-autoregressive")  # an open question
    text = "训练时 Decoder 输入完整的目标句子"
    question.locator("textarea[name=text]").press_sequentially(text)
    page.locator("#q-qkv-origin input[name=choice][value=C]").check()
    page.click("#lang-toggle")  # English -> Chinese: the page is loaded again
    expect(page.locator("h1")).to_contain_text("手动计算")
    expect(question.locator("textarea[name=text]")).to_have_value(text)
    expect(page.locator("#q-qkv-origin input[name=choice][value=C]")).to_be_checked()
    page.reload()
    expect(question.locator("textarea[name=text]")).to_have_value(text)

    # a choice changed is kept as changed; once answered, a question's draft is dropped
    page.locator("#q-qkv-origin input[name=choice][value=B]").check()
    page.reload()
    expect(page.locator("#q-qkv-origin input[name=choice][value=B]")).to_be_checked()
    expect(page.locator("#q-qkv-origin input[name=choice][value=C]")).not_to_be_checked()
    page.locator("#q-qkv-origin").get_by_role("button", name="提交").click()
    expect(page.locator("#q-qkv-origin .result")).to_contain_text("正确")
    keys = page.evaluate("Object.keys(sessionStorage)")
    assert keys == ["quizsvc-draft:chapter-transformer-by-hand:teacher-forcing-vs-autoregressive"]

    # logging out, from any page, leaves nothing typed for the next user of this tab
    page.goto(page.url.split("/chapters/")[0] + "/progress")
    page.locator("header form[action$='/logout'] button").click()
    page.wait_for_url(re.compile(r"/login$"))
    assert page.evaluate("Object.keys(sessionStorage)") == []


def test_a_rejected_quiz_answer_opens_at_its_question_and_error(page, student):
    login(page, student)
    # the last question but one: far below the fold of a page opened at the top
    question = page.locator("#q-masked-self-attention")
    question.get_by_role("button", name="Submit").click()
    page.wait_for_url(re.compile(r"/questions/masked-self-attention#q-masked-self-attention$"))
    error = question.locator(".inline-error")
    expect(error).to_have_text("Choose an answer before submitting.")
    expect(error).to_be_in_viewport()
    # the first choice in the learner's own order
    expect(question.locator("input[name=choice]").first).to_be_focused()
    # that address opened again (a bookmark, a new tab: a GET) leads to the question, not a 405
    address = page.url
    page.goto("about:blank")
    page.goto(address)
    expect(page).to_have_url(re.compile(r"/chapters/transformer-by-hand#q-masked-self-attention$"))
    expect(page.locator("#q-masked-self-attention h2")).to_be_in_viewport()


def test_an_answered_questions_result_takes_the_focus_once(page, student):
    login(page, student)
    # the last question, an open one: far down the page, where a cleared focus would leave the
    # keyboard at the top
    last = page.locator("#q-why-multi-head")
    last.locator("textarea[name=text]").fill("Each head attends in a subspace of its own.")
    last.get_by_role("button", name="Submit").click()
    expect(last.locator(".result")).to_be_focused()
    expect(last.locator(".result .pending")).to_have_text("Waiting for an instructor's review.")
    # the first: from its result, the next Tab goes on into the second question
    first = page.locator("#q-qkv-origin")
    first.locator("input[name=choice][value=B]").check()
    first.get_by_role("button", name="Submit").click()
    expect(first.locator(".result")).to_be_focused()
    # the page loaded (scrolled to its fragment, which can clear the focus in Chromium)
    # before the key is pressed, as a person's Tab comes after the page has appeared
    page.wait_for_load_state("load")
    page.keyboard.press("Tab")
    expect(page.locator("#q-scaling-by-sqrt-dk input[name=choice]").first).to_be_focused()
    # the page opened again (a reload, a link from the progress page) leaves the focus be
    page.reload()
    expect(first.locator(".result")).not_to_be_focused()


def test_a_paste_box_error_is_the_boxs_and_the_grid_is_never_ignored(page, live_server, student):
    login(page, student)
    variant_id = start_drill(page, "score_row")  # a 1 x 3 grid
    expected = drill_state(live_server, student, variant_id).variant.answer.values
    box = page.locator("textarea[name=pasted]")

    box.fill("1, 2")  # typed, not pasted: the script leaves it to the server
    submit_answer(page)
    error = page.locator("#answer-error")
    expect(error.locator("li")).to_have_text(
        ["Paste a matrix: expected 1 × 3 values (rows × columns), got 1 × 2"]
    )
    expect(error).to_be_focused()
    expect(box).to_have_attribute("aria-invalid", "true")
    expect(box).to_have_value("1, 2")
    error.get_by_role("link", name="Paste a matrix").click()  # the summary leads to the box
    expect(box).to_be_focused()

    type_grid(page, expected)  # fixed in the grid, with the old text still in the box
    submit_answer(page)
    expect(error).to_contain_text("The grid and the “Paste a matrix” box hold different answers")
    expect(page.locator(".attempts-left")).to_have_text("Attempts left: 3")

    box.fill("")
    submit_answer(page)
    expect(page.locator(".attempt")).to_have_text(["Attempt 1: score 100%"])


def test_a_matrix_pasted_into_the_box_is_copied_into_the_grid(page, live_server, student):
    login(page, student)
    variant_id = start_drill(page, "projection")  # a 3 x 4 grid
    expected = drill_state(live_server, student, variant_id).variant.answer.values
    text = "\n".join(" ".join(f"{v:.3f}" for v in row) for row in expected)
    assert page.evaluate(PASTE, ["textarea[name=pasted]", text]) is False  # taken over
    assert grid_values(page, *expected.shape) == [[f"{v:.3f}" for v in row] for row in expected]
    expect(page.locator("textarea[name=pasted]")).to_have_value("")
    expect(page.locator(".paste-status")).to_have_text("Copied into the grid: 3 × 4.")
    # a matrix of another shape stays in the box, for the server to explain
    assert page.evaluate(PASTE, ["textarea[name=pasted]", "1 2; 3 4"]) is True
    submit_answer(page)
    expect(page.locator(".attempt")).to_have_text(["Attempt 1: score 100%"])


def test_on_a_retry_a_matrix_typed_into_the_box_replaces_the_grid(page, live_server, student):
    login(page, student)
    variant_id = start_drill(page, "projection")  # a 3 x 4 grid
    expected = drill_state(live_server, student, variant_id).variant.answer.values
    for r in range(3):
        for c in range(4):
            page.fill(f"input[name=cell-{r}-{c}]", "99")  # all wrong (K values are below 10)
    submit_answer(page)
    expect(page.locator(".attempt")).to_have_text(["Attempt 1: score 0%"])
    assert grid_values(page, 3, 4) == [["99"] * 4] * 3  # the retry's grid holds attempt 1
    # typed (not pasted) into the box: copied into the grid when the box is left
    text = "\n".join(" ".join(f"{v:.3f}" for v in row) for row in expected)
    page.fill("textarea[name=pasted]", text)
    page.locator("#answer-form button[type=submit]").focus()
    assert grid_values(page, 3, 4) == [[f"{v:.3f}" for v in row] for row in expected]
    expect(page.locator("textarea[name=pasted]")).to_have_value("")
    submit_answer(page)
    # right, less 0.1 for the second attempt
    expect(page.locator(".attempt").nth(1)).to_have_text(
        "Attempt 2: score 90% (100% right, minus 10% for retrying)"
    )


PHONE_WIDTH = 390  # CSS pixels, as an iPhone 12 to 15


def page_width(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth")


def test_pages_fit_a_phones_width_and_wide_matrices_scroll_in_their_own_box(page, student):
    page.set_viewport_size({"width": PHONE_WIDTH, "height": 844})
    login(page, student)
    # its 3 x 4 answer grid of inputs is wider than the phone
    start_drill(page, "multi_head")
    assert page_width(page) <= PHONE_WIDTH
    grid = page.locator("table.matrix.grid")
    assert grid.bounding_box()["width"] > PHONE_WIDTH - 32  # too wide for the page's column
    box = page.locator(".scroll-x", has=grid)
    assert box.evaluate("el => el.scrollWidth > el.clientWidth")  # so it scrolls, in its box
    header = page.locator("header.site").bounding_box()
    assert header["x"] == 0 and header["width"] == PHONE_WIDTH  # the bar spans the screen
    page.locator("input[name=cell-0-3]").focus()  # the last column can still be typed in
    expect(page.locator("input[name=cell-0-3]")).to_be_in_viewport()
    # a wrong attempt flags every cell (each with its hidden "wrong in attempt 1"): the
    # flags stay inside the grid's box too
    for r in range(3):
        for c in range(4):
            page.fill(f"input[name=cell-{r}-{c}]", "99")
    submit_answer(page)
    expect(page.locator("input.cell.was-wrong")).to_have_count(12)
    assert page_width(page) <= PHONE_WIDTH

    for path in ("/drills", "/chapters/transformer-by-hand", "/progress", "/worked-example"):
        page.goto(path)
        assert page_width(page) <= PHONE_WIDTH, path


def test_a_retry_keeps_the_grid_and_every_unreadable_cell_is_marked(page, live_server, student):
    """A wrong attempt leaves its answer in the grid with the wrong cells flagged, and the
    keyboard at its result; cells that cannot be read are all listed above the grid, each
    marked, with the keyboard at that list; fixing just those cells is enough."""
    login(page, student)
    variant_id = start_drill(page, "projection")  # a 3 x 4 grid, atol 0.01
    expected = drill_state(live_server, student, variant_id).variant.answer.values
    typed = [[f"{v:.3f}" for v in row] for row in expected]
    typed[1][2] = "1e3"  # no K value of the drill is anywhere near 1000
    assert np.abs(expected).max() < 10
    for r, row in enumerate(typed):
        for c, value in enumerate(row):
            page.fill(f"input[name=cell-{r}-{c}]", value)
    submit_answer(page)

    # raw 11/12 = 92 %; the result has the focus, the grid still holds the answer as typed
    expect(page.locator(".attempt")).to_have_text(["Attempt 1: score 92%"])
    expect(page.locator("#results")).to_be_focused()
    assert grid_values(page, 3, 4) == typed
    expect(page.locator("input.cell.was-wrong")).to_have_count(1)
    wrong = page.locator("input[name=cell-1-2]")
    expect(wrong).to_have_class(re.compile(r"\bwas-wrong\b"))
    # flagged, and its note under the grid: 1000 is no known mistake's answer
    expect(wrong).to_have_accessible_description(
        "wrong in attempt 1 Far off (more than 10 times the tolerance): check the method, "
        "not only the arithmetic."
    )
    expect(page.locator("#answer-form .interval")).to_have_count(0)  # no hint at the answer
    page.keyboard.press("Tab")  # from the result, straight into the grid
    expect(page.locator("input[name=cell-0-0]")).to_be_focused()

    # three cells that cannot be read, and the fraction 1/2, which can
    page.fill("input[name=cell-0-1]", "abc")
    page.fill("input[name=cell-1-2]", "")
    page.fill("input[name=cell-2-0]", "0,95")
    page.fill("input[name=cell-2-3]", "1/2")
    submit_answer(page)
    summary = page.locator("#answer-error")
    expect(summary).to_be_focused()
    expect(summary.locator("li")).to_have_text(
        [
            "我, d1: “abc” is not a number",
            "爱, d2: empty",
            "你, d0: “0,95” has a decimal comma: write 0.95",
        ]
    )
    expect(page.locator("input.cell.invalid")).to_have_count(3)
    for name, value in (("cell-0-1", "abc"), ("cell-1-2", ""), ("cell-2-0", "0,95")):
        cell = page.locator(f"input[name={name}]")
        expect(cell).to_have_attribute("aria-invalid", "true")
        expect(cell).to_have_value(value)  # kept, to be corrected
    expect(page.locator("input[name=cell-2-0]")).to_have_accessible_description(
        "“0,95” has a decimal comma: write 0.95"
    )
    expect(page.locator("input[name=cell-2-3]")).to_have_value("1/2")
    expect(page.locator("input[name=cell-2-3]")).not_to_have_attribute("aria-invalid", "true")
    expect(page.locator(".attempts-left")).to_have_text("Attempts left: 2")  # none used

    summary.get_by_role("link", name="爱, d2").click()
    expect(page.locator("input[name=cell-1-2]")).to_be_focused()
    page.keyboard.type(f"{expected[1, 2]:.3f}")
    page.fill("input[name=cell-0-1]", typed[0][1])
    page.fill("input[name=cell-2-0]", typed[2][0])
    page.fill("input[name=cell-2-3]", typed[2][3])
    submit_answer(page)
    # attempt 2 right: 100 % less 0.1 * (2 - 1) = 90 %
    expect(page.locator(".attempt")).to_have_text(
        ["Attempt 1: score 92%", "Attempt 2: score 90% (100% right, minus 10% for retrying)"]
    )
    expect(page.locator("#results")).to_be_focused()
    expect(page.locator("#answer-form")).to_have_count(0)
