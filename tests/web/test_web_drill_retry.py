"""Answering a drill again: the grid opens with the latest attempt's answer (as typed into
the grid, or as read from the paste box), the cells that attempt got wrong flagged but never
with what was expected, and the keyboard at the result just after the attempt.

Expected numbers are worked out by hand in comments: 3 attempts, 0.1 penalty per extra
attempt (the content's rules)."""

from __future__ import annotations

import html
import re

import numpy as np
from web_helpers import expected_answer, start


def answer_form(page_html: str) -> str:
    match = re.search(r'<form [^>]*id="answer-form">.*?</form>', page_html, re.S)
    assert match, "no answer form"
    return match.group(0)


def grid_inputs(page_html: str) -> dict[str, dict[str, str]]:
    """Each cell input of the answer form by name: its attributes."""
    found = {}
    for tag in re.findall(r"<input name=\"cell-[^>]*>", answer_form(page_html)):
        attributes = dict(re.findall(r'([\w-]+)="([^"]*)"', tag))
        found[attributes["name"]] = {k: html.unescape(v) for k, v in attributes.items()}
    return found


def flags(page_html: str) -> dict[str, str]:
    """The flag beside each cell the latest attempt got wrong: its id -> what it says."""
    return {
        f"flag-{r}-{c}": text
        for r, c, text in re.findall(
            r'<span class="cell-flag" id="flag-(\d+)-(\d+)"><span aria-hidden="true">✗</span>'
            r'<span class="visually-hidden">([^<]*)</span></span>',
            answer_form(page_html),
        )
    }


def results_tag(page_html: str) -> str:
    match = re.search(
        r'<div class="results(?: solved)?" id="results" tabindex="-1"[^>]*>', page_html
    )
    assert match, "no results"
    return match.group(0)


def test_a_retry_opens_with_the_answer_as_typed_and_the_wrong_cells_flagged(browser_for, sessions):
    alice = browser_for("alice")
    alice.post("/lang/en")
    variant_id = start(alice, "drill-projection")  # a 3 x 4 grid, atol 0.01
    expected = expected_answer(sessions, "alice", variant_id)
    assert np.abs(expected).max() < 10
    # ten cells right, typed with three decimals (so "2.150", as a learner rounds); two far
    # off (every K value of the drill is below 10 in size), typed in ways the grader reads
    # but a number printed back would not keep: 1e3 is 1000, -250/4 is -62.5
    typed = {f"cell-{r}-{c}": f"{v:.3f}" for (r, c), v in np.ndenumerate(expected)}
    typed |= {"cell-0-1": "1e3", "cell-2-3": "-250/4"}
    response = alice.post(f"/variants/{variant_id}/submissions", typed)
    assert response.status_code == 302
    assert response.headers["Location"] == f"/variants/{variant_id}"

    page = alice.get(f"/variants/{variant_id}").text
    # raw 10/12 = 83 %, attempt 1: no deduction
    assert '<li class="attempt">Attempt 1: score 83%</li>' in page
    assert 'id="variant-score"' not in page  # one attempt: its score is the drill's
    cells = grid_inputs(page)
    assert {name: cell["value"] for name, cell in cells.items()} == typed
    # the two wrong cells, and only they, are flagged, in words too
    assert {n for n, cell in cells.items() if "was-wrong" in cell["class"]} == {
        "cell-0-1",
        "cell-2-3",
    }
    assert flags(page) == {"flag-0-1": "wrong in attempt 1", "flag-2-3": "wrong in attempt 1"}
    assert cells["cell-0-1"]["aria-describedby"] == "flag-0-1 note-0-1"  # and its note
    assert "aria-describedby" not in cells["cell-0-0"] and "aria-invalid" not in cells["cell-0-1"]
    assert answer_form(page).count('<td class="was-wrong">') == 2
    assert (
        "The cells marked ✗ were wrong in attempt 1. The grid still holds your answer: correct "
        "those cells and submit again."
    ) in page
    # while attempts remain, nothing says what the wrong cells should have been: no interval
    # under a wrong mark, no expected value or interval in the form
    marks = re.search(r'<table class="matrix marks" id="marks">(.*?)</table>', page, re.S)
    assert marks.group(1).count('<small class="interval"') == 10
    assert "interval" not in answer_form(page) and "Accepted" not in answer_form(page)

    # just after the attempt, the keyboard starts at its result; not when the page is
    # opened again
    assert "autofocus" in results_tag(page)
    assert page.count("autofocus") == 1
    again = alice.get(f"/variants/{variant_id}").text
    assert "autofocus" not in again
    assert {name: cell["value"] for name, cell in grid_inputs(again).items()} == typed

    # another browser (or this one after another drill) has only the graded numbers: the
    # same values, each written as the number it was read as
    elsewhere = browser_for("alice").get(f"/variants/{variant_id}").text
    shown = {name: cell["value"] for name, cell in grid_inputs(elsewhere).items()}
    assert (shown["cell-0-1"], shown["cell-2-3"]) == ("1000", "-62.5")
    assert {name: float(value) for name, value in shown.items()} == {
        name: float(value) for name, value in typed.items() if name not in ("cell-0-1", "cell-2-3")
    } | {"cell-0-1": 1000.0, "cell-2-3": -62.5}
    assert "autofocus" not in elsewhere
    assert set(flags(elsewhere)) == {"flag-0-1", "flag-2-3"}

    # a rejected retry shows what was just typed, not the attempt before it
    retry = {**typed, "cell-0-1": "abc", "cell-2-3": ""}
    response = alice.post(f"/variants/{variant_id}/submissions", retry)
    assert response.status_code == 422
    cells = grid_inputs(response.text)
    assert (cells["cell-0-1"]["value"], cells["cell-2-3"]["value"]) == ("abc", "")
    assert cells["cell-0-1"]["aria-describedby"] == "error-cell-0-1 flag-0-1 note-0-1"
    assert cells["cell-0-1"]["aria-invalid"] == "true"
    assert "autofocus" not in results_tag(response.text)  # the error summary has it

    # fixed: attempt 2 right, 100 % less 0.1 * (2 - 1) = 90 %; finished, so no grid
    right = {**typed, "cell-0-1": f"{expected[0, 1]:.3f}", "cell-2-3": f"{expected[2, 3]:.3f}"}
    assert alice.post(f"/variants/{variant_id}/submissions", right).status_code == 302
    page = alice.get(f"/variants/{variant_id}").text
    assert re.findall(r'<li class="attempt">(.*?)</li>', page) == [
        "Attempt 1: score 83%",
        "Attempt 2: score 90% (100% right, minus 10% for retrying)",
    ]
    assert 'id="answer-form"' not in page and "cell-flag" not in page
    assert "autofocus" in results_tag(page)  # the result of the last attempt, solved
    assert variant_score(page) == (
        "Your score for this drill: 90% (your best attempt counts, so a retry never lowers it)."
    )


