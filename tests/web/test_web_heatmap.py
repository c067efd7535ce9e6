"""The heatmap, read back as XML: every coordinate, colour and label below is worked out by
hand from the layout its docstrings describe (row labels in a column of 70 px or as wide as the
widest label needs plus 12, column labels in a row of 24 px, squares of at least 32 px and as
wide as a column label plus 8, labels 0.65 em a character; the legend 10 px below the grid: five
swatches of 20 × 14 px, then 10 px)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from quizsvc.drills import Tensor
from quizsvc.web.heatmap import heatmap_figure, heatmap_svg

SVG = "{http://www.w3.org/2000/svg}"


def svg(markup) -> ET.Element:
    return ET.fromstring(str(markup))


def children(root: ET.Element, tag: str) -> list[ET.Element]:
    return root.findall(f"{SVG}{tag}")


def values_of(root: ET.Element) -> list[ET.Element]:
    return [t for t in children(root, "text") if t.get("class") == "hm-value"]


def test_a_heatmap_is_a_grid_of_squares_with_the_weight_as_colour_and_text():
    weights = [[0.0, 1.0, 0.1], [0.55, 0.56, 1.7]]
    tensor = Tensor("weights", weights, ("q0", "q1"), ("k0", "k1", "k2"))
    root = svg(heatmap_svg(tensor, label="rows: queries <i>"))
    # 70 + 3 * 44 wide (the legend needs 5 * 20 + 6 + 8 = 114 of it); 24 + 2 * 44 high, then
    # 10 + 14 + 10 for the legend
    assert (root.get("width"), root.get("height")) == ("202", "146")
    assert root.get("viewBox") == "0 0 202 146"
    # what a screen reader announces (an image's own text is not read): the label, then each
    # query's row of weights; the tooltip (title) is the label alone; escaped, read back
    assert root.get("role") == "img"
    assert root.get("aria-label") == (
        "rows: queries <i> q0: k0 0, k1 1, k2 0.1; q1: k0 0.55, k1 0.56, k2 1.7"
    )
    assert root.find(f"{SVG}title").text == "rows: queries <i>"

    texts = children(root, "text")
    column_labels = [(t.get("x"), t.get("y"), t.text) for t in texts[:3]]
    assert column_labels == [("92.0", "16", "k0"), ("136.0", "16", "k1"), ("180.0", "16", "k2")]

    rects = children(root, "rect")
    assert [(r.get("x"), r.get("y")) for r in rects] == [
        ("70", "24"), ("114", "24"), ("158", "24"),
        ("70", "68"), ("114", "68"), ("158", "68"),
    ]  # fmt: skip
    assert {(r.get("width"), r.get("height")) for r in rects} == {("44", "44")}
    # white at 0, (33, 102, 172) at 1; 0.1: 255 - 222 * 0.1 = 232.8, 255 - 153 * 0.1 = 239.7,
    # 255 - 83 * 0.1 = 246.7; 0.55: 132.9, 170.85, 209.35; 0.56: 130.68, 169.32, 208.52;
    # 1.7 is drawn as 1
    assert [r.get("fill") for r in rects] == [
        "rgb(255,255,255)", "rgb(33,102,172)", "rgb(233,240,247)",
        "rgb(133,171,209)", "rgb(131,169,209)", "rgb(33,102,172)",
    ]  # fmt: skip
    # each square's tooltip names its row and column and says its value
    assert [r.find(f"{SVG}title").text for r in rects] == [
        "q0 → k0: 0", "q0 → k1: 1", "q0 → k2: 0.1",
        "q1 → k0: 0.55", "q1 → k1: 0.56", "q1 → k2: 1.7",
    ]  # fmt: skip

    row_labels = [t for t in texts if t.get("text-anchor") == "end"]
    assert [(t.get("x"), t.get("y"), t.text) for t in row_labels] == [
        ("64", "51.0", "q0"),  # baseline 24 + 44 / 2 + 5
        ("64", "95.0", "q1"),
    ]
    # black ink, except on the darkest blue: white on (33, 102, 172) is 5.9 : 1, black 3.6 : 1;
    # on the 0.55 and 0.56 blues white is only 2.4 : 1, black 8.8 : 1
    assert [(t.get("x"), t.get("y"), t.text, t.get("fill")) for t in values_of(root)] == [
        ("92.0", "51.0", "0", "#000"),
        ("136.0", "51.0", "1", "#fff"),
        ("180.0", "51.0", "0.1", "#000"),
        ("92.0", "95.0", "0.55", "#000"),
        ("136.0", "95.0", "0.56", "#000"),
        ("180.0", "95.0", "1.7", "#fff"),
    ]


def test_a_heatmaps_legend_runs_from_white_at_0_to_deep_blue_at_1_under_the_grid():
    root = svg(heatmap_svg(Tensor("A", [[0.5, 0.5]], ("q",), ("k0", "k1"))))
    (legend,) = root.findall(f"{SVG}g")
    assert legend.get("class") == "hm-legend"
    # 10 px below the grid (24 + 44): at y 78, from the grid's left edge (70) in 20 px steps
    swatches = [(r.get("x"), r.get("y"), r.get("fill")) for r in legend.findall(f"{SVG}rect")]
    assert swatches == [
        ("70", "78", "rgb(255,255,255)"),
        # Python rounds a half to even: 0.25 gives 255 - 222 / 4 = 199.5, 216.75, 234.25;
        # 0.5 gives 144, 178.5, 213.5; 0.75 gives 88.5, 140.25, 192.75
        ("90", "78", "rgb(200,217,234)"),
        ("110", "78", "rgb(144,178,214)"),
        ("130", "78", "rgb(88,140,193)"),
        ("150", "78", "rgb(33,102,172)"),
    ]
    ends = [(t.get("x"), t.get("text-anchor"), t.text) for t in legend.findall(f"{SVG}text")]
    assert ends == [("64", "end", "0"), ("176", None, "1")]  # 6 px either side of the swatches
    # the legend (114 px) is wider than two squares (88): it sets the width
    assert (root.get("width"), root.get("height")) == ("184", "102")


def test_squares_are_at_least_32_px_and_wide_enough_for_their_column_labels():
    small = svg(heatmap_svg(Tensor("A & B", [[1.0]], ("q",), ("k",)), cell=10))
    assert {r.get("width") for r in children(small, "rect")} == {"32"}
    # "H1 love" is 7 characters: 7 * 12 * 0.65 = 54.6 -> 55, plus 8
    wide = svg(heatmap_svg(Tensor("A", [[0.5, 0.5]], ("I",), ("H1 love", "H2 I"))))
    assert {r.get("width") for r in children(wide, "rect")} == {"63"}
    # a CJK label counts double: "位置 我" is 2 + 1 + 2 + ... = 7 units, 55 px, so the row
    # labels' column is 55 + 12 = 67, less than 70; "pos 10 <eos>" is 12 units: 94 + 12 = 106
    labels = svg(heatmap_svg(Tensor("P", [[0.5], [0.5]], ("位置 我", "pos 10 <eos>"), ("k",))))
    assert children(labels, "rect")[0].get("x") == "106"


def test_every_heatmap_value_is_legible_on_its_square_at_wcag_aa():
    weights = [[i / 100 for i in range(101)]]
    root = svg(heatmap_svg(Tensor("w", weights, ("q",), tuple(f"k{i}" for i in range(101)))))
    squares = [r.get("fill") for r in children(root, "rect")]
    inks = [t.get("fill") for t in values_of(root)]
    assert len(squares) == len(inks) == 101
    ratios = [contrast(square, ink) for square, ink in zip(squares, inks, strict=True)]
    # 4.5 : 1 for text of 12 px; where black and white would be equal, each has sqrt(21)
    assert min(ratios) >= 4.5, min(ratios)


def contrast(one: str, other: str) -> float:
    """WCAG 2.1's contrast ratio of two colours written as "#rgb" or "rgb(r,g,b)"."""

    def luminance(colour: str) -> float:
        if colour.startswith("#"):
            channels = [int(c * 2, 16) for c in colour[1:]]
        else:
            channels = [int(c) for c in colour[4:-1].split(",")]
        srgb = [c / 255 for c in channels]
        r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in srgb)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    lighter, darker = sorted((luminance(one), luminance(other)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def test_contrast_is_computed_as_wcag_defines_it():
    # the published figures: black on white 21 : 1, #777 on white 4.48 : 1
    assert contrast("#000", "#fff") == pytest.approx(21)
    assert contrast("#777", "#fff") == pytest.approx(4.48, abs=0.01)


def test_a_heatmap_without_a_label_is_announced_by_the_tensors_name():
    root = svg(heatmap_svg(Tensor("A & B", [[1.0]], ("q",), ("k",)), cell=10))
    assert root.get("aria-label") == "A & B q: k 1"
    # 70 + the legend's 114 wide; 24 + 32 + 34 high
    assert (root.get("width"), root.get("height")) == ("184", "90")


def test_a_heatmap_figure_hides_the_picture_and_gives_its_numbers_as_a_table():
    tensor = Tensor("A", [[0.125, 0.875], [1.0, 0.0]], ("我", "I"), ("k <0>", "爱"))
    figure = ET.fromstring(str(heatmap_figure(tensor, "Weights <A>")))
    assert figure.tag == "figure" and figure.get("class") == "hm"
    picture, hidden = list(figure)
    assert hidden.get("class") == "hm-table"  # the box the stylesheet hides from view
    (table,) = list(hidden)
    # the picture is left out of the accessibility tree: the table says the same
    assert picture.get("aria-hidden") == "true" and picture.get("role") is None
    assert picture.get("aria-label") is None
    assert picture.find(f"{SVG}title").text == "Weights <A>"
    assert table.find("caption").text == "Weights <A>"
    head = table.findall("thead/tr/*")
    assert [(cell.tag, cell.get("scope"), cell.text) for cell in head] == [
        ("td", None, None),
        ("th", "col", "k <0>"),
        ("th", "col", "爱"),
    ]
    assert head[2].get("lang") == "zh-CN"  # read with a Chinese voice on an English page
    body = [[(cell.tag, cell.text) for cell in row] for row in table.findall("tbody/tr")]
    # two decimals, as the squares show them (0.125 rounds half up to 0.13)
    assert body == [
        [("th", "我"), ("td", "0.13"), ("td", "0.88")],
        [("th", "I"), ("td", "1"), ("td", "0")],
    ]
