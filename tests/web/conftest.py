"""A real app on a fresh SQLite file and its own copy of content/ per test, with two students
and an instructor."""

from __future__ import annotations

import functools
import re
import shutil
from pathlib import Path

import pytest
from web_helpers import PASSWORD
from werkzeug.security import generate_password_hash

from quizsvc import store
from quizsvc.store import migrate, users
from quizsvc.web import create_app

USERS = {"alice": "student", "bob": "student", "ines": "instructor"}
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def cheap_password_hashes(monkeypatch):
    """Each test creates three users: hash their passwords with a cheap PBKDF2 instead of
    scrypt (as Django's test settings do), which halves the web tests' time. Checking a
    password still runs the real code on the stored hash."""
    fast = functools.partial(generate_password_hash, method="pbkdf2:sha256:1000")
    monkeypatch.setattr(users, "generate_password_hash", fast)
    monkeypatch.setattr(users, "_DUMMY_HASH", users._DUMMY_HASH)  # restored afterwards


@pytest.fixture
def database_url(tmp_path) -> str:
    url = f"sqlite:///{tmp_path / 'quizsvc.sqlite3'}"
    migrate.upgrade(url)
    sessions = store.make_session_factory(store.make_engine(url))
    with sessions() as session:
        for name, role in USERS.items():
            store.create_user(session, name=name, role=role, password=PASSWORD)
    return url


@pytest.fixture
def content_dir(tmp_path) -> Path:
    """A copy of content/ for this test alone: a test (or a file's own fixture of this name,
    asking for this one) may add, edit or remove questions in it."""
    target = tmp_path / "content"
    shutil.copytree(REPO / "content", target)
    return target


@pytest.fixture
def app(database_url, content_dir):
    return create_app(
        {"SECRET_KEY": "test secret", "DATABASE_URL": database_url, "CONTENT_DIR": str(content_dir)}
    )


@pytest.fixture
def sessions(database_url):
    return store.make_session_factory(store.make_engine(database_url))


def csrf_token(html: str) -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', html) or re.search(
        r'<meta name="csrf-token" content="([^"]+)"', html
    )
    assert match, "no CSRF token in the page"
    return match.group(1)


class Browser:
    """A test client that logs in and carries the CSRF token like a browser's forms do."""

    def __init__(self, client) -> None:
        self.client = client
        self.token = ""

    def get(self, path: str, **kwargs):
        response = self.client.get(path, **kwargs)
        if response.mimetype == "text/html" and "csrf" in response.text:
            self.token = csrf_token(response.text)
        return response

    def post(self, path: str, data: dict | None = None, **kwargs):
        if not self.token:
            self.get("/login")
        return self.client.post(path, data={"csrf_token": self.token, **(data or {})}, **kwargs)

    def login(self, name: str, password: str = PASSWORD):
        """The login form's answer; once logged in, the page it leads to is loaded, as a
        browser does, for the new session's CSRF token (a login starts a fresh session)."""
        self.get("/login")
        response = self.post("/login", {"name": name, "password": password})
        if response.status_code == 302:
            self.get(response.headers["Location"], follow_redirects=True)
        return response


@pytest.fixture
def browser_for(app):
    def make(name: str | None = None) -> Browser:
        b = Browser(app.test_client())
        if name:
            response = b.login(name)
            assert response.status_code == 302, response.text
        return b

    return make
