"""The page /model (the trained toy model: its size, loss curve, cross-attention and greedy
decoding) and the worked example's switch to the trained model's numbers."""

from __future__ import annotations

import re
import shutil

import pytest

from engine.trained import load_trained
from quizsvc.web import worked_page
from quizsvc.web.loss_chart import decade_label, loss_chart_svg, step_ticks

PATHS = ("/model", "/worked-example?model=trained", "/worked-example")


@pytest.fixture
def pages(browser_for) -> dict[tuple[str, str], str]:
    alice = browser_for("alice")
    pages = {}
    for lang in ("zh", "en"):
        alice.post(f"/lang/{lang}")
        for path in PATHS:
            page = alice.get(path)
            assert page.status_code == 200, path
            pages[lang, path] = page.text
    return pages


def test_the_model_page_says_what_the_model_is_in_both_languages(pages):
    en, zh = pages["en", "/model"], pages["zh", "/model"]
    assert "<h1>The model</h1>" in en and "<h1>模型</h1>" in zh
    for text in (en, zh):
        assert "d_model = 32" in text and "d_k = 8" in text and "d_ff = 64" in text
        assert "24,388" in text and "<code>quizsvc model train</code>" in text
        assert '<meta name="description" content="' in text
    assert "40 Chinese–English sentence pairs" in en and "300 training steps" in en
    assert "40 个中英句对" in zh and "种子 0" in zh
    for english in ("The training loss", "Greedy decoding", "Probability", "Head 1"):
        assert english not in zh, english


def test_the_loss_curve_is_an_svg_image_with_title_description_and_a_table(pages):
    for lang, title in (("en", "Training loss per step"), ("zh", "每个训练步的损失")):
        text = pages[lang, "/model"]
        svg = re.search(r"<svg class='chart loss-chart'.*?</svg>", text, re.DOTALL).group(0)
        assert "role='img'" in svg and "aria-labelledby='loss-title loss-desc'" in svg
        assert f"<title id='loss-title'>{title}</title>" in svg
        assert re.search(r"<desc id='loss-desc'>[^<]*3\.86[^<]*0\.0002", svg)
        assert svg.count("<polyline") == 1
        assert len(re.search(r"points='([^']*)'", svg).group(1).split()) == 300
    table = re.search(
        r"<table class=\"matrix model-losses\">.*?</table>", pages["en", "/model"], re.DOTALL
    )
    rows = re.findall(r"<th scope=\"row\">(\d+)</th><td>([^<]*)</td>", table.group(0))
    assert rows[0] == ("1", "3.86") and rows[-1] == ("300", "0.0002")
    assert [step for step, _ in rows] == ["1", "50", "100", "150", "200", "250", "300"]


def test_the_heatmaps_and_the_greedy_steps(pages):
    text = pages["en", "/model"]
    names = re.findall(r"<section class=\"model-heatmap\"><h3>([^<]*)</h3>", text)
    assert names == ["Head 1", "Head 2", "Head 3", "Head 4", "Average of the 4 heads"]
    assert text.count("<svg class='heatmap'") == 5
    # the average's table (for screen readers): rows <s> I love, columns 我 爱 你
    average = text[text.index("Average of the 4 heads</h3>") :]
    assert re.search(
        r"<th scope='row'>&lt;s&gt;</th><td>0.85</td><td>0.09</td><td>0.06</td>", average
    )
    captions = re.findall(r"<caption id=\"greedy-\d\">([^<]*)</caption>", text)
    assert captions == [
        "Step 1: &lt;s&gt; → I",
        "Step 2: &lt;s&gt; I → love",
        "Step 3: &lt;s&gt; I love → you",
        "Step 4: &lt;s&gt; I love you → &lt;eos&gt;",
    ]
    assert text.count('class="model-chosen"') == 4
    assert "The model translates 我 爱 你 as I love you." in text


def test_the_navigation_links_the_model_page_beside_the_worked_example(pages):
    for (_lang, path), text in pages.items():
        nav = re.search(r"<nav aria-label=[^>]*>.*?</nav>", text, re.DOTALL).group(0)
        links = re.findall(r'href="([^"]*)"', nav)
        assert links.index("/model") == links.index("/worked-example") + 1, path
        assert ('href="/model" aria-current="page"' in nav) == (path == "/model")


