"""Every HTML form of the app, sent with hundreds of bad values per field (empty, huge,
unicode, NUL, bytes that are no UTF-8, wrong types, the field missing or sent twice, a bad
CSRF token or hidden key): never a 5xx, and a refused form (a 4xx) changes nothing stored.

The values come from a seeded generator, so a failure is reproduced by its seed and field.
`make test-fast` sends a sample of 2 values per field (with the missing, duplicated and
bad-token variants); the `slow` run, 200 per field."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from urllib.parse import quote

import pytest
from sqlalchemy import text
from test_web_instructor import answer_open_question
from web_helpers import start

SEED = 20260
CHAPTER_URL = "/chapters/transformer-by-hand"
# tables a refused form may still write: a failed login's attempt and the throttle's counts
# and each worker's heartbeat (the content version it serves)
WRITTEN_WHEN_REFUSED = {"login_attempts", "login_sessions", "content_workers", "alembic_version"}

# each value as it goes on the wire: percent-encoded bytes of a form body
SPECIAL_VALUES = [
    "",
    " ",
    "\t\r\n",
    "%00",
    "a%00b",
    "%ED%A0%80",  # a lone surrogate, as UTF-8 would write it: no UTF-8
    "%ED%B3%BF",
    "%FF%FE",
    "%C0%AF",  # an overlong "/"
    "%E2%80%AE",  # right-to-left override
    quote("😀" * 50),
    quote("注意力" * 100),
    quote("\u200b\ufeff"),
    "0",
    "-1",
    "1e309",
    "nan",
    "inf",
    "-0",
    "9" * 5000,
    "true",
    "null",
    quote("[1, 2]"),
    quote('{"a": 1}'),
    quote("<script>alert(1)</script>"),
    quote("' OR 1=1 --"),
    quote("../../etc/passwd"),
    quote("%s%(x)s{0}"),
    "x" * 200_000,  # with the rest of the form, under the 256 KiB limit
    "x" * 300_000,  # over it
]
ALPHABET = "aZ09 _-.,;:!?'\"<>&%\\/\x00\x01\x7f\u00e9\u4e2d\u0301\U0001f600\u202e\ufffd"


def generated_values(rng: random.Random, count: int) -> Iterator[str]:
    """`count` values: the special ones first (a sample of them when `count` is fewer), then
    random strings of random lengths."""
    yield from rng.sample(SPECIAL_VALUES, min(count, len(SPECIAL_VALUES)))
    for _ in range(count - len(SPECIAL_VALUES)):
        length = rng.choice([1, 2, 5, 64, 65, 128, 129, 1000, 4096, rng.randrange(1, 20_000)])
        yield quote("".join(rng.choice(ALPHABET) for _ in range(length)), safe="")


@dataclass
class Form:
    method: str
    url: str
    fields: dict[str, str]  # a valid-looking value of each field, percent-encoded
    user: str | None
    extra: dict[str, str] = field(default_factory=dict)


def forms(alice, ines, sessions) -> list[Form]:
    """Every form, with the state it needs (a variant, an answer to review)."""
    variant = start(alice, "drill-score-row")  # a 1 × 3 grid
    answer_open_question(alice)
    with sessions() as session:
        answer_id = session.scalar(text("SELECT max(id) FROM quiz_answers"))
    account = {"name": "eve", "display_name": "Eve", "password": "long enough 1"}
    account["password_again"] = account["password"]
    return [
        Form("POST", "/login", {"name": "alice", "password": "wrong password 1"}, None),
        Form("POST", "/register", account, None),
        Form(
            "POST",
            "/account/password",
            {
                "current_password": "wrong password",
                "new_password": "long enough 2",
                "new_password_again": "long enough 2",
            },
            "alice",
        ),
        Form("POST", "/lang/zh", {"next": "/drills"}, "alice"),
        Form(
            "POST",
            f"{CHAPTER_URL}/questions/qkv-origin",
            {"idempotency_key": "k1", "choice": "A"},
            "alice",
        ),
        Form(
            "POST",
            f"{CHAPTER_URL}/questions/why-multi-head",
            {"idempotency_key": "k2", "text": "an answer"},
            "alice",
        ),
        Form(
            "POST",
            f"/variants/{variant}/submissions",
            {
                "idempotency_key": "k3",
                "cell-0-0": "1",
                "cell-0-1": "2",
                "cell-0-2": "3",
                "pasted": "",
            },
            "alice",
        ),
        Form(
            "POST",
            f"/instructor/reviews/{answer_id}",
            {"score": "50", "comment": "ok", "seen_review": "0", "return_to": "answer"},
            "ines",
        ),
        Form("POST", "/instructor/content/reload", {"confirmed_version": "v"}, "ines"),
        Form("GET", "/instructor/preview", {"question": "drill-score-row", "seed": "1"}, "ines"),
        Form("POST", "/instructor/students", {**account, "role": "student"}, "ines"),
        Form("POST", "/drills/drill-score-row/start", {}, "alice"),
        Form("POST", "/drills/recommended", {}, "alice"),
        Form("POST", "/logout", {}, "alice"),
    ]


class Stored:
    """What the database holds, every table but those a refused form may write; checked
    after each request, and read again only when another connection has committed since
    (SQLite's data_version), which most refused forms do not."""

    def __init__(self, sessions) -> None:
        self.connection = sessions.kw["bind"].raw_connection()
        self.version = self._version()
        self.rows = self._rows()

    def _version(self) -> int:
        return self.connection.execute("PRAGMA data_version").fetchone()[0]

    def _rows(self) -> dict[str, list[tuple]]:
        names = [
            name
            for (name,) in self.connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'"
            )
        ]
        # in rowid order, as SQLite scans a table: compared as they come
        return {
            name: self.connection.execute(f'SELECT * FROM "{name}"').fetchall()
            for name in names
            if name not in WRITTEN_WHEN_REFUSED and not name.startswith("sqlite_")
        }

    def changed(self) -> list[str]:
        """The tables changed since the last call."""
        version = self._version()
        if version == self.version:
            return []
        self.version = version
        before, self.rows = self.rows, self._rows()
        return sorted(name for name in self.rows if self.rows[name] != before.get(name))


