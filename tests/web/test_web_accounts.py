"""Accounts: self-registration is off by default; instructors create accounts."""

from __future__ import annotations

import html
import re

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
        ("not my password", NEW_PASSWORD, NEW_PASSWORD, "The current password is wrong."),
        (PASSWORD, NEW_PASSWORD, NEW_PASSWORD + "x", "The two new passwords differ."),
        (PASSWORD, "short", "short", "too short"),
        (PASSWORD, "", "", "The password is empty."),
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


# --- refusals in the page's language (the store's messages are English, for the CLI) ------


# a common password's refusal (NIST SP 800-63B asks to refuse them)
COMMON_ZH = (
    "这个密码是最常见的密码之一，有人猜密码时最先试的就是这些。"
    "请换一个：几个互不相关的词能组成一个又长又好记的密码。"
)
COMMON_EN = (
    "This password is one of the most common passwords, which are the first ones tried when "
    "someone guesses passwords. Choose another: a few unrelated words make a long password "
    "that is easy to remember."
)


def refusal(response) -> str:
    found = re.search(r'<p class="inline-error" role="alert">(.*?)</p>', response.text, re.S)
    assert found, response.text[:300]
    return html.unescape(found.group(1))


@pytest.mark.parametrize(
    ("form", "zh", "en"),
    [
        ({"name": "alice"}, "用户名“alice”已被使用。", "A user named 'alice' already exists."),
        (
            {"name": "Eve!"},
            "用户名“Eve!”无效：请用 1 到 64 个小写字母、数字、“.”、“_”或“-”，并以字母或数字开头。",
            "Invalid user name 'Eve!': use 1 to 64 lower-case letters, digits, '.', '_' or '-', "
            "starting with a letter or digit.",
        ),
        ({"password": ""}, "密码不能为空。", "The password is empty."),
        ({"password": " " * 9}, "密码不能只有空格。", "The password is only spaces."),
        (
            {"password": "short"},
            "密码太短：至少需要 8 个字符。",
            "The password is too short: use at least 8 characters.",
        ),
        (  # on the list of common passwords, whatever its letters' case
            {"password": "Sunshine1"},
            COMMON_ZH,
            COMMON_EN,
        ),
        (
            {"password_again": "long enough 2"},
            "两次输入的密码不一致。",
            "The two passwords differ.",
        ),
        (
            {"password": "x" * 1025},
            "密码不能超过 1024 个字符。",
            "The password is longer than 1024 characters.",
        ),
        (
            {"display_name": "x" * 201},
            "显示名最多 200 个字符。",
            "The display name must have 1 to 200 characters.",
        ),
        (  # PostgreSQL stores no NUL
            {"display_name": "Eve\x00"},
            "显示名里有 NUL 字符（\\u0000），无法保存。",
            "The display name contains a NUL character (\\u0000).",
        ),
    ],
)
def test_a_refused_new_account_says_why_in_the_page_language(browser_for, sessions, form, zh, en):
    ines = browser_for("ines")
    password = form.get("password", "long enough 1")  # typed twice unless the form says
    posted = {"name": "eve", "role": "student", "password": password, "password_again": password}
    posted |= form
    for lang, expected in (("zh", zh), ("en", en)):
        ines.post(f"/lang/{lang}")
        ines.get("/instructor/students")
        response = ines.post("/instructor/students", posted)
        assert response.status_code == 422
        assert refusal(response) == expected, lang
    assert user_named(sessions, "eve") is None


@pytest.mark.parametrize(
    ("current", "new", "again", "zh"),
    [
        ("not my password", NEW_PASSWORD, NEW_PASSWORD, "当前密码不正确。"),
        (PASSWORD, NEW_PASSWORD, NEW_PASSWORD + "x", "两次输入的新密码不一致。"),
        (PASSWORD, "short", "short", "密码太短：至少需要 8 个字符。"),
        (PASSWORD, "", "", "密码不能为空。"),
        (PASSWORD, "qwerty123", "qwerty123", COMMON_ZH),
    ],
)
def test_a_refused_password_change_says_why_in_chinese(browser_for, current, new, again, zh):
    alice = browser_for("alice")
    alice.post("/lang/zh")
    response = change(alice, current, new, again)
    assert response.status_code == 422
    assert refusal(response) == zh
    assert browser_for().login("alice", PASSWORD).status_code == 302


def flashes(page_html: str) -> list[str]:
    return [
        html.unescape(text)
        for text in re.findall(r'<p class="flash [^"]*" role="status">(.*?)</p>', page_html)
    ]


