"""Store fixtures: every test runs on a fresh SQLite file, and on PostgreSQL as well when
``TEST_DATABASE_URL`` is set (``.ci/run`` starts one), each time on an empty schema."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from functools import cache
from typing import Any

import pytest
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from quizsvc.store import (
    Base,
    IssuedVariant,
    SubmissionResult,
    User,
    hash_password,
    issue_variant,
    make_engine,
    record_submission,
)

PASSWORD = "correct horse"
T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _hashes_cheaply(cheap_password_hashes) -> None:
    """Users the tests create get cheap password hashes (test_store_users.py, about hashing,
    asks for the real ones)."""


@pytest.fixture
def sqlite_engine(tmp_path) -> Iterator[Engine]:
    """For the tests of SQLite's own behaviour: always SQLite, whatever TEST_DATABASE_URL."""
    engine = make_engine(f"sqlite:///{tmp_path / 'sqlite-only.sqlite3'}")
    Base.metadata.create_all(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def session(session_factory: sessionmaker[Session]) -> Iterator[Session]:
    with session_factory() as session:
        yield session


@cache
def _password_hash() -> str:
    return hash_password(PASSWORD)  # scrypt takes ~0.1 s: hash once for every fixture user


@pytest.fixture
def add_user(session_factory: sessionmaker[Session]) -> Callable[..., int]:
    """Insert a user directly (no password hashing per user); returns the id."""

    def add(name: str, role: str = "student") -> int:
        with session_factory() as session:
            user = User(
                name=name,
                display_name=name.title(),
                role=role,
                password_hash=_password_hash(),
                created_at=T0,
            )
            session.add(user)
            session.commit()
            return user.id

    return add


@pytest.fixture
def learner(add_user) -> int:
    return add_user("ada")


@pytest.fixture
def other_learner(add_user) -> int:
    return add_user("bob")


@pytest.fixture
def instructor(add_user) -> int:
    return add_user("grace", "instructor")


@pytest.fixture
def issue(session_factory: sessionmaker[Session]) -> Callable[..., IssuedVariant]:
    """Issue a drill variant with sensible defaults; keyword arguments override them."""

    def issue(learner_id: int, **overrides: Any) -> IssuedVariant:
        arguments: dict[str, Any] = {
            "question_id": "scores-1",
            "kind": "score_row",
            "seed": 7,
            "params": {"n": 3},
            "variant_json": {"format": 1, "kind": "score_row", "answer": [[1.0, "-inf"]]},
            "content_version": "v1",
            "attempts_allowed": 3,
            "penalty": 0.1,
            "skill": "scores",
            "now": T0,
        }
        arguments.update(overrides)
        with session_factory() as session:
            return issue_variant(session, learner_id=learner_id, **arguments)

    return issue


@pytest.fixture
def submit(session_factory: sessionmaker[Session]) -> Callable[..., SubmissionResult]:
    """Record a graded drill answer (its text is its idempotency key) in a session of its own."""

    def submit(
        learner_id: int, variant_id: int, key: str, raw_score: float, now: datetime = T0
    ) -> SubmissionResult:
        with session_factory() as session:
            return record_submission(
                session,
                learner_id=learner_id,
                variant_id=variant_id,
                idempotency_key=key,
                answer_text=key,
                parsed_value=[[raw_score]],
                raw_score=raw_score,
                cells=[],
                now=now,
            )

    return submit
