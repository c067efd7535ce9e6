"""The worked-example page: the engine's numbers, and the chapter's misprints beside them."""

from __future__ import annotations

import math
import re
from pathlib import Path

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
    assert (
        "Q = X&#39; W_q, row 爱, column d0: the chapter prints 1.43, the true value is 0.4257"
        in text
    )
    # the scores' diagonal entry 2.00 is right, so it is not listed
    assert "Q Kᵀ / √d_k, row 我, column 我" not in text
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
    assert "输出 = A V 的“我”行、“d0”列：本章印为" in text  # a misprint's label
    heatmap = re.search(r"<svg class='heatmap'[^>]*aria-label='([^']*)'", text).group(1)
    assert heatmap.startswith("注意力权重 A：每行是一个查询")
    for english in ("Embedding lookup", "Positional encoding", "after masking", "row sums"):
        assert english not in text, english

    alice.post("/lang/en")
    text = alice.get("/worked-example").text
    assert "<h2>2. Positional encoding: PE and X&#39; = X + PE</h2>" in text
    assert "Output = A V, row 我, column d0: the chapter prints" in text


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
    assert (
        "<caption>A[0, j] · V_j (the terms of 我&#39;s output Output₀, one row per V_j)</caption>"
        in terms
    )
    # Worked by hand from the chapter's inputs: W_q and W_k add coordinates pairwise, so with
    # Q0 = [1, 1, 1, 1] the score of key j is the sum of X'_j over 2, and W_v = I gives
    # V_j = X'_j. X'_0 = [1, 1, 1, 1], X'_j = E_j + [sin j, cos j, sin j/100, cos j/100].
    x1 = [math.sin(1), 1 + math.cos(1), math.sin(0.01), 1 + math.cos(0.01)]
    x2 = [1 + math.sin(2), 1 + math.cos(2), math.sin(0.02), math.cos(0.02)]
    exps = [math.exp(sum(x) / 2) for x in ([1.0] * 4, x1, x2)]
    a02 = exps[2] / sum(exps)
    assert f"<td>{a02 * x2[0]:.3f}</td>" in terms  # the term 你, d=0: 0.499
    assert (
        "A[0, j] · V_j, row 你, column d0: the chapter prints 0.800, the true value is 0.49884"
        in terms
    )
    assert terms.count("A[0, j] · V_j, row ") == 12  # every term misprinted, all listed here
    assert "Output = A V, row 我, column d0: the chapter prints 1.340" in section[len(terms) :]


def test_the_terminal_names_each_matrix_of_a_section_with_several():
    lines = worked_example_text().splitlines()
    section_2 = lines.index("2. Positional encoding: PE and X' = X + PE")
    assert lines[section_2 + 1] == "PE"
    assert "X' = X + PE" in lines[section_2 + 2 : section_2 + 9]
    assert lines.count("4.3 Softmax (per row)") == 1
    assert sum(line.startswith("2. ") for line in lines) == 1


def misprints(text: str, section: str) -> list[str]:
    start = text.index(f"<h2>{section} ")
    end = text.find("<h2>", start + 1)
    return re.findall(r"<li>(.*?)</li>", text[start : end if end > 0 else len(text)])


