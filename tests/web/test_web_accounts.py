"""Accounts: self-registration is off by default; instructors create accounts."""

from __future__ import annotations

from sqlalchemy import select

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
