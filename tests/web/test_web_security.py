"""Security of the HTML pages: logging in and out, cookies, the secret key, CSRF, no
self-registration, no anonymous access, one learner never sees another's work, and no
answer, solution or key in any page before the learner has answered.

The JSON API (/api/...) has its own tests (tests/web/test_web_api*.py).
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from urllib.parse import parse_qs, urljoin, urlsplit

import pytest
from web_helpers import count, reading, user_id
from werkzeug.exceptions import NotFound
from werkzeug.routing import IntegerConverter

from quizsvc import practice, store
from quizsvc.bank import (
    DrillQuestion,
    OpenQuestion,
    SingleChoiceQuestion,
    public_question,
    render_markdown,
)
from quizsvc.web import create_app
from quizsvc.web.catalogs import po_path, read_catalog
from quizsvc.web.render import format_number

CHAPTER = "transformer-by-hand"
CHAPTER_URL = f"/chapters/{CHAPTER}"
PASSWORD = "correct horse battery"  # the users' password in tests/web/conftest.py


# --- helpers ---------------------------------------------------------------------------


def row_counts(sessions) -> dict[str, int]:
    models = (
        store.User,
        store.DrillVariant,
        store.Submission,
        store.QuizAnswer,
        store.SkillProgressRecord,
    )
    return {model.__name__: count(sessions, model) for model in models}


def redirects_to_login(response) -> bool:
    return response.status_code == 302 and urlsplit(response.headers["Location"]).path == "/login"


def where_a_browser_goes(location: str, base: str = "http://localhost/login") -> tuple[str, str]:
    """(host, path) of a Location header as a browser resolves it: browsers drop tabs and
    new lines and read a backslash as a slash in http(s) URLs."""
    cleaned = re.sub(r"[\t\r\n]", "", location).replace("\\", "/")
    parts = urlsplit(urljoin(base, cleaned))
    return parts.netloc, parts.path


def variant_id_of(response) -> int:
    assert response.status_code == 302, response.text
    match = re.fullmatch(r"/variants/(\d+)", urlsplit(response.headers["Location"]).path)
    assert match, response.headers["Location"]
    return int(match.group(1))


def bank_of(app):
    return app.extensions["quizsvc"].bank


def quiz_questions(app) -> list:
    return [q for q in bank_of(app).questions_in(CHAPTER) if not isinstance(q, DrillQuestion)]


def drill_questions(app) -> list[DrillQuestion]:
    return [q for q in bank_of(app).questions.values() if isinstance(q, DrillQuestion)]


def pasted(values) -> str:
    """A matrix as the paste box takes it, one row per line, every value as Python prints
    it (exact, so it is right whatever the tolerance)."""
    return "\n".join(", ".join(repr(float(v)) for v in row) for row in values)


# --- logging in and out ----------------------------------------------------------------


def test_login_returns_to_the_page_asked_for_and_logout_ends_the_session(browser_for):
    b = browser_for()
    asked = b.get("/progress")
    assert redirects_to_login(asked)
    login_url = asked.headers["Location"]
    assert parse_qs(urlsplit(login_url).query)["next"] == ["/progress"]

    b.get(login_url)
    response = b.client.post(
        login_url, data={"csrf_token": b.token, "name": "alice", "password": PASSWORD}
    )
    assert response.status_code == 302
    assert response.headers["Location"] == "/progress"
    page = b.get("/progress")
    assert page.status_code == 200
    assert "Log out (alice)" in page.text

    response = b.post("/logout")
    assert redirects_to_login(response)
    assert redirects_to_login(b.get("/progress"))
    with b.client.session_transaction() as session:
        assert "_user_id" not in session


def test_a_login_refuses_the_csrf_token_of_before_it(browser_for):
    """A token seen (or planted with the cookie) before logging in is no good after it."""
    b = browser_for()
    b.get("/login")
    before = b.token
    assert b.login("alice").status_code == 302
    response = b.client.post("/drills/drill-score-row/variants", data={"csrf_token": before})
    assert response.status_code == 400
    b.get("/drills")
    assert b.token != before
    assert b.post("/drills/drill-score-row/variants").status_code == 302


def test_logout_leaves_nothing_of_the_user_in_the_cookie_but_the_language(browser_for):
    """The session cookie is signed, not encrypted: on a shared computer the next person
    could read whatever the last one left in it, such as their typed drill answer."""
    b = browser_for("alice")
    b.post("/lang/zh")
    variant = variant_id_of(b.post("/drills/drill-score-row/variants"))
    typed = {"cell-0-0": "0.25", "cell-0-1": "7", "cell-0-2": "-1"}
    response = b.post(f"/variants/{variant}/submissions", typed)
    assert response.status_code == 302
    with b.client.session_transaction() as session:
        assert session["drill_last_answer"]["cells"] == [["0.25", "7", "-1"]]
        token_before = session["csrf_token"]
    assert redirects_to_login(b.post("/logout"))
    with b.client.session_transaction() as session:
        assert set(session) == {"lang", "_flashes"}
        assert session["lang"] == "zh"
    page = b.get("/login")
    assert "已退出。" in page.text
    assert b.token != token_before

    # and the next person's login starts from nothing either (the language stays)
    assert b.login("bob").status_code == 302
    with b.client.session_transaction() as session:
        assert "drill_last_answer" not in session
        assert session["lang"] == "zh"


def test_a_wrong_password_or_user_is_401_and_starts_no_session(browser_for):
    cases = [("alice", "wrong password"), ("alice", ""), ("nobody", PASSWORD), ("Alice", PASSWORD)]
    for name, password in cases:
        b = browser_for()
        response = b.login(name, password)
        assert response.status_code == 401, name
        # the same words for an unknown user as for a wrong password: names are not probed
        assert "Wrong user name or password." in response.text
        assert "Log out" not in response.text
        with b.client.session_transaction() as session:
            assert "_user_id" not in session
        assert redirects_to_login(b.get("/progress"))


def test_login_never_redirects_to_another_site(browser_for):
    targets = {
        "/drills": "/drills",
        "/progress?x=1": "/progress",
        "https://evil.example/steal": "/",
        "//evil.example/steal": "/",
        "/\\evil.example/steal": None,  # some same-site path, never evil.example
        "/\t/evil.example/steal": "/",
        "\\\\evil.example/steal": "/",
        "http:/evil.example": "/",
        "javascript:alert(1)": "/",
        "": "/",
    }
    for target, expected_path in targets.items():
        b = browser_for()
        b.get("/login")
        response = b.client.post(
            "/login",
            query_string={"next": target},
            data={"csrf_token": b.token, "name": "alice", "password": PASSWORD},
        )
        assert response.status_code == 302, target
        host, path = where_a_browser_goes(response.headers["Location"])
        assert host == "localhost", (target, response.headers["Location"])
        if expected_path is not None:
            assert path == expected_path, (target, response.headers["Location"])

        # the language toggle takes the same `next` and must be as careful
        b.get("/progress")  # the logged-in session's CSRF token
        response = b.post("/lang/en", {"next": target})
        assert response.status_code == 302, target
        host, path = where_a_browser_goes(response.headers["Location"])
        assert host == "localhost", (target, response.headers["Location"])
        if expected_path is not None:
            assert path == expected_path, (target, response.headers["Location"])


def test_switching_the_language_takes_a_post_with_the_csrf_token(browser_for):
    alice = browser_for("alice")
    alice.post("/lang/en")
    # what another site can make a browser send: an image's GET, a form without the token
    assert alice.get("/lang/zh").status_code == 405
    refused = alice.client.post("/lang/zh", data={"next": "/progress"})
    assert refused.status_code == 400
    assert '<html lang="en">' in alice.get("/progress").text

    # the header's button, pressed on a page with a query string: back to that very page
    page = alice.get("/instructor/students?page=2&x=%C3%A9")  # a 403 page has the header too
    form = re.search(
        r'<form class="inline" method="post" action="/lang/zh">(.*?)</form>', page.text, re.S
    )
    assert form, page.text[:500]
    back = re.search(r'name="next" value="([^"]*)"', form.group(1)).group(1)
    assert back == "/instructor/students?page=2&amp;x=%C3%A9"
    response = alice.post("/lang/zh", {"next": "/instructor/students?page=2&x=%C3%A9"})
    assert response.status_code == 302
    assert response.headers["Location"] == "/instructor/students?page=2&x=%C3%A9"
    assert '<html lang="zh-CN">' in alice.get("/progress").text

    # a page without a query string: back to its path, without a stray "?"
    page = alice.get("/progress")
    form = re.search(
        r'<form class="inline" method="post" action="/lang/en">(.*?)</form>', page.text, re.S
    )
    assert re.search(r'name="next" value="([^"]*)"', form.group(1)).group(1) == "/progress"


def set_cookie_headers(response, name: str) -> list[str]:
    return [h for h in response.headers.getlist("Set-Cookie") if h.startswith(f"{name}=")]


def cookie_attributes(header: str) -> set[str]:
    return {part.strip().lower() for part in header.split(";")[1:]}


def test_the_session_cookie_is_httponly_and_samesite_lax(browser_for):
    response = browser_for().login("alice")
    [cookie] = set_cookie_headers(response, "session")
    attributes = cookie_attributes(cookie)
    assert "httponly" in attributes
    assert "samesite=lax" in attributes
    assert "secure" not in attributes  # the default: served over plain http in development
    # a plain login sets no long-lived "remember me" cookie
    assert set_cookie_headers(response, "remember_token") == []


def test_the_session_cookie_is_secure_when_configured(database_url):
    app = create_app(
        {"SECRET_KEY": "test secret", "DATABASE_URL": database_url, "SESSION_COOKIE_SECURE": True}
    )
    assert app.config["REMEMBER_COOKIE_SECURE"] is True
    client = app.test_client()
    page = client.get("/login")
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)
    response = client.post(
        "/login", data={"csrf_token": token, "name": "alice", "password": PASSWORD}
    )
    assert response.status_code == 302
    [cookie] = set_cookie_headers(response, "session")
    assert {"secure", "httponly", "samesite=lax"} <= cookie_attributes(cookie)


def test_create_app_needs_a_secret_key_unless_in_development(database_url, monkeypatch):
    for name in ("QUIZSVC_SECRET_KEY", "QUIZSVC_DEVELOPMENT"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(RuntimeError, match="SECRET_KEY"):
        create_app({"DATABASE_URL": database_url})
    with pytest.raises(RuntimeError, match="SECRET_KEY"):
        create_app({"DATABASE_URL": database_url, "SECRET_KEY": ""})

    # in development, one key kept in instance/: two apps (two workers) sign alike
    first = create_app({"DATABASE_URL": database_url, "DEVELOPMENT": True})
    second = create_app({"DATABASE_URL": database_url, "DEVELOPMENT": True})
    kept = (Path(first.instance_path) / "development_secret_key").read_text()
    assert re.fullmatch(r"[0-9a-f]{64}", kept)
    assert first.config["SECRET_KEY"] == second.config["SECRET_KEY"] == kept

    monkeypatch.setenv("QUIZSVC_SECRET_KEY", "from the environment")
    assert create_app({"DATABASE_URL": database_url}).config["SECRET_KEY"] == (
        "from the environment"
    )


# --- CSRF ------------------------------------------------------------------------------


# The endpoints an LMS posts to cross-site (quizsvc.web.lti): exempt from the CSRF check, the
# launch being a JWT the platform signed; test_web_lti.py refuses what is not signed.
SIGNED_JWT_ENDPOINTS = {"lti.login", "lti.launch"}


def form_posts(app) -> list:
    """Every POST route of the pages (the API is tested on its own) but the LTI launch's."""
    return [
        rule
        for rule in app.url_map.iter_rules()
        if "POST" in rule.methods
        and not rule.rule.startswith("/api/")
        and rule.endpoint not in SIGNED_JWT_ENDPOINTS
    ]


