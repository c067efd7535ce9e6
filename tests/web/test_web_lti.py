"""The LMS launch (LTI 1.3) driven end to end against a platform simulated on loopback
(`lti_platform`): OIDC login initiation, the launch with the account it creates or finds,
the launches refused (forged signature, wrong audience, replayed nonce, expired token) with
no account created, Deep Linking's signed response, and grade passback through AGS."""

from __future__ import annotations

import html
import re
import time
from urllib.parse import parse_qs, urlsplit

import jwt
import pytest
from click.testing import CliRunner
from lti_platform import (
    ACCESS_TOKEN,
    ADMINISTRATOR,
    CLIENT_ID,
    DEPLOYMENT_ID,
    INSTRUCTOR,
    LINEITEM_SCOPE,
    LTI,
    SCORE_SCOPE,
    Platform,
    new_key,
    new_sub,
    serve,
)
from sqlalchemy import func, select
from web_helpers import reading

from quizsvc import store
from quizsvc.cli import main
from quizsvc.lti import keys
from quizsvc.web import context

CHAPTER = "transformer-by-hand"
QUIZ_URL = f"/chapters/{CHAPTER}"


@pytest.fixture(scope="module")
def platform():
    platform = Platform()
    server, thread = serve(platform)
    yield platform
    server.shutdown()
    thread.join()


@pytest.fixture
def lti_app(app, platform, sessions):
    """The app with the simulated platform registered and a key of the tool's."""
    platform.token_requests.clear()
    platform.scores.clear()
    with sessions() as session:
        store.lti.add_platform(
            session,
            issuer=platform.issuer,
            client_id=CLIENT_ID,
            deployment_ids=[DEPLOYMENT_ID],
            auth_login_url=f"{platform.url}/auth",
            auth_token_url=f"{platform.url}/token",
            key_set_url=f"{platform.url}/jwks",
        )
        keys.generate_key(session)
    return app


