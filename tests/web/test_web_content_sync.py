"""A reload reaches every worker process through the database: two apps on one database stand
for two workers here (tests/web/test_web_workers.py runs real gunicorn workers). A bank that
fails to validate is never recorded; a worker that cannot load the recorded version keeps its
bank, and the instructor's content page lists the versions the workers serve."""

from __future__ import annotations

import logging
import re
import shutil
from datetime import UTC, datetime

import flask
import pytest
from sqlalchemy import select
from test_web_instructor import QUESTIONS_FILE, edit, live_bank
from web_helpers import reading

from quizsvc import store
from quizsvc.web import content_sync, create_app

TITLE_EN = "Transformer by Hand: The Complete Data Flow from Attention to Encoder-Decoder"
NEW_TITLE_EN = "Transformer by Hand, revised"
CHAPTER_FILE = "transformer-by-hand/chapter.yaml"
LONG_AGO = datetime(2000, 1, 1, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _workers_named_by_app(monkeypatch):
    """Each app its own worker name (in one test process they share host and pid)."""
    names: dict[int, str] = {}

    def worker_id() -> str:
        app = flask.current_app._get_current_object()
        return names.setdefault(id(app), f"test-host:{len(names) + 1}")

    monkeypatch.setattr(content_sync, "worker_id", worker_id)


@pytest.fixture(autouse=True)
def _checks_when_told(monkeypatch):
    """An app reads which version is live only when a test lets the interval pass
    (`seconds_pass`), however long the test takes."""
    monkeypatch.setattr(content_sync, "CHECK_INTERVAL", 3600.0)


def chapter_title(client, token: str) -> str:
    response = client.get("/api/chapters?lang=en", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200
    return response.json["chapters"][0]["title"]


def seconds_pass(app) -> None:
    """As if CHECK_INTERVAL had passed since the app last read which version is live."""
    app.extensions["quizsvc"].checked_at -= content_sync.CHECK_INTERVAL


def recorded_versions(sessions) -> list[str]:
    with reading(sessions) as session:
        return list(
            session.scalars(select(store.ContentLoad.version).order_by(store.ContentLoad.id))
        )


@pytest.fixture
def token(sessions) -> str:
    with sessions() as session:
        return store.issue_api_token(session, "alice")


def test_the_first_worker_records_its_version_and_the_next_finds_it(app, fresh_app, sessions):
    version = live_bank(app).version
    assert live_bank(fresh_app).version == version
    assert recorded_versions(sessions) == [version]  # recorded once, by the first


def test_a_reload_reaches_another_worker_at_its_next_check(
    app, fresh_app, browser_for, content_dir, sessions, token
):
    other = fresh_app.test_client()
    assert chapter_title(other, token) == TITLE_EN
    old_version = live_bank(app).version
    edit(content_dir, f'en: "{TITLE_EN}"', f'en: "{NEW_TITLE_EN}"', CHAPTER_FILE)
    ines = browser_for("ines")
    assert ines.post("/instructor/content/reload").status_code == 302
    new_version = live_bank(app).version
    assert new_version != old_version
    assert recorded_versions(sessions) == [old_version, new_version]

    # less than a second since the other worker last read the record: not read again
    assert chapter_title(other, token) == TITLE_EN
    seconds_pass(fresh_app)
    assert chapter_title(other, token) == NEW_TITLE_EN
    assert live_bank(fresh_app).version == new_version
    # and it says so in the database, as the reloading worker did
    with reading(sessions) as session:
        served = {w.worker: w.version for w in store.served_content(session, since=LONG_AGO)}
    assert sorted(served.values()) == [new_version, new_version]

    # the instructor sees nothing to worry about: every worker serves the live version
    page = ines.get("/instructor/content")
    assert 'id="worker-versions"' not in page.text


def test_a_reload_that_fails_to_validate_is_never_recorded(
    app, fresh_app, browser_for, content_dir, sessions, token
):
    other = fresh_app.test_client()
    old_version = live_bank(app).version
    edit(content_dir, f'en: "{TITLE_EN}"', f'en: "{NEW_TITLE_EN}"', CHAPTER_FILE)
    edit(
        content_dir,
        "  - id: scaling-by-sqrt-dk\n    type: single_choice\n",
        "  - id: scaling-by-sqrt-dk\n    type: single_choise\n",
    )
    ines = browser_for("ines")
    assert ines.post("/instructor/content/reload").status_code == 422
    assert recorded_versions(sessions) == [old_version]
    seconds_pass(fresh_app)
    assert chapter_title(other, token) == TITLE_EN
    assert live_bank(fresh_app).version == old_version


def test_a_worker_that_cannot_load_the_new_version_keeps_its_bank_and_the_page_says_so(
    app, database_url, browser_for, content_dir, tmp_path, sessions, token, caplog
):
    # a second worker whose content directory still holds the old content, and then an
    # invalid one: as on another host that the new files have not reached
    stale_dir = tmp_path / "stale-content"
    shutil.copytree(content_dir, stale_dir)
    other_app = create_app(
        {"SECRET_KEY": "test secret", "DATABASE_URL": database_url, "CONTENT_DIR": str(stale_dir)}
    )
    other = other_app.test_client()
    assert chapter_title(other, token) == TITLE_EN
    old_version = live_bank(app).version

    edit(content_dir, f'en: "{TITLE_EN}"', f'en: "{NEW_TITLE_EN}"', CHAPTER_FILE)
    ines = browser_for("ines")
    ines.post("/lang/en")
    assert ines.post("/instructor/content/reload").status_code == 302
    new_version = live_bank(app).version

    seconds_pass(other_app)
    with caplog.at_level(logging.ERROR, logger="quizsvc.web.content_sync"):
        assert chapter_title(other, token) == TITLE_EN  # its directory gives the old version
    assert f"the content in {stale_dir} is version {old_version[:12]} now" in caplog.text
    assert live_bank(other_app).version == old_version

    # it does not try again at every check: the next chance is the next reload
    caplog.clear()
    seconds_pass(other_app)
    with caplog.at_level(logging.ERROR, logger="quizsvc.web.content_sync"):
        assert chapter_title(other, token) == TITLE_EN
    assert caplog.text == ""

    page = ines.get("/instructor/content")
    assert 'id="worker-versions"' in page.text
    assert (
        "The worker processes do not all serve the same version. The version last made live"
        f" is {new_version[:12]};"
    ) in page.text
    rows = re.findall(
        r'<tr class="served-version"><td class="worker"><code>([^<]*)</code></td>'
        r'<td class="version"><code>([^<]*)</code>( <b>\(not the live version\)</b>)?</td>',
        page.text,
    )
    assert sorted(rows) == [
        ("test-host:1", new_version[:12], ""),
        ("test-host:2", old_version[:12], " <b>(not the live version)</b>"),
    ]
    zh = browser_for("ines")
    zh.post("/lang/zh")
    assert "各工作进程提供的题库版本不一致" in zh.get("/instructor/content").text

    # a file on the stale worker's disk that does not parse: it keeps its bank, and says why
    (stale_dir / QUESTIONS_FILE).write_text("questions: [unclosed\n", encoding="utf-8")
    edit(content_dir, f'en: "{NEW_TITLE_EN}"', f'en: "{TITLE_EN} (third)"', CHAPTER_FILE)
    assert ines.post("/instructor/content/reload").status_code == 302
    seconds_pass(other_app)
    with caplog.at_level(logging.ERROR, logger="quizsvc.web.content_sync"):
        assert chapter_title(other, token) == TITLE_EN
    assert "does not load in this process" in caplog.text
    assert live_bank(other_app).version == old_version
