"""Accounts: self-registration is off by default; instructors create accounts."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from web_helpers import PASSWORD

from quizsvc import store


def user_named(sessions, name: str) -> store.User | None:
    with sessions() as session:
        return session.scalar(select(store.User).where(store.User.name == name))


def test_registration_is_off_by_default(browser_for, sessions):
    anonymous = browser_for()
    assert anonymous.get("/register").status_code == 404
    assert "Register" not in anonymous.get("/login").text
    response = anonymous.post(
        "/register", {"name": "eve", "password": "long enough 1", "password_again": "long enough 1"}
    )
    assert response.status_code == 404
    assert user_named(sessions, "eve") is None


def test_an_instructor_creates_accounts(browser_for, sessions):
    ines = browser_for("ines")
    ines.get("/instructor/students")
    form = {"name": "tom", "display_name": '汤姆, "T"', "role": "instructor"}
    secret = {"password": "long enough 1", "password_again": "long enough 1"}
    response = ines.post("/instructor/students", {**form, **secret})
    assert response.status_code == 302
    tom = user_named(sessions, "tom")
    assert (tom.role, tom.display_name) == ("instructor", '汤姆, "T"')
    assert browser_for().login("tom", "long enough 1").status_code == 302

    again = ines.post("/instructor/students", {**form, **secret})
    assert again.status_code == 422 and "already exists" in again.text


def test_students_cannot_create_accounts(browser_for, sessions):
    alice = browser_for("alice")
    form = {"name": "mallory", "role": "instructor", "password": "long enough 1"}
    assert (
        alice.post("/instructor/students", {**form, "password_again": "long enough 1"}).status_code
        == 403
    )
    assert user_named(sessions, "mallory") is None


NEW_PASSWORD = "a brand new one"


def change(browser, current: str, new: str, again: str | None = None):
    browser.get("/account/password")
    return browser.post(
        "/account/password",
        {"current_password": current, "new_password": new, "new_password_again": again or new},
    )


def test_a_user_changes_their_password_and_every_other_session_ends(browser_for):
    laptop, phone = browser_for("alice"), browser_for("alice")
    assert phone.get("/progress").status_code == 200

    response = change(laptop, PASSWORD, NEW_PASSWORD)
    assert response.status_code == 302
    assert "Your password is changed" in laptop.get("/", follow_redirects=True).text
    assert laptop.get("/progress").status_code == 200  # the browser that changed it stays in
    signed_out = phone.get("/progress")
    assert signed_out.status_code == 302 and "/login" in signed_out.headers["Location"]

    assert browser_for().login("alice", PASSWORD).status_code == 401
    assert browser_for().login("alice", NEW_PASSWORD).status_code == 302
    assert browser_for("bob").get("/progress").status_code == 200  # nobody else is affected


@pytest.mark.parametrize(
    ("current", "new", "again", "message"),
    [
        ("not my password", NEW_PASSWORD, NEW_PASSWORD, "the current password is wrong"),
        (PASSWORD, NEW_PASSWORD, NEW_PASSWORD + "x", "the two new passwords differ"),
        (PASSWORD, "short", "short", "too short"),
        (PASSWORD, "", "", "the password is empty"),
    ],
)
def test_a_refused_change_says_why_and_keeps_the_old_password(
    browser_for, current, new, again, message
):
    alice = browser_for("alice")
    response = change(alice, current, new, again)
    assert response.status_code == 422 and message in response.text
    assert alice.get("/progress").status_code == 200
    assert browser_for().login("alice", PASSWORD).status_code == 302


def test_the_password_page_needs_a_login(browser_for):
    anonymous = browser_for()
    assert "/login" in anonymous.get("/account/password").headers["Location"]
    response = anonymous.post(
        "/account/password",
        {"current_password": PASSWORD, "new_password": NEW_PASSWORD},
    )
    assert response.status_code == 302 and "/login" in response.headers["Location"]
    assert browser_for().login("alice", PASSWORD).status_code == 302


def test_a_session_cookie_of_the_old_format_or_a_forged_key_is_not_a_login(app, browser_for):
    alice = browser_for("alice")
    with alice.client.session_transaction() as cookie_session:
        user_id = cookie_session["_user_id"].partition(".")[0]
    for forged in (user_id, f"{user_id}.", f"{user_id}.{'0' * 32}"):
        with alice.client.session_transaction() as cookie_session:
            cookie_session["_user_id"] = forged
        assert alice.get("/progress").status_code == 302, forged
