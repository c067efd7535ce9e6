"""The LMS launch's store: platforms, accounts by (issuer, sub), launch values (a nonce taken
once), and the grade outbox that a scored answer or a review fills in its own transaction."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from quizsvc import store
from quizsvc.store import LtiGradeOutbox, record_quiz_answer, record_review
from quizsvc.store import lti as lti_store

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
ISSUER = "https://lms.example.edu"


def platform(session, client_id: str = "client-1", deployments=("d1",)):
    registered, _ = lti_store.add_platform(
        session,
        issuer=ISSUER,
        client_id=client_id,
        deployment_ids=list(deployments),
        auth_login_url=f"{ISSUER}/auth",
        auth_token_url=f"{ISSUER}/token",
        key_set_url=f"{ISSUER}/jwks",
        now=T0,
    )
    return registered


def outbox(session) -> list[int]:
    session.rollback()
    return list(session.scalars(select(LtiGradeOutbox.user_id).order_by(LtiGradeOutbox.id)))


def test_a_platform_registered_again_gains_the_new_deployments(session):
    first = platform(session, deployments=("d1",))
    again, created = lti_store.add_platform(
        session,
        issuer=ISSUER,
        client_id="client-1",
        deployment_ids=["d2", "d1"],
        auth_login_url=f"{ISSUER}/auth2",
        auth_token_url=f"{ISSUER}/token",
        key_set_url=f"{ISSUER}/jwks",
    )
    assert not created and again.id == first.id
    assert (again.deployment_ids, again.auth_login_url) == (["d1", "d2"], f"{ISSUER}/auth2")


def test_a_platform_is_found_without_a_client_id_only_if_its_issuer_has_one(session):
    first = platform(session, "client-1")
    assert lti_store.find_platform(session, ISSUER, None).id == first.id
    platform(session, "client-2")
    assert lti_store.find_platform(session, ISSUER, None) is None
    assert lti_store.find_platform(session, ISSUER, "client-2").client_id == "client-2"
    assert lti_store.find_platform(session, "https://other.example", "client-1") is None


@pytest.mark.parametrize("bad", ["ftp://lms/auth", "lms.example.edu/auth", "https://"])
def test_a_url_that_is_not_http_is_refused(session, bad):
    with pytest.raises(lti_store.InvalidPlatform):
        lti_store.add_platform(
            session,
            issuer=ISSUER,
            client_id="c",
            deployment_ids=["d"],
            auth_login_url=bad,
            auth_token_url=f"{ISSUER}/token",
            key_set_url=f"{ISSUER}/jwks",
        )
    assert lti_store.list_platforms(session) == []


def test_an_lms_user_gets_one_account_per_issuer(session):
    first = lti_store.account_for_launch(
        session, issuer=ISSUER, sub="42", role="student", display_name="Li Lei", language="zh"
    )
    again = lti_store.account_for_launch(
        session, issuer=ISSUER, sub="42", role="instructor", display_name="Someone else"
    )
    other = lti_store.account_for_launch(
        session, issuer="https://other.example", sub="42", role="student", display_name=""
    )
    assert first.created and not again.created and other.created
    assert again.user.id == first.user.id
    assert (again.user.role, again.user.display_name, again.user.language) == (
        "student",
        "Li Lei",
        "zh",
    )
    assert other.user.id != first.user.id
    assert other.user.display_name == "LMS user"
    # nobody can log in with a password: the account's is random and never shown
    assert store.authenticate(session, first.user.name, "") is None


def test_a_first_launch_that_loses_the_race_gets_the_account_the_other_made(session, monkeypatch):
    """Two first launches of one LMS user at once: both look before either inserts (as on
    PostgreSQL); the second's insert is refused by the unique name and it finds the first's."""
    made = lti_store.account_for_launch(
        session, issuer=ISSUER, sub="7", role="student", display_name="Han Meimei"
    )
    real_account, looks = lti_store._account, []

    def not_yet_at_first(*args):
        looks.append(args)
        return None if len(looks) == 1 else real_account(*args)

    monkeypatch.setattr(lti_store, "_account", not_yet_at_first)
    late = lti_store.account_for_launch(
        session, issuer=ISSUER, sub="7", role="student", display_name="Han Meimei"
    )
    assert not late.created and late.user.id == made.user.id
    assert len(looks) == 2
    assert session.scalar(select(func.count()).select_from(store.User)) == 1


def test_a_launch_value_is_taken_once_and_not_after_it_expires(session):
    lti_store.set_launch_value(session, "nonce-a", True, expires_at=T0 + timedelta(hours=1), now=T0)
    lti_store.set_launch_value(
        session, "nonce-b", True, expires_at=T0 + timedelta(minutes=1), now=T0
    )
    assert lti_store.launch_value(session, "nonce-a", now=T0) is True
    assert lti_store.take_launch_value(session, "nonce-a", now=T0) is True
    assert lti_store.take_launch_value(session, "nonce-a", now=T0) is False
    later = T0 + timedelta(minutes=2)
    assert lti_store.launch_value(session, "nonce-b", now=later) is None
    assert lti_store.take_launch_value(session, "nonce-b", now=later) is False


def test_a_value_set_again_replaces_the_old_one_and_expired_ones_are_deleted(session):
    hour = timedelta(hours=1)
    lti_store.set_launch_value(session, "k", {"a": 1}, expires_at=T0 + hour, now=T0)
    lti_store.set_launch_value(session, "old", 1, expires_at=T0 + timedelta(seconds=1), now=T0)
    lti_store.set_launch_value(session, "k", {"a": 2}, expires_at=T0 + 2 * hour, now=T0 + hour)
    assert lti_store.launch_value(session, "k", now=T0 + hour) == {"a": 2}
    count = session.scalar(select(func.count()).select_from(store.LtiLaunchValue))
    assert count == 1


def answer(session, learner_id: int, key: str, **kwargs):
    arguments = {"question_id": "q1", "content_version": "v1", "now": T0} | kwargs
    return record_quiz_answer(session, learner_id=learner_id, idempotency_key=key, **arguments)


def link(session, learner_id: int, lineitem: str = f"{ISSUER}/lineitems/1") -> int:
    registered = platform(session)
    return lti_store.link_grades(
        session,
        user_id=learner_id,
        platform_id=registered.id,
        chapter_id="chapter",
        lineitem=lineitem,
        scopes=["https://purl.imsglobal.org/spec/lti-ags/scope/score"],
        lms_user_id="42",
        now=T0,
    ).id


def test_a_scored_answer_queues_its_learner_only_when_a_grade_link_exists(
    session, learner, other_learner
):
    link(session, learner)
    answer(session, other_learner, "k0", choices=["a"], score=1.0)
    assert outbox(session) == []
    answer(session, learner, "k1", choices=["a"], score=0.0)
    answer(session, learner, "k1", choices=["a"], score=0.0)  # a retry: nothing new
    assert outbox(session) == [learner]


def test_an_open_answer_queues_at_its_review_not_before(session, learner, instructor):
    link(session, learner)
    waiting = answer(session, learner, "k1", text="because", question_id="open-1")
    assert outbox(session) == []
    record_review(session, answer_id=waiting.answer_id, reviewer_id=instructor, confirmed_score=1)
    assert outbox(session) == [learner]


def test_posted_grades_delete_the_rows_they_answer_and_no_later_one(session, learner):
    link_id = link(session, learner)
    answer(session, learner, "k1", choices=["a"], score=0.0, question_id="q1")
    session.rollback()
    (pending,) = lti_store.pending_grades(session)
    session.rollback()
    answer(session, learner, "k2", choices=["a"], score=1.0, question_id="q2")  # meanwhile
    lti_store.grades_posted(session, outbox_ids=pending.outbox_ids, posted={link_id: 0.5}, now=T0)
    assert outbox(session) == [learner]  # the later change waits for the next flush
    posted = session.get(store.LtiGradeLink, link_id)
    assert (posted.posted_score, posted.posted_at) == (0.5, T0)


def test_a_failed_post_keeps_the_rows_with_the_error(session, learner):
    link(session, learner)
    answer(session, learner, "k1", choices=["a"], score=0.0)
    session.rollback()
    (pending,) = lti_store.pending_grades(session)
    session.rollback()
    lti_store.grades_failed(session, outbox_ids=pending.outbox_ids, error="503 from the LMS")
    session.rollback()
    (row,) = session.scalars(select(LtiGradeOutbox)).all()
    assert (row.tries, row.last_error) == (1, "503 from the LMS")
