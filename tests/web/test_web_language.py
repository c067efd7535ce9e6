"""The language a visitor chooses on the login or registration page (the header's toggle,
kept in the session) is kept with the account they then log in to or create, so it follows
them to another browser; a language left in the session by someone else's logout is not. The
API's refusals of an answer speak the request's language (`?lang=`, else Accept-Language)."""

from __future__ import annotations

import re

import pytest
from web_helpers import reading, user_id

from quizsvc import store

CHAPTER_URL = "/chapters/transformer-by-hand"


@pytest.fixture
def app(app_with):
    return app_with({"SECRET_KEY": "s", "REGISTRATION_OPEN": True})


def html_lang(page_html: str) -> str:
    return re.search(r'<html lang="([^"]+)">', page_html).group(1)


def account_language(sessions, name: str) -> str | None:
    with reading(sessions) as session:
        return store.user_by_id(session, user_id(sessions, name)).language


def test_a_language_chosen_on_the_login_page_is_kept_with_the_account(browser_for, sessions):
    assert account_language(sessions, "alice") is None
    laptop = browser_for()
    laptop.get("/login")
    assert laptop.post("/lang/zh").status_code == 302  # logged out: the session only
    assert account_language(sessions, "alice") is None
    assert laptop.login("alice").status_code == 302
    assert account_language(sessions, "alice") == "zh"
    assert html_lang(laptop.get(CHAPTER_URL).text) == "zh-CN"
    # another browser, which asks for English: the account's choice goes first
    phone = browser_for()
    phone.login("alice")
    assert html_lang(phone.get(CHAPTER_URL, headers={"Accept-Language": "en"}).text) == "zh-CN"


def test_a_language_chosen_on_the_registration_page_is_kept_with_the_new_account(
    browser_for, sessions
):
    eve = browser_for()
    eve.get("/register")
    eve.post("/lang/zh")
    form = {"name": "eve", "password": "long enough 1", "password_again": "long enough 1"}
    assert eve.post("/register", form).status_code == 302
    assert account_language(sessions, "eve") == "zh"
    other = browser_for()
    other.login("eve", "long enough 1")
    assert html_lang(other.get(CHAPTER_URL, headers={"Accept-Language": "en"}).text) == "zh-CN"


def test_a_refused_login_keeps_the_choice_for_the_next_try(browser_for, sessions):
    visitor = browser_for()
    visitor.get("/login")
    visitor.post("/lang/en")
    assert visitor.login("alice", "wrong password").status_code == 401
    assert account_language(sessions, "alice") is None
    assert visitor.login("alice").status_code == 302
    assert account_language(sessions, "alice") == "en"


def test_the_language_left_by_a_logout_is_not_saved_to_the_next_user_s_account(
    browser_for, sessions
):
    with sessions() as session:
        store.set_language(session, user_id(sessions, "bob"), "en")
    shared = browser_for()
    shared.login("alice")
    shared.post("/lang/zh")  # alice's choice, logged in: kept with her account
    shared.post("/logout")
    assert html_lang(shared.get("/login").text) == "zh-CN"  # the page as alice left it
    shared.login("bob")
    # this browser keeps its page language, but bob's account keeps his own choice
    assert account_language(sessions, "bob") == "en"
    assert account_language(sessions, "alice") == "zh"
    other = browser_for()
    other.login("bob")
    assert html_lang(other.get(CHAPTER_URL, headers={"Accept-Language": "zh"}).text) == "en"


@pytest.mark.parametrize(
    ("query", "headers", "message"),
    [
        ("?lang=zh", {}, "应为 1 × 3 个值（行 × 列），实际是 1 × 2"),
        (
            "?lang=en",
            {"Accept-Language": "zh"},
            "expected 1 × 3 values (rows × columns), got 1 × 2",
        ),
        ("", {"Accept-Language": "zh-CN,zh;q=0.9"}, "应为 1 × 3 个值（行 × 列），实际是 1 × 2"),
        ("", {"Accept-Language": "en-US"}, "expected 1 × 3 values (rows × columns), got 1 × 2"),
    ],
)
def test_the_api_refuses_an_answer_in_the_request_s_language(browser_for, query, headers, message):
    alice = browser_for("alice")
    started = alice.client.post(
        "/api/drills/drill-score-row/variants", headers={"X-CSRFToken": alice.token}
    )
    url = f"/api/variants/{started.json['id']}/submissions{query}"
    response = alice.client.post(
        url, json={"answer": "1, 2"}, headers={"X-CSRFToken": alice.token, **headers}
    )
    assert response.status_code == 422
    assert response.json["error"] == {
        "status": 422,
        "code": "invalid_answer",
        "reason": "wrong_shape",
        "message": message,
    }


@pytest.mark.parametrize(
    ("lang", "message"),
    [("zh", "只能选择一个答案"), ("en", "choose exactly one answer")],
)
def test_a_chapter_answer_refused_by_the_api_speaks_the_request_s_language(
    browser_for, lang, message
):
    alice = browser_for("alice")
    response = alice.client.post(
        f"/api/questions/qkv-origin/answers?lang={lang}",
        json={"choices": ["A", "B"]},
        headers={"X-CSRFToken": alice.token},
    )
    assert response.status_code == 422
    assert response.json["error"]["reason"] == "several_choices"
    assert response.json["error"]["message"] == message
