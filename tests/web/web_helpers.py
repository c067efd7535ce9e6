"""Helpers the web tests share: read-only looks at the database behind the app, and what a
chapter page calls a choice."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime

import numpy as np
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from quizsvc import practice, store

PASSWORD = "correct horse battery"  # every fixture user's


@contextmanager
def reading(sessions) -> Iterator[Session]:
    """A read-only session (no write lock taken), closed at the end."""
    with sessions() as session:
        store.begin_read_only(session)
        yield session


def user_id(sessions, name: str) -> int:
    with reading(sessions) as session:
        return session.scalar(select(store.User.id).where(store.User.name == name))


def letters_on_page(question_html: str, choice_ids: list[str]) -> str:
    """The letters a learner reads for these choices in a question of the chapter page: the
    page lists the choices (its form's inputs, or the answered list) in the learner's own
    order, lettered A, B, C, ... down the page; joined by ", " in that order."""
    order = re.findall(r'(?:name="choice" value|<li data-choice)="([^"]+)"', question_html)
    assert sorted(set(order)) == sorted(order), order  # one list of choices only
    return ", ".join("ABCDEFGHIJ"[n] for n, choice in enumerate(order) if choice in choice_ids)


def count(sessions, model) -> int:
    with reading(sessions) as session:
        return session.scalar(select(func.count()).select_from(model))


def start(browser, question_id: str, action: str = "variants") -> int:
    """Start (or resume) a drill through its page's button; the variant's id."""
    response = browser.post(f"/drills/{question_id}/{action}")
    assert response.status_code == 302, response.text
    match = re.fullmatch(r"/variants/(\d+)", response.headers["Location"])
    assert match, response.headers["Location"]
    return int(match.group(1))


def expected_answer(sessions, name: str, variant_id: int) -> np.ndarray:
    """The expected answer of a learner's variant, as stored."""
    with reading(sessions) as session:
        state = practice.drill_state(session, user_id(sessions, name), variant_id)
        return state.variant.answer.values


# How an English page writes a time (Babel's CLDR medium date, a 24-hour minute), in UTC:
# "Mar 5, 2026, 09:30"; a day alone is "Mar 5, 2026". Written with strftime's own month names.
ENGLISH_WHEN = r"[A-Z][a-z]{2} \d{1,2}, \d{4}, \d\d:\d\d"


def english_day(moment: datetime) -> str:
    return f"{moment:%b} {moment.day}, {moment.year}"


def english_when(moment: datetime) -> str:
    return f"{english_day(moment)}, {moment:%H:%M}"