def test_only_the_lti_launch_s_endpoints_skip_the_csrf_check(app):
    exempt = {
        endpoint
        for endpoint, view in app.view_functions.items()
        if getattr(view, "signed_jwt_endpoint", False)
    }
    assert exempt == SIGNED_JWT_ENDPOINTS


def build_url(app, rule, values: dict) -> str:
    """A URL for the rule from real ids: by (endpoint, argument), then by argument name; an
    argument nobody thought of gets "1" (which an int or a string converter accepts)."""
    args = {
        arg: values.get((rule.endpoint, arg), values.get(arg, 1)) for arg in sorted(rule.arguments)
    }
    return app.url_map.bind("localhost").build(rule.endpoint, args)


def test_every_form_post_without_a_valid_csrf_token_is_refused(app, browser_for, sessions):
    alice = browser_for("alice")
    variant = variant_id_of(alice.post("/drills/drill-softmax-row/variants"))
    values = {
        "chapter_id": CHAPTER,
        ("quiz.answer", "question_id"): "qkv-origin",
        ("drills.new_variant", "question_id"): "drill-score-row",
        "variant_id": variant,
    }
    form = {
        "choice": "B",
        "text": "teacher forcing",
        "pasted": "0.3, 0.3, 0.4",
        "name": "alice",
        "password": PASSWORD,
        "idempotency_key": "k-1",
    }
    before = row_counts(sessions)
    posts = form_posts(app)
    assert {r.endpoint for r in posts} >= {
        "auth.login",
        "auth.logout",
        "quiz.answer",
        "drills.recommended",
        "drills.new_variant",
        "drills.submit",
    }
    for rule in posts:
        url = build_url(app, rule, values)
        for token in (None, "", "not-a-token", alice.token[:-3] + "abc"):
            data = dict(form) if token is None else {**form, "csrf_token": token}
            response = alice.client.post(url, data=data)
            assert response.status_code == 400, (url, token, response.status_code)
            assert "CSRF" in response.text
    assert row_counts(sessions) == before
    assert alice.get("/progress").status_code == 200  # the refused logout did not log out

    # another browser's (valid) token is no good for this session either
    bob = browser_for("bob")
    response = alice.client.post(
        f"{CHAPTER_URL}/questions/qkv-origin", data={**form, "csrf_token": bob.token}
    )
    assert response.status_code == 400
    assert row_counts(sessions) == before

    # with its own token the same request goes through: the 400s above were the token's
    response = alice.post(f"{CHAPTER_URL}/questions/qkv-origin", {"choice": "B"})
    assert response.status_code == 302
    assert count(sessions, store.QuizAnswer) == before["QuizAnswer"] + 1


