"""`make screenshots`: the student's main pages as a student sees them, and the instructor's
start page, as PNGs.

The app is served on a free loopback port from a throw-away SQLite database holding a demo
student who has done some of the work (drills mastered, one in progress, a chapter question
or two answered, a drill answered wrongly once, partly by a known mistake). Debian's
Chromium, driven by Playwright as the browser tests drive it, logs in as that student and
photographs each page at a phone's size (390 x 844) and a laptop's (1280 x 800), in Chinese
and in English:

    screenshots/<page>-<phone|desktop>-<zh|en>.png

and refreshes the two pictures the README shows (docs/img/drill-desktop-en.png, the drill
with its feedback on a laptop, each wrong cell's note under the grid;
docs/img/grid-phone-zh.png, the answer grid on a phone). Chinese needs a CJK font installed
(Debian: fonts-noto-cjk), or it renders as boxes.
"""

from __future__ import annotations

import argparse
import secrets
import shutil
import tempfile
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from werkzeug.serving import WSGIRequestHandler, make_server

from quizsvc import practice, store
from quizsvc.bank import DrillQuestion
from quizsvc.drills.mistakes import MISTAKES
from quizsvc.store import migrate
from quizsvc.web import create_app

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}
LANGUAGES = ("zh", "en")
STUDENT = "demo-student"
INSTRUCTOR = "demo-instructor"  # photographs the instructor's start page
PASSWORD = secrets.token_urlsafe(12)
CHAPTER = "/chapters/transformer-by-hand"

MASTERED = ("drill-embedding-positional", "drill-projection", "drill-softmax-row")
IN_PROGRESS = "drill-score-row"  # one wrong attempt, attempts left
WITH_FEEDBACK = "drill-multi-head"  # the drill photographed after a wrong attempt
# its first row worked out with K for V (the notes name the mistake), one cell of its last
# row 1 off (the notes say how far)
FEEDBACK_MISTAKE = "k_for_v"
WITH_INFINITY = "minus-infinity"  # a key of the variants: a drill whose answer holds -inf
SEED = 7  # the same numbers on every run


class QuietHandler(WSGIRequestHandler):
    def log_request(self, *args) -> None:  # one line per request would bury the summary
        pass


@contextmanager
def demo_server(directory: Path) -> Iterator[tuple[str, dict[str, int]]]:
    """The app on 127.0.0.1 with the demo student's work; yields its URL and the variants
    by question id."""
    url = f"sqlite:///{directory / 'quizsvc.sqlite3'}"
    migrate.upgrade(url)
    app = create_app({"SECRET_KEY": secrets.token_hex(32), "DATABASE_URL": url})
    variants = demo_work(app, url)
    server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=QuietHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", variants
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()


def demo_work(app, url: str) -> dict[str, int]:
    bank = app.extensions["quizsvc"].bank
    engine = store.make_engine(url)
    sessions = store.make_session_factory(engine)
    variants = {}
    try:
        with sessions() as session:
            learner = store.create_user(session, name=STUDENT, role="student", password=PASSWORD).id
        with sessions() as session:
            store.create_user(session, name=INSTRUCTOR, role="instructor", password=PASSWORD)
        with sessions() as session:
            # the chapter's first two choice questions, answered
            choice_questions = [
                q.id
                for q in bank.questions.values()
                if q.type in ("single_choice", "multiple_choice")
            ]
            for question_id in choice_questions[:2]:
                practice.answer_question(
                    session, bank, learner, question_id, uuid.uuid4().hex, ["B"]
                )
            # a drill whose answer holds -inf (its grid has the −∞ buttons), if the bank has one
            masked = next(
                (
                    q.id
                    for q in bank.questions.values()
                    if isinstance(q, DrillQuestion)
                    and np.isneginf(practice.build_variant(q, SEED).answer.values).any()
                ),
                None,
            )
            if masked is not None:
                variants[WITH_INFINITY] = practice.start_drill(
                    session, bank, learner, masked, seed=SEED
                ).id
            for question_id in (*MASTERED, IN_PROGRESS, WITH_FEEDBACK):
                issued = practice.start_drill(session, bank, learner, question_id, seed=SEED)
                variants[question_id] = issued.id
                answer = practice.drill_state(session, learner, issued.id).variant.answer.values
                if question_id in MASTERED:
                    rows, decimals = answer, 4
                elif question_id == WITH_FEEDBACK:
                    variant = practice.drill_state(session, learner, issued.id).variant
                    rows, decimals = answer.copy(), 2
                    rows[0] = MISTAKES[FEEDBACK_MISTAKE].answers(variant)[0][0]
                    rows[-1, 1] += 1
                else:  # the first row off by one: wrong cells, the rest right
                    rows, decimals = answer.copy(), 2  # two decimals, as the drills ask
                    rows[0] += 1
                text = "\n".join(" ".join(f"{v:.{decimals}f}" for v in row) for row in rows)
                practice.submit_drill(session, learner, issued.id, text, uuid.uuid4().hex)
    finally:
        engine.dispose()
    return variants


