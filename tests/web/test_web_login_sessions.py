"""Login sessions end on the server: a copy of the session cookie is no login after a logout,
after a new password, or once older than the app's session lifetime."""

from __future__ import annotations

import hashlib
import html
import re
from datetime import UTC, datetime, timedelta

import pytest
from click.testing import CliRunner
from sqlalchemy import event, select, update
from web_helpers import PASSWORD, user_id

from quizsvc import store
from quizsvc.cli import main

LIFETIME = timedelta(days=2)  # the app's PERMANENT_SESSION_LIFETIME here; Flask's is 31 days
SIGNED_OUT_EN = (
    "Your password was changed, so you were signed out here: log in again with the new password."
)
LOG_IN_EN = "Please log in to access this page."


@pytest.fixture
def app(app_with):
    return app_with({"SECRET_KEY": "test secret", "PERMANENT_SESSION_LIFETIME": LIFETIME})


def flashes(page_html: str) -> list[str]:
    return [
        html.unescape(text)
        for text in re.findall(r'<p class="flash [^"]*" role="status">(.*?)</p>', page_html)
    ]


def cookie(browser) -> str:
    return browser.client.get_cookie("session").value


def replaying(browser_for, copied: str):
    """Another browser that sends a copy of someone's session cookie."""
    thief = browser_for()
    thief.client.set_cookie("session", copied)
    return thief


def is_logged_out(browser) -> bool:
    page = browser.get("/progress")
    return page.status_code == 302 and page.headers["Location"].startswith("/login")


def test_a_cookie_replayed_after_its_logout_is_no_login(browser_for):
    alice = browser_for("alice")
    copied = cookie(alice)
    assert replaying(browser_for, copied).get("/progress").status_code == 200
    assert alice.post("/logout").status_code == 302

    thief = replaying(browser_for, copied)
    assert is_logged_out(thief)
    anonymous = browser_for().get("/api/progress")
    api = replaying(browser_for, copied).get("/api/progress")
    assert api.status_code == 401
    assert api.get_json() == anonymous.get_json()
    assert api.get_json()["error"]["code"] == "unauthorized"


def test_logging_out_of_one_browser_leaves_the_other_logged_in(browser_for):
    laptop, phone = browser_for("alice"), browser_for("alice")
    laptop.post("/logout")
    assert is_logged_out(laptop)
    assert phone.get("/progress").status_code == 200
    assert phone.get("/api/progress").status_code == 200


def test_a_password_change_keeps_the_changers_new_session_and_ends_their_old_cookie(
    browser_for,
):
    laptop, phone = browser_for("alice"), browser_for("alice")
    phone.post("/lang/en")
    before_the_change = cookie(laptop)
    laptop.get("/account/password")
    changed = laptop.post(
        "/account/password",
        {
            "current_password": PASSWORD,
            "new_password": "a brand new one",
            "new_password_again": "a brand new one",
        },
    )
    assert changed.status_code == 302
    assert laptop.get("/progress").status_code == 200
    assert is_logged_out(replaying(browser_for, before_the_change))
    assert flashes(phone.get("/progress", follow_redirects=True).text) == [SIGNED_OUT_EN]
    assert flashes(phone.get("/progress", follow_redirects=True).text) == [LOG_IN_EN]
    # the changer's new session is one like any other: its logout ends it
    after_the_change = cookie(laptop)
    laptop.post("/logout")
    assert is_logged_out(replaying(browser_for, after_the_change))


def test_a_password_set_with_the_cli_ends_every_session_and_says_why_once(
    browser_for, database_url
):
    laptop, phone = browser_for("alice"), browser_for("alice")
    bob = browser_for("bob")
    for browser in (laptop, phone):
        browser.post("/lang/en")
    result = CliRunner().invoke(
        main,
        ["user", "password", "alice"],
        env={"DATABASE_URL": database_url, "QUIZSVC_PASSWORD": "set by an admin"},
    )
    assert result.exit_code == 0, result.output
    for browser in (laptop, phone):
        assert flashes(browser.get("/progress", follow_redirects=True).text) == [SIGNED_OUT_EN]
        assert flashes(browser.get("/progress", follow_redirects=True).text) == [LOG_IN_EN]
    assert bob.get("/progress").status_code == 200
    assert browser_for().login("alice", "set by an admin").status_code == 302


def test_a_cookie_of_the_password_digest_sessions_from_before_is_no_login(browser_for, sessions):
    alice = browser_for("alice")
    with sessions() as session:
        user = session.scalar(select(store.User).where(store.User.name == "alice"))
        # the key those sessions carried: the first 32 hex digits of the hash's SHA-256
        old_key = hashlib.sha256(user.password_hash.encode()).hexdigest()[:32]
        old_id = f"{user.id}.{old_key}"
    with alice.client.session_transaction() as cookie_session:
        cookie_session["_user_id"] = old_id
    alice.post("/lang/en")
    # not told of a password change: there was none, it is simply no login
    assert flashes(alice.get("/progress", follow_redirects=True).text) == [LOG_IN_EN]


def login_token(browser) -> str:
    """The token of the login session that the browser's cookie names."""
    with browser.client.session_transaction() as cookie_session:
        return cookie_session["_user_id"].partition(".")[2]


def age_login(sessions, token: str, age: timedelta) -> None:
    """Make the login session of ``token`` begun ``age`` ago."""
    with sessions() as session:
        aged = session.execute(
            update(store.LoginSession)
            .where(store.LoginSession.token_hash == hashlib.sha256(token.encode()).hexdigest())
            .values(created_at=datetime.now(UTC) - age)
        )
        assert aged.rowcount == 1
        session.commit()


