"""Error pages speak the page's language; the JSON API's error messages stay English (its
clients parse them)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

CHAPTER_URL = "/chapters/transformer-by-hand"


def message(response) -> str:
    found = re.search(r'<p class="error-message">(.*?)</p>', response.text, re.S)
    assert found, response.text[:300]
    return found.group(1)


def in_language(browser, lang: str):
    browser.post(f"/lang/{lang}")
    return browser


@pytest.mark.parametrize(
    ("method", "path", "status", "zh", "en"),
    [
        (
            "GET",
            "/chapters/no-such-chapter",
            404,
            "没有章节“no-such-chapter”。",
            "There is no chapter &#39;no-such-chapter&#39;.",
        ),
        (
            "POST",
            f"{CHAPTER_URL}/questions/drill-score-row",
            404,
            "章节“transformer-by-hand”中没有题目“drill-score-row”。",
            "There is no question &#39;drill-score-row&#39; in chapter "
            "&#39;transformer-by-hand&#39;.",
        ),
        (
            "GET",
            "/variants/999999",
            404,
            "你没有编号为 999999 的练习题。",
            "You have no drill exercise numbered 999999.",
        ),
        ("POST", "/drills/no-such-drill/variants", 404, "没有练习“no-such-drill”。", None),
        ("POST", "/drills/qkv-origin/start", 404, "没有练习“qkv-origin”。", None),
        # Werkzeug's own descriptions: a URL no route has, a method a route does not take
        (
            "GET",
            "/no-such-page",
            404,
            "没有这个页面。如果地址是手动输入的，请检查拼写后再试。",
            None,
        ),
        ("GET", "/logout", 405, "这个地址不接受这种请求方式。", None),
        ("GET", "/instructor/", 403, "这个页面只对老师开放。", "This page is for instructors."),
        ("POST", "/lang/fr", 404, "没有语言“fr”；可选：zh, en", None),
        ("GET", "/lang/en", 405, "这个地址不接受这种请求方式。", None),
    ],
)
def test_error_pages_are_in_the_page_language(browser_for, method, path, status, zh, en):
    alice = in_language(browser_for("alice"), "zh")
    response = alice.get(path) if method == "GET" else alice.post(path, {"text": "1"})
    assert response.status_code == status
    assert message(response) == zh
    assert "<h1>出错了" in response.text
    if en is not None:  # the English text as it was before the catalog had it
        in_language(alice, "en")
        response = alice.get(path) if method == "GET" else alice.post(path, {"text": "1"})
        assert message(response) == en


def test_a_body_over_the_size_limit_is_a_413_page_in_the_page_language(browser_for):
    alice = in_language(browser_for("alice"), "zh")
    too_large = {"text": "x" * (256 * 1024)}  # the form and its token go over 256 KiB
    response = alice.post(f"{CHAPTER_URL}/questions/why-multi-head", too_large)
    assert response.status_code == 413
    assert message(response) == "发送的数据太大了。"
    in_language(alice, "en")
    response = alice.post(f"{CHAPTER_URL}/questions/why-multi-head", too_large)
    assert message(response) == "The data value transmitted exceeds the capacity limit."


def test_the_405_page_keeps_werkzeugs_allow_header(browser_for):
    page = in_language(browser_for("alice"), "zh").get("/logout")
    assert page.status_code == 405
    assert set(page.headers["Allow"].split(", ")) == {"POST", "OPTIONS"}
    page = in_language(browser_for("alice"), "en").get("/logout")
    assert message(page) == "The method is not allowed for the requested URL."


def test_a_failed_csrf_check_is_explained_in_the_page_language(browser_for):
    alice = in_language(browser_for("alice"), "zh")
    refused = alice.client.post(f"{CHAPTER_URL}/questions/qkv-origin", data={"choice": "B"})
    assert refused.status_code == 400
    # reloading this page (served at the form's address) would only send the same form
    # again, with the same token: the way out is the form's page, loaded again
    assert message(refused) == (
        "CSRF 校验失败：表单的安全令牌缺失或已过期，表单没有提交。"
        "请返回表单所在的页面，刷新后再提交（刷新本页只会重发过期的表单）。"
    )
    in_language(alice, "en")
    refused = alice.client.post(f"{CHAPTER_URL}/questions/qkv-origin", data={"choice": "B"})
    assert message(refused) == (
        "CSRF check failed: the form&#39;s security token is missing or out of date, so the "
        "form was not sent. Go back to the form&#39;s page, reload it and send the form again "
        "(reloading this page would send the old form again)."
    )


class TestAnUnexpectedError:
    @pytest.fixture
    def app(self, fresh_app):
        def broken():
            raise RuntimeError("a bug")

        fresh_app.add_url_rule("/broken", view_func=broken)
        return fresh_app

    def test_is_a_500_page_in_the_page_language(self, browser_for):
        alice = in_language(browser_for("alice"), "zh")
        response = alice.get("/broken")
        assert response.status_code == 500
        assert message(response) == "服务器内部出错，无法完成请求。请稍后再试。"
        assert "a bug" not in response.text


def test_api_error_messages_stay_english_whatever_the_language(browser_for):
    alice = in_language(browser_for("alice"), "zh")
    headers = {"X-CSRFToken": alice.token, "Accept-Language": "zh-CN"}
    for path, expected in [
        ("/api/variants/999999", "no drill variant 999999"),
        ("/api/chapters/no-such-chapter/questions", "no chapter 'no-such-chapter'"),
        ("/api/no-such-route", "The requested URL was not found on the server."),
    ]:
        response = alice.client.get(path, headers=headers)
        assert response.status_code == 404
        assert response.json["error"]["message"].startswith(expected), path
    response = alice.client.post("/api/drills/recommended", headers={"Accept-Language": "zh-CN"})
    assert response.status_code == 400
    assert response.json["error"]["code"] == "csrf_failed"
    assert response.json["error"]["message"] == "CSRF check failed: The CSRF token is missing."


@pytest.fixture
def without_drills() -> bool:
    """Serve content/ as it is; a test parametrizes this to serve it without its drills."""
    return False


@pytest.fixture
def content_dir(content_dir, without_drills) -> Path:
    if without_drills:
        (content_dir / "transformer-by-hand" / "drills.yaml").unlink()
    return content_dir


@pytest.mark.parametrize("without_drills", [True])
def test_no_drills_in_the_bank_is_said_in_the_page_language(browser_for):
    alice = in_language(browser_for("alice"), "zh")
    response = alice.post("/drills/recommended")
    assert response.status_code == 404
    assert message(response) == "题库里没有计算练习。"
    in_language(alice, "en")
    assert message(alice.post("/drills/recommended")) == "There are no drills in the question bank."
    # and the API says so in its own words
    response = alice.post("/api/drills/recommended/variants", headers={"X-CSRFToken": alice.token})
    assert (response.status_code, response.json["error"]["message"]) == (
        404,
        "there are no drills in the question bank",
    )
