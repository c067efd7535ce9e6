"""Every student page at a phone's size (390 x 844) and a laptop's (1280 x 800), in Chinese
and in English: the page never scrolls sideways, the header stays on one line, every answer
input can be reached and is at least 44 x 44 CSS px. And the answer grid at work: a grid
wider than the phone scrolls in its own box with its row headers in sight, the arrow keys
move between cells, a spreadsheet's copy fills it, the −∞ button fills a cell."""

from __future__ import annotations

import re
import shutil
import uuid

import numpy as np
import pytest
from browser_helpers import (
    PASSWORD,
    REPO,
    choose_language,
    issue_masked_scores,
    login,
)

from quizsvc import practice, store

try:
    from playwright.sync_api import expect
except ImportError:  # the `chromium` fixture skips (or fails under CI) with the reason
    expect = None

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
SIZES = {"phone": PHONE, "desktop": DESKTOP}
TOUCH = 44  # CSS px
WIDE = "drill-projection-wide"  # a 4 x 6 grid: wider than a phone
WIDE_DRILL = """
  - id: drill-projection-wide
    type: drill
    kind: projection
    tags: [qkv]
    prompt: {zh: 四个 token、六维的投影。, en: A projection of four tokens in six dimensions.}
    params: {n: 4, d_model: 6}
"""


@pytest.fixture(scope="module")
def app_config(tmp_path_factory) -> dict:
    content = tmp_path_factory.mktemp("layout-content") / "content"
    shutil.copytree(REPO / "content", content)
    drills = content / "transformer-by-hand" / "drills.yaml"
    drills.write_text(drills.read_text(encoding="utf-8") + WIDE_DRILL, encoding="utf-8")
    return {"CONTENT_DIR": str(content)}


@pytest.fixture(scope="module")
def learner(live_server) -> dict:
    """A student with a wide drill answered wrong once (its grid flagged), a masked scores
    drill (the −∞ buttons), and a drill solved (the marks, the solution, the heatmap)."""
    name = f"layout-{uuid.uuid4().hex[:8]}"
    bank = live_server.app.extensions["quizsvc"].bank
    with live_server.sessions() as session:
        learner_id = store.create_user(session, name=name, role="student", password=PASSWORD).id
        wide = practice.start_drill(session, bank, learner_id, WIDE, seed=5).id
        answer = practice.drill_state(session, learner_id, wide).variant.answer.values
        wrong = "\n".join(" ".join(f"{v + 1:.2f}" for v in row) for row in answer)
        practice.submit_drill(session, learner_id, wide, wrong, uuid.uuid4().hex)
        solved = practice.start_drill(session, bank, learner_id, "drill-softmax-row", seed=5).id
        answer = practice.drill_state(session, learner_id, solved).variant.answer.values
        right = " ".join(f"{v:.4f}" for v in answer[0])
        practice.submit_drill(session, learner_id, solved, right, uuid.uuid4().hex)
    masked, _ = issue_masked_scores(live_server, name)
    return {"name": name, "wide": wide, "masked": masked, "solved": solved}


def student_pages(learner: dict) -> list[str]:
    return [
        "/chapters/transformer-by-hand",
        "/drills",
        f"/variants/{learner['wide']}",
        f"/variants/{learner['masked']}",
        f"/variants/{learner['solved']}",
        "/progress",
        "/worked-example",
        "/account/password",
    ]


# the header's visible items: their boxes, and the header's
HEADER = """() => {
    const header = document.querySelector("header.site");
    const items = [...header.querySelectorAll(
        ".brand, .site-menu > summary, .site-menu > nav > a, .site-menu > nav button, #lang-toggle"
    )].filter(el => el.checkVisibility());
    return {
        header: header.getBoundingClientRect().toJSON(),
        items: items.map(el => [el.textContent.trim(), el.getBoundingClientRect().toJSON()]),
    };
}"""

# every answer field of the page: its box, and for a choice its label's
ANSWER_FIELDS = """() => [...document.querySelectorAll(
    "main input:not([type=hidden]), main textarea, main select, button.fill-minus-infinity"
)].filter(el => el.checkVisibility()).map(el => {
    const target = (el.type === "radio" || el.type === "checkbox") ? el.closest("label") : el;
    const box = target.getBoundingClientRect();
    return [el.name || el.id || el.className, box.width, box.height];
})"""


def assert_one_line_header(page, size: dict, where: str) -> None:
    found = page.evaluate(HEADER)
    header, items = found["header"], found["items"]
    assert header["height"] <= 64, (where, header)
    assert len(items) >= 2, (where, items)  # the brand and the language at least
    middle = header["top"] + header["height"] / 2
    for text, box in items:
        # each item on the bar's one line, inside the screen
        assert box["top"] >= header["top"] - 1 and box["bottom"] <= header["bottom"] + 1, (
            where,
            text,
            box,
        )
        assert abs(box["top"] + box["height"] / 2 - middle) <= 4, (where, text, box)
        assert box["left"] >= 0 and box["right"] <= size["width"], (where, text, box)


