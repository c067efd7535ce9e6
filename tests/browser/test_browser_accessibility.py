"""Every page a learner and an instructor reach, in zh and in en, at a desktop's and a phone's
width, checked by axe-core for WCAG 2.1 A and AA and axe's best practices (landmarks, heading
order): any violation fails, named by its rule, the page and the element.

axe comes from the axe-playwright-python package, which bundles axe-core's axe.min.js and
evaluates it in the page through Playwright (the DevTools protocol, which a page's
Content-Security-Policy does not govern). Each page state is loaded once per language and
checked at both widths: at the desktop's, then again with the viewport narrowed to a phone's.
Logins are made once per role and reused through the browser's stored state.
"""

from __future__ import annotations

import re
import shutil
import uuid
from datetime import UTC, datetime

import numpy as np
import pytest
from browser_helpers import (
    MASKED_SCORES,
    PASSWORD,
    REPO,
    choose_language,
    issue_masked_scores,
    login,
    work_through_the_course,
)

from quizsvc import practice, store

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
AXE_OPTIONS = {
    "runOnly": {
        "type": "tag",
        "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"],
    },
    "resultTypes": ["violations"],
}
LANGUAGES = ["zh", "en"]
CHAPTER = "/chapters/transformer-by-hand"
DRILL = "projection"  # a 3 x 4 answer grid


@pytest.fixture(scope="module")
def app_config(tmp_path_factory) -> dict:
    """The shipped content plus one numeric question (the shipped chapter has none), and
    registration open, so that its page can be checked too."""
    content = tmp_path_factory.mktemp("a11y-content") / "content"
    shutil.copytree(REPO / "content", content)
    (content / "transformer-by-hand" / "numeric.yaml").write_text(MASKED_SCORES, encoding="utf-8")
    return {"CONTENT_DIR": str(content), "REGISTRATION_OPEN": True}


@pytest.fixture(scope="module")
def course(live_server) -> dict:
    """An instructor; a student who answered every chapter question (an open one awaiting
    review) and finished every drill; and enough other students for a second page of them."""
    course = work_through_the_course(live_server, "busy")
    with live_server.sessions() as session:
        # users straight into the table with one hash: 51 scrypt hashes would cost seconds
        password_hash = store.hash_password(PASSWORD)
        now = datetime.now(UTC)
        session.add_all(
            store.User(
                name=f"extra-{i:02d}-{uuid.uuid4().hex[:6]}",
                display_name=f"Extra {i}",
                role="student",
                password_hash=password_hash,
                created_at=now,
            )
            for i in range(51)
        )
        session.commit()
    return course


@pytest.fixture(scope="module")
def logins(chromium, live_server, course) -> dict:
    """Each role's signed-in browser state (its cookies), made once through the login form."""
    states = {}
    for role in ("student", "instructor"):
        context = chromium.new_context(base_url=live_server.url)
        page = context.new_page()
        login(page, course[role])
        states[role] = context.storage_state()
        context.close()
    return states


class Audit:
    """axe's violations on each page checked, gathered so that one failure names them all."""

    def __init__(self, axe, page, language: str):
        self.axe, self.page, self.language = axe, page, language
        self.found: dict[tuple[str, str, str, str], list[str]] = {}

    def check(self, what: str) -> None:
        """The page as it is now, at the desktop's width and then at the phone's."""
        page_language = self.page.evaluate("document.documentElement.lang")
        assert page_language == {"zh": "zh-CN", "en": "en"}[self.language], what
        for width, size in (("desktop", DESKTOP), ("phone", PHONE)):
            self.page.set_viewport_size(size)
            # the scroll boxes' script (scroll.js) reacts to the new size in a frame or two
            self.page.evaluate("() => new Promise(r => requestAnimationFrame(() => setTimeout(r)))")
            results = self.axe.run(self.page, options=AXE_OPTIONS).response
            for violation in results["violations"]:
                rule = f"{violation['id']} ({violation['help']})"
                for node in violation["nodes"]:
                    target = " ".join(map(str, node["target"]))
                    where = (f"{self.language} {what}", rule, target, node["html"][:160])
                    self.found.setdefault(where, []).append(width)
        self.page.set_viewport_size(DESKTOP)

    def visit(self, path: str, what: str | None = None, status: int = 200) -> None:
        response = self.page.goto(path)
        assert response.status == status, path
        self.check(what or path)

    def assert_clean(self) -> None:
        if self.found:
            lines = [
                f"{page} ({', '.join(widths)}): {rule}\n    at {target}: {html}"
                for (page, rule, target, html), widths in self.found.items()
            ]
            pytest.fail(f"{len(lines)} axe violations:\n" + "\n".join(lines), pytrace=False)


