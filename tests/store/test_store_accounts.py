"""A student's account: deactivated (work kept, no login by any way), active again, deleted
with every row recorded of them, and everything recorded of them as one JSON document."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import JSON, String, Text, select

from quizsvc import store
from quizsvc.store import Base
from quizsvc.store.lti_models import LtiAccount, LtiGradeOutbox, LtiLaunchValue

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)  # as in conftest.py
LIMITS = (store.AttemptLimit(10, timedelta(minutes=15)),)


# Names with a hyphen, which no password or token digest holds, so that a row that holds
# one refers to its student.
ADA, BOB = "zhu-ada", "qin-bob"


@pytest.fixture
def ada_with_work(session_factory, add_user, instructor, issue, submit):
    """Two students, each with a drill variant and a submission, an open answer reviewed, a
    login, an API token and a failed password counted; returns their ids."""
    learner, other_learner = add_user(ADA), add_user(BOB)
    for user_id, name in ((learner, ADA), (other_learner, BOB)):
        variant = issue(user_id)
        submit(user_id, variant.id, f"{name}-1", 0.5)
        with session_factory() as session:
            answer = store.record_quiz_answer(
                session,
                learner_id=user_id,
                question_id="why-scale",
                content_version="v1",
                idempotency_key=f"{name}-answer",
                text=f"{name} says: to keep the softmax out of saturation",
                skill="scaling",
                now=T0,
            )
        with session_factory() as session:
            store.record_review(
                session,
                answer_id=answer.answer_id,
                reviewer_id=instructor,
                confirmed_score=0.75,
                comment=f"good, {name}",
                now=T0,
            )
        with session_factory() as session:
            store.begin_login_session(session, user_id, now=T0)
        with session_factory() as session:
            store.issue_api_token(session, name)
        with session_factory() as session:
            store.count_attempt(
                session, store.Counter(f"password:{name}", LIMITS), keep=timedelta(days=1)
            )
        with session_factory() as session:  # launched from an LMS once, a grade queued
            session.add(
                LtiAccount(issuer="https://lms", sub=f"sub-{name}", user_id=user_id, created_at=T0)
            )
            session.add(LtiGradeOutbox(user_id=user_id, queued_at=T0))
            session.add(
                LtiLaunchValue(
                    key=f"launch-{name}",
                    value={"sub": f"sub-{name}", "name": name},
                    expires_at=T0 + timedelta(hours=1),
                )
            )
            session.commit()
    return learner, other_learner


def rows_naming(session, user_id: int, name: str) -> list[tuple[str, dict]]:
    """Every row of every table that refers to the user: a column holding their id where
    it refers to users.id (or is users.id), or a text holding their name."""
    found = []
    for table in Base.metadata.sorted_tables:
        id_columns = [
            column
            for column in table.columns
            if any(fk.column.table.name == "users" for fk in column.foreign_keys)
            or (table.name == "users" and column.name == "id")
        ]
        text_columns = [
            column for column in table.columns if isinstance(column.type, String | Text | JSON)
        ]
        for row in session.execute(select(table)).mappings():
            by_id = any(row[column.name] == user_id for column in id_columns)
            by_name = any(
                name in json.dumps(row[column.name], ensure_ascii=False)
                for column in text_columns
                if row[column.name] is not None
            )
            if by_id or by_name:
                found.append((table.name, dict(row)))
    return found


def test_deleting_a_student_leaves_nothing_of_them_and_all_of_the_others(
    session_factory, ada_with_work
):
    ada, bob = ada_with_work
    with session_factory() as session:
        assert len(rows_naming(session, ada, ADA)) >= 10  # the fixture's work is there
        bob_before = rows_naming(session, bob, BOB)
    with session_factory() as session:
        store.delete_student(session, ada, name_keys=(f"password:{ADA}",))
    with session_factory() as session:
        assert rows_naming(session, ada, ADA) == []
        assert rows_naming(session, bob, BOB) == bob_before
        assert store.user_by_id(session, ada) is None


def test_deleting_someone_who_is_not_a_student_is_refused(session_factory, instructor):
    with session_factory() as session, pytest.raises(store.NotFound):
        store.delete_student(session, instructor)
    with session_factory() as session, pytest.raises(store.NotFound):
        store.delete_student(session, 999_999)
    with session_factory() as session:
        assert store.user_by_id(session, instructor).role == "instructor"


def test_a_deactivated_student_logs_in_no_way_until_active_again(session_factory, learner):
    with session_factory() as session:
        token = store.begin_login_session(session, learner, now=T0)
    with session_factory() as session:
        api_token = store.issue_api_token(session, "ada")  # the learner fixture's name
    with session_factory() as session:
        store.deactivate_student(session, learner, now=T0 + timedelta(hours=1))
    with session_factory() as session:
        found = store.find_login_session(session, learner, token, now=T0 + timedelta(hours=2))
        assert found.ended_by == "deactivated"
        assert store.user_by_api_token(session, api_token) is None
        user = store.user_by_id(session, learner)
        assert user.deactivated_at == T0 + timedelta(hours=1)
    with session_factory() as session:
        store.reactivate_student(session, learner)
    with session_factory() as session:
        found = store.find_login_session(session, learner, token, now=T0 + timedelta(hours=2))
        assert found.ended_by is None
        assert store.user_by_api_token(session, api_token).name == "ada"


def test_deactivating_keeps_the_work(session_factory, ada_with_work):
    ada, _ = ada_with_work
    with session_factory() as session:
        before = rows_naming(session, ada, ADA)
    with session_factory() as session:
        store.deactivate_student(session, ada, now=T0)
    with session_factory() as session:
        after = rows_naming(session, ada, ADA)
    # the same rows, the account's with its deactivation time
    assert [table for table, _ in after] == [table for table, _ in before]


def test_the_personal_data_hold_their_work_and_no_one_elses(session_factory, ada_with_work):
    ada, _ = ada_with_work
    with session_factory() as session:
        data = store.personal_data(session, ada)
    text = json.dumps(data, ensure_ascii=False)
    assert BOB not in text
    assert data["account"]["name"] == ADA
    assert data["account"]["has_api_token"] is True
    assert [(a["issuer"], a["sub"]) for a in data["lms_accounts"]] == [
        ("https://lms", f"sub-{ADA}")
    ]
    [variant] = data["drill_variants"]
    assert variant["question_id"] == "scores-1"
    assert [s["answer"] for s in variant["submissions"]] == [f"{ADA}-1"]
    [answer] = data["quiz_answers"]
    assert answer["text"] == f"{ADA} says: to keep the softmax out of saturation"
    assert [(r["score"], r["comment"]) for r in answer["reviews"]] == [(0.75, f"good, {ADA}")]
    assert [login["began_at"] for login in data["logins"]] == [T0.isoformat()]
    assert "scores" in {p["skill"] for p in data["progress"]}
    # nothing that would let anyone in: no password or token digests
    for secret in ("password_hash", "api_token_hash", "token_hash"):
        assert secret not in text