def test_login_without_a_csrf_token_is_refused(app):
    client = app.test_client()
    response = client.post("/login", data={"name": "alice", "password": PASSWORD})
    assert response.status_code == 400
    with client.session_transaction() as session:
        assert "_user_id" not in session


def test_self_registration_is_off_by_default(app, browser_for, sessions):
    # (REGISTRATION_OPEN turns it on: tests/web/test_web_registration.py)
    assert app.config["REGISTRATION_OPEN"] is False
    b = browser_for()
    page = b.get("/login")
    assert not re.search(r"regist|sign ?up|注册|create an? (student )?account", page.text, re.I)
    users = count(sessions, store.User)
    for path in ("/register", "/signup", "/auth/register", "/auth/signup"):
        assert b.get(path).status_code == 404, path
        form = {"name": "mallory", "password": PASSWORD, "role": "instructor"}
        assert b.post(path, form).status_code in (404, 405), path
    assert count(sessions, store.User) == users


# --- anonymous access ------------------------------------------------------------------

# auth.register answers 404 unless REGISTRATION_OPEN (test_self_registration_is_off_by_default)
# health: the load balancer's check, which tells nothing of anyone (test_web_deploy.py)
PUBLIC_ENDPOINTS = {
    "static",
    "auth.login",
    "auth.set_language",
    "auth.register",
    "health.healthz",
    # an LMS reaches these before anyone is logged in: its login, its launch, the tool's keys
    "lti.login",
    "lti.launch",
    "lti.jwks",
}


