"""The JSON API: authentication, one learner's work kept from another, drills and quiz answers.

Expected numbers are worked out by hand in the comments (seed 7 of drill-score-row gives the
same q0 and K every time; the drill kinds' determinism is tested in tests/drills).
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from sqlalchemy import select

from quizsvc import practice, store

CHAPTER = "transformer-by-hand"

# drill-score-row with seed 7: q0 and K as given; scores = q0 · K^T / √4
Q0 = [[1.4, 0.6, 0.7, 1.3]]
K = [[0.5, 1.0, 1.1, -0.5], [-0.9, -0.3, -0.3, 1.2], [1.3, -1.0, 0.2, 1.1]]
# 1.4*0.5 + 0.6*1.0 + 0.7*1.1 - 1.3*0.5 = 1.42 -> 0.71
# -1.4*0.9 - 0.6*0.3 - 0.7*0.3 + 1.3*1.2 = -0.09 -> -0.045
# 1.4*1.3 - 0.6*1.0 + 0.7*0.2 + 1.3*1.1 = 2.79 -> 1.395
SCORES = [[0.71, -0.045, 1.395]]


class Api:
    """A test client speaking JSON with fixed headers (CSRF token or Bearer token)."""

    def __init__(self, client, headers: dict[str, str]) -> None:
        self.client = client
        self.headers = headers

    def get(self, path: str):
        return self.client.get(path, headers=self.headers)

    def post(self, path: str, body: object = None):
        return self.client.post(path, json=body, headers=self.headers)


@pytest.fixture
def api_for(browser_for):
    def make(name: str) -> Api:
        browser = browser_for(name)
        assert browser.token
        return Api(browser.client, {"X-CSRFToken": browser.token})

    return make


@pytest.fixture
def seed_7(monkeypatch):
    monkeypatch.setattr(practice.secrets, "randbelow", lambda _n: 7)


def strict_json(response) -> object:
    """The body parsed as strict JSON: NaN and Infinity are not JSON."""

    def refuse(constant: str):
        raise AssertionError(f"{constant} in a JSON response: {response.text[:200]}")

    return json.loads(response.get_data(as_text=True), parse_constant=refuse)


def assert_error(response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    assert response.mimetype == "application/json"
    body = response.json
    assert set(body) == {"error"}
    assert body["error"]["status"] == status
    assert body["error"]["code"] == code, body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    return body["error"]["message"]


def token_for(sessions, name: str) -> str:
    with sessions() as session:
        return store.issue_api_token(session, name)


# --- authentication ---------------------------------------------------------------------


def api_requests(app) -> list[tuple[str, str]]:
    """(method, url) of every rule under /api, with made-up ids."""
    found = []
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/api/"):
            url = re.sub(r"<[^>]+>", "x", re.sub(r"<int:[^>]+>", "1", rule.rule))
            found += [(method, url) for method in sorted(rule.methods - {"HEAD", "OPTIONS"})]
    return found


def test_every_api_route_answers_an_anonymous_request_with_a_401_json_error(app):
    requests = api_requests(app)
    # the routes of docs/api.md, and any added later
    assert len(requests) >= 9, requests
    anonymous = app.test_client()
    csrf = anonymous.get("/login").text.split('name="csrf_token" value="')[1].split('"')[0]
    for method, url in requests:
        response = anonymous.open(url, method=method, json={}, headers={"X-CSRFToken": csrf})
        assert_error(response, 401, "unauthorized")
        assert response.headers["WWW-Authenticate"].startswith("Bearer")
        assert "Location" not in response.headers  # not a redirect to the login page
        wrong = app.test_client().open(
            url, method=method, json={}, headers={"Authorization": "Bearer not-a-token"}
        )
        assert_error(wrong, 401, "unauthorized")


def test_a_post_with_the_session_but_without_the_csrf_header_is_refused(api_for, sessions):
    alice = api_for("alice")
    refused = alice.client.post("/api/drills/drill-score-row/variants")
    assert_error(refused, 400, "csrf_failed")
    refused = alice.client.post(
        "/api/drills/drill-score-row/variants", headers={"X-CSRFToken": "forged"}
    )
    assert_error(refused, 400, "csrf_failed")
    with sessions() as session:
        assert session.query(store.DrillVariant).count() == 0
    assert alice.post("/api/drills/drill-score-row/variants").status_code == 201


def test_a_bearer_token_needs_no_csrf_token_and_a_replaced_one_stops_working(
    app, api_for, sessions
):
    token = token_for(sessions, "alice")
    client = app.test_client()
    started = client.post(
        "/api/drills/drill-score-row/variants", headers={"Authorization": f"Bearer {token}"}
    )
    assert started.status_code == 201, started.text
    # the variant is alice's: her browser session sees it
    assert api_for("alice").get(f"/api/variants/{started.json['id']}").status_code == 200
    assert api_for("bob").get(f"/api/variants/{started.json['id']}").status_code == 404

    newer = token_for(sessions, "alice")
    old = client.get("/api/progress", headers={"Authorization": f"Bearer {token}"})
    assert_error(old, 401, "unauthorized")
    fresh = client.get("/api/progress", headers={"Authorization": f"Bearer {newer}"})
    assert fresh.status_code == 200


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER", "bEaReR"])
def test_the_bearer_scheme_is_case_insensitive(app, sessions, scheme):
    token = token_for(sessions, "alice")
    client = app.test_client()
    headers = {"Authorization": f"{scheme} {token}"}
    assert client.get("/api/progress", headers=headers).status_code == 200
    started = client.post("/api/drills/drill-score-row/variants", headers=headers)  # no CSRF
    assert started.status_code == 201, started.text


def test_a_request_with_a_bearer_header_is_authenticated_by_the_token_alone(app, api_for, sessions):
    """The session cookie of a logged-in browser does not count once a Bearer header is
    sent: a wrong token is 401 (and no CSRF token lets a write through), another user's
    token is that user."""
    alice = api_for("alice")  # the cookie of alice's logged-in browser
    alice.post("/api/questions/qkv-origin/answers", {"choices": ["B"]})
    bob_token = token_for(sessions, "bob")
    start = "/api/drills/drill-score-row/variants"
    for authorization in ("Bearer garbage", "Bearer", "bearer  ", "Bearer a=b"):
        headers = {"Authorization": authorization}
        refused = alice.client.post(start, headers=headers)  # no X-CSRFToken
        assert_error(refused, 401, "unauthorized")
        assert_error(alice.client.get("/api/progress", headers=headers), 401, "unauthorized")
    with sessions() as session:
        assert session.query(store.DrillVariant).count() == 0

    as_bob = {"Authorization": f"Bearer {bob_token}"}
    bobs = alice.client.get("/api/progress", headers=as_bob).json
    assert (bobs["skills"], bobs["history"], bobs["quiz"][0]["answered"]) == ([], [], 0)
    started = alice.client.post(start, headers=as_bob)
    assert started.status_code == 201, started.text
    assert "Set-Cookie" not in started.headers  # alice's session is neither read nor replaced
    assert_error(alice.get(f"/api/variants/{started.json['id']}"), 404, "not_found")  # bob's
    # alice's browser is still alice's, with her CSRF token
    assert [h["question_id"] for h in alice.get("/api/progress").json["history"]] == ["qkv-origin"]
    assert alice.post(start).status_code == 201


def test_another_authorization_scheme_leaves_the_session_cookie_in_charge(api_for):
    alice = api_for("alice")
    basic = {"Authorization": "Basic YWxpY2U6eA==", **alice.headers}
    assert alice.client.get("/api/progress", headers=basic).status_code == 200
    refused = alice.client.post(
        "/api/drills/drill-score-row/variants", headers={"Authorization": "Basic YWxpY2U6eA=="}
    )
    assert_error(refused, 400, "csrf_failed")  # a cookie request, so CSRF is checked


def test_a_request_with_a_bearer_token_never_writes_the_browsers_session(browser_for, sessions):
    alice = browser_for("alice")
    alice.post("/lang/en")
    as_alice = {"Authorization": f"Bearer {token_for(sessions, 'alice')}"}
    # a page that writes the session: its session is a fresh one, kept nowhere
    response = alice.client.post("/lang/zh", headers=as_alice)
    assert response.status_code == 302
    assert "Set-Cookie" not in response.headers
    assert '<html lang="en">' in alice.get("/progress").text


def test_an_anonymous_api_write_without_a_csrf_token_is_401_not_a_csrf_error(app):
    anonymous = app.test_client()
    response = anonymous.post("/api/drills/drill-score-row/variants", json={})
    assert_error(response, 401, "unauthorized")


# --- one learner's work is not another's --------------------------------------------------


def test_a_learner_can_neither_read_nor_answer_another_learners_variant(api_for):
    alice, bob = api_for("alice"), api_for("bob")
    variant_id = alice.post("/api/drills/drill-score-row/variants").json["id"]

    missing = bob.get("/api/variants/999999")
    not_yours = bob.get(f"/api/variants/{variant_id}")
    assert assert_error(not_yours, 404, "not_found") == assert_error(
        missing, 404, "not_found"
    ).replace("999999", str(variant_id))

    answer = {"answer": [[0, 0, 0]], "idempotency_key": "bob-1"}
    assert_error(bob.post(f"/api/variants/{variant_id}/submissions", answer), 404, "not_found")
    # an unreadable answer does not tell bob more than a readable one
    bad = {"answer": "what?", "idempotency_key": "bob-2"}
    assert_error(bob.post(f"/api/variants/{variant_id}/submissions", bad), 404, "not_found")

    mine = alice.get(f"/api/variants/{variant_id}").json
    assert mine["submissions"] == []
    assert mine["attempts_left"] == 3
    bobs = bob.get("/api/progress").json
    assert (bobs["skills"], bobs["history"], bobs["quiz"][0]["answered"]) == ([], [], 0)


def test_a_learner_does_not_see_another_learners_answers(api_for):
    alice, bob = api_for("alice"), api_for("bob")
    answered = alice.post(
        "/api/questions/qkv-origin/answers", {"choices": ["A"], "idempotency_key": "a-1"}
    )
    assert answered.status_code == 201

    def item(api, question_id):
        listed = api.get(f"/api/chapters/{CHAPTER}/questions?lang=en").json["questions"]
        return next(i for i in listed if i["question"]["id"] == question_id)

    assert item(alice, "qkv-origin")["learner_answer"]["choices"] == ["A"]
    assert item(alice, "qkv-origin")["question"]["correct"] == ["B"]
    bobs = item(bob, "qkv-origin")
    assert bobs["learner_answer"] is None
    assert "correct" not in bobs["question"]
    assert [h["question_id"] for h in alice.get("/api/progress").json["history"]] == ["qkv-origin"]
    assert bob.get("/api/progress").json["history"] == []
    # bob may still answer it himself, with the same idempotency key as alice's
    assert (
        bob.post(
            "/api/questions/qkv-origin/answers", {"choices": ["B"], "idempotency_key": "a-1"}
        ).json["score"]
        == 1.0
    )


# --- drills -------------------------------------------------------------------------------


def test_a_new_variant_has_the_given_numbers_and_the_answer_grid_but_not_the_answer(
    api_for, seed_7
):
    alice = api_for("alice")
    response = alice.post("/api/drills/drill-score-row/variants?lang=en")
    assert response.status_code == 201
    variant = strict_json(response)
    assert response.headers["Location"] == f"/api/variants/{variant['id']}"
    assert variant["question_id"] == "drill-score-row"
    assert variant["kind"] == "score_row"
    assert variant["skill"] == "scores"
    assert [(t["name"], t["values"]) for t in variant["given"]] == [("q0", Q0), ("K", K)]
    assert variant["answer"] == {
        "name": "scores",
        "shape": [1, 3],
        "row_labels": ["我"],
        "col_labels": ["我", "爱", "你"],
        "token_ids": False,
    }
    assert variant["tolerance"] == {"atol": 0.01, "rtol": 0.0}
    assert (variant["attempts_allowed"], variant["attempts_left"], variant["penalty"]) == (
        3,
        3,
        0.1,
    )
    assert variant["prompt"]["markdown"].startswith("The query vector of position 0")
    assert (variant["finished"], variant["solved"], variant["submissions"]) == (False, False, [])
    assert not {"expected_answer", "solution", "heatmap"} & set(variant)

    zh = alice.get(f"/api/variants/{variant['id']}?lang=zh").json
    assert zh["prompt"]["markdown"] != variant["prompt"]["markdown"]
    assert_error(alice.get(f"/api/variants/{variant['id']}?lang=fr"), 400, "bad_request")


def test_a_drill_answered_wrong_then_right(api_for, seed_7):
    alice = api_for("alice")
    variant_id = alice.post("/api/drills/drill-score-row/variants").json["id"]
    submit = f"/api/variants/{variant_id}/submissions"

    # unreadable or the wrong shape: the grader's message, and no attempt used
    message = assert_error(
        alice.post(submit, {"answer": "0.71, -0.045", "idempotency_key": "k0"}),
        422,
        "invalid_answer",
    )
    assert message == "expected 1 × 3 values (rows × columns), got 1 × 2"
    assert_error(alice.post(submit, {"answer": [[0.71, True, 1]]}), 422, "invalid_answer")
    assert_error(alice.post(submit, {"answer": [[0.71, "x", 1]]}), 422, "invalid_answer")
    assert_error(alice.post(submit, {"answer": [[0.71, "nan", 1]]}), 422, "invalid_answer")
    assert_error(alice.post(submit, {"answer": 0.71}), 422, "invalid_answer")
    assert_error(
        alice.post(submit, {"answer": "1,2,3", "idempotency_key": 5}), 422, "invalid_request"
    )
    assert_error(
        alice.client.post(submit, data="[[1,2,3]]", headers=alice.headers), 400, "bad_request"
    )
    unchanged = alice.get(f"/api/variants/{variant_id}").json
    assert (unchanged["attempts_left"], unchanged["submissions"]) == (3, [])

    # attempt 1: only the first cell is right (0.71 within 0.01)
    first = alice.post(submit, {"answer": [[0.715, 0.5, 1.0]], "idempotency_key": "k1"})
    assert first.status_code == 201, first.text
    result = strict_json(first)
    assert result["replayed"] is False
    submission = result["submission"]
    assert (submission["attempt"], submission["attempts_left"]) == (1, 2)
    assert submission["raw_score"] == pytest.approx(1 / 3)
    assert submission["penalty_applied"] == 0.0
    assert submission["score"] == pytest.approx(1 / 3)
    assert submission["answer"] == [[0.715, 0.5, 1.0]]
    right, wrong_1, wrong_2 = submission["cells"]
    assert (right["row"], right["col"], right["correct"], right["submitted"]) == (0, 0, True, 0.715)
    assert right["low"] == pytest.approx(0.70) and right["high"] == pytest.approx(0.72)
    # a wrong cell's interval would give its answer away; its diagnosis does not: 0.5 and
    # 1.0 are 0.545 and 0.395 off (over 10 tolerances of 0.01), and match no known mistake
    # (unscaled: 1.42, -0.09, 2.79; the softmax of the scores: 0.290, 0.136, 0.574)
    far = {
        "mistakes": [],
        "distance": {
            "code": "far",
            "message": "Far off (more than 10 times the tolerance): check the method, not "
            "only the arithmetic.",
        },
    }
    assert wrong_1 == {"row": 0, "col": 1, "correct": False, "submitted": 0.5, "diagnosis": far}
    assert wrong_2 == {"row": 0, "col": 2, "correct": False, "submitted": 1.0, "diagnosis": far}
    assert result["variant"]["finished"] is False
    assert not {"expected_answer", "solution", "heatmap"} & set(result["variant"])

    # the same request again: the same result, no second attempt
    again = alice.post(submit, {"answer": [[0.715, 0.5, 1.0]], "idempotency_key": "k1"})
    assert again.status_code == 200
    assert again.json["replayed"] is True
    assert again.json["submission"] == submission
    conflict = alice.post(submit, {"answer": SCORES, "idempotency_key": "k1"})
    assert_error(conflict, 409, "idempotency_conflict")

    # attempt 2, all right: 1.0 - 0.1 * (2 - 1) = 0.9
    second = alice.post(submit, {"answer": "0.71, -0.045, 1.395", "idempotency_key": "k2"})
    assert second.status_code == 201, second.text
    result = strict_json(second)
    submission = result["submission"]
    assert (submission["attempt"], submission["attempts_left"]) == (2, 1)
    assert submission["raw_score"] == 1.0
    assert submission["penalty_applied"] == pytest.approx(0.1)
    assert submission["score"] == pytest.approx(0.9)
    assert all(cell["correct"] for cell in submission["cells"])
    variant = result["variant"]
    assert (variant["finished"], variant["solved"]) == (True, True)
    assert variant["expected_answer"]["values"][0] == pytest.approx(SCORES[0])
    assert variant["solution"] and all(
        set(step) == {"title", "text", "tensors"} for step in variant["solution"]
    )
    assert variant["heatmap"] is None  # a score row has no heatmap
    # finished: the first attempt's wrong cells now show their intervals too
    first_cells = variant["submissions"][0]["cells"]
    assert first_cells[1]["low"] == pytest.approx(-0.055)
    assert first_cells[1]["high"] == pytest.approx(-0.035)

    # solved: no more answers (attempts are left, but the answer is shown) ...
    assert_error(
        alice.post(submit, {"answer": SCORES, "idempotency_key": "k3"}), 409, "attempts_exhausted"
    )
    assert alice.get(f"/api/variants/{variant_id}").json["attempts_left"] == 1
    # ... but a retried request still gets its own result
    retried = alice.post(submit, {"answer": "0.71, -0.045, 1.395", "idempotency_key": "k2"})
    assert retried.status_code == 200
    assert retried.json["replayed"] is True
    assert retried.json["submission"]["id"] == submission["id"]
    assert_error(
        alice.post(submit, {"answer": "0, 0, 0", "idempotency_key": "k2"}),
        409,
        "idempotency_conflict",
    )

    progress = alice.get("/api/progress").json
    (scores,) = progress["skills"]
    assert (scores["skill"], scores["attempts"]) == ("scores", 2)
    assert scores["best_score"] == pytest.approx(0.9)
    # mastery: the variant counts once, at its best attempt (1/3, then 0.9): 0.9 / 2
    assert scores["mastery"] == pytest.approx(0.45)
    assert [(h["kind"], h["attempt"], h["variant_id"]) for h in progress["history"]] == [
        ("drill", 2, variant_id),
        ("drill", 1, variant_id),
    ]


def test_out_of_attempts_shows_the_answer_and_takes_no_more(api_for, seed_7):
    alice = api_for("alice")
    # greedy decoding on the trained model, seed 7: the corpus's pair 37 (line 38), 他 认识 你
    # -> he knows you; after "<s> he knows" the largest logit is that of you, token 5; one
    # attempt
    variant = alice.post("/api/drills/drill-greedy-next-token/variants").json
    logits = variant["given"][0]
    assert logits["col_labels"][int(np.argmax(logits["values"][0]))] == "5 you"
    assert variant["attempts_allowed"] == 1
    submit = f"/api/variants/{variant['id']}/submissions"
    result = alice.post(submit, {"answer": [[0]], "idempotency_key": "g1"}).json
    assert result["submission"]["score"] == 0.0
    assert (result["variant"]["finished"], result["variant"]["solved"]) == (True, False)
    assert result["variant"]["expected_answer"]["values"] == [[5.0]]
    # finished: the wrong cell's interval is shown now ([5, 5]: tolerance 0); a token id is
    # right or not, however close
    (cell,) = result["submission"]["cells"]
    assert cell.pop("diagnosis") == {
        "mistakes": [],
        "distance": {
            "code": "not_exact",
            "message": "Not the exact value, and only the exact value counts here.",
        },
    }
    assert cell == {"row": 0, "col": 0, "correct": False, "submitted": 0.0, "low": 5.0, "high": 5.0}
    assert_error(
        alice.post(submit, {"answer": [[5]], "idempotency_key": "g2"}), 409, "attempts_exhausted"
    )
    assert alice.post(submit, {"answer": [[0]], "idempotency_key": "g1"}).status_code == 200


def test_infinities_travel_as_strings(api_for, seed_7):
    alice = api_for("alice")
    variant_id = alice.post("/api/drills/drill-score-row/variants").json["id"]
    response = alice.post(
        f"/api/variants/{variant_id}/submissions",
        {"answer": [["-inf", "inf", 1.395]], "idempotency_key": "i1"},
    )
    assert response.status_code == 201
    submission = strict_json(response)["submission"]
    assert submission["answer"] == [["-inf", "inf", 1.395]]
    assert [c["submitted"] for c in submission["cells"]] == ["-inf", "inf", 1.395]
    # no score of the row is infinite
    assert [c["diagnosis"]["distance"]["code"] for c in submission["cells"][:2]] == [
        "not_finite",
        "not_finite",
    ]
    # the same matrix typed as text is the same answer
    text = alice.post(
        f"/api/variants/{variant_id}/submissions",
        {"answer": "-inf, ∞, 1.395", "idempotency_key": "i2"},
    )
    assert strict_json(text)["submission"]["answer"] == [["-inf", "inf", 1.395]]


def test_the_recommended_drill_is_the_first_skill_never_practised(api_for, seed_7):
    alice = api_for("alice")
    drills = alice.get("/api/drills?lang=en").json["drills"]
    assert [d["id"] for d in drills][:2] == ["drill-embedding-positional", "drill-projection"]
    assert drills[0]["skill"] == "positional_encoding"
    assert {d["kind"] for d in drills} == set(practice.DRILL_KINDS)
    first = alice.post("/api/drills/recommended/variants")
    assert first.status_code == 201
    assert first.json["question_id"] == "drill-embedding-positional"
    assert first.headers["Location"] == f"/api/variants/{first.json['id']}"
    # practised once (even badly), the next recommendation is the next skill never practised
    alice.post(f"/api/variants/{first.json['id']}/submissions", {"answer": [[0, 0, 0, 0]]})
    assert alice.post("/api/drills/recommended/variants").json["question_id"] == "drill-projection"


def test_unknown_drills_and_variants_are_404(api_for):
    alice = api_for("alice")
    assert_error(alice.post("/api/drills/no-such-drill/variants"), 404, "not_found")
    assert_error(alice.post("/api/drills/qkv-origin/variants"), 404, "not_found")  # not a drill
    assert_error(alice.get("/api/variants/123"), 404, "not_found")
    assert_error(alice.post("/api/variants/123/submissions", {"answer": "1"}), 404, "not_found")
    assert_error(alice.get("/api/variants/abc"), 404, "not_found")


# --- chapter questions --------------------------------------------------------------------


def test_chapters_in_both_languages(api_for):
    alice = api_for("alice")
    en = alice.get("/api/chapters?lang=en").json["chapters"]
    zh = alice.get("/api/chapters?lang=zh").json["chapters"]
    assert [c["id"] for c in en] == [CHAPTER]
    assert en[0]["title"].startswith("Transformer by Hand")
    assert zh[0]["title"].startswith("Transformer 手动计算")
    assert en[0]["question_count"] == 6  # 4 single choice + 2 open; the drills are not counted
    assert_error(alice.get("/api/chapters?lang=de"), 400, "bad_request")
    negotiated = alice.client.get(
        "/api/chapters", headers={**alice.headers, "Accept-Language": "zh-CN,zh;q=0.9"}
    )
    assert negotiated.json["chapters"][0]["title"] == zh[0]["title"]


def test_a_chapter_lists_its_questions_but_not_its_drills(api_for):
    alice = api_for("alice")
    listed = alice.get(f"/api/chapters/{CHAPTER}/questions?lang=en").json
    assert listed["chapter"]["id"] == CHAPTER
    assert [i["question"]["id"] for i in listed["questions"]] == [
        "qkv-origin",
        "scaling-by-sqrt-dk",
        "masked-self-attention",
        "cross-attention-sources",
        "teacher-forcing-vs-autoregressive",
        "why-multi-head",
    ]
    assert all(i["learner_answer"] is None for i in listed["questions"])
    assert_error(alice.get("/api/chapters/no-such-chapter/questions"), 404, "not_found")


def test_a_single_choice_question_is_answered_once(api_for):
    alice = api_for("alice")
    answer = "/api/questions/qkv-origin/answers?lang=en"
    response = alice.post(answer, {"choices": ["A"], "idempotency_key": "q1"})
    assert response.status_code == 201
    result = response.json
    assert (result["question_id"], result["score"], result["replayed"]) == (
        "qkv-origin",
        0.0,
        False,
    )
    assert result["learner_answer"]["choices"] == ["A"]
    assert result["learner_answer"]["status"] == "graded"
    assert result["question"]["correct"] == ["B"]
    assert result["question"]["explanation"]["markdown"].startswith("Q, K and V are obtained")

    again = alice.post(answer, {"choices": ["A"], "idempotency_key": "q1"})
    assert again.status_code == 200 and again.json["replayed"] is True
    assert again.json["learner_answer"]["id"] == result["learner_answer"]["id"]
    assert_error(
        alice.post(answer, {"choices": ["B"], "idempotency_key": "q2"}), 409, "already_answered"
    )
    assert_error(
        alice.post(answer, {"choices": ["B"], "idempotency_key": "q1"}), 409, "idempotency_conflict"
    )

    listed = alice.get(f"/api/chapters/{CHAPTER}/questions").json["questions"]
    assert listed[0]["learner_answer"]["choices"] == ["A"]
    assert listed[0]["learner_answer"]["score"] == 0.0


def test_an_invalid_answer_is_422_and_leaves_the_question_open(api_for):
    alice = api_for("alice")
    answer = "/api/questions/scaling-by-sqrt-dk/answers"
    cases = [
        ({"choices": ["A", "B"]}, "choose exactly one answer"),
        ({"choices": ["Z"]}, "'Z' is not one of the choices"),
        ({"choices": []}, "choose an answer before submitting"),
        (
            {"text": "B"},
            """question 'scaling-by-sqrt-dk' takes its answer in "choices","""
            ' e.g. {"choices": ["A"]}, not in "text"',
        ),
        ({"choices": "B"}, "choices must be a list of choice ids (strings)"),
        ({"choices": [1]}, "choices must be a list of choice ids (strings)"),
    ]
    for body, message in cases:
        assert assert_error(alice.post(answer, body), 422, "invalid_answer") == message
    assert_error(
        alice.post(answer, {"choices": ["B"], "idempotency_key": ""}), 422, "invalid_request"
    )
    assert_error(
        alice.post(answer, {"choices": ["B"], "idempotency_key": "x" * 129}), 422, "invalid_request"
    )
    assert_error(alice.post(answer, ["B"]), 400, "bad_request")
    assert_error(
        alice.post("/api/questions/drill-softmax-row/answers", {"text": "1"}), 404, "not_found"
    )
    assert_error(alice.post("/api/questions/nope/answers", {"text": "1"}), 404, "not_found")
    listed = alice.get(f"/api/chapters/{CHAPTER}/questions").json["questions"]
    assert listed[1]["question"]["id"] == "scaling-by-sqrt-dk"
    assert listed[1]["learner_answer"] is None
    assert alice.post(answer, {"choices": ["B"]}).json["score"] == 1.0


def test_an_open_answer_waits_for_review_its_suggested_score_kept_from_the_learner(
    api_for, sessions
):
    alice = api_for("alice")
    answer = "/api/questions/why-multi-head/answers?lang=en"
    assert assert_error(alice.post(answer, {"text": "  "}), 422, "invalid_answer") == (
        "write an answer before submitting"
    )
    assert_error(alice.post(answer, {"text": "x" * 10_001}), 422, "invalid_answer")
    # rubric weights 0.3, 0.35, 0.2, 0.15: "its own wq" (0.2) and "concatenat" (0.15) found
    text = "Each head has its own Wq, and their outputs are concatenated."
    result = alice.post(answer, {"text": text, "idempotency_key": "o1"}).json
    assert result["score"] is None
    assert "suggested" not in json.dumps(result)
    with sessions() as session:
        [stored] = session.scalars(select(store.QuizAnswer)).all()
        assert stored.suggested_score == pytest.approx(0.35)
    assert result["learner_answer"]["status"] == "awaiting_review"
    assert result["learner_answer"]["text"] == text
    assert result["question"]["reference_answer"]["markdown"].startswith("One attention head")
    assert [p["key"] for p in result["question"]["key_points"]] == [
        "one-pattern-per-head",
        "several-perspectives",
        "independent-projections",
        "concatenate-outputs",
    ]
    assert "phrases" not in json.dumps(result)

    with sessions() as session:
        ines = store.authenticate(session, "ines", "correct horse battery")
        store.record_review(
            session,
            answer_id=result["learner_answer"]["id"],
            reviewer_id=ines.id,
            confirmed_score=0.5,
            comment="Say why one head is not enough.",
        )
    listed = alice.get(f"/api/chapters/{CHAPTER}/questions").json["questions"]
    reviewed = next(i for i in listed if i["question"]["id"] == "why-multi-head")["learner_answer"]
    assert (reviewed["status"], reviewed["score"]) == ("reviewed", 0.5)
    assert reviewed["review"]["comment"] == "Say why one head is not enough."


def test_progress_limits_its_history(api_for):
    alice = api_for("alice")
    for question_id, choice in [("qkv-origin", "B"), ("scaling-by-sqrt-dk", "A")]:
        alice.post(f"/api/questions/{question_id}/answers", {"choices": [choice]})
    progress = alice.get("/api/progress").json
    assert [h["question_id"] for h in progress["history"]] == ["scaling-by-sqrt-dk", "qkv-origin"]
    # a skill counts drills only; the chapter's answers are its quiz line: 1 + 0 of the
    # 4 x 1 + 2 x 2 = 8 points of its 6 questions
    assert progress["skills"] == []
    assert progress["quiz"] == [
        {
            "chapter_id": CHAPTER,
            "questions": 6,
            "answered": 2,
            "awaiting_review": 0,
            "unfinished": 4,
            "earned": 1.0,
            "possible": 8.0,
            "final": False,
        }
    ]
    assert [h["question_id"] for h in alice.get("/api/progress?limit=1").json["history"]] == [
        "scaling-by-sqrt-dk"
    ]
    for bad in ("0", "101", "x", "-1"):
        assert_error(alice.get(f"/api/progress?limit={bad}"), 400, "bad_request")


def test_idempotency_keys_are_remembered_apart_for_drills_and_for_quiz_answers(api_for):
    """docs/api.md: a key is one user's, once among drill submissions and once among quiz
    answers; within each, reusing it for another variant or question is 409."""
    alice = api_for("alice")
    first, second = (alice.post("/api/drills/drill-score-row/variants").json["id"] for _ in "12")
    quiz = alice.post(
        "/api/questions/qkv-origin/answers", {"choices": ["B"], "idempotency_key": "k"}
    )
    assert quiz.status_code == 201
    drill = alice.post(
        f"/api/variants/{first}/submissions", {"answer": "1, 2, 3", "idempotency_key": "k"}
    )
    assert drill.status_code == 201, drill.text
    assert_error(
        alice.post(
            "/api/questions/scaling-by-sqrt-dk/answers", {"choices": ["B"], "idempotency_key": "k"}
        ),
        409,
        "idempotency_conflict",
    )
    assert_error(
        alice.post(
            f"/api/variants/{second}/submissions", {"answer": "1, 2, 3", "idempotency_key": "k"}
        ),
        409,
        "idempotency_conflict",
    )
    replayed = alice.post(
        f"/api/variants/{first}/submissions", {"answer": "1, 2, 3", "idempotency_key": "k"}
    )
    assert (replayed.status_code, replayed.json["replayed"]) == (200, True)


# --- HTTP around the routes ---------------------------------------------------------------


def test_every_route_refuses_a_lang_it_does_not_know(app, sessions):
    """docs/api.md: ?lang=zh or ?lang=en on any route; another value is 400 (checked before
    anything else, so even before the made-up ids are looked up)."""
    bearer = {"Authorization": f"Bearer {token_for(sessions, 'alice')}"}
    client = app.test_client()
    for method, url in api_requests(app):
        response = client.open(f"{url}?lang=fr", method=method, json={}, headers=bearer)
        assert assert_error(response, 400, "bad_request") == "lang must be one of zh, en", url
    assert client.get("/api/progress?lang=zh", headers=bearer).status_code == 200


def test_a_method_a_route_does_not_take_is_405_with_the_allow_header(app, api_for):
    alice = api_for("alice")
    for method, url, allowed in [
        ("POST", "/api/chapters", {"GET", "HEAD", "OPTIONS"}),
        ("DELETE", "/api/variants/1", {"GET", "HEAD", "OPTIONS"}),
        ("GET", "/api/variants/1/submissions", {"POST", "OPTIONS"}),
    ]:
        response = alice.client.open(url, method=method, headers=alice.headers)
        assert_error(response, 405, "method_not_allowed")
        assert set(response.headers["Allow"].split(", ")) == allowed, url
    page = alice.client.get("/logout")  # the pages keep the header too
    assert page.status_code == 405
    assert set(page.headers["Allow"].split(", ")) == {"POST", "OPTIONS"}


def test_options_answers_204_with_the_allow_header_to_anyone(app, api_for):
    signed_in, anonymous = api_for("alice").client, app.test_client()
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/"):
            continue
        url = re.sub(r"<[^>]+>", "x", re.sub(r"<int:[^>]+>", "1", rule.rule))
        for client in (signed_in, anonymous):
            response = client.options(url)
            assert response.status_code == 204, url
            assert set(response.headers["Allow"].split(", ")) == rule.methods, url
            assert "Content-Type" not in response.headers
            assert response.data == b""


def test_api_without_a_trailing_slash_is_a_json_404(app, api_for):
    for client in (app.test_client(), api_for("alice").client):
        assert_error(client.get("/api"), 404, "not_found")
        assert_error(client.get("/api/"), 404, "not_found")


def test_api_responses_are_not_cached(api_for):
    response = api_for("alice").get("/api/progress")
    assert response.headers["Cache-Control"] == "private, no-store"