@pytest.mark.parametrize("language", ["zh", "en"])
@pytest.mark.parametrize("size_name", list(SIZES))
def test_every_student_page_fits_its_screen_with_a_one_line_header_and_big_fields(
    page, learner, language, size_name
):
    size = SIZES[size_name]
    page.set_viewport_size(size)
    choose_language(page, language)
    assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
    assert_one_line_header(page, size, "/login")
    login(page, learner["name"])
    for path in student_pages(learner):
        page.goto(path)
        where = f"{language} {size_name} {path}"
        assert page.evaluate("document.documentElement.scrollWidth") <= size["width"], where
        assert_one_line_header(page, size, where)
        for name, width, height in page.evaluate(ANSWER_FIELDS):
            assert width >= TOUCH - 0.5 and height >= TOUCH - 0.5, (where, name, width, height)
        # every cell of a grid reachable: focused, it is scrolled into the screen
        cells = page.locator("input.cell")
        for i in range(cells.count()):
            cells.nth(i).focus()
            expect(cells.nth(i)).to_be_in_viewport()
        assert page.evaluate("document.documentElement.scrollWidth") <= size["width"], where


@pytest.mark.parametrize("language", ["zh", "en"])
def test_the_drills_list_fits_two_laptop_screens_and_is_a_compact_list_on_a_phone(
    page, learner, language
):
    page.set_viewport_size(DESKTOP)
    login(page, learner["name"])
    choose_language(page, language)
    page.goto("/drills")
    height = page.evaluate("document.documentElement.scrollHeight")
    assert height <= 2 * DESKTOP["height"], height
    # a phone: rows, not cards: each drill's row as wide as the page's column, its button
    # beside its title
    page.set_viewport_size(PHONE)
    rows = page.locator("ul.drill-list > li")
    assert rows.count() >= 13
    for row in rows.all():
        box, button = row.bounding_box(), row.locator("button").bounding_box()
        title = row.locator("h3").bounding_box()
        assert box["width"] == pytest.approx(PHONE["width"] - 32, abs=1)
        assert button["y"] < title["y"] + title["height"]  # on the title's line(s)
        assert box["height"] <= 200, row.get_attribute("data-kind")


def test_the_menu_folds_on_a_phone_and_opens_without_a_script(page, learner):
    login(page, learner["name"])
    choose_language(page, "en")
    summary = page.locator("#site-menu > summary")
    progress = page.locator("header nav a", has_text="Progress")

    page.set_viewport_size(DESKTOP)
    page.goto("/drills")
    expect(summary).to_be_hidden()  # the links are the bar
    expect(progress).to_be_visible()
    expect(page.locator("header nav a[aria-current=page]")).to_have_text("Drills")

    page.set_viewport_size(PHONE)
    page.goto("/drills")
    expect(summary).to_be_visible()
    expect(summary).to_have_text("Menu")
    expect(progress).to_be_hidden()
    expect(page.locator("#lang-toggle")).to_be_visible()  # the language stays in sight
    # the keyboard opens it: the links, each a finger's height, then the page they lead to
    summary.focus()
    page.keyboard.press("Enter")
    expect(progress).to_be_visible()
    for link in page.locator("header nav a, header nav button").all():
        assert link.bounding_box()["height"] >= TOUCH - 0.5, link.text_content()
    progress.click()
    expect(page).to_have_url(re.compile(r"/progress$"))
    expect(progress).to_be_hidden()  # a new page: the menu folded again

    choose_language(page, "zh")
    expect(summary).to_have_text("菜单")


def grid_values(page, rows: int, cols: int) -> list[list[str]]:
    return [
        [page.input_value(f"input[name=cell-{r}-{c}]") for c in range(cols)] for r in range(rows)
    ]


def paste(page, cell: str, text: str) -> None:
    page.locator(f"input[name={cell}]").evaluate(
        """(el, text) => {
            const data = new DataTransfer();
            data.setData("text/plain", text);
            el.dispatchEvent(new ClipboardEvent("paste", {clipboardData: data, bubbles: true,
                                                          cancelable: true}));
        }""",
        text,
    )