def test_each_misprint_is_named_by_the_chapters_row_and_column_labels(browser_for):
    # Worked by hand from the chapter's section 2: X'_爱 = [sin 1, 1 + cos 1, sin 0.01,
    # 1 + cos 0.01] and X'_你 = [1 + sin 2, 1 + cos 2, sin 0.02, cos 0.02]. W_q puts
    # (x0 + x2) / 2 in d0 and d2 and (x1 + x3) / 2 in d1 and d3; W_k the other way round.
    x = {
        "爱": [math.sin(1), 1 + math.cos(1), math.sin(0.01), 1 + math.cos(0.01)],
        "你": [1 + math.sin(2), 1 + math.cos(2), math.sin(0.02), math.cos(0.02)],
    }
    even = {token: (v[0] + v[2]) / 2 for token, v in x.items()}  # 爱 0.4257, 你 0.9646
    odd = {token: (v[1] + v[3]) / 2 for token, v in x.items()}  # 爱 1.7701, 你 0.7918
    # The chapter's section 3.2 prints Q_爱 = [1.43, 1.77, 0.43, 1.77] and
    # Q_你 = [1.47, 0.79, 0.97, 0.79]; 3.3 prints K_爱 = [1.43, 0.84, 1.43, 0.84] and
    # K_你 = [0.79, 1.47, 0.79, 1.47]. Wrong by more than rounding: Q's d0 in both rows, all
    # of K_爱, and K_你's d1 and d3.
    q_wrong = [("爱", "d0", "1.43", even["爱"]), ("你", "d0", "1.47", even["你"])]
    k_wrong = [
        ("爱", "d0", "1.43", odd["爱"]),
        ("爱", "d1", "0.84", even["爱"]),
        ("爱", "d2", "1.43", odd["爱"]),
        ("爱", "d3", "0.84", even["爱"]),
        ("你", "d1", "1.47", even["你"]),
        ("你", "d3", "1.47", even["你"]),
    ]
    alice = browser_for("alice")
    pages = {}
    for lang in ("zh", "en"):
        alice.post(f"/lang/{lang}")
        pages[lang] = alice.get("/worked-example").text
    assert misprints(pages["en"], "3.2") == [
        f"Q = X&#39; W_q, row {row}, column {column}: the chapter prints {printed},"
        f" the true value is {true:.4f}"
        for row, column, printed, true in q_wrong
    ]
    assert misprints(pages["zh"], "3.2") == [
        f"Q = X&#39; W_q 的“{row}”行、“{column}”列：本章印为 {printed}，真实值 {true:.4f}"
        for row, column, printed, true in q_wrong
    ]
    assert misprints(pages["en"], "3.3") == [
        f"K = X&#39; W_k, row {row}, column {column}: the chapter prints {printed},"
        f" the true value is {true:.4f}"
        for row, column, printed, true in k_wrong
    ]
    assert misprints(pages["zh"], "3.3") == [
        f"K = X&#39; W_k 的“{row}”行、“{column}”列：本章印为 {printed}，真实值 {true:.4f}"
        for row, column, printed, true in k_wrong
    ]
    # 4.1 prints Q_我 · K_爱 as 3.54; Q_我 = [1, 1, 1, 1], so it is the sum of K_爱
    k_love = 2 * odd["爱"] + 2 * even["爱"]
    assert (
        f"Q Kᵀ, row 我, column 爱: the chapter prints 3.54, the true value is {k_love:.4f}"
        in misprints(pages["en"], "4.1")
    )
    assert f"Q Kᵀ 的“我”行、“爱”列：本章印为 3.54，真实值 {k_love:.4f}" in misprints(
        pages["zh"], "4.1"
    )
    # 4.3's row sums are the column Σ of the e^score table; the chapter's row 爱 sums
    # e^2.70 + e^2.89 + e^3.47 = 65.01
    assert any(
        item.startswith("Σ e^score, row 爱, column Σ: the chapter prints 65.01")
        for item in misprints(pages["en"], "4.3")
    )
    assert any(
        item.startswith("Σ e^score 的“爱”行、“Σ”列：本章印为 65.01")
        for item in misprints(pages["zh"], "4.3")
    )


def test_docs_errata_names_the_places_as_the_page_does():
    errata_md = (Path(__file__).parents[2] / "docs" / "errata.md").read_text(encoding="utf-8")
    # the same misprint as on the page, worked by hand above: Q_爱's d0
    assert "| 3.2 | Q = X' W_q | 爱 | d0 | 1.43 | 0.4257 |" in errata_md
    assert "| 4.3 | Σ e^score | 爱 | Σ | 65.01 | " in errata_md
    # the chapter's own Q_我 = [1, 1, 1, 1] and K_爱 = [1.43, 0.84, 1.43, 0.84] give 4.54
    assert "- Q Kᵀ, row 我, column 爱: printed 3.54, its own inputs give 4.54" in errata_md
    assert "[1, 0]" not in errata_md
