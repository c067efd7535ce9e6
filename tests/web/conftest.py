"""A real app on a fresh SQLite file and its own copy of content/ per test, with two students
and an instructor.

What every test would otherwise redo at the same cost is done once per test process: the
migrations and the users (each test's database is a copy of a template holding them), the
parse of a content tree already parsed (a bank is immutable; a tree differing in any byte
is parsed anew), reading the newest migration's revision, and the compilation of the
templates (a shared Jinja bytecode cache)."""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
from collections.abc import Mapping
from pathlib import Path

import flask
import pytest
from cheap_hashes import hash_passwords_cheaply
from flask import Flask
from flask_wtf.csrf import generate_csrf
from jinja2 import BytecodeCache
from jinja2.bccache import Bucket
from pydantic import BaseModel
from sqlalchemy import select
from web_helpers import PASSWORD

from quizsvc import store
from quizsvc.bank import Bank
from quizsvc.store import migrate
from quizsvc.web import context, create_app, login_session, throttle

USERS = {"alice": "student", "bob": "student", "ines": "instructor"}
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _hashes_cheaply(cheap_password_hashes) -> None:
    """Users the tests create get cheap password hashes, which halves the web tests' time."""


@pytest.fixture(autouse=True)
def _heads_read_once(monkeypatch) -> None:
    """Each app checks its database against the newest migration: read the migration files
    for it once per process (per migrations directory) rather than once per app."""
    monkeypatch.setattr(migrate, "head_revisions", _head_revisions)


def _head_revisions() -> tuple[str, ...]:
    return _head_revisions_in(migrate.migrations_dir())


@functools.cache
def _head_revisions_in(_migrations_dir: Path) -> tuple[str, ...]:
    return _real_head_revisions()


_real_head_revisions = migrate.head_revisions


def _tree_digest(directory: Path) -> str | None:
    """A digest of every name, kind and byte under ``directory``; None when anything in it
    is other than a readable directory or regular file (a link, an unreadable file), which
    the loader may report: such a tree is always loaded afresh."""
    digest = hashlib.sha256()

    def fail(error: OSError) -> None:
        raise error

    try:
        for root, dirs, files in os.walk(directory, onerror=fail):
            dirs.sort()
            for name in [*dirs, *sorted(files)]:
                path = Path(root, name)
                if path.is_symlink():
                    return None
                if path.is_dir():
                    body = b"dir"
                elif path.is_file():
                    body = b"file" + path.read_bytes()
                else:
                    return None
                for part in (path.relative_to(directory).as_posix().encode(), body):
                    digest.update(len(part).to_bytes(8, "big"))
                    digest.update(part)
    except OSError:
        return None
    return digest.hexdigest()


_loaded_banks: dict[tuple, Bank] = {}


@pytest.fixture(autouse=True)
def each_content_tree_parsed_once(monkeypatch):
    """The app loads the bank of a tree whose every byte it has seen before from memory:
    `load_bank` is a function of the tree's names and bytes alone, and its Bank immutable.
    Trees it rejects are never remembered."""
    real_load_bank = context.load_bank

    def load_bank(directory: Path, drill_kinds: Mapping[str, type[BaseModel]]) -> Bank:
        digest = _tree_digest(Path(directory))
        if digest is None:
            return real_load_bank(directory, drill_kinds)
        key = (digest, tuple(sorted(drill_kinds.items())))
        if key not in _loaded_banks:
            _loaded_banks[key] = real_load_bank(directory, drill_kinds)
        return _loaded_banks[key]

    monkeypatch.setattr(context, "load_bank", load_bank)


class _MemoryBytecodeCache(BytecodeCache):
    """Compiled templates kept in memory (Jinja checks each against its source's checksum)."""

    def __init__(self) -> None:
        self._compiled: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        if bucket.key in self._compiled:
            bucket.bytecode_from_string(self._compiled[bucket.key])

    def dump_bytecode(self, bucket: Bucket) -> None:
        self._compiled[bucket.key] = bucket.bytecode_to_string()


_compiled_templates = _MemoryBytecodeCache()