def page_routes(app) -> list:
    return [
        rule
        for rule in app.url_map.iter_rules()
        if rule.endpoint not in PUBLIC_ENDPOINTS and not rule.rule.startswith("/api/")
    ]


def test_every_page_route_refuses_anonymous_access(app, browser_for, sessions):
    bob = browser_for("bob")
    variant = variant_id_of(bob.post("/drills/drill-softmax-row/variants"))
    values = {
        "chapter_id": CHAPTER,
        ("quiz.answer", "question_id"): "qkv-origin",
        ("drills.new_variant", "question_id"): "drill-score-row",
        "variant_id": variant,
    }
    form = {"choice": "B", "text": "teacher forcing", "pasted": "0.3, 0.3, 0.4"}
    before = row_counts(sessions)
    rules = page_routes(app)
    covered = {rule.endpoint for rule in rules}
    # the enumeration really sees the pages (a filter gone wrong would make this test empty)
    assert covered >= {
        "quiz.index",
        "quiz.chapter",
        "quiz.answer",
        "drills.index",
        "drills.recommended",
        "drills.new_variant",
        "drills.variant",
        "drills.submit",
        "progress.index",
        "auth.logout",
    }

    anonymous = browser_for()
    anonymous.get("/login")  # a valid CSRF token for an anonymous session
    for rule in rules:
        url = build_url(app, rule, values)
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            if method == "GET":
                response = anonymous.client.get(url)
                assert redirects_to_login(response), (url, response.status_code)
                query = parse_qs(urlsplit(response.headers["Location"]).query)
                if url == "/":  # the start page is the login page itself, nothing to return to
                    assert query == {}
                else:
                    assert urlsplit(query["next"][0]).path == url
                continue
            without_token = anonymous.client.open(url, method=method, data=form)
            assert without_token.status_code == 400 or redirects_to_login(without_token), (
                method,
                url,
                without_token.status_code,
            )
            with_token = anonymous.client.open(
                url, method=method, data={**form, "csrf_token": anonymous.token}
            )
            assert redirects_to_login(with_token), (method, url, with_token.status_code)
            anonymous.get("/login")  # a logout starts a new session, with a new token
    assert row_counts(sessions) == before


# --- one learner, one learner's work ----------------------------------------------------


