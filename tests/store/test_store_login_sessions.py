"""Login sessions on the server: begun at a login, looked up by user and token, ended by a
logout or by a new password, pruned at the user's next login once older than a login lasts."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from quizsvc import store
from quizsvc.store import LoginSession

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)  # as in conftest.py
PASSWORD = "correct horse"  # the fixture users', as in conftest.py
DAY = timedelta(days=1)
LIFETIME = 31 * DAY


def begin(session_factory, user_id: int, now=T0, lifetime=LIFETIME) -> str:
    with session_factory() as session:
        return store.begin_login_session(session, user_id, lifetime=lifetime, now=now)


def ended_by(session_factory, user_id: int, token: str, now=T0) -> str | None:
    """How the session ended (None while live); "unknown" if there is no such session."""
    with session_factory() as session:
        found = store.find_login_session(session, user_id, token, lifetime=LIFETIME, now=now)
        return "unknown" if found is None else found.ended_by


def rows(session_factory) -> list[tuple[int, str, object, object, str | None]]:
    with session_factory() as session:
        return [
            (r.user_id, r.token_hash, r.created_at, r.ended_at, r.end_reason)
            for r in session.scalars(select(LoginSession).order_by(LoginSession.id))
        ]


def test_a_login_session_stores_only_a_digest_of_its_token(session_factory, learner):
    token = begin(session_factory, learner)
    assert len(token) == 43  # 32 random bytes, URL-safe base64 without padding
    sha256 = hashlib.sha256(token.encode()).hexdigest()
    assert rows(session_factory) == [(learner, sha256, T0, None, None)]
    with session_factory() as session:
        found = store.find_login_session(session, learner, token, lifetime=LIFETIME, now=T0)
        assert (found.user.name, found.ended_by) == ("ada", None)


def test_each_login_has_its_own_token(session_factory, learner):
    assert begin(session_factory, learner) != begin(session_factory, learner)
    assert len(rows(session_factory)) == 2


def test_a_session_is_found_only_by_its_users_id_and_its_own_token(
    session_factory, learner, other_learner
):
    token = begin(session_factory, learner)
    assert ended_by(session_factory, learner, token) is None
    assert ended_by(session_factory, other_learner, token) == "unknown"
    assert ended_by(session_factory, learner, token + "x") == "unknown"
    assert ended_by(session_factory, learner, "") == "unknown"
    # the digest itself, as the table holds it, is no token
    digest = hashlib.sha256(token.encode()).hexdigest()
    assert ended_by(session_factory, learner, digest) == "unknown"


def test_a_session_of_an_unknown_user_is_refused_and_nothing_stored(session_factory):
    with session_factory() as session, pytest.raises(store.InvalidUser, match="no user"):
        store.begin_login_session(session, 999, now=T0)
    assert rows(session_factory) == []


def test_a_logout_ends_that_session_only(session_factory, learner):
    laptop, phone = begin(session_factory, learner), begin(session_factory, learner)
    with session_factory() as session:
        assert store.end_login_session(session, learner, laptop, now=T0 + DAY) is True
    assert ended_by(session_factory, learner, laptop) == "logout"
    assert ended_by(session_factory, learner, phone) is None
    laptop_row = rows(session_factory)[0]
    assert laptop_row[3:] == (T0 + DAY, "logout")
    # ending it again, or with another user's id, changes nothing
    with session_factory() as session:
        assert store.end_login_session(session, learner, laptop, now=T0 + 2 * DAY) is False
        assert store.end_login_session(session, 999, phone, now=T0 + 2 * DAY) is False
        assert store.end_login_session(session, learner, "", now=T0 + 2 * DAY) is False
    assert rows(session_factory)[0] == laptop_row
    assert ended_by(session_factory, learner, phone) is None


def test_a_session_older_than_a_login_lasts_lets_nobody_in(session_factory, learner):
    token = begin(session_factory, learner)
    assert ended_by(session_factory, learner, token, now=T0 + LIFETIME) is None
    later = T0 + LIFETIME + timedelta(seconds=1)
    assert ended_by(session_factory, learner, token, now=later) == "expired"


def test_set_password_ends_every_live_session_of_that_user_only(
    session_factory, learner, other_learner
):
    laptop, phone = begin(session_factory, learner), begin(session_factory, learner)
    logged_out = begin(session_factory, learner)
    bobs = begin(session_factory, other_learner)
    with session_factory() as session:
        store.end_login_session(session, learner, logged_out, now=T0)
    with session_factory() as session:
        store.set_password(session, "ada", "a new password", now=T0 + DAY)
    assert ended_by(session_factory, learner, laptop) == "password_change"
    assert ended_by(session_factory, learner, phone) == "password_change"
    assert ended_by(session_factory, learner, logged_out) == "logout"  # kept how it ended
    assert ended_by(session_factory, other_learner, bobs) is None
    assert [r[3:] for r in rows(session_factory)] == [
        (T0 + DAY, "password_change"),
        (T0 + DAY, "password_change"),
        (T0, "logout"),
        (None, None),
    ]


def test_change_password_ends_every_live_session_and_a_refused_one_none(
    session_factory, learner, other_learner
):
    laptop, phone = begin(session_factory, learner), begin(session_factory, learner)
    bobs = begin(session_factory, other_learner)
    with session_factory() as session, pytest.raises(store.WrongPassword):
        store.change_password(session, learner, "not the password", "a new password")
    with session_factory() as session, pytest.raises(store.InvalidPassword):
        store.change_password(session, learner, PASSWORD, "short")
    assert [ended_by(session_factory, learner, t) for t in (laptop, phone)] == [None, None]

    with session_factory() as session:
        store.change_password(session, learner, PASSWORD, "a new password", now=T0 + DAY)
    assert ended_by(session_factory, learner, laptop) == "password_change"
    assert ended_by(session_factory, learner, phone) == "password_change"
    assert ended_by(session_factory, other_learner, bobs) is None
    # the caller begins the changer a new one
    assert ended_by(session_factory, learner, begin(session_factory, learner, T0 + DAY)) is None


def test_a_login_prunes_that_users_sessions_older_than_a_login_lasts(
    session_factory, learner, other_learner
):
    now = T0 + 100 * DAY
    old_live = begin(session_factory, learner, now - LIFETIME - DAY)
    old_ended = begin(session_factory, learner, now - 40 * DAY)
    with session_factory() as session:
        store.end_login_session(session, learner, old_ended, now=now - 35 * DAY)
    # begun before the cutoff but ended after it: begun too long ago all the same
    ended_lately = begin(session_factory, learner, now - 32 * DAY)
    with session_factory() as session:
        store.end_login_session(session, learner, ended_lately, now=now - 2 * DAY)
    young_live = begin(session_factory, learner, now - 30 * DAY)
    young_ended = begin(session_factory, learner, now - 3 * DAY)
    with session_factory() as session:
        store.end_login_session(session, learner, young_ended, now=now - DAY)
    bobs_old = begin(session_factory, other_learner, now - 90 * DAY)

    fresh = begin(session_factory, learner, now)

    def state(user_id: int, token: str) -> str | None:
        return ended_by(session_factory, user_id, token, now=now)

    assert [state(learner, t) for t in (old_live, old_ended, ended_lately)] == ["unknown"] * 3
    assert [state(learner, t) for t in (young_live, young_ended, fresh)] == [None, "logout", None]
    # another user's rows wait for that user's own next login
    assert state(other_learner, bobs_old) == "expired"
    assert len(rows(session_factory)) == 4


def test_a_login_session_ended_without_a_reason_is_refused_by_the_database(
    session_factory, learner
):
    with session_factory() as session:
        session.add(LoginSession(user_id=learner, token_hash="0" * 64, created_at=T0, ended_at=T0))
        with pytest.raises(IntegrityError):
            session.commit()
    with session_factory() as session:
        session.add(
            LoginSession(user_id=learner, token_hash="1" * 64, created_at=T0, end_reason="bored")
        )
        with pytest.raises(IntegrityError):
            session.commit()
    assert rows(session_factory) == []
