"""Password guessing is slowed down: after 10 failed attempts at one account's password in 10
minutes (logging in, or the current password of a password change) that password is not
checked again, the right one included, until the window lets another attempt in."""

from __future__ import annotations

import pytest
from web_helpers import PASSWORD, reading

from quizsvc import store
from quizsvc.web import create_app

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
    assert "这个用户名的登录失败次数过多，请 10 分钟后再试。" in response.text


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


# --- per client address ------------------------------------------------------------------

ADDRESS_LIMIT = 50  # the default: 50 failed logins from one address in any 10 minutes


def app_with(database_url, **config):
    return create_app({"SECRET_KEY": "test secret", "DATABASE_URL": database_url, **config})


def log_in(client, name: str, password: str, **request):
    """The login form as sent from a browser at `request`'s address (environ_base, headers)."""
    page = client.get("/login", **request)
    token = page.text.split('name="csrf_token" value="')[1].split('"')[0]
    return client.post(
        "/login", data={"csrf_token": token, "name": name, "password": password}, **request
    )


def from_address(address: str) -> dict:
    return {"environ_base": {"REMOTE_ADDR": address}}


@pytest.mark.slow  # fifty failed logins
def test_failed_logins_over_many_names_from_one_address_are_throttled(app):
    client = app.test_client()
    sprayer = from_address("203.0.113.7")
    for attempt in range(ADDRESS_LIMIT):  # one guess at each of 50 names: none hits its limit
        assert log_in(client, f"user{attempt}", "Winter2026!", **sprayer).status_code == 401
    refused = log_in(client, "alice", PASSWORD, **sprayer)  # even the right password
    assert_throttled(refused)
    assert (
        "Too many failed attempts to log in from this network address. Try again in 10 minutes."
        in refused.text
    )
    assert "Log out" not in refused.text
    # another address is not held up, nor is the name tried
    assert log_in(client, "alice", PASSWORD, **from_address("198.51.100.20")).status_code == 302


def test_the_address_count_is_one_per_address_and_keeps_failures_only(database_url):
    app = app_with(database_url, LOGIN_ADDRESS_ATTEMPT_LIMITS="3 per 10 minutes")
    client = app.test_client()
    first, second = from_address("192.0.2.1"), from_address("198.51.100.2")
    for _ in range(3):  # one name from two addresses: three failures each, all checked
        assert log_in(client, "alice", "wrong", **first).status_code == 401
        assert log_in(client, "alice", "wrong", **second).status_code == 401
    assert_throttled(log_in(client, "bob", PASSWORD, **first))
    assert_throttled(log_in(client, "bob", PASSWORD, **second))

    # logins that succeed are not counted, and one does not reset the failures before it
    third = from_address("192.0.2.99")
    for _ in range(4):
        assert log_in(client, "bob", PASSWORD, **third).status_code == 302
    for _ in range(2):
        assert log_in(client, "nobody", "wrong", **third).status_code == 401
    assert log_in(client, "bob", PASSWORD, **third).status_code == 302
    assert log_in(client, "nobody", "wrong", **third).status_code == 401
    assert_throttled(log_in(client, "bob", PASSWORD, **third))


def test_an_ipv6_client_counts_by_its_64_network(database_url):
    app = app_with(database_url, LOGIN_ADDRESS_ATTEMPT_LIMITS="2 per 10 minutes")
    client = app.test_client()
    assert log_in(client, "a", "wrong", **from_address("2001:db8:1:2::1")).status_code == 401
    assert log_in(client, "b", "wrong", **from_address("2001:db8:1:2::2")).status_code == 401
    # the same /64: one host choosing another of its addresses
    assert_throttled(log_in(client, "alice", PASSWORD, **from_address("2001:db8:1:2:ffff::9")))
    # the next /64 is another client
    assert log_in(client, "alice", PASSWORD, **from_address("2001:db8:1:3::1")).status_code == 302


@pytest.mark.slow  # two apps and ten logins
def test_x_forwarded_for_is_ignored_unless_proxies_are_trusted(database_url):
    proxy = from_address("10.0.0.1")
    untrusting = app_with(
        database_url, LOGIN_ADDRESS_ATTEMPT_LIMITS="2 per 10 minutes"
    ).test_client()
    for client_ip in ("192.0.2.1", "192.0.2.2"):  # a client can write any header it likes
        headers = {"X-Forwarded-For": client_ip}
        assert log_in(untrusting, "a", "wrong", headers=headers, **proxy).status_code == 401
    headers = {"X-Forwarded-For": "192.0.2.3"}
    assert_throttled(log_in(untrusting, "alice", PASSWORD, headers=headers, **proxy))

    trusting = app_with(
        database_url, LOGIN_ADDRESS_ATTEMPT_LIMITS="2 per 10 minutes", TRUSTED_PROXIES=1
    ).test_client()
    # behind one proxy: the address it appended, the last one, is the client's
    for _ in range(2):
        headers = {"X-Forwarded-For": "203.0.113.1, 192.0.2.1"}
        assert log_in(trusting, "a", "wrong", headers=headers, **proxy).status_code == 401
    spoofed = {"X-Forwarded-For": "203.0.113.50, 192.0.2.1"}  # the client's own entry varies
    assert_throttled(log_in(trusting, "alice", PASSWORD, headers=spoofed, **proxy))
    another = {"X-Forwarded-For": "192.0.2.2"}  # another client behind the same proxy
    assert log_in(trusting, "alice", PASSWORD, headers=another, **proxy).status_code == 302


def test_the_address_limits_are_a_setting_and_a_bad_one_stops_the_app(database_url):
    for bad in ("10 per fortnight", "", "ten"):
        with pytest.raises(ValueError, match="QUIZSVC_LOGIN_ADDRESS_ATTEMPT_LIMITS"):
            app_with(database_url, LOGIN_ADDRESS_ATTEMPT_LIMITS=bad)