def variant_score(page_html: str) -> str:
    match = re.search(r'<p class="variant-score" id="variant-score">(.*?)</p>', page_html)
    assert match, "no variant score"
    return match.group(1)


def test_a_worse_retry_leaves_the_drill_at_its_best_attempt(browser_for, sessions):
    alice = browser_for("alice")
    alice.post("/lang/zh")
    variant_id = start(alice, "drill-projection")  # a 3 x 4 grid, atol 0.01
    expected = expected_answer(sessions, "alice", variant_id)
    right = {f"cell-{r}-{c}": f"{v:.3f}" for (r, c), v in np.ndenumerate(expected)}
    far = f"{np.abs(expected).max() + 1:.3f}"  # off by more than 1: wrong
    # attempt 1: 11 of 12 right, 92 %; attempt 2: 10 of 12, 83 % less 10 % = 73 %
    assert (
        alice.post(f"/variants/{variant_id}/submissions", right | {"cell-0-0": far}).status_code
        == 302
    )
    worse = right | {"cell-0-0": far, "cell-1-1": far}
    assert alice.post(f"/variants/{variant_id}/submissions", worse).status_code == 302
    page = alice.get(f"/variants/{variant_id}").text
    assert re.findall(r'<li class="attempt">(.*?)</li>', page)[0] == "第 1 次：得分 92%"
    # the worse attempt said to count for nothing
    assert variant_score(page) == (
        "计入成绩的是你最好的得分 92%（第 1 次），而不是第 2 次的 73%：重试不会拉低你的得分。"
    )


def test_a_pasted_answer_comes_back_in_the_grid_and_the_box_stays_empty(browser_for, sessions):
    alice = browser_for("alice")
    alice.post("/lang/zh")
    variant_id = start(alice, "drill-softmax-row")  # 1 x 3 weights, atol 0.005
    expected = expected_answer(sessions, "alice", variant_id)
    # the first weight right, the other two 1/2 and 3/4 off it (weights lie in [0, 1], so
    # 0.5 off is never within 0.005)
    first, second, third = (f"{v:.3f}" for v in expected[0])
    pasted = f"[{first}, {float(second) + 0.5!r}, {float(third) - 0.75!r}]"
    response = alice.post(f"/variants/{variant_id}/submissions", {"pasted": pasted})
    assert response.status_code == 302

    page = alice.get(f"/variants/{variant_id}").text
    # raw 1/3 = 33 %, attempt 1
    assert '<li class="attempt">第 1 次：得分 33%</li>' in page
    cells = grid_inputs(page)
    values = [float(cells[f"cell-0-{c}"]["value"]) for c in range(3)]
    assert values == [float(first), float(second) + 0.5, float(third) - 0.75]
    assert flags(page) == {"flag-0-1": "第 1 次填错", "flag-0-2": "第 1 次填错"}
    assert re.search(r'<textarea name="pasted"[^>]*></textarea>', page)  # empty
    assert "标 ✗ 的格子在第 1 次作答中是错的。表格里留着你的答案：改正这些格子，再提交。" in page

    # attempt 2 still wrong in one cell: raw 2/3 = 67 %, less 0.1 * (2 - 1): 57 %
    grid = {f"cell-0-{c}": cells[f"cell-0-{c}"]["value"] for c in range(3)}
    grid["cell-0-1"] = second
    assert alice.post(f"/variants/{variant_id}/submissions", grid).status_code == 302
    page = alice.get(f"/variants/{variant_id}").text
    assert re.findall(r'<li class="attempt">(.*?)</li>', page) == [
        "第 1 次：得分 33%",
        "第 2 次：得分 57%（答对 67%，重试扣去 10%）",
    ]
    assert flags(page) == {"flag-0-2": "第 2 次填错"}
    assert {n: c["value"] for n, c in grid_inputs(page).items()} == grid


