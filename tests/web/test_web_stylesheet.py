"""The stylesheet's palette, light and dark, meets WCAG 2.1 AA: 4.5 : 1 for every text colour
on the backgrounds it is used on, 3 : 1 for input borders and the focus ring; and it loads
nothing from elsewhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

CSS = (Path(__file__).resolve().parents[2] / "quizsvc" / "web" / "static" / "style.css").read_text(
    encoding="utf-8"
)

# (foreground, background) as the stylesheet pairs them
TEXT_PAIRS = [
    ("text", "bg"),
    ("text", "surface"),
    ("text", "mark-bg"),
    ("muted", "bg"),
    ("muted", "surface"),
    ("muted", "surface-2"),
    ("link", "bg"),
    ("link", "surface"),
    ("accent-text", "accent"),
    ("accent-text", "accent-hover"),
    ("header-text", "header-bg"),
    ("right-text", "right-bg"),
    ("wrong-text", "wrong-bg"),
    ("wrong-text", "surface"),
    ("warn-text", "warn-bg"),
    ("info-text", "info-bg"),
    ("bg", "wrong-text"),  # a wrong cell's ✗ badge
]
NON_TEXT_PAIRS = [("border-strong", "bg"), ("focus", "bg"), ("header-focus", "header-bg")]


def custom_properties(block_start: str) -> dict[str, str]:
    start = CSS.index(block_start)
    block = CSS[start : CSS.index("}", start)]
    return dict(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{6})\b", block))


LIGHT = custom_properties(":root {")
PALETTES = {
    "light": LIGHT,
    "dark": {**LIGHT, **custom_properties("(prefers-color-scheme: dark)")},
}


def luminance(colour: str) -> float:
    def linear(channel: int) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(int(colour[i : i + 2], 16)) for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_contrast_of_known_colours_is_computed_as_wcag_does():
    assert contrast("#000000", "#ffffff") == pytest.approx(21)
    assert contrast("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)


@pytest.mark.parametrize("scheme", list(PALETTES))
def test_every_text_colour_meets_aa_on_its_background(scheme):
    palette = PALETTES[scheme]
    low = {
        (fg, bg): round(contrast(palette[fg], palette[bg]), 2)
        for fg, bg in TEXT_PAIRS
        if contrast(palette[fg], palette[bg]) < 4.5
    }
    assert low == {}
    low = {
        (fg, bg): round(contrast(palette[fg], palette[bg]), 2)
        for fg, bg in NON_TEXT_PAIRS
        if contrast(palette[fg], palette[bg]) < 3
    }
    assert low == {}


def test_the_dark_scheme_sets_every_colour_the_light_one_does():
    dark = custom_properties("(prefers-color-scheme: dark)")
    assert set(dark) == set(LIGHT)


def test_nothing_is_loaded_from_elsewhere_and_the_font_stack_covers_chinese():
    assert not re.search(r"@import|url\(\s*['\"]?(https?:)?//", CSS)
    assert "@font-face" not in CSS
    font = re.search(r"--font:([^;]+);", CSS).group(1)
    for family in ('"Noto Sans CJK SC"', '"PingFang SC"', '"Microsoft YaHei"', "sans-serif"):
        assert family in font
