"""The review queue in a browser: what an instructor types into one answer's form is not lost
by sending another's."""

from __future__ import annotations

import uuid

from browser_helpers import PASSWORD, choose_language, login
from sqlalchemy import select

from quizsvc import practice, store

try:
    from playwright.sync_api import expect
except ImportError:  # the `chromium` fixture skips (or fails under CI) with the reason
    expect = None


def test_a_review_being_written_survives_sending_another_and_a_reload(live_server, page):
    name, teacher = f"queued-{uuid.uuid4().hex[:8]}", f"marker-{uuid.uuid4().hex[:8]}"
    bank = live_server.app.extensions["quizsvc"].bank
    with live_server.sessions() as session:
        learner = store.create_user(session, name=name, role="student", password=PASSWORD).id
        store.create_user(session, name=teacher, role="instructor", password=PASSWORD)
        for question_id in ("why-multi-head", "teacher-forcing-vs-autoregressive"):
            text = "Each head has its own weights."
            practice.answer_question(session, bank, learner, question_id, question_id, text=text)
        first, second = session.scalars(
            select(store.QuizAnswer.id)
            .where(store.QuizAnswer.learner_id == learner)
            .order_by(store.QuizAnswer.id)
        ).all()

    login(page, teacher)
    choose_language(page, "zh")
    page.goto("/instructor/reviews")
    later = page.locator(f"#answer-{second}")
    comment = "请说明 Decoder 在推理时为什么只能看到已生成的词。"
    later.locator("input[name=score]").fill("50")
    later.locator("textarea[name=comment]").press_sequentially(comment)
    now = page.locator(f"#answer-{first}")
    now.locator("input[name=score]").fill("75%")
    with page.expect_navigation():
        now.locator("button[type=submit]").click()

    expect(page.locator(f"#answer-{first}")).to_have_count(0)  # reviewed: left the queue
    expect(later.locator("textarea[name=comment]")).to_have_value(comment)
    expect(later.locator("input[name=score]")).to_have_value("50")
    page.reload()
    expect(later.locator("textarea[name=comment]")).to_have_value(comment)

    with page.expect_navigation():
        later.locator("button[type=submit]").click()
    expect(page.locator(f"#answer-{second}")).to_have_count(0)
    with live_server.sessions() as session:
        scores = {
            answer.id: (answer.score, store.latest_review(session, answer.id).comment)
            for answer in session.scalars(
                select(store.QuizAnswer).where(store.QuizAnswer.learner_id == learner)
            )
        }
    assert scores == {first: (0.75, ""), second: (0.5, comment)}
    # both reviews taken: nothing of them is kept in the tab
    assert page.evaluate("Object.keys(sessionStorage)") == []