def test_a_wrong_single_number_comes_back_in_its_input(browser_for, sessions):
    alice = browser_for("alice")
    alice.post("/lang/en")
    variant_id = start(alice, "drill-teacher-forcing-loss")  # 3 attempts
    expected = expected_answer(sessions, "alice", variant_id)[0, 0]
    typed = f"{expected + 1:.4f}"  # a loss 1 off
    response = alice.post(f"/variants/{variant_id}/submissions", {"cell-0-0": typed})
    assert response.status_code == 302
    page = alice.get(f"/variants/{variant_id}").text
    assert grid_inputs(page)["cell-0-0"]["value"] == typed
    assert flags(page) == {"flag-0-0": "wrong in attempt 1"}
    assert (
        "Attempt 1 was wrong. The box still holds your answer: correct it and submit again." in page
    )
    # the graded attempt, folded after the form (the grid holds the answer); one number's
    # marks have no empty header row or column
    folded = re.search(
        r'</form>\s*<details class="graded-attempt" id="graded-attempt">'
        r"<summary>(.*?)</summary>(.*?)</details>",
        page,
        re.S,
    )
    assert folded, "the graded attempt after the form"
    assert folded.group(1) == "Attempt 1 as graded"  # one number: no "range of each right cell"
    marks = re.search(
        r'<table class="matrix marks" id="marks">(.*?)</table>', folded.group(2), re.S
    )
    # no column headers (a scalar's one column has none); its row is named
    assert "<thead>" not in marks.group(1)
    assert re.findall(r"<th[^>]*>([^<]*)</th>", marks.group(1)) == ["Loss"]
    assert re.findall(r'<td class="wrong" data-correct="false">', marks.group(1)) != []
    assert page.count('id="marks"') == 1  # shown once


def test_a_finished_variant_shows_its_marks_unfolded(browser_for, sessions):
    alice = browser_for("alice")
    alice.post("/lang/en")
    variant_id = start(alice, "drill-softmax-row")
    expected = expected_answer(sessions, "alice", variant_id)
    right = {f"cell-0-{c}": f"{v:.3f}" for c, v in enumerate(expected[0])}
    assert alice.post(f"/variants/{variant_id}/submissions", right).status_code == 302
    page = alice.get(f"/variants/{variant_id}").text
    assert "graded-attempt" not in page
    marks = re.search(r'<table class="matrix marks" id="marks">(.*?)</table>', page, re.S)
    # a row with its tokens as column headers, its row header the answer's ("weight")
    assert re.search(
        r"<thead><tr><td></td>(<th scope=\"col\"[^>]*>[^<]+</th>){3}</tr></thead>", marks.group(1)
    )
    assert '<th scope="row">weight</th>' in marks.group(1)


def test_a_single_numbers_problem_is_named_as_its_input_is_labelled(browser_for):
    alice = browser_for("alice")
    alice.post("/lang/en")
    variant_id = start(alice, "drill-greedy-next-token")
    response = alice.post(f"/variants/{variant_id}/submissions", {"cell-0-0": "abc"})
    assert response.status_code == 422
    summary = re.search(r'<div class="error-summary".*?</div>', response.text, re.S).group(0)
    assert '<a href="#cell-0-0">next token id</a>' in summary
    assert '<label for="cell-0-0">next token id</label>' in response.text


def test_a_problem_is_named_by_the_headers_the_page_shows_in_chinese(browser_for):
    alice = browser_for("alice")
    alice.post("/lang/zh")
    variant_id = start(alice, "drill-softmax-row")  # one row, "weight" 权重, over 我 爱 你
    response = alice.post(f"/variants/{variant_id}/submissions", {"cell-0-0": "abc"})
    assert response.status_code == 422
    summary = re.search(r'<div class="error-summary".*?</div>', response.text, re.S).group(0)
    assert re.findall(r'<a href="#cell-0-(\d)">([^<]*)</a>', summary) == [
        ("0", "权重, 我"),
        ("1", "权重, 爱"),
        ("2", "权重, 你"),
    ]