def logins(sessions, name: str) -> int:
    with sessions() as session:
        rows = session.scalars(
            select(store.LoginSession.id).where(
                store.LoginSession.user_id == user_id(sessions, name)
            )
        )
        return len(rows.all())


def test_a_login_lasts_as_long_as_the_apps_session_lifetime(browser_for, sessions):
    alice, bob = browser_for("alice"), browser_for("bob")
    age_login(sessions, login_token(alice), LIFETIME + timedelta(hours=1))
    age_login(sessions, login_token(bob), LIFETIME - timedelta(hours=1))
    assert is_logged_out(alice)
    assert bob.get("/progress").status_code == 200


def test_a_login_prunes_that_users_sessions_older_than_the_apps_session_lifetime(
    browser_for, sessions
):
    old_laptop, old_phone, yesterday = (browser_for("alice") for _ in range(3))
    bob = browser_for("bob")
    old_tokens = [login_token(old) for old in (old_laptop, old_phone, bob)]
    old_phone.post("/logout")  # an ended session is pruned as a live one is
    for token in old_tokens:
        age_login(sessions, token, LIFETIME + timedelta(hours=1))
    age_login(sessions, login_token(yesterday), timedelta(days=1))
    assert (logins(sessions, "alice"), logins(sessions, "bob")) == (3, 1)

    browser_for("alice")

    assert logins(sessions, "alice") == 2  # yesterday's and this one
    assert yesterday.get("/progress").status_code == 200
    assert logins(sessions, "bob") == 1  # pruned at bob's own next login
    assert is_logged_out(old_laptop) and is_logged_out(bob)


def test_a_logged_in_request_reads_its_login_and_user_in_one_statement(app, browser_for):
    alice = browser_for("alice")
    engine = app.extensions["quizsvc"].sessions.kw["bind"]
    sent: list[str] = []

    def capture(_conn, _cursor, statement, _parameters, _context, _executemany):
        sent.append(statement)

    event.listen(engine, "before_cursor_execute", capture)
    try:
        assert alice.get("/progress").status_code == 200
    finally:
        event.remove(engine, "before_cursor_execute", capture)
    [login] = [statement for statement in sent if "login_sessions" in statement]
    assert "JOIN" in login and "users" in login


def test_a_form_sent_after_a_logout_in_another_tab_leads_to_the_login_and_back(
    browser_for, sessions
):
    """A logout ends the session, and its CSRF token with it: a drill's answer typed in
    another tab of the same browser, sent after it, is not a forgery but a learner who must
    log in again. They are told so and led back to the drill, not shown a CSRF error."""
    alice = browser_for("alice")
    assert alice.post("/lang/en").status_code == 302
    response = alice.post("/drills/drill-score-row/variants")
    variant_url = response.headers["Location"]
    alice.get(variant_url)
    form_token = alice.token
    alice.get(alice.post("/logout").headers["Location"])  # the other tab; the same cookies

    response = alice.client.post(
        f"{variant_url}/submissions",
        data={"csrf_token": form_token, "cell-0-0": "1", "cell-0-1": "2", "cell-0-2": "3"},
    )
    assert response.status_code == 302
    assert response.headers["Location"] == f"/login?next={variant_url}/submissions"
    login_page = alice.get(response.headers["Location"])
    assert flashes(login_page.text) == [
        "You had been logged out (in another tab, say), so the form was not sent. "
        "Log in and send it again."
    ]
    with sessions() as session:
        assert session.scalar(select(store.Submission.id)) is None  # nothing was recorded

    response = alice.post(
        f"/login?next={variant_url}/submissions", {"name": "alice", "password": PASSWORD}
    )
    assert response.headers["Location"] == f"{variant_url}/submissions"
    assert alice.get(f"{variant_url}/submissions").headers["Location"] == variant_url

    # in Chinese too; a chapter question's form goes the same way
    alice.get("/chapters/transformer-by-hand")  # a page of the new login, for its token
    assert alice.post("/lang/zh").status_code == 302
    alice.get("/chapters/transformer-by-hand")
    form_token = alice.token
    alice.get(alice.post("/logout").headers["Location"])
    response = alice.client.post(
        "/chapters/transformer-by-hand/questions/qkv-origin",
        data={"csrf_token": form_token, "choice": "B"},
    )
    assert response.headers["Location"].startswith("/login?next=/chapters/")
    assert flashes(alice.get(response.headers["Location"]).text) == [
        "你已经退出登录（比如在别的标签页里），刚才的表单没有提交。请重新登录，然后再提交一次。"
    ]

    # only the forms of a login that ended: the login form itself, sent with a token that
    # is not its session's, stays a CSRF error
    response = alice.client.post(
        "/login", data={"csrf_token": "not-a-token", "name": "alice", "password": PASSWORD}
    )
    assert response.status_code == 400


def test_a_form_sent_after_the_login_ended_leads_back_to_the_page_it_was_sent_from(browser_for):
    """An instructor's form (and a logout's) has no page at its own address: the way back
    is the page the browser says it was sent from, when that page is on this site."""
    ines = browser_for("ines")
    ines.get("/instructor/students?page=1")
    form_token = ines.token
    ines.get(ines.post("/logout").headers["Location"])  # another tab; the same cookies

    def sent_from(referrer: str):
        return ines.client.post(
            "/instructor/content/reload",
            data={"csrf_token": form_token},
            headers={"Referer": referrer},
        )

    response = sent_from("http://localhost/instructor/students?page=1")
    assert response.status_code == 302
    assert response.headers["Location"] == "/login?next=/instructor/students?page%3D1"
    # a page of another site, or none: the form's own address
    for referrer in ("https://elsewhere.example/instructor/students", ""):
        response = sent_from(referrer)
        assert response.headers["Location"] == "/login?next=/instructor/content/reload"
