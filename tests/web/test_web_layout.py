"""Layout that a phone needs, as the server writes it: every wide table in a box of its own
that scrolls sideways (a focusable region with a name, the WAI pattern for scrollable regions),
not a table turned `display: block`. (tests/browser measures the pages' widths.)"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import unquote

from web_helpers import user_id

from quizsvc import practice

TEMPLATES = Path(__file__).resolve().parents[2] / "quizsvc" / "web" / "templates"
CHAPTER_URL = "/chapters/transformer-by-hand"

# the box written by _scroll.html's scroll_box, then the table's opening tag
BOXED_TABLE = re.compile(
    r'<div class="table-scroll" role="region" tabindex="0" aria-label="([^"]*)">'
    r'<table class="[^"]*" id="([^"]+)">'
)


def boxed_tables(html: str) -> dict[str, str]:
    """Each table's id and its box's name; the page's every table is in a box."""
    boxes = {table: label for label, table in BOXED_TABLE.findall(html)}
    assert len(boxes) == html.count("<table"), "a table outside a scroll box"
    return boxes


def test_the_learners_and_instructors_tables_scroll_in_named_boxes(app, browser_for, sessions):
    alice = browser_for("alice")
    alice.get(CHAPTER_URL)
    assert alice.post(f"{CHAPTER_URL}/questions/qkv-origin", {"choice": "B"}).status_code == 302
    text = {"text": "Each head has its own weights."}  # an open answer, for the instructor's list
    assert alice.post(f"{CHAPTER_URL}/questions/why-multi-head", text).status_code == 302
    bank = app.extensions["quizsvc"].bank
    learner = user_id(sessions, "alice")
    with sessions() as session:
        issued = practice.start_drill(session, bank, learner, "drill-softmax-row", seed=7)
        practice.submit_drill(session, learner, issued.id, "0.6096 0.1661 0.2243", "key-1")
    alice.post("/lang/en")
    assert boxed_tables(alice.get("/progress").text) == {"skills": "Progress per skill"}
    alice.post("/lang/zh")
    assert boxed_tables(alice.get("/progress").text) == {"skills": "各技能进度"}

    ines = browser_for("ines")
    ines.post("/lang/en")
    assert boxed_tables(ines.get(f"/instructor/students/{learner}").text) == {
        "skills": "Progress per skill",
        "open-answers": "Open answers",
    }
    # the printable report is in the student's language: alice chose Chinese last
    assert boxed_tables(ines.get(f"/instructor/students/{learner}/report").text) == {
        "chapter-answers": "章节题目的作答",
        "report-skills": "掌握度",
        "drill-history": "练习记录",
    }
    assert boxed_tables(ines.get("/instructor/students").text) == {"roster": "Students"}
    assert boxed_tables(ines.get("/instructor/reports").text) == {
        "item-statistics": "Item statistics"
    }
    assert boxed_tables(ines.get("/instructor/content").text) == {
        "chapters": "Chapters",
        "questions": "Questions",
    }


def test_every_table_in_the_progress_and_instructor_templates_is_in_a_scroll_box():
    # the pages above do not show every table (content errors, self-test results, the
    # preview's choice scores and rubric): their templates are read instead
    templates = [TEMPLATES / "_progress.html", *sorted((TEMPLATES / "instructor").glob("*.html"))]
    unboxed = []
    for template in templates:
        text = template.read_text(encoding="utf-8")
        for match in re.finditer(r"<table\b", text):
            if not re.search(r"\{% call scroll_box\(_\('[^']+'\)\) %\}$", text[: match.start()]):
                unboxed.append(template.name)
        assert text.count("{% call scroll_box(") == text.count("<table"), template.name
    assert unboxed == []
    # at least the twelve the instructor's pages and the progress page hold
    assert sum(t.read_text(encoding="utf-8").count("<table") for t in templates) >= 12


def test_no_table_is_turned_into_a_block_on_a_phone():
    css = (TEMPLATES.parent / "static" / "style.css").read_text(encoding="utf-8")
    # old Safari drops a table's semantics with display: block; the boxes scroll instead
    assert not re.search(r"table[^{}]*\{[^}]*display:\s*block", css)
    box = re.search(r"\.matrix-scroll, \.table-scroll \{([^}]*)\}", css).group(1)
    assert "overflow-x: auto" in box and "max-width: 100%" in box


def test_every_page_starts_with_a_skip_link_to_main_and_an_inline_icon(browser_for):
    alice = browser_for("alice")
    alice.post("/lang/en")
    page = alice.get("/drills").text
    body = page[page.index("<body>") + len("<body>") :]
    # the first link of the page, before the navigation's
    first_link = re.search(r"<a [^>]*>[^<]*</a>", body).group(0)
    assert first_link == '<a class="skip-link" href="#main">Skip to content</a>'
    assert '<main id="main" tabindex="-1">' in page
    alice.post("/lang/zh")
    assert '<a class="skip-link" href="#main">跳到正文</a>' in alice.get("/drills").text

    # the icon is in the page, so no browser asks for /favicon.ico; its markup escaped, so a
    # page shows no "<svg" it does not draw (tests/web/test_web_security.py looks for one)
    icon = re.search(
        r'<link rel="icon" type="image/svg\+xml" href="data:image/svg\+xml,([^"]+)">', page
    )
    assert icon and "<" not in icon.group(1) and "#" not in icon.group(1)
    root = ET.fromstring(unquote(icon.group(1)))
    assert (root.tag, root.get("viewBox")) == ("{http://www.w3.org/2000/svg}svg", "0 0 16 16")
    fills = [rect.get("fill") for rect in root]
    assert fills == ["#1f3b5c", "#fff", "#92c5de", "#92c5de", "#fff"]
    # the login page, for one not signed in, has both too
    login = browser_for().get("/login").text
    assert 'class="skip-link"' in login and 'rel="icon"' in login


def test_every_page_has_a_meta_description_in_its_language(browser_for):
    alice = browser_for("alice")
    description = re.compile(r'<meta name="description" content="([^"]+)">')
    alice.post("/lang/en")
    for path in ("/drills", "/progress", CHAPTER_URL):
        found = description.findall(alice.get(path).text)
        assert len(found) == 1 and found[0].startswith("Work through the Transformer by hand"), path
    assert description.search(browser_for().get("/login").text)
    alice.post("/lang/zh")
    assert description.findall(alice.get("/drills").text)[0].startswith("手算 Transformer：")