def body(fields: dict[str, str], token: str) -> str:
    return "&".join(f"{name}={value}" for name, value in {"csrf_token": token, **fields}.items())


def send(browser, form: Form, fields: dict[str, str] | str, token: str | None = None):
    if token is None:
        token = browser.token
    encoded = fields if isinstance(fields, str) else body(fields, token)
    if form.method == "GET":
        return browser.client.get(f"{form.url}?{encoded}")
    return browser.client.post(
        form.url, data=encoded, content_type="application/x-www-form-urlencoded"
    )


def variations(form: Form, rng: random.Random, per_field: int) -> Iterator[tuple[str, object]]:
    """(what was changed, the fields or raw body to send)."""
    for name in form.fields:
        for value in generated_values(rng, per_field):
            yield f"{name}={value[:40]}", {**form.fields, name: value}
        yield f"{name} missing", {k: v for k, v in form.fields.items() if k != name}
    for name in form.fields:
        duplicated = "&".join([f"{k}={v}" for k, v in form.fields.items()] + [f"{name}=%00other"])
        yield f"{name} twice", duplicated
    yield "nothing", {}
    yield "an unknown field", {**form.fields, "unknown": "1", "__proto__": "x"}


@pytest.fixture
def app(app_with):
    return app_with({"SECRET_KEY": "s", "REGISTRATION_OPEN": True})


BAD_TOKENS = ["", "%ED%A0%80", "x", "%00", "a" * 5000]


FORMS = 14  # what `forms` returns


def fuzz(
    browser_for,
    sessions,
    per_field: int,
    bad_tokens: int = len(BAD_TOKENS),
    only: int | None = None,
) -> None:
    """Send every form (or the form numbered `only`) its variations."""
    rng = random.Random(SEED)
    alice, ines = browser_for("alice"), browser_for("ines")
    browsers = {"alice": alice, "ines": ines, None: browser_for()}
    browsers[None].get("/login")
    failures = []
    all_forms = forms(alice, ines, sessions)
    assert len(all_forms) == FORMS
    stored = Stored(sessions)
    for form in all_forms if only is None else all_forms[only : only + 1]:
        browser = browsers[form.user]
        for changed, fields in variations(form, rng, per_field):
            if isinstance(fields, str):  # a raw body: its CSRF token first
                fields = f"csrf_token={browser.token}&{fields}"
            response = send(browser, form, fields)
            status = response.status_code
            tables = stored.changed()
            if status >= 500:
                failures.append(f"{form.method} {form.url} {changed}: {status}")
            elif status >= 400:
                if tables:
                    failures.append(f"{form.method} {form.url} {changed}: {status}, {tables}")
                assert re.search(r"<p[^>]*>[^<]+</p>", response.text), (form.url, changed)
            if form.url == "/logout" and status < 400:
                browsers["alice"].force_login("alice")
        # the fields as JSON of other types (the token in its header): the form reads none
        if form.method == "POST":
            typed = {name: [1, {"a": None}, True] for name in form.fields}
            response = browser.client.post(
                form.url, json=typed, headers={"X-CSRFToken": browser.token}
            )
            tables = stored.changed()
            if response.status_code >= 500 or (response.status_code >= 400 and tables):
                failures.append(f"{form.url} as JSON: {response.status_code}, {tables}")
                # a bad CSRF token: refused before the view, nothing stored
        if form.method == "POST":
            # the last one, another session's
            foreign = browsers["ines" if form.user != "ines" else "alice"].token
            for token in [*BAD_TOKENS[:bad_tokens], foreign]:
                response = send(browser, form, form.fields, token=token)
                if stored.changed() or response.status_code >= 500:
                    failures.append(f"{form.url} csrf {token[:20]}: {response.status_code}")
                assert response.status_code in (302, 400, 429), (form.url, token[:20])
    assert not failures, "\n".join(failures[:50])


def test_no_form_gives_a_5xx_or_stores_what_it_refused(browser_for, sessions):
    fuzz(browser_for, sessions, per_field=2, bad_tokens=2)


@pytest.mark.slow
@pytest.mark.parametrize("form", range(FORMS))  # a test per form, for pytest-xdist to spread
def test_no_form_gives_a_5xx_for_200_values_per_field(browser_for, sessions, form):
    fuzz(browser_for, sessions, per_field=200, only=form)