def test_a_student_can_neither_read_nor_answer_another_students_variant(app, browser_for, sessions):
    bob = browser_for("bob")
    variant = variant_id_of(bob.post("/drills/drill-softmax-row/variants"))
    bob_page = bob.get(f"/variants/{variant}")
    assert bob_page.status_code == 200
    bob_id, alice_id = user_id(sessions, "bob"), user_id(sessions, "alice")
    with reading(sessions) as session:
        state = practice.drill_state(session, bob_id, variant)
    given_row = state.variant.given[0].values[0]
    right = pasted(state.variant.answer.values)

    alice = browser_for("alice")
    before = row_counts(sessions)
    page = alice.get(f"/variants/{variant}")
    missing = alice.get("/variants/999999")
    assert page.status_code == 404
    assert missing.status_code == 404
    # "not yours" looks exactly like "not there": ids are not to be probed
    message = re.search(r'<p class="error-message">(.*?)</p>', page.text).group(1)
    assert message == f"You have no drill exercise numbered {variant}."
    assert re.search(r'<p class="error-message">(.*?)</p>', missing.text).group(1) == (
        "You have no drill exercise numbered 999999."
    )
    assert state.variant.kind not in page.text
    assert all(f">{format_number(v)}<" not in page.text for v in given_row)

    for key in ("k-1", "k-2"):
        response = alice.post(
            f"/variants/{variant}/submissions", {"pasted": right, "idempotency_key": key}
        )
        assert response.status_code == 404
    response = alice.post(f"/variants/{variant}/submissions", {"cell-0-0": "1"})
    assert response.status_code == 404
    assert row_counts(sessions) == before
    with reading(sessions) as session:
        stored = store.load_variant(session, variant)
        assert stored.attempts_used == 0
        assert store.variant_submissions(session, variant) == []
        assert store.progress_for(session, alice_id) == []
        assert store.progress_for(session, bob_id) == []

    # bob's own, identical submission is accepted: alice's were refused for being alice's
    response = bob.post(f"/variants/{variant}/submissions", {"pasted": right})
    assert response.status_code == 302
    with reading(sessions) as session:
        assert store.load_variant(session, variant).attempts_used == 1


def test_huge_or_odd_variant_ids_are_404_not_500(browser_for):
    alice = browser_for("alice")
    for variant in ("0", "99999999999999999999", "9223372036854775808"):
        assert alice.get(f"/variants/{variant}").status_code == 404, variant
        response = alice.post(f"/variants/{variant}/submissions", {"pasted": "1"})
        assert response.status_code == 404, variant
    for path in ("/variants/-1", "/variants/abc", "/variants/1.5"):
        assert alice.get(path).status_code == 404, path


def test_every_integer_route_takes_a_huge_id_as_not_found(app, browser_for):
    """Every `<int:...>` in the app: an id beyond the 32-bit INTEGER id columns is a 404,
    never a 500 (PostgreSQL refuses 2**31 in an INTEGER; SQLite would not, so the routes
    themselves must refuse it: no rule matches, whatever the method)."""
    ines = browser_for("ines")  # an instructor reaches every route
    huge = 2**31
    adapter = app.url_map.bind("localhost")
    rules = [
        rule
        for rule in app.url_map.iter_rules()
        if rule.arguments
        and all(isinstance(c, IntegerConverter) for c in rule._converters.values())
    ]
    assert {r.rule.split("/")[1] for r in rules} >= {"api", "instructor", "variants"}
    for rule in rules:
        path = adapter.build(rule.endpoint, dict.fromkeys(rule.arguments, huge))
        for method in rule.methods:
            with pytest.raises(NotFound):
                adapter.match(path, method=method)
        if "GET" in rule.methods:
            assert ines.get(path).status_code == 404, path
        if "POST" in rule.methods:
            response = ines.client.post(path, headers={"X-CSRFToken": ines.token})
            assert response.status_code == 404, path
        largest = adapter.build(rule.endpoint, dict.fromkeys(rule.arguments, huge - 1))
        method = sorted(rule.methods - {"HEAD", "OPTIONS"})[0]
        assert adapter.match(largest, method=method)[0] == rule.endpoint, largest


# --- nothing learner-supplied runs as markup --------------------------------------------


