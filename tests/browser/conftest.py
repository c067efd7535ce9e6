"""Browser tests: the real app served on 127.0.0.1 (a free port, a thread, a fresh SQLite
database), driven by Debian's Chromium through Playwright.

Playwright's own browsers cannot be downloaded here, so the tests launch /usr/bin/chromium
(`apt-get install chromium`; `.ci/run` installs it). Without it they skip, except under
CI=true, where they fail: CI must never pass by skipping them. A failing test saves a
screenshot and the page's HTML in pytest's temporary directory and names both in the
failure report ("browser screenshot" section). Every test here carries the ``browser``
marker, which ``make test-fast`` leaves out.
"""

from __future__ import annotations

import itertools
import os
import re
import secrets
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from browser_helpers import PASSWORD
from flask import Flask
from sqlalchemy.orm import Session, sessionmaker
from werkzeug.serving import make_server

from quizsvc import store
from quizsvc.web import create_app

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 10_000

SCREENSHOT_DIR = pytest.StashKey[Path]()
BROWSER_TESTS = Path(__file__).resolve().parent


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # A session-wide hook: it sees every collected test, not only this directory's.
    for item in items:
        if item.path.is_relative_to(BROWSER_TESTS):
            item.add_marker(pytest.mark.browser)


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def unavailable(reason: str) -> None:
    if in_ci():
        pytest.fail(f"{reason}; CI is set, so the browser tests must run", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def chromium():
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        unavailable(f"browser tests need Chromium at {CHROMIUM} (Debian: apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("browser tests need the playwright package (pip install -e '.[test]')")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        yield browser
        browser.close()


@dataclass(frozen=True)
class LiveServer:
    url: str
    app: Flask
    sessions: sessionmaker[Session]


@pytest.fixture(scope="module")
def axe(chromium):
    """axe-core, from the test extra (after `chromium`, which skips without a browser)."""
    try:
        from axe_playwright_python.sync_playwright import Axe
    except ImportError:
        pytest.fail("the accessibility tests need axe-playwright-python (pip install -e '.[test]')")
    return Axe()


@pytest.fixture(scope="module")
def app_config() -> dict[str, str]:
    """Settings the live server's app adds to its own; a module overrides this, e.g. to
    serve a content directory of its own (CONTENT_DIR)."""
    return {}


@pytest.fixture(scope="module")
def live_server(tmp_path_factory, app_config, new_migrated_sqlite) -> Iterator[LiveServer]:
    url = new_migrated_sqlite(tmp_path_factory.mktemp("browser-db") / "quizsvc.sqlite3")
    app = create_app({"SECRET_KEY": secrets.token_hex(32), "DATABASE_URL": url, **app_config})
    server = make_server("127.0.0.1", 0, app, threaded=True)  # port 0: a free one
    thread = threading.Thread(target=server.serve_forever, name="live-server", daemon=True)
    thread.start()
    engine = store.make_engine(url)
    try:
        yield LiveServer(
            f"http://127.0.0.1:{server.server_port}", app, store.make_session_factory(engine)
        )
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()
        engine.dispose()


_names = itertools.count(1)


@pytest.fixture
def student(live_server) -> str:
    """A new student (with PASSWORD) for each test: tests share the server, not learners."""
    name = f"student{next(_names)}"
    with live_server.sessions() as session:
        store.create_user(session, name=name, role="student", password=PASSWORD)
    return name


@pytest.fixture
def page(request, chromium, live_server, tmp_path_factory):
    """A page in a fresh browser context (own cookies) that prefers English."""
    request.node.stash[SCREENSHOT_DIR] = tmp_path_factory.getbasetemp() / "browser-screenshots"
    context = chromium.new_context(base_url=live_server.url, locale="en-US")
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    try:
        yield page
    finally:
        context.close()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    """On a failed test, while its page is still open: save a screenshot and the HTML."""
    report = yield
    if report.when == "call" and report.failed and SCREENSHOT_DIR in item.stash:
        page = item.funcargs.get("page")
        if page is not None and not page.is_closed():
            directory = item.stash[SCREENSHOT_DIR]
            directory.mkdir(parents=True, exist_ok=True)
            stem = re.sub(r"[^\w.-]+", "_", item.nodeid)[-150:]
            png, html = directory / f"{stem}.png", directory / f"{stem}.html"
            try:
                page.screenshot(path=str(png), full_page=True)
                html.write_text(page.content(), encoding="utf-8")
                saved = f"screenshot: {png}\nHTML: {html}\nat {page.url}"
            except Exception as exc:  # the page may have crashed: report that instead
                saved = f"no screenshot ({exc!r})"
            report.sections.append(("browser screenshot", saved))
    return report