def test_a_grid_wider_than_the_phone_scrolls_in_its_box_with_its_row_headers_in_sight(
    page, learner
):
    page.set_viewport_size(PHONE)
    login(page, learner["name"])
    choose_language(page, "en")
    page.goto(f"/variants/{learner['wide']}")
    grid = page.locator("table.matrix.grid")
    box = page.locator(".scroll-x", has=grid)
    assert box.evaluate("el => el.scrollWidth > el.clientWidth")  # it scrolls, in its box
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    row_header = grid.locator("tbody th").first
    left = box.bounding_box()["x"]
    assert row_header.bounding_box()["x"] == pytest.approx(left, abs=6)
    # the last column typed in: the box scrolls to it, the row's header stays at its edge
    last = page.locator("input[name=cell-0-5]")
    last.focus()
    expect(last).to_be_in_viewport()
    assert box.evaluate("el => el.scrollLeft") > 0
    assert row_header.bounding_box()["x"] == pytest.approx(left, abs=6)
    expect(row_header).to_be_in_viewport()
    # and the header stays above the cells, not under them
    top = page.evaluate(
        "([x, y]) => document.elementFromPoint(x, y).closest('th') !== null",
        [left + 4, row_header.bounding_box()["y"] + 8],
    )
    assert top


def test_the_arrow_keys_move_between_cells_as_in_a_spreadsheet(page, learner):
    login(page, learner["name"])
    choose_language(page, "en")
    page.goto(f"/variants/{learner['wide']}")
    first = page.locator("input[name=cell-0-0]")
    first.fill("1.5")
    first.focus()
    page.keyboard.press("End")
    page.keyboard.press("ArrowRight")  # the caret at the value's end: on to the next cell
    expect(page.locator("input[name=cell-0-1]")).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(page.locator("input[name=cell-1-1]")).to_be_focused()
    page.keyboard.type("23")  # replaces the selected value
    page.keyboard.press("ArrowLeft")  # within the value: the caret moves, not the focus
    expect(page.locator("input[name=cell-1-1]")).to_be_focused()
    page.keyboard.press("Home")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("input[name=cell-1-0]")).to_be_focused()
    page.keyboard.press("ArrowUp")
    expect(first).to_be_focused()
    page.keyboard.press("ArrowUp")  # the top edge: nowhere to go
    expect(first).to_be_focused()
    assert page.input_value("input[name=cell-1-1]") == "23"
    page.keyboard.press("Tab")  # Tab goes on to the next cell too
    expect(page.locator("input[name=cell-0-1]")).to_be_focused()


def test_a_spreadsheets_copy_pasted_into_any_cell_fills_the_grid(page, learner):
    login(page, learner["name"])
    choose_language(page, "en")
    page.goto(f"/variants/{learner['wide']}")
    rows = [[f"{r}.{c}" for c in range(6)] for r in range(4)]
    copied = "\r\n".join("\t".join(row) for row in rows) + "\r\n"  # as a spreadsheet copies
    paste(page, "cell-2-3", copied)
    assert grid_values(page, 4, 6) == rows
    # a decimal comma between tabs is one cell's (the server says how to write it)
    paste(page, "cell-0-0", "0,5\t1,5")
    assert grid_values(page, 1, 3)[0] == ["0,5", "1,5", "0.2"]
    # the paste box: a matrix of another shape stays there, and the page says both shapes
    box = page.locator("textarea[name=pasted]")
    box.fill("1 2\n3 4")
    box.blur()
    expect(page.locator(".paste-status")).to_have_text(
        "Not copied into the grid: the matrix in the box is 2 × 2, the grid is 4 × 6."
    )
    assert box.input_value() == "1 2\n3 4"


def test_the_minus_infinity_button_fills_its_cell_by_touch_or_keyboard(page, live_server, learner):
    page.set_viewport_size(PHONE)
    login(page, learner["name"])
    choose_language(page, "en")
    variant_id, scores = issue_masked_scores(live_server, learner["name"])
    page.goto(f"/variants/{variant_id}")
    buttons = page.locator("button.fill-minus-infinity")
    expect(buttons).to_have_count(scores.size)
    for i in range(scores.size):
        expect(buttons.nth(i)).to_be_visible()
        expect(buttons.nth(i)).to_have_text("−∞")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    masked = [c for c, v in enumerate(scores[0]) if np.isneginf(v)]
    for c, value in enumerate(scores[0]):
        if c not in masked:
            page.fill(f"input[name=cell-0-{c}]", f"{value:.2f}")
    # the first by a tap, the others by the keyboard (Tab from the cell, then Enter)
    expect(buttons.nth(masked[0])).to_have_accessible_name(re.compile(r"^−∞ into \S"))
    buttons.nth(masked[0]).click()
    assert page.input_value(f"input[name=cell-0-{masked[0]}]") == "−∞"
    for c in masked[1:]:
        page.locator(f"input[name=cell-0-{c}]").focus()
        page.keyboard.press("Tab")
        expect(buttons.nth(c)).to_be_focused()
        page.keyboard.press("Enter")
        assert page.input_value(f"input[name=cell-0-{c}]") == "−∞"
    with page.expect_navigation():
        page.click("#answer-form button[type=submit]")
    expect(page.locator(".attempt")).to_have_text(["Attempt 1: score 100%"])