def test_the_worked_example_switches_between_the_chapter_and_the_trained_model(pages):
    chapter, trained = pages["en", "/worked-example"], pages["en", "/worked-example?model=trained"]
    switch = re.compile(r"<nav class=\"we-switch\".*?</nav>", re.DOTALL)
    for text, current in ((chapter, "The chapter&#39;s numbers"), (trained, "The trained model")):
        links = re.findall(
            r'<a href="([^"]*)"( aria-current="page")?>([^<]*)</a>', switch.search(text).group(0)
        )
        assert [(href, label) for href, _, label in links] == [
            ("/worked-example", "The chapter&#39;s numbers"),
            ("/worked-example?model=trained", "The trained model"),
        ]
        assert [label for _, mark, label in links if mark] == [current]
    # the chapter's view: its one-head example with its misprints, d_model 4
    assert "we-mark" in chapter and 'id="errata"' in chapter and "(3 × 4)" in chapter
    # the trained view: every step the trained model's, d_model 32, and no misprints
    assert "we-mark" not in trained and 'id="errata"' not in trained
    assert "we-source-chapter" not in trained and 'we-source-engine"' not in trained
    # each of the 20 steps says so, and the legend above them
    assert trained.count('class="we-source we-source-trained"') == 21
    for shape in ("(3 × 32)", "(3 × 8)", "(4 × 32)", "(4 × 36)", "(3 × 64)"):
        assert shape in trained, shape
    # the learned weight matrices (32 × 32 and larger) are not printed
    assert "(32 × 32)" not in trained and "(32 × 64)" not in trained
    assert "The trained model translates 我 爱 你 as I love you." in trained
    assert "step-masking" not in trained and "step-qkv" not in trained
    assert 'id="step-head-4"' in trained and 'id="step-head-3"' not in chapter
    zh = pages["zh", "/worked-example?model=trained"]
    assert "训练好的玩具模型的数字" in zh and "The trained toy model" not in zh


def test_an_unknown_model_is_a_400_in_the_page_s_language(browser_for):
    alice = browser_for("alice")
    page = alice.get("/worked-example?model=big")
    assert page.status_code == 400 and "&#39;chapter&#39; or &#39;trained&#39;" in page.text
    alice.post("/lang/zh")
    page = alice.get("/worked-example?model=big")
    assert page.status_code == 400 and "model 只能是" in page.text


@pytest.fixture
def content_without_a_model(content_dir):
    shutil.rmtree(content_dir / "transformer-by-hand" / "model")
    return content_dir


def test_without_a_trained_model_the_page_is_a_404(content_without_a_model, browser_for):
    alice = browser_for("alice")
    for path in ("/model", "/worked-example?model=trained"):
        page = alice.get(path)
        assert page.status_code == 404 and "No chapter has a trained model." in page.text
    assert alice.get("/worked-example").status_code == 200


def test_the_loss_axis_ticks():
    assert step_ticks(300) == [0, 50, 100, 150, 200, 250, 300]
    assert step_ticks(1000) == [0, 200, 400, 600, 800, 1000]
    assert step_ticks(7) == [0, 2, 4, 6]
    assert [decade_label(e) for e in (-4, -3, -2, -1, 0, 1)] == [
        "10⁻⁴",
        "10⁻³",
        "0.01",
        "0.1",
        "1",
        "10",
    ]


def test_the_loss_curve_s_points_are_on_a_log_scale():
    svg = loss_chart_svg([(1, 10.0), (2, 1.0), (4, 0.01)], "t", "d", "x", "y")
    points = [
        tuple(map(float, p.split(",")))
        for p in re.search(r"points='([^']*)'", svg).group(1).split()
    ]
    # the frame: x from 72 to 464 for steps 0 to 4, y from 12 (10) to 232 (0.01): 3 decades
    assert points == [(170.0, 12.0), (268.0, 85.3), (464.0, 232.0)]
    y_labels = re.findall(r"text-anchor='end' font-size='13'>([^<]*)</text>", svg)
    assert y_labels == ["0.01", "0.1", "1", "10"]


def test_the_trained_page_is_built_once_per_language_and_model(app, content_dir):
    weights = content_dir / "transformer-by-hand" / "model" / "model.npz"
    first, second = load_trained(weights), load_trained(weights)
    with app.test_request_context("/worked-example?model=trained"):
        page = worked_page.worked_example_page(first)
        assert worked_page.worked_example_page(first) is page
        assert worked_page.worked_example_page() is worked_page.worked_example_page()
        # a reload's model (equal numbers, another object) gets its own page; the old goes
        again = worked_page.worked_example_page(second)
        assert again is not page and again["parts"][0]["steps"][0]["title"]
        assert all(model is not first for model, _ in worked_page._pages.values())
