"""Issuing and reading drill variants: what the store accepts, refuses, and gives back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import numpy as np
import pytest
from sqlalchemy import func, select

from quizsvc.store import (
    DrillVariant,
    NotFound,
    NotYourVariant,
    load_variant,
    variant_submissions,
)

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)  # as in conftest.py


def variants_stored(session) -> int:
    session.rollback()  # a fresh transaction sees what others committed
    return session.scalar(select(func.count()).select_from(DrillVariant))


@pytest.mark.parametrize(
    "overrides",
    [
        {"seed": 0},
        {"seed": 2**63 - 1},  # the largest a BIGINT column holds
        {"seed": np.int64(5)},
        {"attempts_allowed": 1},
        {"attempts_allowed": np.int32(2)},
        {"penalty": 0},
        {"penalty": 1.0},
        {"question_id": "q" * 100, "kind": "k" * 64, "skill": "s" * 100},
        {"content_version": "v" * 128},
    ],
    ids=repr,
)
def test_values_at_the_limits_are_stored_and_read_back(session, learner, issue, overrides):
    issued = issue(learner, **overrides)
    stored = load_variant(session, issued.id)
    for name, value in overrides.items():
        assert getattr(stored, name) == value
        assert getattr(issued, name) == value
    assert type(stored.seed) is int and type(issued.seed) is int
    assert type(stored.penalty) is float and type(issued.penalty) is float


@pytest.mark.parametrize(
    ("overrides", "error", "message"),
    [
        ({"seed": -1}, ValueError, r"seed must lie in \[0, 2\*\*63 - 1\]"),
        ({"seed": 2**63}, ValueError, "seed must lie in"),
        ({"seed": True}, TypeError, "seed must be an int"),
        ({"seed": 7.0}, TypeError, "seed must be an int"),
        ({"seed": "7"}, TypeError, "seed must be an int"),
        ({"attempts_allowed": 0}, ValueError, "attempts_allowed must be at least 1"),
        ({"attempts_allowed": True}, TypeError, "attempts_allowed must be an int"),
        ({"attempts_allowed": 2.0}, TypeError, "attempts_allowed must be an int"),
        ({"penalty": -0.1}, ValueError, "penalty must be between 0 and 1"),
        ({"penalty": 1.5}, ValueError, "penalty must be between 0 and 1"),
        ({"penalty": float("nan")}, ValueError, "penalty must be between 0 and 1"),
        ({"penalty": False}, TypeError, "penalty must be a number"),
        ({"penalty": "0.1"}, TypeError, "penalty must be a number"),
        ({"question_id": ""}, ValueError, "question_id must be a non-empty str"),
        ({"question_id": None}, ValueError, "question_id must be a non-empty str"),
        ({"question_id": "q" * 101}, ValueError, "question_id is longer than 100"),
        ({"kind": ""}, ValueError, "kind must be a non-empty str"),
        ({"kind": "k" * 65}, ValueError, "kind is longer than 64"),
        ({"skill": ""}, ValueError, "skill must be a non-empty str"),
        ({"skill": "s" * 101}, ValueError, "skill is longer than 100"),
        ({"content_version": ""}, ValueError, "content_version must be a non-empty str"),
        ({"content_version": "v" * 129}, ValueError, "content_version is longer than 128"),
        ({"now": T0.replace(tzinfo=None)}, ValueError, "now must be timezone-aware"),
    ],
    ids=repr,
)
def test_bad_arguments_are_refused_and_nothing_is_stored(
    session, learner, issue, overrides, error, message
):
    with pytest.raises(error, match=message):
        issue(learner, **overrides)
    assert variants_stored(session) == 0


def test_a_variant_for_a_learner_who_does_not_exist_is_refused(session, learner, issue):
    with pytest.raises(NotFound, match=f"no user with id {learner + 1}"):
        issue(learner + 1)
    assert variants_stored(session) == 0


def test_the_issue_time_is_kept_in_utc(session, learner, issue):
    beijing = timezone(timedelta(hours=8))
    issued = issue(learner, now=datetime(2026, 11, 30, 17, 0, tzinfo=beijing))
    assert issued.created_at == T0 and issued.created_at.utcoffset() == timedelta(0)
    assert load_variant(session, issued.id).created_at == T0


def test_loading_a_missing_or_someone_elses_variant_is_refused(
    session, learner, other_learner, issue
):
    issued = issue(learner)
    with pytest.raises(NotFound, match=f"no drill variant with id {issued.id + 1}"):
        load_variant(session, issued.id + 1)
    with pytest.raises(NotYourVariant):
        load_variant(session, issued.id, learner_id=other_learner)
    assert load_variant(session, issued.id, learner_id=learner).learner_id == learner


def test_variant_submissions_are_that_variants_own_first_attempt_first(
    session, learner, issue, submit
):
    first, second = issue(learner, attempts_allowed=3), issue(learner, attempts_allowed=5)

    ids = [
        submit(learner, variant.id, key, raw_score).submission_id
        for variant, key, raw_score in ((first, "a", 0.0), (second, "b", 0.5), (first, "c", 0.5))
    ]
    listed = variant_submissions(session, first.id)
    assert [(s.submission_id, s.attempt, s.raw_score, s.score) for s in listed] == [
        (ids[0], 1, 0.0, 0.0),
        (ids[2], 2, 0.5, pytest.approx(0.4)),  # the penalty of 0.1 for a second try
    ]
    assert [s.replayed for s in listed] == [False, False]
    assert [s.attempts_left for s in listed] == [2, 1]  # as after each attempt
    assert variant_submissions(session, second.id + 1) == []
