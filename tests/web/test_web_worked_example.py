"""The worked-example page: the engine's numbers, and the chapter's misprints beside them."""

from __future__ import annotations

import math
import re


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


def test_the_worked_example_page_follows_the_language(browser_for):
    alice = browser_for("alice")
    alice.get("/lang/zh")
    text = alice.get("/worked-example").text
    assert "本章印为 1.43，真实值 0.4257" in text


def test_the_worked_example_page_is_in_chinese_throughout(browser_for):
    alice = browser_for("alice")
    alice.get("/lang/zh")
    text = alice.get("/worked-example").text
    headings = re.findall(r"<h2>(.*?)</h2>", text)
    assert headings[:2] == ["1. 查 Embedding 表：X（E 的行）", "2. 位置编码 PE"]
    assert "<h2>7.1 掩码之后（未来位置的分数设为 -inf，再做 softmax）</h2>" in text
    captions = re.findall(r"<caption>(.*?)</caption>", text)
    assert "输出" in captions and "A（掩码前）" in captions and "Output" not in captions
    assert "输出 = A V [0, 0]：本章印为" in text  # a misprint's label
    heatmap = re.search(r"<svg class='heatmap'[^>]*aria-label='([^']*)'", text).group(1)
    assert heatmap.startswith("注意力权重 A：每行是一个查询")
    for english in ("Embedding lookup", "Positional encoding", "After masking", "row sums"):
        assert english not in text, english

    alice.get("/lang/en")
    text = alice.get("/worked-example").text
    assert "<h2>2. Positional encoding PE</h2>" in text
    assert "Output = A V [0, 0]: the chapter prints" in text
