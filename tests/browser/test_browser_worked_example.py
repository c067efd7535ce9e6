"""The worked example in a browser, at a phone's width and a desktop's, in zh and en: the
chapter's misprints shown on a marker's focus and hover, whole inside their table's box; the
contents' links; the formulas within the screen; axe-core clean with the Errata section open."""

from __future__ import annotations

import pytest
from browser_helpers import choose_language, login

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
AXE_OPTIONS = {
    "runOnly": {
        "type": "tag",
        "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"],
    },
    "resultTypes": ["violations"],
}


def box(locator) -> dict:
    return locator.bounding_box()


def inside(inner: dict, outer: dict) -> bool:
    return (
        inner["x"] >= outer["x"] - 0.5
        and inner["y"] >= outer["y"] - 0.5
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 0.5
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + 0.5
    )


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
@pytest.mark.parametrize("language", ["zh", "en"])
def test_a_markers_note_shows_on_focus_and_hover_inside_its_box(page, student, size, language):
    page.set_viewport_size(size)
    login(page, student)
    choose_language(page, language)
    page.goto("/worked-example")
    assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
    printed = "本章印为" if language == "zh" else "The chapter prints"
    # K's row 爱: every column misprinted, so the first and the last column's notes too
    k = page.locator("#step-qkv .we-matrices .we-matrix").nth(1)  # Q, K, V after the weights
    markers = k.locator("button.we-mark")
    assert markers.count() == 6
    for index in (0, 3):  # 爱's d0 and d3
        marker = markers.nth(index)
        tip = marker.locator(".we-tip")
        assert box(tip)["width"] <= 1  # hidden until asked for
        marker.focus()
        shown = box(tip)
        assert shown["width"] > 40 and tip.inner_text().startswith(printed)
        assert inside(shown, box(k)), (index, shown, box(k))  # not cut off by the box
        page.locator("h1").hover()
        page.keyboard.press("Tab")  # focus moves on: the note goes
        marker.blur()
        assert box(tip)["width"] <= 1
    markers.nth(1).hover()
    assert box(markers.nth(1).locator(".we-tip"))["width"] > 40


def test_the_keyboard_reaches_the_markers_in_order(page, student):
    login(page, student)
    page.goto("/worked-example")
    first = page.locator("button.we-mark").first
    first.focus()
    page.keyboard.press("Tab")
    focused = page.evaluate("document.activeElement.className")
    assert focused == "we-mark"  # Q's 你, d0 after 爱, d0


def test_the_contents_link_every_step(page, student):
    page.set_viewport_size(PHONE)
    login(page, student)
    page.goto("/worked-example")
    links = page.locator("nav.we-toc a")
    targets = [links.nth(i).get_attribute("href") for i in range(links.count())]
    assert targets[-1] == "#errata"
    for target in targets[:-1]:
        assert page.locator(f"section{target} h3").count() == 1, target
    page.locator("nav.we-toc a[href='#step-cross-attention']").click()
    heading = page.locator("#step-cross-attention h3")
    assert heading.is_visible() and 0 <= box(heading)["y"] < PHONE["height"]
    # every formula fits the phone: none needs its box to scroll
    overflowing = page.evaluate(
        "[...document.querySelectorAll('.we-formulas')]"
        ".filter(e => e.scrollWidth > e.clientWidth).length"
    )
    assert overflowing == 0


@pytest.mark.parametrize("language", ["zh", "en"])
def test_the_page_has_no_axe_violations_with_its_errata_open(page, axe, student, language):
    login(page, student)
    choose_language(page, language)
    page.goto("/worked-example")
    page.locator("details.we-errata summary").click()
    page.locator("details.we-given summary").first.click()
    assert page.locator("details.we-errata").get_attribute("open") is not None
    found = []
    for size in (DESKTOP, PHONE):
        page.set_viewport_size(size)
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => setTimeout(r)))")
        for violation in axe.run(page, options=AXE_OPTIONS).response["violations"]:
            found += [(size["width"], violation["id"], n["html"][:120]) for n in violation["nodes"]]
    assert found == []