def test_learner_input_is_escaped_in_every_page(browser_for):
    alice = browser_for("alice")
    attack = '"><script>alert(1)</script><img src=x onerror=alert(2)>'

    response = alice.post(f"{CHAPTER_URL}/questions/qkv-origin", {"choice": attack})
    assert response.status_code == 422
    assert "<script>alert(1)" not in response.text
    assert "<img src=x" not in response.text

    response = alice.post(f"{CHAPTER_URL}/questions/why-multi-head", {"text": attack})
    assert response.status_code == 302
    page = alice.get(CHAPTER_URL)
    assert "<script>alert(1)" not in page.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text

    variant = variant_id_of(alice.post("/drills/drill-score-row/variants"))
    response = alice.post(
        f"/variants/{variant}/submissions", {"cell-0-0": attack, "cell-0-1": "1", "pasted": ""}
    )
    assert response.status_code == 422
    assert "<script>alert(1)" not in response.text
    assert "<img src=x" not in response.text
    response = alice.post(f"/variants/{variant}/submissions", {"pasted": attack})
    assert response.status_code == 422
    assert "<script>alert(1)" not in response.text


def test_a_display_name_and_a_review_comment_are_escaped_wherever_shown(browser_for, sessions):
    """What one person types that others read: a self-chosen display name (the navigation,
    the instructor's roster, student page, report, review queue and flash) and a reviewer's
    comment (the learner's chapter page, the review history, the report)."""
    attack = '"><script>alert(1)</script><img src=x onerror=alert(2)>'
    escaped = "&lt;script&gt;alert(1)&lt;/script&gt;"
    with sessions() as session:
        store.create_user(
            session, name="mallory", role="student", password=PASSWORD, display_name=attack
        )
    mallory_id = user_id(sessions, "mallory")

    def page_of(b, path):
        response = b.get(path, follow_redirects=True)
        assert response.status_code == 200, path
        assert "<script>alert" not in response.text, path
        assert "<img src=x" not in response.text, path
        return response.text

    mallory = browser_for("mallory")
    mallory.post("/lang/en")
    assert escaped in page_of(mallory, CHAPTER_URL)  # the navigation's logout button
    response = mallory.post(f"{CHAPTER_URL}/questions/why-multi-head", {"text": "heads"})
    assert response.status_code == 302
    with reading(sessions) as session:
        [answer] = store.answers_awaiting_review(session, limit=5)

    ines = browser_for("ines")
    for path in (
        "/instructor/students",
        f"/instructor/students/{mallory_id}",
        "/instructor/reviews",
        f"/instructor/reviews/{answer.answer_id}",
    ):
        assert escaped in page_of(ines, path), path
    response = ines.post(
        f"/instructor/reviews/{answer.answer_id}",
        {"score": "50", "comment": attack, "seen_review": "0", "return_to": "answer"},
    )
    assert response.status_code == 302
    review = page_of(ines, response.headers["Location"])  # with the flash naming mallory
    # the flash, the link to the learner, the answer's heading, the comment
    assert review.count(escaped) == 4
    assert escaped in page_of(ines, f"/instructor/students/{mallory_id}/report")
    assert page_of(mallory, CHAPTER_URL).count(escaped) == 2  # name and comment


# --- no answer before the learner has answered ------------------------------------------

TOKENS = re.compile(r'((?:name="csrf_token" value|name="idempotency_key" value|content)=)"[^"]*"')
NUMBER = re.compile(r"[−-]?\d+(?:\.\d+)?")


def numbers_in(text: str) -> set[str]:
    """Every number written in the text, as format_number writes it (− for minus)."""
    return {n.replace("-", "−") for n in NUMBER.findall(text)}


def page_numbers(page_html: str) -> set[str]:
    return numbers_in(html.unescape(TOKENS.sub(r'\1""', page_html)))


def shown(values, decimals=(2, 3, 4)) -> set[str]:
    return {format_number(float(v), d) for v in values for d in decimals}


def secrets_of(variant) -> tuple[set[str], set[str], set[str]]:
    """(the answer's values, the worked solution's and heatmap's values, the public values)
    as a page would write them. The first two leave out integers (attempt counts and ids
    are on every page) and any value the learner is given anyway (the given tensors, their
    labels, the prompt, the tolerance)."""
    public = numbers_in(" ".join(variant.prompt.values()))
    # the page states the tolerance ("within ±0.02") before any answer
    public |= shown([variant.tolerance.atol, variant.tolerance.rtol], decimals=(2, 3, 4, 6))
    for tensor in variant.given:
        public |= shown(tensor.values.ravel(), decimals=(0, 1, 2, 3, 4))
        public |= numbers_in(" ".join((tensor.name, *tensor.row_labels, *tensor.col_labels)))
    answer = variant.answer
    public |= numbers_in(" ".join((answer.name, *answer.row_labels, *answer.col_labels)))

    def secret(values) -> set[str]:
        return {s for s in shown(values) if "." in s} - public

    worked = [t.values.ravel() for step in variant.solution for t in step.tensors]
    if variant.heatmap is not None:
        worked.append(variant.heatmap.values.ravel())
    worked_values = secret([v for values in worked for v in values])
    return secret(answer.values.ravel()), worked_values, public