def oidc_login(client, platform: Platform) -> dict[str, str]:
    """The platform's login initiation; the tool's answer: a redirect to the platform's
    OIDC endpoint with the parameters of the authentication request."""
    response = client.post(
        "/lti/login",
        data={
            "iss": platform.issuer,
            "login_hint": "hint-1",
            "target_link_uri": "http://localhost/lti/launch",
            "lti_message_hint": "message-hint-1",
            "client_id": CLIENT_ID,
            "lti_deployment_id": DEPLOYMENT_ID,
        },
    )
    assert response.status_code == 302, response.text
    location = urlsplit(response.headers["Location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == f"{platform.url}/auth"
    request = {k: v[0] for k, v in parse_qs(location.query).items()}
    assert request["client_id"] == CLIENT_ID
    assert request["redirect_uri"] == "http://localhost/lti/launch"
    assert request["response_mode"] == "form_post"
    assert request["login_hint"] == "hint-1"
    return request


def launch(client, platform: Platform, **claims_and_options):
    key = claims_and_options.pop("key", None)
    request = oidc_login(client, platform)
    claims = platform.claims(request["nonce"], **claims_and_options)
    token = platform.sign(claims, key)
    response = client.post("/lti/launch", data={"id_token": token, "state": request["state"]})
    return response, token, request["state"]


def accounts(sessions) -> tuple[int, int]:
    """(LMS accounts, users) in the store."""
    with reading(sessions) as session:
        mapped = session.scalar(select(func.count()).select_from(store.LtiAccount))
        users = session.scalar(select(func.count()).select_from(store.User))
    return mapped, users


def account(sessions, sub: str) -> store.User:
    with reading(sessions) as session:
        return session.scalar(
            select(store.User)
            .join(store.LtiAccount, store.LtiAccount.user_id == store.User.id)
            .where(store.LtiAccount.sub == sub)
        )


def page_message(page: str) -> str:
    found = re.search(r'<p class="error-message">(.*?)</p>', page, re.S)
    assert found, page
    return html.unescape(found.group(1))


def test_a_first_launch_creates_the_account_and_lands_on_the_quiz(lti_app, platform, sessions):
    client = lti_app.test_client()
    before = accounts(sessions)
    sub = new_sub()
    response, _, _ = launch(client, platform, sub=sub)
    assert response.status_code == 303
    assert urlsplit(response.headers["Location"]).path == QUIZ_URL
    assert accounts(sessions) == (before[0] + 1, before[1] + 1)
    user = account(sessions, sub)
    assert (user.role, user.display_name, user.language) == ("student", "Li Lei", "en")
    page = client.get(QUIZ_URL)
    assert page.status_code == 200
    assert "Li Lei" in page.text  # logged in: the log-out button names the user


def test_a_second_launch_reuses_the_account(lti_app, platform, sessions):
    sub = new_sub()
    launch(lti_app.test_client(), platform, sub=sub)
    first = account(sessions, sub).id
    before = accounts(sessions)
    response, _, _ = launch(lti_app.test_client(), platform, sub=sub)
    assert response.status_code == 303
    assert accounts(sessions) == before
    assert account(sessions, sub).id == first


@pytest.mark.parametrize(
    ("roles", "role"),
    [((INSTRUCTOR,), "instructor"), ((ADMINISTRATOR,), "instructor"), ((), "student")],
)
def test_the_account_s_role_comes_from_the_roles_claim(lti_app, platform, sessions, roles, role):
    sub = new_sub()
    response, _, _ = launch(lti_app.test_client(), platform, sub=sub, roles=roles)
    assert response.status_code == 303
    assert account(sessions, sub).role == role


def test_a_forged_signature_is_refused(lti_app, platform, sessions):
    before = accounts(sessions)
    response, _, _ = launch(lti_app.test_client(), platform, key=new_key())
    assert response.status_code == 403
    assert page_message(response.text) == "The launch's signature could not be verified."
    assert accounts(sessions) == before


def test_a_wrong_audience_is_refused(lti_app, platform, sessions):
    before = accounts(sessions)
    response, _, _ = launch(lti_app.test_client(), platform, aud="another-tool")
    assert response.status_code == 403
    assert page_message(response.text) == (
        "The launch was not meant for this tool, or its LMS is not registered here."
    )
    assert accounts(sessions) == before


def test_a_replayed_launch_is_refused(lti_app, platform, sessions):
    client = lti_app.test_client()
    response, token, state = launch(client, platform)
    assert response.status_code == 303
    before = accounts(sessions)
    again = client.post("/lti/launch", data={"id_token": token, "state": state})
    assert again.status_code == 403
    assert page_message(again.text) == (
        "This launch was already used: start the activity again from your course."
    )
    assert accounts(sessions) == before


def test_an_expired_token_is_refused_in_the_launch_s_language(lti_app, platform, sessions):
    before = accounts(sessions)
    past = int(time.time()) - 600
    response, _, _ = launch(
        lti_app.test_client(),
        platform,
        iat=past - 300,
        exp=past,
        **{LTI + "launch_presentation": {"locale": "zh-CN"}},
    )
    assert response.status_code == 403
    assert '<html lang="zh-CN">' in response.text
    assert page_message(response.text) == "启动已过期：请从课程中重新打开这项活动。"
    assert accounts(sessions) == before


def test_a_login_from_an_unknown_platform_is_refused(lti_app):
    response = lti_app.test_client().post(
        "/lti/login", data={"iss": "https://unknown.example", "login_hint": "x"}
    )
    assert response.status_code == 400
    assert page_message(response.text) == (
        "This LMS is not registered with quizsvc: ask its administrator."
    )


def test_deep_linking_returns_a_signed_response_with_the_chosen_quiz(lti_app, platform):
    client = lti_app.test_client()
    return_url = f"{platform.url}/deep-link-return"
    settings = {
        "deep_link_return_url": return_url,
        "accept_types": ["ltiResourceLink"],
        "accept_presentation_document_targets": ["iframe", "window"],
        "data": "platform-opaque-data",
    }
    response, _, _ = launch(
        client,
        platform,
        roles=(INSTRUCTOR,),
        **{
            LTI + "message_type": "LtiDeepLinkingRequest",
            "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings": settings,
        },
    )
    assert response.status_code == 200
    assert 'value="quiz:transformer-by-hand"' in response.text
    token = re.search(r'name="csrf_token" value="([^"]+)"', response.text).group(1)
    chosen = client.post(
        "/lti/deep-link", data={"csrf_token": token, "target": "quiz:transformer-by-hand"}
    )
    assert chosen.status_code == 200
    assert f'action="{return_url}"' in chosen.text
    assert f"form-action 'self' {platform.url}" in chosen.headers["Content-Security-Policy"]
    response_jwt = re.search(r'name="JWT" value="([^"]+)"', chosen.text).group(1)
    key_set = client.get("/lti/jwks").get_json()
    kid = jwt.get_unverified_header(response_jwt)["kid"]
    (jwk,) = [k for k in key_set["keys"] if k["kid"] == kid]
    public = jwt.PyJWK(jwk).key
    message = jwt.decode(response_jwt, public, algorithms=["RS256"], audience=platform.issuer)
    assert message["iss"] == CLIENT_ID
    assert message[LTI + "message_type"] == "LtiDeepLinkingResponse"
    assert message[LTI + "version"] == "1.3.0"
    assert message[LTI + "deployment_id"] == DEPLOYMENT_ID
    assert message["https://purl.imsglobal.org/spec/lti-dl/claim/data"] == "platform-opaque-data"
    (item,) = message["https://purl.imsglobal.org/spec/lti-dl/claim/content_items"]
    assert item["type"] == "ltiResourceLink"
    assert item["url"] == "http://localhost/lti/launch"
    assert item["custom"] == {"quiz": "transformer-by-hand"}


def test_a_student_cannot_pick_a_deep_link(lti_app, platform):
    settings = {"deep_link_return_url": f"{platform.url}/r", "accept_types": ["ltiResourceLink"]}
    response, _, _ = launch(
        lti_app.test_client(),
        platform,
        **{
            LTI + "message_type": "LtiDeepLinkingRequest",
            "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings": settings,
        },
    )
    assert response.status_code == 403


def test_a_changed_score_is_posted_to_the_platform_s_line_item(lti_app, platform, sessions):
    client = lti_app.test_client()
    sub = new_sub()
    ags = {"scope": [SCORE_SCOPE, LINEITEM_SCOPE], "lineitem": platform.lineitem}
    response, _, _ = launch(
        client, platform, sub=sub, **{"https://purl.imsglobal.org/spec/lti-ags/claim/endpoint": ags}
    )
    assert response.status_code == 303
    page = client.get(QUIZ_URL)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)
    answered = client.post(
        f"{QUIZ_URL}/questions/qkv-origin",
        data={"csrf_token": token, "idempotency_key": "k1", "choice": "B"},
    )
    assert answered.status_code == 302
    answered.close()  # the server's end of the response: the passback runs then
    # the tool asked the token endpoint for an access token with a client assertion signed by
    # its own key (RFC 7523), for the AGS scopes of the launch
    (asked,) = platform.token_requests
    assert asked["grant_type"] == "client_credentials"
    assert asked["client_assertion_type"] == (
        "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    )
    assert set(asked["scope"].split()) == {SCORE_SCOPE, LINEITEM_SCOPE}
    key_set = client.get("/lti/jwks").get_json()
    (jwk,) = key_set["keys"]
    assertion = jwt.decode(
        asked["client_assertion"],
        jwt.PyJWK(jwk).key,
        algorithms=["RS256"],
        audience=f"{platform.url}/token",
    )
    assert assertion["iss"] == assertion["sub"] == CLIENT_ID
    # one score: 1 point (qkv-origin right at the first try) of the chapter's 8 (four choice
    # questions of 1 point, two open ones of 2)
    (score,) = platform.scores
    assert score["authorization"] == f"Bearer {ACCESS_TOKEN}"
    assert score["content_type"] == "application/vnd.ims.lis.v1.score+json"
    body = score["body"]
    assert (body["scoreGiven"], body["scoreMaximum"]) == (1.0, 8.0)
    assert body["userId"] == sub
    assert (body["activityProgress"], body["gradingProgress"]) == ("InProgress", "Pending")
    with reading(sessions) as session:
        assert not store.lti.has_pending_grades(session)
        (link,) = session.scalars(select(store.LtiGradeLink)).all()
        assert link.posted_score == 1.0


def test_the_jwks_serves_the_tool_s_public_key(lti_app, sessions):
    key_set = lti_app.test_client().get("/lti/jwks").get_json()
    with reading(sessions) as session:
        (stored,) = store.lti.tool_keys(session)
    (jwk,) = key_set["keys"]
    assert (jwk["kty"], jwk["alg"], jwk["use"], jwk["kid"]) == ("RSA", "RS256", "sig", stored.kid)
    assert "d" not in jwk  # no private part
    with lti_app.app_context():
        context.close_db()


def test_a_review_of_an_open_answer_posts_the_new_total(lti_app, platform, sessions, browser_for):
    client = lti_app.test_client()
    sub = new_sub()
    ags = {"scope": [SCORE_SCOPE], "lineitem": platform.lineitem}
    launch(
        client, platform, sub=sub, **{"https://purl.imsglobal.org/spec/lti-ags/claim/endpoint": ags}
    )
    page = client.get(QUIZ_URL)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)
    question = "teacher-forcing-vs-autoregressive"  # open, 2 points
    sent = client.post(
        f"{QUIZ_URL}/questions/{question}",
        data={"csrf_token": token, "idempotency_key": "k1", "text": "the whole target sentence"},
    )
    sent.close()
    assert platform.scores == []  # awaiting review: no score changed
    with reading(sessions) as session:
        (waiting,) = session.scalars(
            select(store.QuizAnswer.id).where(store.QuizAnswer.question_id == question)
        ).all()
    ines = browser_for("ines")
    ines.get(f"/instructor/reviews/{waiting}")
    reviewed = ines.post(f"/instructor/reviews/{waiting}", {"score": "50", "seen_review": "0"})
    assert reviewed.status_code in (302, 303), reviewed.text
    reviewed.close()
    # half of the question's 2 points, of the chapter's 8
    (score,) = platform.scores
    assert (score["body"]["scoreGiven"], score["body"]["scoreMaximum"]) == (1.0, 8.0)
    assert score["body"]["userId"] == sub


def test_a_post_the_lms_refuses_stays_in_the_outbox_for_the_cli(
    lti_app, platform, sessions, database_url
):
    client = lti_app.test_client()
    ags = {"scope": [SCORE_SCOPE], "lineitem": f"{platform.url}/courses/7/lineitems/404/lineitem"}
    launch(client, platform, **{"https://purl.imsglobal.org/spec/lti-ags/claim/endpoint": ags})
    token = re.search(r'name="csrf_token" value="([^"]+)"', client.get(QUIZ_URL).text).group(1)
    answered = client.post(
        f"{QUIZ_URL}/questions/qkv-origin",
        data={"csrf_token": token, "idempotency_key": "k1", "choice": "A"},
    )
    answered.close()
    with reading(sessions) as session:
        (row,) = session.scalars(select(store.LtiGradeOutbox)).all()
        assert row.tries == 1 and "404" in row.last_error
    result = CliRunner().invoke(main, ["lti", "flush-grades"], env={"DATABASE_URL": database_url})
    assert result.exit_code == 1
    assert result.output == "posted 0 total(s); 1 learner(s) left to retry\n"
    with reading(sessions) as session:
        (row,) = session.scalars(select(store.LtiGradeOutbox)).all()
        assert row.tries == 2
