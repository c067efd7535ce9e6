"""State every worker process shares through the database: the login throttle's counts (a moving
window per key, exact under concurrent attempts) and the content versions made live, with the
version each worker serves."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from quizsvc.store import (
    AttemptLimit,
    Counter,
    LoginAttempt,
    Refused,
    attempt_wait,
    count_attempt,
    forget_attempts,
    latest_content_load,
    record_content_load,
    record_first_content_load,
    record_served_content,
    served_content,
)

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
TEN_MINUTES = timedelta(minutes=10)
THREE_IN_TEN = (AttemptLimit(3, TEN_MINUTES),)
KEEP = timedelta(hours=1)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def rows(session_factory, key: str | None = None) -> int:
    with session_factory() as session:
        query = select(func.count()).select_from(LoginAttempt)
        if key is not None:
            query = query.where(LoginAttempt.key == key)
        return session.scalar(query)


def test_attempts_count_in_a_moving_window_and_a_refused_one_is_not_counted(session_factory):
    alice = Counter("password:alice", THREE_IN_TEN)
    with session_factory() as session:
        for second in (0, 100, 200):
            assert count_attempt(session, alice, keep=KEEP, now=at(second)) is None
        # the fourth in ten minutes: refused until the first (at 0 s) is 600 s old
        assert count_attempt(session, alice, keep=KEEP, now=at(300)) == Refused(
            "password:alice", timedelta(seconds=300)
        )
        assert count_attempt(session, alice, keep=KEEP, now=at(599)) == Refused(
            "password:alice", timedelta(seconds=1)
        )
        # at 600 s the first is still inside ("t >= now - window"), at 600.5 s it has left
        assert count_attempt(session, alice, keep=KEEP, now=at(600)) is not None
        assert count_attempt(session, alice, keep=KEEP, now=at(600.5)) is None
        # now 100, 200, 600.5 are in: the next gets in when 100 leaves, at 700 s
        assert count_attempt(session, alice, keep=KEEP, now=at(650)).wait == timedelta(seconds=50)
        # another key is not affected
        bob = Counter("password:bob", THREE_IN_TEN)
        assert count_attempt(session, bob, keep=KEEP, now=at(660)) is None
    assert rows(session_factory, "password:alice") == 4  # 0, 100, 200, 600.5


def test_several_limits_all_apply_and_the_wait_is_the_longest(session_factory):
    limits = (AttemptLimit(2, timedelta(minutes=1)), AttemptLimit(3, timedelta(hours=1)))
    ada = Counter("password:ada", limits)
    with session_factory() as session:
        assert count_attempt(session, ada, keep=KEEP, now=at(0)) is None
        assert count_attempt(session, ada, keep=KEEP, now=at(10)) is None
        # two in a minute: the minute's limit says wait until 0 s leaves, at 60 s
        assert count_attempt(session, ada, keep=KEEP, now=at(20)).wait == timedelta(seconds=40)
        assert count_attempt(session, ada, keep=KEEP, now=at(61)) is None
        # three in the hour: the hour's limit says wait until 3600 s
        assert count_attempt(session, ada, keep=KEEP, now=at(200)).wait == timedelta(seconds=3400)


def test_a_checked_counter_refuses_without_being_counted(session_factory):
    address = Counter("address:192.0.2.1", (AttemptLimit(1, TEN_MINUTES),))
    name = Counter("password:alice", THREE_IN_TEN)
    with session_factory() as session:
        assert count_attempt(session, name, checked=[address], keep=KEEP, now=at(0)) is None
        assert rows(session_factory, address.key) == 0  # tested, not counted
        assert count_attempt(session, address, keep=KEEP, now=at(1)) is None  # a failure
        refused = count_attempt(session, name, checked=[address], keep=KEEP, now=at(2))
        assert refused == Refused(address.key, timedelta(seconds=599))
        assert attempt_wait(session, address, now=at(2)) == refused
        assert attempt_wait(session, name, now=at(2)) is None
    assert rows(session_factory, name.key) == 1  # the refused attempt was not counted


def test_forgetting_a_key_deletes_its_attempts_only(session_factory):
    alice, bob = Counter("password:alice", THREE_IN_TEN), Counter("password:bob", THREE_IN_TEN)
    with session_factory() as session:
        for second in range(3):
            count_attempt(session, alice, keep=KEEP, now=at(second))
            count_attempt(session, bob, keep=KEEP, now=at(second))
        forget_attempts(session, alice.key)
        assert count_attempt(session, alice, keep=KEEP, now=at(5)) is None
        assert count_attempt(session, bob, keep=KEEP, now=at(5)) is not None


def test_attempts_older_than_keep_are_pruned_whatever_their_key(session_factory):
    with session_factory() as session:
        for index in range(5):
            count_attempt(session, Counter(f"address:old{index}", THREE_IN_TEN), keep=KEEP, now=T0)
        count_attempt(session, Counter("address:late", THREE_IN_TEN), keep=KEEP, now=at(3599))
        assert rows(session_factory) == 6
        count_attempt(session, Counter("address:new", THREE_IN_TEN), keep=KEEP, now=at(3601))
    assert rows(session_factory) == 2  # late and new


def test_keys_are_checked(session_factory):
    for key in ("", "k" * 101):
        with pytest.raises(ValueError, match="throttle key"):
            Counter(key, THREE_IN_TEN)
    with pytest.raises(ValueError, match="at least one limit"):
        Counter("password:x", ())


def test_attempts_sent_at_once_are_counted_exactly(session_factory):
    """Twenty threads, each its own connection, attempt one key limited to 7: exactly 7 get
    in, whichever they are, and nothing fails."""
    threads, limit = 20, 7
    counter = Counter("password:target", (AttemptLimit(limit, TEN_MINUTES),))
    barrier = threading.Barrier(threads)
    results: list[Refused | str | None] = ["not run"] * threads
    errors: list[BaseException] = []

    def run(index: int) -> None:
        try:
            with session_factory() as session:
                barrier.wait(timeout=30)
                results[index] = count_attempt(session, counter, keep=KEEP)
        except BaseException as exc:
            errors.append(exc)

    workers = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert errors == []
    assert sum(result is None for result in results) == limit
    assert sum(isinstance(result, Refused) for result in results) == threads - limit
    assert rows(session_factory, counter.key) == limit


# --- content versions ------------------------------------------------------------------------


def test_the_newest_content_load_is_the_live_version(session_factory):
    with session_factory() as session:
        assert latest_content_load(session) is None
        first = record_first_content_load(session, "v1", now=at(0))
        assert (first.version, first.loaded_at) == ("v1", at(0))
        # a load recorded before: the first stays
        assert record_first_content_load(session, "v-disk", now=at(5)) == first
        second = record_content_load(session, "v2", now=at(10))
        back = record_content_load(session, "v1", now=at(20))  # back to an older version
        assert first.id < second.id < back.id
        assert latest_content_load(session) == back
        assert (back.version, back.loaded_at) == ("v1", at(20))


def test_each_worker_says_what_it_serves_and_silent_ones_are_forgotten(session_factory):
    with session_factory() as session:
        record_served_content(session, "host-a:1", "v1", 1, now=at(0))
        record_served_content(session, "host-a:2", "v1", 1, now=at(0))
        record_served_content(session, "host-b:1", "v1", None, now=at(10))
        record_served_content(session, "host-a:1", "v2", 2, now=at(20))  # moved on
        assert [(w.worker, w.version, w.load_id) for w in served_content(session, since=T0)] == [
            ("host-a:1", "v2", 2),
            ("host-a:2", "v1", 1),
            ("host-b:1", "v1", None),
        ]
        assert [w.worker for w in served_content(session, since=at(10))] == [
            "host-a:1",
            "host-b:1",
        ]
        assert served_content(session, since=at(10))[0].seen_at == at(20)
        # a day and more later, the rows of workers silent since are deleted
        record_served_content(session, "host-a:9", "v2", 2, now=at(15 + 24 * 3600))
        assert [w.worker for w in served_content(session, since=T0)] == ["host-a:1", "host-a:9"]