SOLUTION_MARKERS = (
    "Worked solution",
    "详细解答",
    "Correct answer",
    "正确答案",
    "Attention weights heatmap",
    "注意力权重热力图",
    'class="solution"',
    'class="expected"',
    "class='heatmap'",
    "<svg",
)


def assert_nothing_secret(page_html: str, answer: set[str], worked: set[str], where: str):
    for marker in SOLUTION_MARKERS:
        assert marker not in page_html, (where, marker)
    numbers = page_numbers(page_html)
    assert not numbers & answer, (where, "answer values in the page", numbers & answer)
    assert not numbers & worked, (where, "solution values in the page", numbers & worked)


SEEDS = (1_234_567_891, 987_654_321, 2_024_113_017)


@pytest.mark.slow  # every drill page at three seeds
def test_no_drill_page_shows_the_answer_before_the_variant_is_finished(app, browser_for, sessions):
    alice = browser_for("alice")
    alice_id = user_id(sessions, "alice")
    drills = drill_questions(app)
    assert len(drills) >= 12
    checked = {}
    for question in drills:
        for n, seed in enumerate(SEEDS):
            with sessions() as session:
                issued = practice.start_drill(
                    session, bank_of(app), alice_id, question.id, seed=seed
                )
                variant = practice.drill_state(session, alice_id, issued.id).variant
            answer, worked, public = secrets_of(variant)
            checked[question.id] = checked.get(question.id, 0) + len(answer)
            where = f"{question.id} seed {seed}"
            for lang in ("en", "zh"):
                alice.post(f"/lang/{lang}")
                page = alice.get(f"/variants/{issued.id}")
                assert page.status_code == 200
                assert str(seed) not in page.text, where  # the seed would regenerate it all
                assert_nothing_secret(page.text, answer, worked, f"{where} {lang}")

            if n == 0:
                # a rejected answer re-renders the page: still nothing to see
                response = alice.post(f"/variants/{issued.id}/submissions", {"pasted": "x"})
                assert response.status_code == 422
                assert_nothing_secret(response.text, answer, worked, f"{where} after 422")

            if n == 1 and variant.answer.values.size > 1:
                # a partly right answer while attempts remain: the right cells are marked,
                # the wrong ones say nothing about what they should have been
                values = variant.answer.values.copy()
                values[0, 0] += 10.0
                response = alice.post(
                    f"/variants/{issued.id}/submissions", {"pasted": pasted(values)}
                )
                assert response.status_code == 302
                page = alice.get(f"/variants/{issued.id}")
                wrong = format_number(variant.answer.values[0, 0], 4)
                others = {s for v in variant.answer.values.ravel()[1:] for s in shown([v], (3, 4))}
                assert 'data-correct="false"' in page.text
                if wrong not in others | public and "." in wrong:
                    assert wrong not in page_numbers(page.text), where
                for marker in SOLUTION_MARKERS:
                    assert marker not in page.text, (where, marker)

            if n == 2:
                # once it is solved, the same check finds the answer: it is not blind
                alice.post("/lang/en")
                response = alice.post(
                    f"/variants/{issued.id}/submissions",
                    {"pasted": pasted(variant.answer.values)},
                )
                assert response.status_code == 302
                page = alice.get(f"/variants/{issued.id}")
                assert "Worked solution" in page.text, where
                if answer:
                    assert page_numbers(page.text) & answer, where
                if variant.heatmap is not None:
                    assert "class='heatmap'" in page.text, where

    # every kind had values to check, except the next-token id (an id among the labels)
    unchecked = {q for q, n in checked.items() if n == 0}
    assert unchecked <= {"drill-greedy-next-token"}, unchecked
    assert sum(checked.values()) >= 100


def as_shown(markdown: str) -> str:
    """A Markdown text as a page shows it: rendered, its tags left out (a formula as its
    MathML's text), whitespace normalised."""
    return visible_text(render_markdown(markdown))


def visible_text(page_html: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page_html)).split())


def fragments(text: str) -> list[str]:
    """The sentences of a text, whitespace-normalised, long enough to be telling."""
    parts = re.split(r"(?<=[。！？；：])|(?<=[.!?;:])\s|\n+", text)
    return [" ".join(p.split()) for p in parts if p and len(" ".join(p.split())) >= 8]


# the headings of what a page shows only after an answer
KEY_LABELS = {
    "en": ("Correct answer", "Explanation", "Reference answer", "Key points", "Correct"),
    "zh": ("正确答案", "解析", "参考答案", "要点", "正确"),
}


