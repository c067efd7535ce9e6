"""A chapter's schedule in a browser: the chapter page states when the quiz opens and
closes, its time limit and late policy before the student starts; "Start the quiz" shows
the questions with the time left counting down; the drills page says when the drills open.
Screenshots of the chapter page at phone and desktop widths, in both languages, land in
pytest's temporary directory."""

from __future__ import annotations

import re
import shutil
from datetime import UTC, datetime, timedelta

import pytest
from browser_helpers import PASSWORD, REPO, choose_language, login
from sqlalchemy import select
from test_browser_accessibility import Audit

from quizsvc import store

try:
    from playwright.sync_api import expect
except ImportError:  # the `chromium` fixture skips (or fails under CI) with the reason
    expect = None

NOW = datetime.now(UTC).replace(second=0, microsecond=0)
OPENS, CLOSES = NOW - timedelta(days=1), NOW + timedelta(days=6)
DRILLS_OPEN = NOW + timedelta(days=2)


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def english_when(moment: datetime) -> str:
    return f"{moment:%b} {moment.day}, {moment.year}, {moment:%H:%M}"


def zh_when(moment: datetime) -> str:
    return f"{moment.year}年{moment.month}月{moment.day}日 {moment:%H:%M}"


SCHEDULE = f"""
quiz:
  opens: {iso(OPENS)}
  closes: {iso(CLOSES)}
  time_limit: 30
  late:
    policy: penalty
    penalty: 0.2
drills:
  opens: {iso(DRILLS_OPEN)}
"""


@pytest.fixture(scope="module")
def app_config(tmp_path_factory) -> dict:
    content = tmp_path_factory.mktemp("deadline-content") / "content"
    shutil.copytree(REPO / "content", content)
    chapter = content / "transformer-by-hand" / "chapter.yaml"
    chapter.write_text(chapter.read_text(encoding="utf-8") + SCHEDULE, encoding="utf-8")
    return {"CONTENT_DIR": str(content)}


def test_the_deadline_messages_are_shown_before_starting_and_the_start_shows_the_clock(
    page, student, tmp_path_factory
):
    shots = tmp_path_factory.mktemp("deadline-screenshots")
    login(page, student)
    choose_language(page, "en")
    schedule = page.locator("#schedule")
    expect(schedule).to_contain_text(f"Opens: {english_when(OPENS)} UTC.")
    expect(schedule).to_contain_text(f"Closes: {english_when(CLOSES)} UTC.")
    expect(schedule).to_contain_text(
        "Time limit: 30 minutes, counted from when you start the quiz."
    )
    expect(schedule).to_contain_text("Late answers are accepted, with 20% taken off their score.")
    expect(page.locator("section.question")).to_have_count(0)
    for width in (390, 1280):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(shots / f"before-start-en-{width}.png"), full_page=True)
    choose_language(page, "zh")
    expect(schedule).to_contain_text(f"开放：{zh_when(OPENS)}（UTC）。")
    expect(schedule).to_contain_text("限时：30 分钟，从你开始测验时计算。")
    for width in (390, 1280):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(shots / f"before-start-zh-{width}.png"), full_page=True)

    with page.expect_navigation():
        page.get_by_role("button", name="开始测验").click()
    expect(page.locator("section.question").first).to_be_visible()
    expect(page.get_by_role("button", name="开始测验")).to_have_count(0)
    clock = page.locator("#time-left .clock")
    expect(clock).to_have_text(re.compile(r"^(29:[0-5]\d|30:00)$"))
    first = clock.inner_text()
    expect(clock).not_to_have_text(first, timeout=3000)  # counted down in the page
    for width in (390, 1280):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(shots / f"started-zh-{width}.png"), full_page=True)

    question = page.locator("#q-qkv-origin")
    question.locator("input[value=B]").check()
    with page.expect_navigation():
        question.get_by_role("button").click()
    expect(page.locator("#q-qkv-origin")).to_have_attribute("data-status", "answered")
    choose_language(page, "en")
    for width in (390, 1280):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(shots / f"started-en-{width}.png"), full_page=True)


def test_the_drills_page_says_when_the_drills_open(page, student):
    login(page, student)
    choose_language(page, "zh")
    page.goto("/drills")
    expect(page.locator("#drills-schedule-1-notice")).to_have_text(
        f"尚未开放：开放时间为 {zh_when(DRILLS_OPEN)}（UTC）。"
    )


@pytest.mark.parametrize("language", ["zh", "en"])
def test_the_schedule_s_pages_are_axe_clean(live_server, page, axe, student, language):
    """The chapter page before and after the start, the drills page not open yet, and the
    instructor's student page with its extension form, at desktop and phone widths."""
    audit = Audit(axe, page, language)
    login(page, student)
    choose_language(page, language)
    audit.visit("/chapters/transformer-by-hand", "chapter before the start")
    audit.visit("/drills", "drills not open yet")
    with page.expect_navigation():
        page.goto("/chapters/transformer-by-hand")
        page.locator("#start-quiz").click()
    audit.check("chapter after the start")
    teacher = f"teacher-{student}-{language}"
    with live_server.sessions() as session:
        store.create_user(session, name=teacher, role="instructor", password=PASSWORD)
        learner = session.scalar(select(store.User.id).where(store.User.name == student))
    page.context.clear_cookies()
    login(page, teacher)
    choose_language(page, language)
    audit.visit(f"/instructor/students/{learner}", "student page with extensions")
    audit.assert_clean()
