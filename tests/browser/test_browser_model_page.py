"""The model page and the worked example with the trained model's numbers in a browser, at a
phone's width and a desktop's, in zh and en: no horizontal scroll of the page (the wide tables
scroll inside their own boxes), the loss curve and the heatmaps within the screen, axe-core
clean."""

from __future__ import annotations

import os

import pytest
from browser_helpers import choose_language, login
from test_browser_worked_example import AXE_OPTIONS, DESKTOP, PHONE

PAGES = ("/model", "/worked-example?model=trained")
SHOTS = os.environ.get("MODEL_PAGE_SCREENSHOTS")  # a folder to save each page's screenshot in


def settle(page) -> None:
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => setTimeout(r)))")


@pytest.mark.parametrize("path", PAGES)
@pytest.mark.parametrize("language", ["zh", "en"])
def test_no_horizontal_scroll_and_no_axe_violations(page, axe, student, language, path):
    login(page, student)
    choose_language(page, language)
    page.goto(path)
    if page.locator("details.we-given summary").count():
        page.locator("details.we-given summary").first.click()  # a 32 × 32 weight open
    found = []
    for size in (PHONE, DESKTOP):
        page.set_viewport_size(size)
        settle(page)
        assert page.evaluate("document.documentElement.scrollWidth") <= size["width"], size
        for picture in page.locator("svg.loss-chart, svg.heatmap").all()[:8]:
            drawn = picture.bounding_box()
            assert drawn["x"] >= 0 and drawn["x"] + drawn["width"] <= size["width"] + 0.5
        if SHOTS:
            name = f"{path.strip('/').replace('?', '-').replace('=', '-')}-{language}"
            page.screenshot(path=f"{SHOTS}/{name}-{size['width']}.png", full_page=True)
        for violation in axe.run(page, options=AXE_OPTIONS).response["violations"]:
            found += [(size["width"], violation["id"], n["html"][:120]) for n in violation["nodes"]]
    assert found == []


def test_the_switch_and_the_navigation_lead_to_the_trained_model(page, student):
    page.set_viewport_size(DESKTOP)
    login(page, student)
    choose_language(page, "en")
    page.goto("/worked-example")
    page.locator("nav.we-switch a", has_text="The trained model").click()
    assert page.url.endswith("/worked-example?model=trained")
    current = page.locator("nav.we-switch a[aria-current=page]")
    assert current.inner_text() == "The trained model"
    assert page.locator("#errata").count() == 0  # the chapter's misprints only on its view
    page.locator("header.site nav a", has_text="The model").click()
    assert page.url.endswith("/model")
    assert page.locator("header.site nav a[aria-current=page]").inner_text() == "The model"
