"""The instructor's start page in a browser: the class's figures, and links from each to its
details."""

from __future__ import annotations

import uuid

from browser_helpers import PASSWORD, choose_language, login

from quizsvc import practice, store

try:
    from playwright.sync_api import expect
except ImportError:  # the `chromium` fixture skips (or fails under CI) with the reason
    expect = None


def test_the_start_page_shows_the_class_and_links_to_the_details(live_server, page):
    bank = live_server.app.extensions["quizsvc"].bank
    teacher = f"teacher-{uuid.uuid4().hex[:8]}"
    with live_server.sessions() as session:
        store.create_user(session, name=teacher, role="instructor", password=PASSWORD)
        learner = store.create_user(
            session, name=f"learner-{uuid.uuid4().hex[:8]}", role="student", password=PASSWORD
        ).id
        practice.answer_question(
            session, bank, learner, "why-multi-head", "k1", text="Each head looks elsewhere."
        )
    login(page, teacher)
    choose_language(page, "en")
    page.goto("/instructor/")
    waiting = int(page.locator("#waiting-count").inner_text())
    assert waiting >= 1  # this learner's open answer (the server's other tests add theirs)
    expect(page.locator("#oldest-awaiting li").first).to_be_visible()
    row = page.locator('#glance-questions tr[data-item="why-multi-head"]')
    expect(row.locator("svg.histogram")).to_have_attribute("role", "img")

    with page.expect_navigation():
        page.locator("#waiting-count").click()
    assert page.url.endswith("/instructor/reviews")
    page.go_back()
    with page.expect_navigation():
        row.locator("th a").click()
    assert page.url.endswith("/instructor/reports#item-statistics")
    expect(page.locator("#item-statistics")).to_be_visible()

    choose_language(page, "zh")
    page.goto("/instructor/")
    expect(page.get_by_role("heading", name="最难的题")).to_be_visible()