def browser(chromium, live_server, language: str, state: dict | None = None):
    context = chromium.new_context(
        base_url=live_server.url, viewport=DESKTOP, storage_state=state, locale="en-US"
    )
    context.set_default_timeout(10_000)
    page = context.new_page()
    choose_language(page, language)
    return context, page


def submit(page, form: str) -> None:
    with page.expect_navigation():
        page.click(f"{form} button[type=submit]")


@pytest.mark.parametrize("language", LANGUAGES)
def test_signed_out_pages_have_no_axe_violations(chromium, axe, live_server, language):
    context, page = browser(chromium, live_server, language)
    try:
        audit = Audit(axe, page, language)
        audit.visit("/login")
        page.fill("input[name=name]", "nobody")
        page.fill("input[name=password]", "not the password")
        submit(page, "form.login")
        audit.check("/login, rejected")
        audit.visit("/register")
        audit.visit("/no-such-page", status=404)
        audit.assert_clean()
    finally:
        context.close()


@pytest.mark.parametrize("language", LANGUAGES)
def test_learners_pages_have_no_axe_violations(
    chromium, axe, live_server, course, logins, language
):
    # a new learner, for the pages before any answer: the chapter, a drill's states
    name = f"new-{language}-{uuid.uuid4().hex[:8]}"
    with live_server.sessions() as session:
        learner = store.create_user(session, name=name, role="student", password=PASSWORD).id
    context, page = browser(chromium, live_server, language)
    try:
        login(page, name)
        audit = Audit(axe, page, language)
        audit.check(f"{CHAPTER}, unanswered")
        question = page.locator("#q-masked-scores")
        question.locator("textarea[name=text]").fill("2, -inf\n2.7")  # a row short
        with page.expect_navigation():
            question.locator("button[type=submit]").click()
        assert question.locator(".inline-error").count() == 1
        audit.check(f"{CHAPTER}, a numeric answer rejected")

        audit.visit("/drills")
        submit(page, f"li[data-kind={DRILL}]")
        assert re.search(r"/variants/\d+$", page.url)
        audit.check("a drill, fresh")
        variant = int(page.url.rsplit("/", 1)[1])
        for r in range(3):
            for c in range(4):
                page.fill(f"input[name=cell-{r}-{c}]", "99")
        submit(page, "#answer-form")
        audit.check("a drill, after a wrong attempt")
        page.fill("input[name=cell-0-1]", "abc")
        submit(page, "#answer-form")
        assert page.locator("#answer-error").count() == 1
        audit.check("a drill, an answer rejected")
        with live_server.sessions() as session:
            answer = practice.drill_state(session, learner, variant).variant.answer.values
        for (r, c), value in np.ndenumerate(answer):
            page.fill(f"input[name=cell-{r}-{c}]", f"{value:.4f}")
        submit(page, "#answer-form")
        assert page.locator("#answer-form").count() == 0
        audit.check("a drill, finished")
        masked, _ = issue_masked_scores(live_server, name)
        audit.visit(f"/variants/{masked}", "a drill whose cells have −∞ buttons")
        audit.visit("/account/password")
        # the phone's menu, open
        page.set_viewport_size(PHONE)
        page.click("#site-menu > summary")
        assert page.locator("#site-menu").get_attribute("open") is not None
        audit.check("/account/password, the menu open")
        audit.visit("/no-such-page", status=404)
        context.close()

        # the learner with everything answered: the chapter's results, progress, history
        context, page = browser(chromium, live_server, language, logins["student"])
        audit.page = page
        audit.visit(CHAPTER, f"{CHAPTER}, answered")
        audit.visit("/drills", "/drills, all finished")
        audit.visit("/progress")
        audit.visit("/worked-example")
        audit.assert_clean()
    finally:
        context.close()


@pytest.mark.parametrize("language", LANGUAGES)
def test_instructors_pages_have_no_axe_violations(
    chromium, axe, live_server, course, logins, language
):
    context, page = browser(chromium, live_server, language, logins["instructor"])
    try:
        audit = Audit(axe, page, language)
        student, review = course["id"], course["review"]
        for path in (
            "/instructor/",
            "/instructor/content",
            "/instructor/preview?question=drill-multi-head",
            "/instructor/preview?question=masked-scores",
            "/instructor/selftest",
            "/instructor/reviews",
            f"/instructor/reviews/{review}",
            "/instructor/students",
            "/instructor/students?page=2",
            f"/instructor/students/{student}",
            f"/instructor/students/{student}/report",
            "/instructor/reports",
        ):
            audit.visit(path)
        audit.visit("/instructor/students?page=x", status=400)
        page.goto("/instructor/selftest")
        submit(page, "form:has(#run-selftest)")
        audit.check("/instructor/selftest, run")
        audit.assert_clean()
    finally:
        context.close()
