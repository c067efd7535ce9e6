"""A student's account in a browser: the instructor deactivates and activates it, deletes the
student only once their login name is typed; the student downloads their data."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from browser_helpers import PASSWORD, choose_language, login
from sqlalchemy import select

from quizsvc import practice, store

try:
    from playwright.sync_api import expect
except ImportError:  # the `chromium` fixture skips (or fails under CI) with the reason
    expect = None


def test_an_instructor_deactivates_activates_and_deletes_a_student(live_server, page, student):
    teacher = f"teacher-{uuid.uuid4().hex[:8]}"
    with live_server.sessions() as session:
        store.create_user(session, name=teacher, role="instructor", password=PASSWORD)
        learner = session.scalar(select(store.User.id).where(store.User.name == student))
    login(page, teacher)
    choose_language(page, "zh")
    page.goto(f"/instructor/students/{learner}")

    with page.expect_navigation():
        page.get_by_role("button", name="停用账号").click()
    expect(page.locator("#account-state")).to_contain_text("已于")
    with page.expect_navigation():
        page.get_by_role("button", name="启用账号").click()
    expect(page.locator("#account-state")).to_have_text("已启用。")

    confirm = page.get_by_label("输入学生的登录名以确认")
    confirm.fill("someone-else")
    with page.expect_navigation():
        page.get_by_role("button", name="删除该学生及其全部作答").click()
    expect(page.locator("#delete-student [role=alert]")).to_contain_text(student)
    with live_server.sessions() as session:
        assert session.get(store.User, learner) is not None

    page.get_by_label("输入学生的登录名以确认").fill(student)
    with page.expect_navigation():
        page.get_by_role("button", name="删除该学生及其全部作答").click()
    assert page.url.endswith("/instructor/students")
    expect(page.locator(".flash")).to_contain_text(f"{student} 及其全部记录已删除")
    expect(page.locator(f'[data-student="{student}"]')).to_have_count(0)
    with live_server.sessions() as session:
        assert session.get(store.User, learner) is None


def test_a_student_downloads_their_data_from_the_progress_page(live_server, page, student):
    bank = live_server.app.extensions["quizsvc"].bank
    with live_server.sessions() as session:
        learner = session.scalar(select(store.User.id).where(store.User.name == student))
        practice.answer_question(
            session, bank, learner, "why-multi-head", "k1", text="Each head looks elsewhere."
        )
    login(page, student)
    page.goto("/progress")
    with page.expect_download() as download:
        page.click("#personal-data")
    assert download.value.suggested_filename == f"quizsvc-{student}.json"
    data = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert data["account"]["name"] == student
    assert [a["text"] for a in data["quiz_answers"]] == ["Each head looks elsewhere."]
