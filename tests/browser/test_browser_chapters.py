"""A bank of two chapters: the learner's start page lists them, and a chapter shows its intro;
both pages, in zh and in en, at a desktop's and a phone's width, checked by axe-core as every
other page is (tests/browser/test_browser_accessibility.py)."""

from __future__ import annotations

import shutil

import pytest
from browser_helpers import PASSWORD, REPO
from test_browser_accessibility import LANGUAGES, Audit, browser

from quizsvc import store

SECOND_CHAPTER = {
    "chapter.yaml": """\
id: attention-review
order: 2
title: {zh: 注意力复习, en: Attention review}
intro:
  zh: |-
    复习 **缩放** 点积：

    - 为什么除以 `√d_k`
    - Softmax 之后每行的和
  en: |-
    Reviews the **scaled** dot product:

    - why divide by `√d_k`
    - what each row of the softmax adds up to
""",
    "questions.yaml": """\
questions:
  - id: review-scale
    type: single_choice
    tags: [scores]
    prompt: {zh: 为什么要缩放？, en: "Why scale?"}
    choices:
      - {id: A, text: {zh: 保持方差, en: To keep the variance}}
      - {id: B, text: {zh: 为了速度, en: For speed}}
    correct: A
    explanation: {zh: 保持方差。, en: To keep the variance.}
""",
}


@pytest.fixture(scope="module")
def app_config(tmp_path_factory) -> dict:
    content = tmp_path_factory.mktemp("two-chapters") / "content"
    shutil.copytree(REPO / "content", content)
    (content / "attention-review").mkdir()
    for name, text in SECOND_CHAPTER.items():
        (content / "attention-review" / name).write_text(text, encoding="utf-8")
    return {"CONTENT_DIR": str(content)}


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_chapter_list_and_a_chapters_intro_have_no_axe_violations(
    chromium, axe, live_server, language
):
    name = f"reader-{language}"
    with live_server.sessions() as session:
        store.create_user(session, name=name, role="student", password=PASSWORD)
    context, page = browser(chromium, live_server, language)
    try:
        page.goto("/login")
        page.fill("input[name=name]", name)
        page.fill("input[name=password]", PASSWORD)
        with page.expect_navigation():
            page.click("form.login button[type=submit]")
        audit = Audit(axe, page, language)
        audit.visit("/", "the chapter list")
        assert page.locator("#chapters > li").count() == 2
        page.click("li[data-chapter=attention-review] a")
        page.wait_for_url("**/chapters/attention-review")
        assert page.locator("#chapter-intro li").count() == 2
        audit.check("a chapter with an intro")
        audit.assert_clean()
    finally:
        context.close()
