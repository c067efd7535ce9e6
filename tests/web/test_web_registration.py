"""Self-registration where REGISTRATION_OPEN is set (it is off by default)."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from quizsvc import store


@pytest.fixture
def app(app_with):
    return app_with({"SECRET_KEY": "s", "REGISTRATION_OPEN": True})


def user_named(sessions, name: str) -> store.User | None:
    with sessions() as session:
        return session.scalar(select(store.User).where(store.User.name == name))


def test_open_registration_creates_a_student_and_logs_them_in(browser_for, sessions):
    eve = browser_for()
    assert 'href="/register"' in eve.get("/login").text
    eve.get("/register")
    form = {"name": "eve", "display_name": "伊芙", "password": "long enough 1"}
    response = eve.post("/register", {**form, "password_again": "long enough 1"})
    assert response.status_code == 302
    user = user_named(sessions, "eve")
    assert (user.role, user.display_name) == ("student", "伊芙")
    assert "伊芙" in eve.get("/", follow_redirects=True).text  # logged in


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"name": "alice", "password": "long enough 1"}, "A user named &#39;alice&#39; already"),
        ({"name": "eve", "password": "short"}, "at least 8"),
        ({"name": "Eve!", "password": "long enough 1"}, "user name"),
        ({"name": "eve", "password": "password123"}, "one of the most common passwords"),
    ],
)
def test_registration_errors_are_shown_and_store_nothing(browser_for, sessions, form, message):
    visitor = browser_for()
    visitor.get("/register")
    response = visitor.post("/register", {**form, "password_again": form["password"]})
    assert response.status_code == 422
    assert message in response.text
    assert user_named(sessions, "eve") is None
    assert user_named(sessions, "alice").role == "student"


def test_registration_refuses_two_different_passwords(browser_for, sessions):
    visitor = browser_for()
    visitor.get("/register")
    form = {"name": "eve", "password": "long enough 1", "password_again": "long enough 2"}
    response = visitor.post("/register", form)
    assert response.status_code == 422 and "The two passwords differ." in response.text
    assert user_named(sessions, "eve") is None


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"name": "alice", "password": "long enough 1"}, "用户名“alice”已被使用。"),
        ({"name": "eve", "password": "short"}, "密码太短：至少需要 8 个字符。"),
    ],
)
def test_registration_errors_are_in_chinese_on_a_chinese_page(browser_for, sessions, form, message):
    visitor = browser_for()
    visitor.post("/lang/zh")
    visitor.get("/register")
    response = visitor.post("/register", {**form, "password_again": form["password"]})
    assert response.status_code == 422
    assert f'<p class="inline-error" role="alert">{message}</p>' in response.text
    assert user_named(sessions, "eve") is None


def test_the_registration_page_shows_its_form(browser_for):
    page = browser_for().get("/register")
    assert page.status_code == 200
    for field in ("name", "display_name", "password", "password_again"):
        assert f'name="{field}"' in page.text, field


def test_the_user_name_field_states_its_rule_in_the_page_language(browser_for):
    visitor = browser_for()
    for lang, rule in [
        ("en", "1 to 64 lower-case letters, digits, &#39;.&#39;, &#39;_&#39; or &#39;-&#39;, "
         "starting with a letter or digit."),
        ("zh", "1 到 64 个小写字母、数字、“.”、“_”或“-”，以字母或数字开头。"),
    ]:  # fmt: skip
        visitor.post(f"/lang/{lang}")
        page = visitor.get("/register").text
        field = re.search(r'<input name="name"[^>]*>', page).group(0)
        # the title joins the browser's own "match the requested format" message
        assert f'title="{rule}"' in field
        assert 'aria-describedby="username-rule"' in field
        assert f'<small class="field-rule" id="username-rule">{rule}</small>' in page
