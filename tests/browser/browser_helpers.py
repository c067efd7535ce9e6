"""Helpers the browser tests share."""

from __future__ import annotations

import dataclasses
import re
import uuid
from pathlib import Path

import numpy as np
from sqlalchemy import select

from quizsvc import practice, store
from quizsvc.bank import DrillQuestion
from quizsvc.drills import Tensor

PASSWORD = "correct horse battery"  # every user the browser tests create
REPO = Path(__file__).resolve().parents[2]

# a numeric question, which the shipped chapter lacks, for the modules that add it
MASKED_SCORES = """\
questions:
  - id: masked-scores
    type: numeric
    tags: [masking]
    prompt:
      zh: 写出掩码后的 2×2 分数矩阵。
      en: Write down the 2×2 score matrix after masking.
    answer:
      - [2.0, "-inf"]
      - [2.7, 2.89]
    tolerance: {atol: 0.005, rtol: 0}
    explanation:
      zh: j > i 的位置设为 -∞。
      en: Positions with j > i are set to -∞.
"""


def login(page, name: str) -> None:
    """Log in through the form and wait for the start page: the chapter for a learner, the
    overview for an instructor."""
    page.goto("/login")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("form.login button[type=submit]")
    page.wait_for_url(re.compile(r"/chapters/transformer-by-hand$|/instructor/$"))


def choose_language(page, language: str) -> None:
    """Switch the site to `language` ("en" or "zh") with the header's button, as a person
    does: switching is a POST carrying the CSRF token, so no address does it."""
    from playwright.sync_api import expect

    if page.url == "about:blank":
        page.goto("/login")
    wanted = "zh-CN" if language == "zh" else "en"
    if page.locator("html").get_attribute("lang") != wanted:
        with page.expect_navigation():
            page.click("#lang-toggle")
    expect(page.locator("html")).to_have_attribute("lang", wanted)


def work_through_the_course(live_server, prefix: str, unfinished: str | None = None) -> dict:
    """An instructor, and a student who answered every chapter question (a choice one with B,
    an open one left awaiting review, a numeric one with MASKED_SCORES's matrix) and started
    every drill, solving each but `unfinished`: the pages with the most on them.

    Returns the two user names ("student", "instructor"), the student's "id", the drill
    variants by question id ("variants") and the first open answer awaiting review ("review").
    """
    student, teacher = (
        f"{prefix}-{uuid.uuid4().hex[:8]}",
        f"{prefix}-teacher-{uuid.uuid4().hex[:8]}",
    )
    bank = live_server.app.extensions["quizsvc"].bank
    variants = {}
    with live_server.sessions() as session:
        store.create_user(session, name=teacher, role="instructor", password=PASSWORD)
        learner = store.create_user(session, name=student, role="student", password=PASSWORD).id
        for question in bank.questions.values():
            key = uuid.uuid4().hex
            if question.type in ("single_choice", "multiple_choice"):
                practice.answer_question(session, bank, learner, question.id, key, ["B"])
            elif question.type == "open":
                text = "The true target, in parallel; each head its own weights."
                practice.answer_question(session, bank, learner, question.id, key, text=text)
            elif question.type == "numeric":
                practice.answer_question(
                    session, bank, learner, question.id, key, text="2 -inf; 2.7 2.5"
                )
            elif isinstance(question, DrillQuestion):
                issued = practice.start_drill(session, bank, learner, question.id, seed=7)
                variants[question.id] = issued.id
                if question.id != unfinished:
                    answer = practice.drill_state(session, learner, issued.id).variant.answer
                    text = "\n".join(" ".join(f"{v:.4f}" for v in row) for row in answer.values)
                    practice.submit_drill(session, learner, issued.id, text, key)
        review = store.answers_awaiting_review(session)[0].answer_id
    return {
        "student": student,
        "instructor": teacher,
        "id": learner,
        "variants": variants,
        "review": review,
    }


def issue_masked_scores(live_server, name: str) -> tuple[int, np.ndarray]:
    """A variant of the masked weights drill whose answer is the masked, scaled scores (the
    chapter's step before the softmax: −∞ where a token may not look), for `name`: its id
    and its answer. Its grid has the −∞ buttons."""
    bank = live_server.app.extensions["quizsvc"].bank
    question = bank.questions["drill-masked-row"]
    variant = practice.build_variant(question, seed=3)
    weights, answer = variant.answer.values, variant.answer
    masked = weights == 0
    scores = np.full(weights.shape, -np.inf)
    scores[~masked] = np.round(np.log(weights[~masked]) + 1.5, 2)
    with_scores = dataclasses.replace(
        variant, answer=Tensor("masked scores", scores, answer.row_labels, answer.col_labels)
    )
    with live_server.sessions() as session:
        learner = session.scalar(select(store.User.id).where(store.User.name == name))
        issued = store.issue_variant(
            session,
            learner_id=learner,
            question_id=question.id,
            kind=question.kind,
            seed=3,
            params=variant.params,
            variant_json=with_scores.to_json(),
            content_version=bank.version,
            attempts_allowed=question.attempts,
            penalty=question.penalty,
            skill=variant.skill,
        )
    return issued.id, scores
