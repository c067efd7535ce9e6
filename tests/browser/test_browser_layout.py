"""Pages on a phone (390 x 844 CSS pixels) with everything a learner and an instructor see
once there is work to show: no page wider than the screen, the wide tables scrolling in their
own boxes (by keyboard too), the charts scaled down with every label inside its picture; and
the skip link."""

from __future__ import annotations

import re
import uuid

import pytest
from browser_helpers import PASSWORD, choose_language, login, work_through_the_course
from sqlalchemy import select

from quizsvc import practice, store

try:
    from playwright.sync_api import expect
except ImportError:  # the `chromium` fixture skips (or fails under CI) with the reason
    expect = None

PHONE = {"width": 390, "height": 844}
UNFINISHED = "drill-multi-head"  # its answer grid stays on the page


@pytest.fixture(scope="module")
def worked(live_server) -> dict:
    return work_through_the_course(live_server, "busy", unfinished=UNFINISHED)


def page_width(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth")


def test_no_learners_page_is_wider_than_a_phone(page, worked):
    page.set_viewport_size(PHONE)
    login(page, worked["student"])
    paths = ["/chapters/transformer-by-hand", "/drills", "/progress", "/worked-example"]
    paths += [f"/variants/{v}" for v in worked["variants"].values()]
    for language in ("en", "zh"):
        choose_language(page, language)
        for path in paths:
            page.goto(path)
            assert page_width(page) <= PHONE["width"], (language, path)


def test_no_instructors_page_is_wider_than_a_phone(page, worked):
    page.set_viewport_size(PHONE)
    login(page, worked["instructor"])
    student = worked["id"]
    for path in (
        "/instructor/",
        "/instructor/content",
        "/instructor/preview?question=drill-teacher-forcing-loss",
        "/instructor/preview?question=why-multi-head",
        "/instructor/selftest",
        "/instructor/reviews",
        "/instructor/students",
        f"/instructor/students/{student}",
        f"/instructor/students/{student}/report",
        "/instructor/reports",
    ):
        page.goto(path)
        assert page_width(page) <= PHONE["width"], path
    page.goto("/instructor/selftest")
    page.click("#run-selftest")
    expect(page.locator("#selftest-results")).to_be_visible()
    assert page_width(page) <= PHONE["width"]


# every <text> of each chart, in the chart's own units, against its viewBox
LABELS_OUTSIDE = """() => [...document.querySelectorAll("svg.chart")].flatMap(svg => {
    const box = svg.viewBox.baseVal;
    return [...svg.querySelectorAll("text")]
        .map(text => [text.textContent, text.getBBox()])
        .filter(([, b]) => b.x < 0 || b.x + b.width > box.width || b.y < 0
                           || b.y + b.height > box.height)
        .map(([label, b]) => `${label}: ${b.x}..${b.x + b.width} of ${box.width}`);
})"""


def test_the_progress_charts_fit_the_phone_with_every_label_whole(page, worked):
    page.set_viewport_size(PHONE)
    login(page, worked["student"])
    choose_language(page, "en")
    page.goto("/progress")
    charts = page.locator("svg.chart")
    expect(charts).to_have_count(2)
    for i in range(2):
        box = charts.nth(i).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        # drawn 420 wide, scaled to the column (390 - 2 x 16): the text with it, by 358 / 420
        assert box["width"] == pytest.approx(358, abs=1)
    assert page.evaluate(LABELS_OUTSIDE) == []
    bar_labels = charts.nth(0).locator("text[text-anchor=end]").all_text_contents()
    assert "Teacher forcing and the loss" in bar_labels  # as long as an English skill gets
    # the line chart's axis, in percent, and the titles shown above the charts
    axis = charts.nth(1).locator("text").all_text_contents()
    assert axis == ["100%", "50%", "0%"]
    expect(page.locator("figure.chart figcaption")).to_have_text(
        ["Mastery per skill (0 to 100 %)", "Your recent scores, oldest first (0 to 100 %)"]
    )
    # the skills table scrolls in its box, the page does not; the box is named
    box = page.get_by_role("region", name="Progress per skill")
    assert box.evaluate("el => el.scrollWidth > el.clientWidth")
    choose_language(page, "zh")
    page.goto("/progress")
    assert page.evaluate(LABELS_OUTSIDE) == []
    assert page_width(page) <= PHONE["width"]


def test_a_wide_matrix_scrolls_in_its_box_by_keyboard_with_its_row_headers_on_one_line(
    page, worked
):
    page.set_viewport_size(PHONE)
    login(page, worked["student"])
    choose_language(page, "en")
    page.goto(f"/variants/{worked['variants']['drill-teacher-forcing-loss']}")
    assert page_width(page) <= PHONE["width"]
    # the model's distribution P over the vocabulary: wider than the phone
    box = page.get_by_role("region", name="P", exact=True).first
    assert box.evaluate("el => el.scrollWidth > el.clientWidth")
    assert box.evaluate("el => el.getBoundingClientRect().right") <= PHONE["width"]
    # a row header ("pos 0 → I") is one line high: as high as a row of numbers
    header = box.locator("tbody th").first.bounding_box()
    cell = box.locator("tbody td").first.bounding_box()
    assert header["height"] == pytest.approx(cell["height"], abs=1)
    # focused, the arrow key scrolls it
    assert box.evaluate("el => el.scrollLeft") == 0
    box.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("el => el.scrollLeft > 0", arg=box.element_handle())


def test_only_a_box_with_something_to_scroll_is_a_keyboard_stop(page, worked):
    page.set_viewport_size(PHONE)
    login(page, worked["student"])
    choose_language(page, "en")
    page.goto(f"/variants/{worked['variants']['drill-teacher-forcing-loss']}")
    boxes = page.locator(".matrix-scroll")
    stops = boxes.evaluate_all(
        "els => els.map(el => [el.scrollWidth > el.clientWidth, el.getAttribute('tabindex')])"
    )
    assert (True, "0") in {tuple(s) for s in stops}  # P: wider than the phone
    assert all((tabindex == "0") == overflows for overflows, tabindex in stops), stops
    # on a wide screen P fits too, and no box is a stop any more
    page.set_viewport_size({"width": 1280, "height": 800})
    p_box = page.get_by_role("region", name="P", exact=True).first
    page.wait_for_function("el => !el.hasAttribute('tabindex')", arg=p_box.element_handle())
    assert boxes.evaluate_all("els => els.filter(el => el.hasAttribute('tabindex')).length") == 0


def test_the_first_tab_shows_the_skip_link_which_jumps_past_the_navigation(page, worked):
    login(page, worked["student"])
    choose_language(page, "en")
    page.goto("/drills")
    skip = page.locator("a.skip-link")
    assert skip.bounding_box()["y"] < 0  # out of sight until focused
    page.keyboard.press("Tab")
    expect(skip).to_be_focused()
    expect(skip).to_have_text("Skip to content")
    expect(skip).to_be_in_viewport()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/drills#main$"))
    expect(page.locator("main")).to_be_focused()
    page.keyboard.press("Tab")  # on from the main content, not the navigation
    focused = page.evaluate("document.activeElement.closest('main') !== null")
    assert focused


def test_a_reviewers_comment_keeps_its_line_breaks_and_the_score_shows_as_typed(live_server, page):
    name, teacher = f"reviewed-{uuid.uuid4().hex[:8]}", f"reviewer-{uuid.uuid4().hex[:8]}"
    bank = live_server.app.extensions["quizsvc"].bank
    comment = "Good start.\nNow say why each head has its own W_q."
    with live_server.sessions() as session:
        store.create_user(session, name=name, role="student", password=PASSWORD)
        store.create_user(session, name=teacher, role="instructor", password=PASSWORD)
        learner = session.scalar(select(store.User.id).where(store.User.name == name))
        reviewer = session.scalar(select(store.User.id).where(store.User.name == teacher))
        text = "Each head has its own weights."
        practice.answer_question(session, bank, learner, "why-multi-head", "k", text=text)
        [answer_id] = session.scalars(
            select(store.QuizAnswer.id).where(store.QuizAnswer.learner_id == learner)
        ).all()
        store.record_review(
            session,
            answer_id=answer_id,
            reviewer_id=reviewer,
            confirmed_score=0.75,
            comment=comment,
        )

    def line_count(locator) -> int:
        return locator.evaluate(
            "el => Math.round(el.getBoundingClientRect().height"
            " / parseFloat(getComputedStyle(el).lineHeight))"
        )

    login(page, name)
    choose_language(page, "en")
    page.goto("/chapters/transformer-by-hand")
    shown = page.locator("#q-why-multi-head p.comment")
    expect(shown).to_have_text(f"Comment: {comment}")
    assert line_count(shown) == 2  # two lines on a desktop: the break, not the width

    page.context.clear_cookies()
    login(page, teacher)
    choose_language(page, "en")
    page.goto(f"/instructor/reviews/{answer_id}")
    entry = page.locator("li[data-review]")
    expect(entry).to_contain_text(": 75%")
    assert line_count(entry.locator("q.review-comment")) == 2


# every <text> of each heatmap outside its viewBox, and the squares' drawn sizes in CSS px
HEATMAP_LAYOUT = """() => [...document.querySelectorAll("svg.heatmap")].map(svg => {
    const box = svg.viewBox.baseVal;
    const outside = [...svg.querySelectorAll("text")]
        .map(text => [text.textContent, text.getBBox()])
        .filter(([, b]) => b.x < 0 || b.x + b.width > box.width || b.y < 0
                           || b.y + b.height > box.height)
        .map(([label]) => label);
    const squares = [...svg.querySelectorAll(":scope > rect")].map(r => r.getBoundingClientRect());
    const picture = svg.getBoundingClientRect();
    return {outside, left: picture.left, right: picture.right,
            smallest: Math.min(...squares.map(r => Math.min(r.width, r.height))),
            scale: picture.width / box.width};
})"""
HEATMAP_DRILLS = ("drill-softmax-row", "drill-masked-row", "drill-cross-attention-row")


@pytest.mark.parametrize("width", [390, 1280])
def test_a_heatmap_fits_the_screen_with_its_labels_legend_and_a_table(page, worked, width):
    page.set_viewport_size({"width": width, "height": 844 if width == 390 else 800})
    login(page, worked["student"])
    for language in ("en", "zh"):
        choose_language(page, language)
        for drill in HEATMAP_DRILLS:
            page.goto(f"/variants/{worked['variants'][drill]}")
            (heatmap,) = page.evaluate(HEATMAP_LAYOUT)
            assert heatmap["outside"] == [], (drill, language)
            assert heatmap["left"] >= 0 and heatmap["right"] <= width, (drill, heatmap)
            # a square is drawn at least 32 px, or the picture is scaled down to its box
            assert heatmap["smallest"] >= 32 or heatmap["scale"] < 1, (drill, heatmap)
            if width == 1280:
                assert heatmap["smallest"] >= 32, (drill, heatmap)
            assert page_width(page) <= width, (drill, language)
            figure = page.locator("figure.hm")
            expect(figure.locator("svg.heatmap g.hm-legend rect")).to_have_count(5)
            # the numbers as a table, for screen readers: in the accessibility tree, not in view
            expect(figure.get_by_role("table")).to_have_count(1)
            assert figure.locator(".hm-table").bounding_box()["width"] <= 1


@pytest.mark.parametrize("width", [390, 1280])
def test_the_formulas_of_a_drill_are_drawn_as_mathml(page, worked, width):
    page.set_viewport_size({"width": width, "height": 844 if width == 390 else 800})
    login(page, worked["student"])
    choose_language(page, "en")
    page.goto(f"/variants/{worked['variants']['drill-score-row']}")
    task = page.locator(".task")
    # q K^T / sqrt(d_k) and sqrt(d_k): drawn by the browser, a root sign over d_k, each
    # formula's LaTeX kept as its text alternative
    roots = task.locator("math msqrt")
    expect(roots).to_have_count(2)
    assert all(roots.nth(i).bounding_box()["width"] > 10 for i in range(2))
    alternatives = task.locator("math").evaluate_all("ms => ms.map(m => m.getAttribute('alttext'))")
    assert r"q K^\top / \sqrt{d_k}" in alternatives
    assert page_width(page) <= width