def interface_texts(lang: str) -> list[str]:
    """Every text of the interface's catalog in `lang` (each plural form)."""
    texts = []
    for message in read_catalog(po_path(lang)):
        if message.id:
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            texts += strings
    return texts


def public_text(app, lang: str) -> str:
    texts = [getattr(bank_of(app).chapter(CHAPTER).title, lang)]
    for question in quiz_questions(app):
        view = public_question(question, lang)
        texts.append(view["prompt"]["markdown"])
        texts += [c["text"]["markdown"] for c in view.get("choices", [])]
    texts += interface_texts(lang)
    texts += [q.id for q in quiz_questions(app)]  # in the page's ids and form actions
    return " ".join(" ".join(texts).split()).casefold()


def chapter_secrets(app, lang: str) -> dict[str, list[str]]:
    """question id -> the strings only the answer key holds (from the loaded bank)."""
    public = public_text(app, lang)
    secrets = {}
    for question in quiz_questions(app):
        found: list[str] = []
        match question:
            case SingleChoiceQuestion():
                explanation = getattr(question.explanation, lang)
                found += [" ".join(explanation.split())[:30], *fragments(explanation)]
                found += fragments(as_shown(explanation))
            case OpenQuestion():
                found += fragments(getattr(question.reference_answer, lang))
                found += fragments(as_shown(getattr(question.reference_answer, lang)))
                for point in question.rubric:
                    found += [getattr(point.description, lang)]
                    found += [*point.phrases.zh, *point.phrases.en]
        secrets[question.id] = [s for s in found if s.casefold() not in public]
    return secrets


def page_text(page_html: str) -> str:
    """The page as searched for a secret: its markup with its elements' names left out (a
    formula's MathML has a <semantics> element, which is no rubric phrase), every attribute
    and text kept."""
    unnamed = re.sub(r"</?[A-Za-z][\w-]*", "<", page_html)
    return " ".join(html.unescape(unnamed).split()).casefold()


def question_sections(page_html: str) -> dict[str, str]:
    parts = re.split(r'(?=<section class="question")', page_html)
    return {
        re.search(r'data-question="([^"]+)"', part).group(1): part
        for part in parts
        if part.startswith('<section class="question"')
    }


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_chapter_page_shows_no_key_before_answering(app, browser_for, lang):
    alice = browser_for("alice")
    alice.post(f"/lang/{lang}")
    page = alice.get(CHAPTER_URL)
    assert page.status_code == 200
    text = page_text(page.text)
    visible = visible_text(page.text).casefold()
    secrets = chapter_secrets(app, lang)
    assert all(secrets.values()), secrets  # every question has something to check
    for question_id, strings in secrets.items():
        for secret in strings:
            assert secret.casefold() not in text, (question_id, secret)
            assert secret.casefold() not in visible, (question_id, secret)
    for marker in ("correct-choice", "data-correct", "checked", "explanation", "reference"):
        assert marker not in page.text, marker
    for label in KEY_LABELS[lang]:
        assert label.casefold() not in text, label

    # no choice is marked: every choice's markup is the same but for its id, letter and text
    sections = question_sections(page.text)
    for question in quiz_questions(app):
        if not isinstance(question, SingleChoiceQuestion):
            continue
        labels = re.findall(r"<label>.*?</label>", sections[question.id], re.DOTALL)
        assert len(labels) == len(question.choices)
        # in the learner's own order: each label matched to its choice by the id it sends
        choices = {choice["id"]: choice for choice in public_question(question, lang)["choices"]}
        shapes = set()
        for label in labels:
            choice = choices.pop(re.search(r'value="([^"]+)"', label).group(1))
            shape = label.replace(choice["text"]["html"], "TEXT")
            shape = shape.replace(f'value="{choice["id"]}"', 'value="ID"')
            # its letter is its place on the page (A, B, C, ...), the same for key or not
            shapes.add(re.sub(r"<b>[A-Z]+\.</b>", "<b>LETTER.</b>", shape, count=1))
        assert len(shapes) == 1, shapes
        assert not choices  # every choice shown once

    # once every question is answered, the same check finds the key: it is not blind
    for question in quiz_questions(app):
        form = {"choice": "A"} if isinstance(question, SingleChoiceQuestion) else {"text": "?"}
        response = alice.post(f"{CHAPTER_URL}/questions/{question.id}", form)
        assert response.status_code == 302
    text = visible_text(alice.get(CHAPTER_URL).text).casefold()
    for question in quiz_questions(app):
        if isinstance(question, SingleChoiceQuestion):
            explanation = fragments(as_shown(getattr(question.explanation, lang)))
        else:
            explanation = fragments(as_shown(getattr(question.reference_answer, lang)))
        assert all(s.casefold() in text for s in explanation), question.id
