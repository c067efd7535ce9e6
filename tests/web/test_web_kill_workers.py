"""Kill -9 while a class submits: four gunicorn workers, 50 students each sending their
drill answers through the API with idempotency keys; a worker is killed with SIGKILL, then
every worker and the master. After a restart, every answer not acknowledged is sent again
with its key: no acknowledged answer is lost, none is recorded twice, the service serves
again. On SQLite and, where the suite has one, on PostgreSQL."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
import time
import urllib.error
import urllib.request

import pytest
from served_app import in_parallel, serve
from sqlalchemy import select

from quizsvc import store

pytestmark = pytest.mark.slow  # gunicorn with four workers, started twice

WORKERS = 4
CLIENTS = 50
DRILL = "drill-score-row"  # a 1 × 3 answer, 3 attempts
WRONG = 12345.0  # no score of the drill is near it: every answer is recorded, none solves


@pytest.fixture
def tokens(migrated_db_url) -> dict[str, str]:
    """A student per client, each with an API token: name -> token."""
    engine = store.make_engine(migrated_db_url)
    sessions = store.make_session_factory(engine)
    tokens = {}
    with sessions() as session:
        for i in range(CLIENTS):
            name = f"student{i:02d}"
            store.create_user(session, name=name, role="student", password="long enough 1")
            tokens[name] = store.issue_api_token(session, name)
    engine.dispose()
    return tokens


def call(base: str, token: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    """(status, JSON) of an API call; (0, {}) when no answer came (a connection reset or
    refused, a response cut short)."""
    request = urllib.request.Request(
        base + path,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        method="GET" if body is None else "POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, {}
    except (OSError, ValueError):  # includes http.client's RemoteDisconnected, IncompleteRead
        return 0, {}


def test_no_acknowledged_answer_is_lost_or_recorded_twice_after_kill_9(
    tmp_path, migrated_db_url, content_dir, tokens
):
    names = sorted(tokens)
    acknowledged: dict[str, str] = {}  # key -> the student who sent it
    unacknowledged: dict[str, tuple[str, int]] = {}  # key -> (student, variant)
    lock = threading.Lock()
    killed_one, killed_all = threading.Event(), threading.Event()

    with serve(tmp_path, migrated_db_url, content_dir, workers=WORKERS) as served:
        started = in_parallel(
            [
                lambda name=name: call(
                    served.base, tokens[name], f"/api/drills/{DRILL}/variants", {}
                )
                for name in names
            ]
        )
        variants = {}
        for name, (status, variant) in zip(names, started, strict=True):
            assert status == 201, (name, status)
            assert variant["attempts_left"] == 3 and variant["answer"]["shape"] == [1, 3]
            variants[name] = variant["id"]

        def student(name: str) -> None:
            for attempt in range(3):
                key = f"{name}-answer-{attempt}"
                body = {"answer": [[WRONG] * 3], "idempotency_key": key}
                status, _ = call(
                    served.base, tokens[name], f"/api/variants/{variants[name]}/submissions", body
                )
                with lock:
                    if status == 201:
                        acknowledged[key] = name
                    else:
                        assert status in (0, 500, 502, 503), (name, key, status)
                        unacknowledged[key] = (name, variants[name])
                time.sleep(0.05)

        def killer() -> None:
            """One worker once a third of the answers are acknowledged; all, and the
            master, at two thirds."""
            while len(acknowledged) < CLIENTS:
                time.sleep(0.005)
            os.kill(min(served.worker_pids()), signal.SIGKILL)
            killed_one.set()
            while len(acknowledged) < 2 * CLIENTS:
                time.sleep(0.005)
            for pid in served.worker_pids() | {served.process.pid}:
                with contextlib.suppress(ProcessLookupError):  # the worker killed first
                    os.kill(pid, signal.SIGKILL)
            killed_all.set()

        in_parallel([killer, *[lambda name=name: student(name) for name in names]])
        assert killed_one.is_set() and killed_all.is_set()
        served.process.wait(timeout=30)

    assert unacknowledged, "the kill came after every answer: it tested nothing"
    sent = {**acknowledged, **{key: name for key, (name, _) in unacknowledged.items()}}
    assert len(sent) == CLIENTS * 3

    # the service after a restart: every unacknowledged answer sent again, with its key
    with serve(tmp_path, migrated_db_url, content_dir, workers=WORKERS) as served:
        retried = in_parallel(
            [
                lambda key=key, name=name, variant=variant: call(
                    served.base,
                    tokens[name],
                    f"/api/variants/{variant}/submissions",
                    {"answer": [[WRONG] * 3], "idempotency_key": key},
                )
                for key, (name, variant) in unacknowledged.items()
            ]
        )
        # recorded before the kill (a replay, 200) or only now (201)
        assert {status for status, _ in retried} <= {200, 201}, retried
        status, progress = call(served.base, tokens[names[0]], "/api/progress")
        assert status == 200 and "skills" in progress

    engine = store.make_engine(migrated_db_url)
    with store.make_session_factory(engine)() as session:
        rows = session.execute(
            select(store.Submission.idempotency_key, store.Submission.variant_id)
        ).all()
        variants_used = {
            variant.id: variant.attempts_used
            for variant in session.scalars(select(store.DrillVariant))
        }
    engine.dispose()
    keys = [key for key, _ in rows]
    assert len(keys) == len(set(keys)), "an answer recorded twice"
    assert set(keys) == set(sent), "an answer lost"
    assert set(acknowledged) <= set(keys)
    # each variant took its three answers, and counts three attempts
    assert sorted(variants_used.values()) == [3] * CLIENTS
