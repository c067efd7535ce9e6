"""The Content-Security-Policy breaks no page: every main page, a learner's and an
instructor's, loads (with its scripts, stylesheet, inline SVG and icon) and its forms send
without the browser reporting a violation of the policy on the console."""

from __future__ import annotations

import pytest
from browser_helpers import choose_language, login, work_through_the_course

UNFINISHED = "drill-multi-head"  # its answer grid (and drill.js) stays on the page


@pytest.fixture(scope="module")
def app_config() -> dict[str, object]:
    return {"REGISTRATION_OPEN": True}  # so that the registration page is there to load


@pytest.fixture(scope="module")
def worked(live_server) -> dict:
    return work_through_the_course(live_server, "csp", unfinished=UNFINISHED)


def csp_violations(page) -> list[str]:
    """Collects, from now on, what the console says about the Content-Security-Policy
    (Chromium logs every refused script, style, image, form or frame there)."""
    seen: list[str] = []

    def note(message) -> None:
        if "Content Security Policy" in message.text:
            seen.append(f"{page.url}: {message.text}")

    page.on("console", note)
    return seen


def visit(page, path: str) -> None:
    response = page.goto(path)
    assert response is not None, path
    # the policy is really in force on the page checked
    assert "script-src 'self'" in response.headers["content-security-policy"], path
    page.wait_for_load_state("load")


def test_no_page_breaks_the_content_security_policy(page, worked):
    violations = csp_violations(page)
    for path in ("/login", "/register", "/no-such-page"):
        visit(page, path)

    login(page, worked["student"])
    for language in ("en", "zh"):
        choose_language(page, language)
        for path in (
            "/chapters/transformer-by-hand",
            "/worked-example",
            "/drills",
            "/progress",
            "/account/password",
            *(f"/variants/{v}" for v in worked["variants"].values()),
        ):
            visit(page, path)
    # the grid's script at work, then a form sent (form-action)
    visit(page, f"/variants/{worked['variants'][UNFINISHED]}")
    page.fill("textarea[name=pasted]", "1 2\n3 4")
    page.click("nav form[action='/logout'] button")  # log out
    page.wait_for_url("**/login")

    login(page, worked["instructor"])
    student = worked["id"]
    for path in (
        "/instructor/",
        "/instructor/content",
        "/instructor/preview?question=drill-teacher-forcing-loss&seed=3",
        "/instructor/preview?question=why-multi-head",
        "/instructor/selftest",
        "/instructor/reviews",
        f"/instructor/reviews/{worked['review']}",
        "/instructor/students",
        f"/instructor/students/{student}",
        f"/instructor/students/{student}/report",
        "/instructor/reports",
    ):
        visit(page, path)
    page.goto("/instructor/selftest")
    page.click("#run-selftest")
    page.wait_for_selector("#selftest-results")
    assert violations == []
