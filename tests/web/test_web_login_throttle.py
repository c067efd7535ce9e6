"""Password guessing is slowed down: after 10 failed attempts at one account's password in 10
minutes (logging in, or the current password of a password change) that password is not
checked again, the right one included, until the window lets another attempt in."""

from __future__ import annotations

import pytest
from web_helpers import PASSWORD, reading

from quizsvc import store
from quizsvc.web import create_app
from quizsvc.web.i18n import MESSAGES

NEW_PASSWORD = "a brand new passphrase"
LIMIT = 10  # the default: 10 attempts in any 10 minutes
WINDOW_SECONDS = 600


def fail_logins(browser_for, name: str, times: int) -> None:
    for attempt in range(times):
        response = browser_for().login(name, f"wrong guess {attempt}")
        assert response.status_code == 401, (name, attempt)


def assert_throttled(response) -> None:
    assert response.status_code == 429
    assert 1 <= int(response.headers["Retry-After"]) <= WINDOW_SECONDS


def test_the_eleventh_login_attempt_is_refused_even_with_the_right_password(browser_for):
    fail_logins(browser_for, "alice", LIMIT)
    b = browser_for()
    response = b.login("alice", PASSWORD)
    assert_throttled(response)
    # the page says why, and how long to wait (10 minutes, rounded up)
    assert "Too many failed attempts to log in as this user. Try again in 10 minutes." in (
        response.text
    )
    assert "Log out" not in response.text
    with b.client.session_transaction() as session:
        assert "_user_id" not in session
    # every other account is untouched
    assert browser_for().login("bob").status_code == 302


def test_a_name_that_is_nobodys_is_throttled_the_same_so_nothing_tells_it_apart(browser_for):
    fail_logins(browser_for, "nobody", LIMIT)
    assert_throttled(browser_for().login("nobody", PASSWORD))


def test_a_right_password_forgets_the_failures_before_it(browser_for):
    fail_logins(browser_for, "alice", LIMIT - 1)
    assert browser_for().login("alice").status_code == 302
    fail_logins(browser_for, "alice", LIMIT)  # ten more wrong ones, all still checked
    assert_throttled(browser_for().login("alice"))


def test_the_throttled_page_is_in_the_pages_language(browser_for):
    fail_logins(browser_for, "alice", LIMIT)
    b = browser_for()
    b.post("/lang/zh")
    response = b.login("alice")
    assert_throttled(response)
    expected = MESSAGES["login_throttled"]["zh"].format(count=10)
    assert expected in response.text


def test_guessing_the_current_password_of_a_password_change_is_throttled(browser_for, sessions):
    thief = browser_for("alice")  # say, with a session cookie taken from alice's browser
    thief.get("/account/password")
    for attempt in range(LIMIT):
        response = thief.post(
            "/account/password",
            {
                "current_password": f"wrong guess {attempt}",
                "new_password": NEW_PASSWORD,
                "new_password_again": NEW_PASSWORD,
            },
        )
        assert response.status_code == 422, attempt
    response = thief.post(
        "/account/password",
        {
            "current_password": PASSWORD,
            "new_password": NEW_PASSWORD,
            "new_password_again": NEW_PASSWORD,
        },
    )
    assert_throttled(response)
    assert (
        "The current password was wrong too many times. Try again in 10 minutes." in response.text
    )
    with reading(sessions) as session:
        assert store.authenticate(session, "alice", PASSWORD) is not None  # unchanged
    # and the same count guards the login form
    assert_throttled(browser_for().login("alice", PASSWORD))


def test_the_limits_are_a_setting_and_a_bad_one_stops_the_app(database_url, browser_for):
    app = create_app(
        {
            "SECRET_KEY": "test secret",
            "DATABASE_URL": database_url,
            "LOGIN_ATTEMPT_LIMITS": "2 per hour",
        }
    )
    client = app.test_client()
    statuses = []
    for _ in range(3):
        page = client.get("/login")
        token = page.text.split('name="csrf_token" value="')[1].split('"')[0]
        statuses.append(
            client.post(
                "/login", data={"csrf_token": token, "name": "alice", "password": "nope"}
            ).status_code
        )
    assert statuses == [401, 401, 429]

    for bad in ("10 per fortnight", "", "ten"):
        with pytest.raises(ValueError, match="LOGIN_ATTEMPT_LIMITS"):
            create_app(
                {
                    "SECRET_KEY": "test secret",
                    "DATABASE_URL": database_url,
                    "LOGIN_ATTEMPT_LIMITS": bad,
                }
            )
    with pytest.raises(ValueError, match="LOGIN_THROTTLE_STORAGE"):
        create_app(
            {
                "SECRET_KEY": "test secret",
                "DATABASE_URL": database_url,
                "LOGIN_THROTTLE_STORAGE": "nosuchstorage://here",
            }
        )
