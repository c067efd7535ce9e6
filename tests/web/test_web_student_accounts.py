"""An instructor deactivates, activates and deletes a student's account from the student's
page; a deactivated student cannot log in by any way; a deleted one is in no page or export;
a student downloads everything stored about them."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from quizsvc import store

DRILL = "drill-score-row"  # its answer: one row of n = 3 scores


def user_named(sessions, name: str) -> store.User | None:
    with sessions() as session:
        return session.scalar(select(store.User).where(store.User.name == name))


@pytest.fixture
def alice_id(sessions) -> int:
    return user_named(sessions, "alice").id


def practise(browser) -> None:
    """A drill variant started and answered (wrongly) through the pages' API."""
    headers = {"X-CSRFToken": browser.token}
    started = browser.client.post(f"/api/drills/{DRILL}/variants", json={}, headers=headers)
    assert started.status_code == 201, started.text
    variant_id = started.get_json()["id"]
    answered = browser.client.post(
        f"/api/variants/{variant_id}/submissions", json={"answer": "0 0 0"}, headers=headers
    )
    assert answered.status_code == 201, answered.text


def test_a_deactivated_student_is_signed_out_and_cannot_log_in_until_activated(
    app, browser_for, alice_id
):
    alice = browser_for("alice")
    assert alice.get("/progress").status_code == 200
    ines = browser_for("ines")
    ines.post("/lang/en")
    response = ines.post(f"/instructor/students/{alice_id}/deactivate")
    assert response.status_code == 302
    page = ines.get(f"/instructor/students/{alice_id}").text
    assert "Deactivated on" in page
    assert "Activate the account" in page

    # her open session no longer lets her in
    assert alice.get("/progress").status_code == 302
    # nor does her password, with a reason (her password was right)
    again = browser_for()
    again.post("/lang/en")
    refused = again.login("alice")
    assert refused.status_code == 403
    assert "This account is deactivated" in refused.text

    assert ines.post(f"/instructor/students/{alice_id}/activate").status_code == 302
    assert browser_for().login("alice").status_code == 302


def test_a_deactivated_students_api_token_is_refused(app, browser_for, sessions, alice_id):
    with sessions() as session:
        token = store.issue_api_token(session, "alice")
    client = app.test_client()
    bearer = {"Authorization": f"Bearer {token}"}
    assert client.get("/api/progress", headers=bearer).status_code == 200
    browser_for("ines").post(f"/instructor/students/{alice_id}/deactivate")
    refused = client.get("/api/progress", headers=bearer)
    assert refused.status_code == 401
    assert refused.is_json


def test_deleting_asks_for_the_login_name_and_then_removes_the_student_everywhere(
    app, browser_for, sessions, alice_id
):
    alice = browser_for("alice")
    practise(alice)
    ines = browser_for("ines")
    ines.post("/lang/en")
    assert "alice" in ines.get("/instructor/reports/gradebook.csv").text

    wrong = ines.post(f"/instructor/students/{alice_id}/delete", {"confirm_name": "bob"})
    assert wrong.status_code == 422
    assert "Type the student&#39;s login name, alice" in wrong.text
    assert user_named(sessions, "alice") is not None

    deleted = ines.post(f"/instructor/students/{alice_id}/delete", {"confirm_name": "alice"})
    assert deleted.status_code == 302
    assert deleted.headers["Location"] == "/instructor/students"
    assert "alice" in ines.get("/instructor/students").text  # the notice names her ...
    assert ines.get("/instructor/students").text.count('data-student="alice"') == 0  # ... once
    assert ines.get(f"/instructor/students/{alice_id}").status_code == 404
    for export in ("gradebook.csv", "events.csv", "events.jsonl"):
        assert "alice" not in ines.get(f"/instructor/reports/{export}").text, export
    assert user_named(sessions, "alice") is None
    # and her browser is signed out
    assert alice.get("/progress").status_code == 302


def test_only_students_can_be_deactivated_or_deleted(app, browser_for, sessions):
    ines_id = user_named(sessions, "ines").id
    ines = browser_for("ines")
    assert ines.post(f"/instructor/students/{ines_id}/deactivate").status_code == 404
    assert (
        ines.post(f"/instructor/students/{ines_id}/delete", {"confirm_name": "ines"}).status_code
        == 404
    )
    # and a student may do neither
    bob_id = user_named(sessions, "bob").id
    assert browser_for("alice").post(f"/instructor/students/{bob_id}/deactivate").status_code == 403


def test_a_student_downloads_everything_stored_about_them(app, browser_for):
    alice = browser_for("alice")
    practise(alice)
    practise(browser_for("bob"))
    assert "/account/data.json" in alice.get("/progress").text
    response = alice.get("/account/data.json")
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    assert response.headers["Content-Disposition"] == 'attachment; filename="quizsvc-alice.json"'
    data = json.loads(response.text)
    assert data["account"]["name"] == "alice"
    assert [v["question_id"] for v in data["drill_variants"]] == [DRILL]
    assert "bob" not in response.text
    assert browser_for().get("/account/data.json").status_code == 302  # log in first
