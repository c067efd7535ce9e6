"""The worked-example page: the engine's numbers, and the chapter's misprints beside them."""

from __future__ import annotations

import math
import re

from engine.chapter import PRINTED, errata
from quizsvc.worked_example import worked_example_sections, worked_example_text

# The chapter's own numbering of what the page shows: parts 1 and 2 (第1部分, 第2部分) have no
# subsections; 3.1-3.4, 4.1-4.4 and 7.1 are its subsection headings.
CHAPTER_SECTIONS = ["1", "2", "3.1", "3.2", "3.3", "3.4", "4.1", "4.2", "4.3", "4.4", "7.1"]


def test_the_worked_example_page_shows_true_values_and_the_chapters_misprints(browser_for):
    page = browser_for("alice").get("/worked-example")
    assert page.status_code == 200
    text = page.text
    # Q[1, 0] = (sin 1 + sin 0.01) / 2, which the chapter prints as 1.43
    true_q10 = (math.sin(1) + math.sin(0.01)) / 2
    assert f"<td>{true_q10:.3f}</td>" in text
    assert "Q = X&#39; W_q [1, 0]: the chapter prints 1.43, the true value is 0.4257" in text
    # the scores' diagonal entry 2.00 is right, so it is not listed
    assert "Q Kᵀ / √d_k [0, 0]" not in text
    assert text.count("<svg class='heatmap'") == 2  # softmax weights, and after masking
    # X's dimensions headed d0 .. d3, as the drills head them
    x_table = re.search(r"<caption>X</caption><thead><tr><td></td>(.*?)</tr>", text).group(1)
    assert re.findall(r"<th scope='col'>([^<]*)</th>", x_table) == ["d0", "d1", "d2", "d3"]


def test_the_worked_example_page_follows_the_language(browser_for):
    alice = browser_for("alice")
    alice.post("/lang/zh")
    text = alice.get("/worked-example").text
    assert "本章印为 1.43，真实值 0.4257" in text


def test_the_worked_example_page_is_in_chinese_throughout(browser_for):
    alice = browser_for("alice")
    alice.post("/lang/zh")
    text = alice.get("/worked-example").text
    headings = re.findall(r"<h2>(.*?)</h2>", text)
    assert headings[:2] == ["1. 查 Embedding 表：X（E 的行）", "2. 位置编码：PE 与 X&#39; = X + PE"]
    assert "<h2>7.1 Masked Self-Attention：未来位置的分数设为 -inf，再做 softmax</h2>" in text
    captions = re.findall(r"<caption>(.*?)</caption>", text)
    assert "输出" in captions and "A（掩码前，题目给定）" in captions and "Output" not in captions
    assert "输出 = A V [0, 0]：本章印为" in text  # a misprint's label
    heatmap = re.search(r"<svg class='heatmap'[^>]*aria-label='([^']*)'", text).group(1)
    assert heatmap.startswith("注意力权重 A：每行是一个查询")
    for english in ("Embedding lookup", "Positional encoding", "after masking", "row sums"):
        assert english not in text, english

    alice.post("/lang/en")
    text = alice.get("/worked-example").text
    assert "<h2>2. Positional encoding: PE and X&#39; = X + PE</h2>" in text
    assert "Output = A V [0, 0]: the chapter prints" in text


def test_each_heading_is_one_of_the_chapters_sections_once_in_its_order(browser_for):
    text = browser_for("alice").get("/worked-example").text
    numbers = [h.split(" ", 1)[0] for h in re.findall(r"<h2>(.*?)</h2>", text)]
    assert numbers == [n if "." in n else f"{n}." for n in CHAPTER_SECTIONS]
    assert [s.number for s in worked_example_sections()] == CHAPTER_SECTIONS


def test_every_misprinted_quantity_is_shown_in_the_section_that_prints_it():
    shown = {
        quantity: section.number
        for section in worked_example_sections()
        for matrix in section.matrices
        for quantity in matrix.quantities
    }
    assert shown == {name: printed.section for name, printed in PRINTED.items()}
    assert {e.quantity for e in errata()} <= set(shown)


def test_section_4_4_shows_the_terms_of_output_row_0_with_their_misprints(browser_for):
    text = browser_for("alice").get("/worked-example").text
    section = text[text.index("<h2>4.4 ") : text.index("<h2>7.1 ")]
    terms = section[: section.index("<caption>Output</caption>")]  # the first of its 2 tables
    assert "<caption>A[0, j] · V_j (the terms of output row 0, one row per j)</caption>" in terms
    # Worked by hand from the chapter's inputs: W_q and W_k add coordinates pairwise, so with
    # Q0 = [1, 1, 1, 1] the score of key j is the sum of X'_j over 2, and W_v = I gives
    # V_j = X'_j. X'_0 = [1, 1, 1, 1], X'_j = E_j + [sin j, cos j, sin j/100, cos j/100].
    x1 = [math.sin(1), 1 + math.cos(1), math.sin(0.01), 1 + math.cos(0.01)]
    x2 = [1 + math.sin(2), 1 + math.cos(2), math.sin(0.02), math.cos(0.02)]
    exps = [math.exp(sum(x) / 2) for x in ([1.0] * 4, x1, x2)]
    a02 = exps[2] / sum(exps)
    assert f"<td>{a02 * x2[0]:.3f}</td>" in terms  # the term 你, d=0: 0.499
    assert "A[0, j] · V_j [2, 0]: the chapter prints 0.800, the true value is 0.49884" in terms
    assert terms.count("A[0, j] · V_j [") == 12  # every term misprinted, all listed here
    assert "Output = A V [0, 0]: the chapter prints 1.340" in section[len(terms) :]


def test_the_terminal_names_each_matrix_of_a_section_with_several():
    lines = worked_example_text().splitlines()
    section_2 = lines.index("2. Positional encoding: PE and X' = X + PE")
    assert lines[section_2 + 1] == "PE"
    assert "X' = X + PE" in lines[section_2 + 2 : section_2 + 9]
    assert lines.count("4.3 Softmax (per row)") == 1
    assert sum(line.startswith("2. ") for line in lines) == 1
