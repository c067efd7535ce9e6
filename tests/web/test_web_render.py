"""The server-rendered pictures and tables, read back as XML: every coordinate, colour and
label below is worked out by hand from the layout constants the docstrings of the functions
describe (line chart: a frame 44 px from the left and 12 px from the other edges; bar chart:
labels 0.65 em a character, twice that for a CJK one, in a column 10 px wider than the
longest, then the track and 50 px for the percentage). Heatmaps: test_web_heatmap.py."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import pytest

from quizsvc.drills import Tensor
from quizsvc.web.render import (
    bar_chart_svg,
    chart_figure,
    format_number,
    format_whole_percent,
    line_chart_svg,
    matrix_table,
    noted_matrix_table,
    shape_caption,
    text_width,
)

SVG = "{http://www.w3.org/2000/svg}"


def svg(markup) -> ET.Element:
    return ET.fromstring(str(markup))


def children(root: ET.Element, tag: str) -> list[ET.Element]:
    return root.findall(f"{SVG}{tag}")


# --- numbers --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "decimals", "text"),
    [
        (0.5, 3, "0.5"),
        (1.0, 3, "1"),
        (100.0, 3, "100"),
        (100.0, 0, "100"),  # no decimal point: nothing to strip
        (2.0, 0, "2"),
        (1234.5678, 3, "1234.568"),
        (0.0, 3, "0"),
        (-0.0004, 3, "0"),  # rounds to -0.000: never "−0"
        (-0.3, 0, "0"),
        (-1.25, 3, "−1.25"),  # a true minus sign
        # 四舍五入, as learners round by hand: a half away from zero (Python's format, which
        # rounds half to even, gives −1.2, 0.2 and 3.562)
        (-1.25, 1, "−1.3"),
        (0.25, 1, "0.3"),
        (3.5625, 3, "3.563"),
        (2.675, 2, "2.67"),  # the float 2.675 is a little below 2.675
        (0.123456, 6, "0.123456"),
        (-1e300, 4, "−" + f"{1e300:.0f}"),  # what a learner may type, shown whole
        (math.inf, 3, "∞"),
        (-math.inf, 3, "−∞"),
    ],
)
def test_numbers_are_written_without_trailing_zeros_and_with_a_true_minus(value, decimals, text):
    assert format_number(value, decimals) == text


@pytest.mark.parametrize(
    ("score", "shown"),
    [
        (0.75, "75%"),
        (0.125, "13%"),  # 1 of 8 cells: 12.5 %, a half rounded up (Python's :.0% gives 12%)
        (0.625, "63%"),
        (0.375, "38%"),
        (1 / 3, "33%"),
        (0.0, "0%"),
        (1.0, "100%"),
    ],
)
def test_whole_percents_round_a_half_up_as_learners_do(score, shown):
    assert format_whole_percent(score) == shown


def test_a_bar_charts_percentages_round_a_half_up():
    svg = str(bar_chart_svg([("attention", 0.125)], label="Mastery"))
    assert ">13%</text>" in svg
    assert "attention 13%" in svg  # its text alternative says the same


# --- matrix table ---------------------------------------------------------------------------


def test_a_matrix_table_labels_rows_and_columns_and_marks_cells():
    tensor = Tensor("S <x>", [[0.5, -math.inf], [2.0, 0.25]], ("我", "a&b"), ("k1", "<k2>"))
    table = str(matrix_table(tensor, marks=[["right", "wrong"], ["wrong", "right"]]))
    assert table == (
        # a box of its own, which scrolls sideways where the table is wider than the page:
        # focusable, and named as the table's caption; the corner heads nothing, so it is a
        # plain cell; a Chinese label says so (a screen reader reads it in a Chinese voice)
        "<div class='matrix-scroll' role='region' tabindex='0' aria-label='S &lt;x&gt;'>"
        "<table class='matrix'><caption>S &lt;x&gt; <span class='shape'>(2 × 2)</span></caption>"
        "<thead><tr><td></td><th scope='col'>k1</th><th scope='col'>&lt;k2&gt;</th></tr></thead>"
        "<tbody>"
        "<tr><th scope='row' lang='zh-CN'>我</th>"
        "<td class='right'>0.5</td><td class='wrong'>−∞</td></tr>"
        "<tr><th scope='row'>a&amp;b</th><td class='wrong'>2</td><td class='right'>0.25</td></tr>"
        "</tbody></table></div>"
    )
    unmarked = str(matrix_table(tensor))
    assert "class='right'" not in unmarked and "<td>0.5</td><td>−∞</td>" in unmarked


def test_a_matrix_tables_box_can_be_named_apart_from_its_caption():
    # a page that shows a tensor twice (the answer, and a solution step) names each box
    table = matrix_table(Tensor("A", [[1.0]], ("你",), ("爱 d0",)), region_label="Step 2: A")
    root = ET.fromstring(str(table))
    assert (root.get("aria-label"), root.find("table/caption").text) == ("Step 2: A", "A")
    assert root.find("table/thead/tr/th").get("lang") == "zh-CN"  # a label with Chinese in it
    assert root.find("table/tbody/tr/th").get("lang") == "zh-CN"
    plain = ET.fromstring(str(matrix_table(Tensor("A", [[1.0]], ("q0",), ("d0",)))))
    assert plain.find("table/tbody/tr/th").get("lang") is None


def test_a_matrix_tables_box_is_named_by_the_caption_with_its_quotes_escaped():
    root = ET.fromstring(str(matrix_table(Tensor("it's P", [[1.0]], ("r",), ("c",)))))
    assert (root.tag, root.get("aria-label"), root.get("tabindex")) == ("div", "it's P", "0")
    assert root.find("table/caption").text == "it's P"
    assert str(matrix_table(Tensor("it's P", [[1.0]], ("r",), ("c",)))).startswith(
        "<div class='matrix-scroll' role='region' tabindex='0' aria-label='it&#39;s P'>"
    )


def test_a_noted_matrix_table_shows_its_shape_and_a_focusable_note_on_a_cell():
    tensor = Tensor("Q", [[0.4257, 1.0], [2.0, -math.inf]], ("爱", "你"), ("d0", "d1"))
    notes = {(0, 0): "The chapter prints <1.43>"}
    root = ET.fromstring(str(noted_matrix_table(tensor, "(2 × 2)", "2. Q, K, V: Q", notes)))
    assert (root.get("aria-label"), root.get("tabindex")) == ("2. Q, K, V: Q", "0")
    caption = root.find("table/caption")
    assert (caption.text, caption.find("span").text) == ("Q ", "(2 × 2)")
    noted, plain = root.find("table/tbody/tr").findall("td")
    assert (noted.get("class"), noted.text, plain.text) == ("we-noted", "0.426", "1")
    # the marker: a button (the keyboard reaches it) whose name is the note, the "*" hidden
    # from screen readers, the note escaped
    (button,) = noted
    assert (button.tag, button.get("type"), button.get("class")) == ("button", "button", "we-mark")
    star, tip = button
    assert (star.get("aria-hidden"), star.text) == ("true", "*")
    assert (tip.get("class"), tip.text) == ("we-tip", "The chapter prints <1.43>")
    # only the noted cell has one; −∞ as the other tables write it
    assert root.findall(".//button") == [button]
    assert root.findall("table/tbody/tr")[1].findall("td")[1].text == "−∞"
    unnoted = ET.fromstring(str(noted_matrix_table(tensor, "(2 × 2)", "A")))
    assert "we-with-notes" not in unnoted.get("class") and unnoted.find(".//button") is None


def test_labels_that_are_all_empty_draw_no_empty_strip():
    # one number (a loss): its column has no name, so there is no header row at all
    loss = ET.fromstring(str(matrix_table(Tensor("Loss", [[1.25]], ("Loss",), ("",)))))
    table = loss.find("table")
    assert table.find("thead") is None
    assert [(c.tag, c.text) for c in table.find("tbody/tr")] == [("th", "Loss"), ("td", "1.25")]
    # no row names: no header column, and no corner cell above it
    row = ET.fromstring(str(matrix_table(Tensor("x", [[1.0, 2.0]], ("",), ("a", "b")))))
    assert [c.tag for c in row.find("table/thead/tr")] == ["th", "th"]
    assert [c.tag for c in row.find("table/tbody/tr")] == ["td", "td"]
    # neither: the number alone, under its caption
    bare = ET.fromstring(str(matrix_table(Tensor("id", [[3.0]], ("",), ("",)))))
    assert bare.find("table/thead") is None
    assert [c.tag for c in bare.find("table/tbody/tr")] == ["td"]


# --- line chart -----------------------------------------------------------------------------


def points_of(root: ET.Element) -> list[tuple[str, str]]:
    return [tuple(pair.split(",")) for pair in root.find(f"{SVG}polyline").get("points").split()]


def test_a_line_chart_spreads_the_scores_over_the_width_with_100_percent_at_the_top():
    root = svg(line_chart_svg([0.0, 1.0, 0.5], label="mastery"))
    # announced with its scores, oldest first (an image's own text is not read)
    assert (root.get("width"), root.get("height"), root.get("aria-label")) == (
        "420",
        "140",
        "mastery: 0%, 100%, 50%",
    )
    assert root.get("viewBox") == "0 0 420 140"  # what lets the page scale it down
    assert root.find(f"{SVG}title").text == "mastery"
    frame = children(root, "rect")[0]
    # 420 - 44 - 12 wide, 140 - 12 - 12 high
    assert [frame.get(a) for a in ("x", "y", "width", "height")] == ["44", "12", "364", "116"]
    # the 50 % gridline halfway down the frame: 12 + 116 / 2
    line = children(root, "line")[0]
    assert [line.get(a) for a in ("x1", "y1", "x2", "y2")] == ["44", "70", "408", "70"]
    # the axis in percent, right-aligned 6 px left of the frame, 4 px below each gridline
    texts = children(root, "text")
    assert [(t.get("x"), t.get("y"), t.text) for t in texts] == [
        ("38", "16", "100%"),
        ("38", "74", "50%"),
        ("38", "132", "0%"),
    ]
    assert {t.get("text-anchor") for t in texts} == {"end"}
    # x: 44, 44 + 364 / 2, 44 + 364; y: 12 + 116 * (1 - score)
    expected = [("44.0", "128.0"), ("226.0", "12.0"), ("408.0", "70.0")]
    assert points_of(root) == expected
    dots = [(c.get("cx"), c.get("cy")) for c in children(root, "circle")]
    assert dots == expected


def test_a_line_chart_clamps_scores_to_0_and_1_and_draws_one_point_at_the_left():
    assert points_of(svg(line_chart_svg([1.5, -0.5]))) == [("44.0", "12.0"), ("408.0", "128.0")]
    # 61 high: the frame 37, its middle at 12 + 18.5, where a score of 0.5 lies
    root = svg(line_chart_svg([0.5], width=100, height=61))
    assert points_of(root) == [("44.0", "30.5")]
    assert children(root, "line")[0].get("y1") == "30.5"
    assert [t.get("y") for t in children(root, "text")] == ["16", "34.5", "53"]


def test_a_line_chart_without_scores_is_an_empty_frame_with_its_axis():
    assert svg(line_chart_svg([], label="scores")).get("aria-label") == "scores"
    root = svg(line_chart_svg([]))
    assert root.find(f"{SVG}polyline") is None and not children(root, "circle")
    assert len(children(root, "rect")) == 1
    assert [t.text for t in children(root, "text")] == ["100%", "50%", "0%"]


def test_a_chart_figure_shows_the_title_above_the_chart_escaped():
    figure = chart_figure(line_chart_svg([], width=60, height=40, label="a"), "Scores <0–100 %>")
    assert str(figure).startswith(
        "<figure class='chart'><figcaption>Scores &lt;0–100 %&gt;</figcaption><svg class='chart'"
    )
    assert str(figure).endswith("</svg></figure>")


# --- bar chart ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "font_size", "width"),
    [
        ("", 12, 0),
        ("Add & Norm", 12, 78),  # 10 characters of 7.8 px
        ("ffn", 10, 20),  # 3 of 6.5 px: 19.5, rounded up
        ("注意力", 12, 47),  # 3 wide characters of 15.6 px: 46.8
        ("（）", 12, 32),  # full-width parentheses are wide too: 31.2
        ("掩码（Masked Self-Attention）", 12, 227),  # 4 wide, 21 narrow: 29 * 7.8 = 226.2
    ],
)
def test_the_width_allowed_for_a_label_counts_cjk_characters_double(text, font_size, width):
    assert text_width(text, font_size) == width


def test_a_bar_chart_draws_each_share_of_the_track_with_its_percentage():
    bars = [("attention <1>", 0.25), ("ffn", 1.2), ("masks", -0.1)]
    root = svg(bar_chart_svg(bars, label="mastery"))
    # announced with each bar's label and share (clamped to 0..100 %, as drawn)
    assert root.get("aria-label") == "mastery: attention <1> 25%; ffn 100%; masks 0%"
    assert root.find(f"{SVG}title").text == "mastery"
    # 3 rows of 22 px plus 4 px padding above and below
    assert (root.get("width"), root.get("height")) == ("420", "74")
    assert root.get("viewBox") == "0 0 420 74"
    rects = children(root, "rect")
    tracks, bars = rects[0::2], rects[1::2]
    # the labels' column: "attention <1>", 13 characters, 101.4 px, so 102 + 10;
    # rows start at y = 4, 26, 48; the track (420 - 112 - 50 = 258 wide) 3 px lower
    assert [(r.get("x"), r.get("y"), r.get("width"), r.get("height")) for r in tracks] == [
        ("112", "7", "258", "16"),
        ("112", "29", "258", "16"),
        ("112", "51", "258", "16"),
    ]
    assert [b.get("width") for b in bars] == ["64.5", "258.0", "0.0"]
    # each bar lies on its track, from its left end
    assert [(b.get("x"), b.get("y"), b.get("height")) for b in bars] == [
        (t.get("x"), t.get("y"), t.get("height")) for t in tracks
    ]
    texts = [(t.get("x"), t.get("y"), t.text) for t in children(root, "text")]
    assert texts == [
        ("106", "19", "attention <1>"),
        ("376", "19", "25%"),
        ("106", "41", "ffn"),
        ("376", "41", "100%"),
        ("106", "63", "masks"),
        ("376", "63", "0%"),
    ]


def test_a_bar_charts_label_column_fits_its_longest_label_in_either_language():
    # "Teacher forcing and the loss" was cut to "cher forcing and the loss" in a fixed 144 px
    root = svg(bar_chart_svg([("Softmax", 0.5), ("Teacher forcing and the loss", 0.5)]))
    # 28 characters: 218.4 px, so 219 + 10; the track 420 - 229 - 50 = 141
    labels = children(root, "text")[0::2]
    assert [(t.get("x"), t.text) for t in labels] == [
        ("223", "Softmax"),
        ("223", "Teacher forcing and the loss"),
    ]
    assert [(r.get("x"), r.get("width")) for r in children(root, "rect")[0::2]] == [
        ("229", "141"),
        ("229", "141"),
    ]
    assert root.get("width") == "420"

    root = svg(bar_chart_svg([("掩码（Masked Self-Attention）", 0.5)]))
    # 227 px (above) + 10; the track 420 - 237 - 50 = 133, half of it 66.5
    track, bar = children(root, "rect")
    assert (track.get("x"), track.get("width"), bar.get("width")) == ("237", "133", "66.5")
    assert [(t.get("x"), t.text) for t in children(root, "text")] == [
        ("231", "掩码（Masked Self-Attention）"),
        ("376", "50%"),
    ]


def test_a_label_too_long_for_the_width_widens_the_chart_and_keeps_a_120_px_track():
    # 30 wide characters: 468 px, so a column of 478; 478 + 120 + 50 = 648
    root = svg(bar_chart_svg([("注" * 30, 1.0)]))
    assert (root.get("width"), root.get("viewBox")) == ("648", "0 0 648 30")
    track, bar = children(root, "rect")
    assert (track.get("x"), track.get("width"), bar.get("width")) == ("478", "120", "120.0")
    assert [t.get("x") for t in children(root, "text")] == ["472", "604"]


def test_a_bar_chart_without_bars_keeps_one_rows_height():
    root = svg(bar_chart_svg([], width=300))
    assert (root.get("width"), root.get("height")) == ("300", "30")
    assert not children(root, "rect")


def test_a_caption_gives_a_matrix_s_shape_but_not_a_single_number_s():
    assert str(shape_caption("Q", 3, 4)) == "Q <span class='shape'>(3 × 4)</span>"
    assert str(shape_caption("row", 1, 5)) == "row <span class='shape'>(1 × 5)</span>"
    assert str(shape_caption("Loss <1>", 1, 1)) == "Loss &lt;1&gt;"
    loss = ET.fromstring(str(matrix_table(Tensor("Loss", [[1.25]], ("Loss",), ("",)))))
    assert loss.find("table/caption").text == "Loss" and loss.find("table/caption/span") is None
