"""The API's writes and the reads around them.

An answer holds SQLite's write lock (BEGIN IMMEDIATE) only while it is recorded: the variant
is read, and the answer parsed and graded, by a reader, so that one learner's grading never
queues the class's other writes behind it. What is recorded is checked under the lock all the
same (attempts, ownership, the idempotency key). A new variant is answered with what was
written, not read back: the same document a read of it gives."""

from __future__ import annotations

import pytest
from sqlalchemy import event, select
from web_helpers import reading, start, user_id

from quizsvc import practice, store
from quizsvc.bank import DrillQuestion
from quizsvc.web import content_sync

# drill-score-row with seed 7 (tests/web/test_web_api.py works it out by hand):
# scores = q0 · K^T / √4 = 0.71, -0.045, 1.395, each within 0.01
RIGHT = [[0.71, -0.045, 1.395]]
ONE_OF_THREE = [[0.715, 0.5, 1.0]]  # only the first cell within 0.01


@pytest.fixture
def seed_7(monkeypatch):
    monkeypatch.setattr(practice.secrets, "randbelow", lambda _n: 7)


@pytest.fixture
def api(app):
    with app.extensions["quizsvc"].sessions() as session:
        token = store.issue_api_token(session, "alice")
    client = app.test_client()
    headers = {"Authorization": f"Bearer {token}"}

    def call(path: str, body: object = None, method: str = "POST"):
        return client.open(path, method=method, json=body, headers=headers)

    return call


@pytest.fixture
def begins(app, monkeypatch):
    """The BEGIN statements the app's engine sends, in order, for the requests alone: the
    check of the live content version, which a request makes when a second has passed since
    the last (content_sync), is not made (on a busy machine a second passes between two
    requests of a test)."""
    monkeypatch.setattr(content_sync, "CHECK_INTERVAL", float("inf"))
    engine = app.extensions["quizsvc"].sessions.kw["bind"]
    sent: list[str] = []

    def remember(conn, cursor, statement, parameters, context, executemany):
        if statement.startswith("BEGIN"):
            sent.append(statement)

    event.listen(engine, "before_cursor_execute", remember)
    yield sent
    event.remove(engine, "before_cursor_execute", remember)


def test_an_answer_takes_the_write_lock_once_and_is_recorded(api, begins, seed_7):
    variant_id = api("/api/drills/drill-score-row/variants").json["id"]
    begins.clear()
    response = api(
        f"/api/variants/{variant_id}/submissions", {"answer": ONE_OF_THREE, "idempotency_key": "k1"}
    )
    assert response.status_code == 201, response.text
    submission = response.json["submission"]
    assert (submission["attempt"], submission["attempts_left"]) == (1, 2)
    assert submission["raw_score"] == pytest.approx(1 / 3)
    assert begins.count("BEGIN IMMEDIATE") == 1
    assert response.json["variant"]["submissions"][0]["id"] == submission["id"]


def test_an_answer_refused_or_not_found_takes_no_write_lock(api, begins, seed_7):
    variant_id = api("/api/drills/drill-score-row/variants").json["id"]
    begins.clear()
    wrong_shape = api(f"/api/variants/{variant_id}/submissions", {"answer": [[0.71, -0.045]]})
    assert wrong_shape.status_code == 422
    missing = api(f"/api/variants/{variant_id + 1000}/submissions", {"answer": RIGHT})
    assert missing.status_code == 404
    assert begins and "BEGIN IMMEDIATE" not in begins


def test_a_state_read_before_an_earlier_answer_does_not_outlive_it(app, seed_7):
    """Grading from a state read before the variant was solved: the write still sees the
    solved variant and refuses a further answer."""
    sessions, bank = app.extensions["quizsvc"].sessions, app.extensions["quizsvc"].bank
    with sessions() as session:
        learner_id = session.scalar(select(store.User.id).where(store.User.name == "alice"))
        variant_id = practice.start_drill(session, bank, learner_id, "drill-score-row").id
    with sessions() as session:
        stale = practice.drill_state(session, learner_id, variant_id)
    with sessions() as session:
        solved = practice.submit_drill(
            session, learner_id, variant_id, "0.71, -0.045, 1.395", "k1", state=stale
        )
    assert (solved.submission.raw_score, solved.submission.attempt) == (1.0, 1)
    assert [s.attempt for s in solved.state.submissions] == [1]
    with sessions() as session, pytest.raises(store.AttemptsExhausted):
        practice.submit_drill(session, learner_id, variant_id, "0.7, 0, 1.4", "k2", state=stale)


def test_a_new_variant_is_answered_as_a_read_of_it_gives_it(app, api, begins):
    bank = app.extensions["quizsvc"].bank
    drills = [q for q in bank.questions.values() if isinstance(q, DrillQuestion)]
    assert len(drills) > 5
    for question in drills:
        begins.clear()
        started = api(f"/api/drills/{question.id}/variants")
        assert started.status_code == 201, started.text
        assert begins == ["BEGIN DEFERRED", "BEGIN IMMEDIATE"]  # the token's read, the write
        read = api(started.headers["Location"], method="GET")
        assert read.status_code == 200
        assert started.json == read.json, question.id
        assert started.json["submissions"] == []
        assert started.json["attempts_left"] == question.attempts


def test_an_answer_from_the_drill_page_takes_the_write_lock_once(
    browser_for, begins, seed_7, sessions
):
    # the page's form as the API: read and graded by a reader, the lock only to record it
    alice = browser_for("alice")
    variant_id = start(alice, "drill-score-row")
    begins.clear()
    typed = {f"cell-0-{c}": str(v) for c, v in enumerate(ONE_OF_THREE[0])}
    assert alice.post(f"/variants/{variant_id}/submissions", typed).status_code == 302
    assert begins.count("BEGIN IMMEDIATE") == 1
    with reading(sessions) as session:
        state = practice.drill_state(session, user_id(sessions, "alice"), variant_id)
    assert [s.raw_score for s in state.submissions] == [pytest.approx(1 / 3)]
    # refused (a wrong shape pasted) or not found: no write lock at all
    begins.clear()
    pasted = {"paste_box": "0.71 -0.045"}
    assert alice.post(f"/variants/{variant_id}/submissions", pasted).status_code == 422
    assert alice.post(f"/variants/{variant_id + 1000}/submissions", typed).status_code == 404
    assert begins and "BEGIN IMMEDIATE" not in begins