LOG_IN_ZH = "请先登录，再访问这个页面。"
SIGNED_OUT_ZH = "你的密码已经修改，这里的登录随之失效：请用新密码重新登录。"


def test_the_request_to_log_in_is_in_the_page_language(browser_for):
    anonymous = browser_for()
    anonymous.post("/lang/zh")
    assert flashes(anonymous.get("/progress", follow_redirects=True).text) == [LOG_IN_ZH]
    anonymous.post("/lang/en")
    assert flashes(anonymous.get("/progress", follow_redirects=True).text) == [
        "Please log in to access this page."
    ]


def test_the_start_page_is_the_login_form_for_a_visitor_without_a_request_to_log_in(
    browser_for,
):
    visitor = browser_for()
    visitor.post("/lang/en")
    start = visitor.get("/")
    assert (start.status_code, start.headers["Location"]) == (302, "/login")
    assert flashes(visitor.get("/login").text) == []


def test_the_start_page_of_an_instructor_is_their_overview_and_of_a_learner_the_chapter(
    browser_for,
):
    assert browser_for("ines").get("/").headers["Location"] == "/instructor/"
    assert browser_for("alice").get("/").headers["Location"] == "/chapters/transformer-by-hand"
    # logging in without a page to return to lands there too
    ines = browser_for()
    assert ines.login("ines").headers["Location"] == "/"


def test_a_session_ended_by_a_password_change_is_told_why_once(browser_for):
    laptop, phone = browser_for("alice"), browser_for("alice")
    phone.post("/lang/zh")
    assert change(laptop, PASSWORD, NEW_PASSWORD).status_code == 302

    signed_out = phone.get("/progress")
    assert signed_out.status_code == 302 and "/login" in signed_out.headers["Location"]
    assert flashes(phone.get(signed_out.headers["Location"]).text) == [SIGNED_OUT_ZH]
    # told once: from now on this is a visitor like any other
    assert flashes(phone.get("/progress", follow_redirects=True).text) == [LOG_IN_ZH]
    assert flashes(phone.get("/login").text) == []


def test_a_session_ended_by_a_password_change_is_told_why_on_the_login_page_too(browser_for):
    laptop, tablet = browser_for("alice"), browser_for("alice")
    tablet.post("/lang/en")
    assert change(laptop, PASSWORD, NEW_PASSWORD).status_code == 302
    # opened straight away, so Flask-Login never asks this session to log in
    assert flashes(tablet.get("/login").text) == [
        "Your password was changed, so you were signed out here: log in again with the new "
        "password."
    ]
    assert flashes(tablet.get("/login").text) == []
    assert tablet.login("alice", NEW_PASSWORD).status_code == 302
    assert tablet.get("/progress").status_code == 200


@pytest.mark.parametrize("forged", ["abc.key", "\u00b2.key", "-1.key", "999.key", ".key"])
def test_a_session_naming_no_user_is_a_visitor_not_an_error(app, browser_for, forged):
    alice = browser_for("alice")
    with alice.client.session_transaction() as cookie_session:
        cookie_session["_user_id"] = forged
    response = alice.get("/progress")
    assert response.status_code == 302 and "/login" in response.headers["Location"]


def test_the_password_page_shows_its_form(browser_for):
    page = browser_for("alice").get("/account/password")
    assert page.status_code == 200
    for field in ("current_password", "new_password", "new_password_again"):
        assert f'name="{field}"' in page.text, field


def test_logging_out_says_so(browser_for):
    alice = browser_for("alice")
    alice.post("/lang/en")
    response = alice.post("/logout")
    assert response.status_code == 302
    assert flashes(alice.get(response.headers["Location"]).text) == ["You are logged out."]
    assert alice.get("/progress").status_code == 302


def test_logging_in_again_clears_the_notice_of_a_session_ended_by_a_password_change(browser_for):
    laptop, phone = browser_for("alice"), browser_for("alice")
    phone.post("/lang/en")
    assert change(laptop, PASSWORD, NEW_PASSWORD).status_code == 302
    # the session is refused by a request that tells nobody (the API's 401)
    assert phone.get("/api/progress").status_code == 401
    # and the login form, still open from before, is sent without opening the page again
    response = phone.post("/login", {"name": "alice", "password": NEW_PASSWORD})
    assert response.status_code == 302
    # the page it leads to, with the new session's CSRF token
    phone.get(response.headers["Location"], follow_redirects=True)
    response = phone.post("/logout")
    # logged in again since: the old refusal is not news any more
    assert flashes(phone.get(response.headers["Location"]).text) == ["You are logged out."]