@pytest.fixture(autouse=True)
def templates_compiled_once(monkeypatch):
    """Every app a test creates shares one cache of compiled templates: all of them are made
    by create_app, with the same Jinja settings."""
    monkeypatch.setattr(
        Flask, "jinja_options", {**Flask.jinja_options, "bytecode_cache": _compiled_templates}
    )


@pytest.fixture(scope="session")
def database_template(tmp_path_factory, new_migrated_sqlite) -> Path:
    """A migrated database holding USERS (password PASSWORD, hashed cheaply)."""
    path = tmp_path_factory.mktemp("web") / "template.sqlite3"
    engine = store.make_engine(new_migrated_sqlite(path))
    with pytest.MonkeyPatch.context() as monkeypatch:
        hash_passwords_cheaply(monkeypatch)
        with store.make_session_factory(engine)() as session:
            for name, role in USERS.items():
                store.create_user(session, name=name, role=role, password=PASSWORD)
    engine.dispose()
    return path


@pytest.fixture
def database_url(tmp_path, copy_sqlite, database_template) -> str:
    return copy_sqlite(database_template, tmp_path / "quizsvc.sqlite3")


@pytest.fixture
def content_dir(tmp_path) -> Path:
    """A copy of content/ for this test alone: a test (or a file's own fixture of this name,
    asking for this one) may add, edit or remove questions in it."""
    target = tmp_path / "content"
    shutil.copytree(REPO / "content", target)
    return target


@pytest.fixture
def app(app_with):
    return app_with({"SECRET_KEY": "test secret"})


# An app per test, as create_app makes it, but without its cost (its ~50 URL rules compiled
# anew, ~60 ms): the app a test had is given to a later test asking for the same settings,
# made as new where a test can see it. Settings, database (the login throttle's counts among
# it), content and bank are the new test's own; routes and templates are
# the same code's. A test that adds a route or hook to its app asks for a ``fresh_app``.
_apps_made: dict[str, tuple[Flask, dict]] = {}


def _settings_key(config: Mapping[str, object]) -> str:
    environment = sorted((k, v) for k, v in os.environ.items() if k.startswith("QUIZSVC_"))
    return repr((sorted(config.items(), key=lambda item: item[0]), environment))


@pytest.fixture
def app_with(database_url, content_dir):
    """``app_with(config)``: the app create_app makes with ``config``, on this test's
    database and content (unless ``config`` names others)."""

    def make(config: Mapping[str, object]) -> Flask:
        config = {"DATABASE_URL": database_url, "CONTENT_DIR": str(content_dir), **config}
        key = _settings_key({k: v for k, v in config.items() if k not in _OWN_SETTINGS})
        if key not in _apps_made:
            app = create_app(config)
            _apps_made[key] = (app, dict(app.config))
            return app
        app, settings = _apps_made[key]
        app.extensions["quizsvc"].sessions.kw["bind"].dispose()
        app.config.clear()
        app.config.update({**settings, **{k: config[k] for k in _OWN_SETTINGS}})
        app.extensions["quizsvc"] = context.AppState.create(
            config["DATABASE_URL"], Path(config["CONTENT_DIR"])
        )
        throttle.init_app_state(app)
        return app

    return make


_OWN_SETTINGS = ("DATABASE_URL", "CONTENT_DIR")


@pytest.fixture
def fresh_app(database_url, content_dir):
    """An app no other test had: for a test that changes the app itself."""
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

    def force_login(self, name: str) -> None:
        """Logged in as ``name`` as the login form logs one in (a fresh session, a login
        session begun in the store, a new CSRF token) without its four requests, as Django's
        test client's force_login: the tests of logging in use `login`."""
        app = self.client.application
        with (
            self.client.session_transaction() as cookie_session,
            app.test_request_context(environ_base=self.client.environ_base),
        ):
            flask.session.update(cookie_session)
            user = context.db().scalar(select(store.User).where(store.User.name == name))
            assert user is not None, f"no user named {name}"
            login_session.start_fresh_session()
            login_session.log_in(user)
            self.token = generate_csrf()
            cookie_session.clear()
            cookie_session.update(flask.session)
            context.close_db()


@pytest.fixture
def browser_for(app):
    def make(name: str | None = None) -> Browser:
        b = Browser(app.test_client())
        if name:
            b.force_login(name)
        return b

    return make