def photograph(base_url: str, variants: dict[str, int], out: Path) -> list[Path]:
    from playwright.sync_api import sync_playwright

    written = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        try:
            for size_name, size in SIZES.items():
                for language in LANGUAGES:
                    context = browser.new_context(base_url=base_url, viewport=size, locale="en-US")
                    page = context.new_page()
                    written += photograph_pages(page, variants, out, f"{size_name}-{language}")
                    context.close()
                    context = browser.new_context(base_url=base_url, viewport=size, locale="en-US")
                    page = context.new_page()
                    written += photograph_instructor(page, out, f"{size_name}-{language}")
                    context.close()
        finally:
            browser.close()
    return written


def photograph_pages(page, variants: dict[str, int], out: Path, suffix: str) -> list[Path]:
    language = suffix.rsplit("-", 1)[1]
    page.goto("/login")
    choose_language(page, language)
    shots = [shoot(page, out / f"login-{suffix}.png")]
    page.fill("input[name=name]", STUDENT)
    page.fill("input[name=password]", PASSWORD)
    with page.expect_navigation():
        page.click("form.login button[type=submit]")
    # the account keeps the language it was last given (in another browser, by the run
    # before): this run's language is chosen again
    choose_language(page, language)
    for name, path in (
        ("chapter", CHAPTER),
        ("drills", "/drills"),
        ("drill-feedback", f"/variants/{variants[WITH_FEEDBACK]}"),
        ("progress", "/progress"),
        ("worked-example", "/worked-example"),
        ("worked-example-trained", "/worked-example?model=trained"),
        ("model", "/model"),
    ):
        page.goto(path)
        shots.append(shoot(page, out / f"{name}-{suffix}.png"))
    # the answer grid on the first screen, as a student scrolls to it
    page.goto(f"/variants/{variants[WITH_FEEDBACK]}")
    page.evaluate("document.querySelector('#results').scrollIntoView({block: 'start'})")
    shots.append(shoot(page, out / f"grid-{suffix}.png", full_page=False))
    if WITH_INFINITY in variants:
        page.goto(f"/variants/{variants[WITH_INFINITY]}")
        page.evaluate("document.querySelector('#answer-form').scrollIntoView({block: 'start'})")
        shots.append(shoot(page, out / f"grid-minus-infinity-{suffix}.png", full_page=False))
    return shots


def photograph_instructor(page, out: Path, suffix: str) -> list[Path]:
    page.goto("/login")
    page.fill("input[name=name]", INSTRUCTOR)
    page.fill("input[name=password]", PASSWORD)
    with page.expect_navigation():
        page.click("form.login button[type=submit]")
    choose_language(page, suffix.rsplit("-", 1)[1])
    page.goto("/instructor/")
    return [shoot(page, out / f"instructor-overview-{suffix}.png")]


def choose_language(page, language: str) -> None:
    """The header's toggle, where the page is in the other language."""
    if page.locator("html").get_attribute("lang") != ("zh-CN" if language == "zh" else "en"):
        with page.expect_navigation():
            page.click("#lang-toggle")


def shoot(page, path: Path, full_page: bool = True) -> Path:
    page.wait_for_load_state("load")
    page.screenshot(path=str(path), full_page=full_page)
    return path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "screenshots")
    parser.add_argument(
        "--no-docs", action="store_true", help="leave the README's pictures in docs/img alone"
    )
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with (
        tempfile.TemporaryDirectory() as directory,
        demo_server(Path(directory)) as (
            url,
            variants,
        ),
    ):
        written = photograph(url, variants, args.out)
    if not args.no_docs:
        docs = REPO / "docs" / "img"
        docs.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(args.out / "drill-feedback-desktop-en.png", docs / "drill-desktop-en.png")
        shutil.copyfile(args.out / "grid-phone-zh.png", docs / "grid-phone-zh.png")
    print(f"{len(written)} screenshots in {args.out}")


if __name__ == "__main__":
    main()
