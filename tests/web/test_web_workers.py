"""Four gunicorn worker processes share their state through the database, on SQLite and on
PostgreSQL: the login throttle counts exactly across them and across a restart; a content
reload reaches every worker within a second, and a reload that fails to validate none; in
development without a secret key, every worker signs with the same key."""

from __future__ import annotations

import time

import pytest
from served_app import Client, in_parallel, serve
from sqlalchemy import select
from test_web_content_sync import CHAPTER_FILE, NEW_TITLE_EN, TITLE_EN
from test_web_instructor import QUESTIONS_FILE, edit
from web_helpers import PASSWORD, reading

from quizsvc import store

pytestmark = pytest.mark.slow  # gunicorn with four workers, started once or twice a test

WORKERS = 4
LIMIT = 10  # the default: 10 attempts at one name in any 10 minutes
ATTEMPTS = 24


@pytest.fixture
def database_url(migrated_db_url) -> str:
    """A migrated database, SQLite or PostgreSQL, with alice, bob and ines."""
    engine = store.make_engine(migrated_db_url)
    with store.make_session_factory(engine)() as session:
        for name, role in (("alice", "student"), ("bob", "student"), ("ines", "instructor")):
            store.create_user(session, name=name, role=role, password=PASSWORD)
    engine.dispose()
    return migrated_db_url


def test_the_login_throttle_is_exact_across_four_workers_and_a_restart(
    tmp_path, database_url, content_dir
):
    with serve(tmp_path, database_url, content_dir, workers=WORKERS) as served:
        clients = [Client(served.base) for _ in range(ATTEMPTS)]
        for client in clients:
            client.request("/login")  # its cookie and CSRF token
        replies = in_parallel(
            [
                lambda client=client, i=i: client.request(
                    f"/login?try={i}", {"name": "alice", "password": f"wrong guess {i}"}
                )
                for i, client in enumerate(clients)
            ]
        )
        statuses = [reply.status for reply in replies]
        # exactly the limit were checked (and wrong); every other was refused unchecked
        assert sorted(statuses) == [401] * LIMIT + [429] * (ATTEMPTS - LIMIT), statuses
        refused = next(reply for reply in replies if reply.status == 429)
        assert "Too many failed attempts to log in as this user." in refused.text
        targets = [f"/login?try={i}" for i in range(ATTEMPTS)]
        served_by = served.served_by(expecting=targets)
        workers = {served_by[target] for target in targets}
        assert len(workers) > 1, "the attempts were not spread over the workers"

    # a restart forgets nothing: even the right password waits
    with serve(tmp_path, database_url, content_dir, workers=WORKERS) as served:
        refused = Client(served.base).login("alice", PASSWORD)
        assert refused.status == 429
        assert 1 <= int(refused.headers["Retry-After"]) <= 600
        assert Client(served.base).login("bob", PASSWORD).status == 302


def chapter_titles(served, token: str, *, not_before: float, timeout: float = 30) -> dict:
    """Once the clock reaches `not_before`: ask for the chapters' list, eight requests at a
    time, until every worker has answered one; each worker's pid -> the titles it gave."""
    time.sleep(max(0.0, not_before - time.monotonic()))
    deadline = time.monotonic() + timeout
    pids = served.worker_pids()
    assert len(pids) == WORKERS
    titles: dict[str, str] = {}
    probe = 0
    while time.monotonic() < deadline:
        batch = [f"/api/chapters?lang=en&probe={probe + i}" for i in range(8)]
        probe += len(batch)
        client = Client(served.base)
        replies = in_parallel(
            [
                lambda path=path, client=client: client.request(
                    path, headers={"Authorization": f"Bearer {token}"}
                )
                for path in batch
            ]
        )
        for path, reply in zip(batch, replies, strict=True):
            assert reply.status == 200, reply.text
            titles[path] = reply.text
        served_by = served.served_by()
        by_worker: dict[int, set[str]] = {}
        for path, text in titles.items():
            title = NEW_TITLE_EN if NEW_TITLE_EN in text else TITLE_EN if TITLE_EN in text else text
            # gunicorn logs a request after its response: a line may come a moment later
            if path in served_by:
                by_worker.setdefault(served_by[path], set()).add(title)
        if set(by_worker) == pids and all(path in served_by for path in titles):
            return by_worker
    raise AssertionError(f"not every worker answered in {timeout} s: {sorted(by_worker)}")


def test_a_reload_reaches_all_four_workers_within_a_second_and_a_failed_one_none(
    tmp_path, database_url, content_dir
):
    engine = store.make_engine(database_url)
    sessions = store.make_session_factory(engine)
    with sessions() as session:
        token = store.issue_api_token(session, "alice")
    questions = (content_dir / QUESTIONS_FILE).read_text(encoding="utf-8")
    try:
        with serve(tmp_path, database_url, content_dir, workers=WORKERS) as served:
            ines = Client(served.base)
            assert ines.login("ines", PASSWORD).status == 302
            ines.request("/instructor/content")
            with reading(sessions) as session:
                (old_version,) = session.scalars(select(store.ContentLoad.version)).all()

            # content that fails to validate: rejected, never recorded, served by nobody
            edit(content_dir, f'en: "{TITLE_EN}"', f'en: "{NEW_TITLE_EN}"', CHAPTER_FILE)
            (content_dir / QUESTIONS_FILE).write_text("questions: [unclosed\n", encoding="utf-8")
            assert ines.request("/instructor/content/reload", {}).status == 422
            rejected = time.monotonic()
            titles = chapter_titles(served, token, not_before=rejected + 1.0)
            assert titles == {pid: {TITLE_EN} for pid in served.worker_pids()}

            # valid content: every request begun a second after the reload gets it
            (content_dir / QUESTIONS_FILE).write_text(questions, encoding="utf-8")
            assert ines.request("/instructor/content/reload", {}).status == 302
            reloaded = time.monotonic()
            titles = chapter_titles(served, token, not_before=reloaded + 1.0)
            assert titles == {pid: {NEW_TITLE_EN} for pid in served.worker_pids()}

            with reading(sessions) as session:
                versions = session.scalars(
                    select(store.ContentLoad.version).order_by(store.ContentLoad.id)
                ).all()
                assert len(versions) == 2 and versions[0] == old_version != versions[1]
                workers = {
                    int(row.worker.rsplit(":", 1)[1]): row.version
                    for row in session.scalars(select(store.ContentWorker))
                }
            assert workers == {pid: versions[1] for pid in served.worker_pids()}
            # and the instructor's page has nothing to warn of
            assert 'id="worker-versions"' not in ines.request("/instructor/content").text
    finally:
        engine.dispose()


def test_in_development_without_a_key_a_login_holds_on_every_worker(
    tmp_path, database_url, content_dir
):
    # a key per worker would refuse the CSRF token of a page another worker served (400),
    # and the login cookie another worker set (a redirect to the login page)
    with serve(tmp_path, database_url, content_dir, workers=WORKERS, secret_key=None) as served:
        clients = [Client(served.base) for _ in range(8)]
        logins = in_parallel(
            [lambda client=client: client.login("bob", PASSWORD) for client in clients]
        )
        assert [reply.status for reply in logins] == [302] * len(clients)
        targets = [f"/progress?c={i}&r={j}" for i in range(len(clients)) for j in range(4)]
        pages = in_parallel(
            [
                lambda client=clients[i // 4], target=target: client.request(target).status
                for i, target in enumerate(targets)
            ]
        )
        assert pages == [200] * len(pages)
        served_by = served.served_by(expecting=targets)
        assert len({served_by[target] for target in targets}) > 1
