"""The LMS launch in Chromium, the LMS simulated on loopback (tests/lti_platform.py): the
LMS's page starts the login, the tool sends the browser to the LMS's OIDC endpoint, whose page
posts the signed id_token back. A student lands on the quiz, logged in; an instructor's Deep
Linking page (axe-clean at both widths, zh and en) sends the chosen quiz back to the LMS."""

from __future__ import annotations

import re

import jwt
import pytest
from lti_platform import CLIENT_ID, DEPLOYMENT_ID, INSTRUCTOR, LTI, Platform, new_sub, serve
from playwright.sync_api import expect
from test_browser_accessibility import Audit

from quizsvc import store
from quizsvc.lti import keys

DEEP_LINKING = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"


@pytest.fixture(scope="module")
def platform(live_server):
    platform = Platform()
    server, thread = serve(platform)
    platform.tool_url = live_server.url
    with live_server.sessions() as session:
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
    yield platform
    server.shutdown()
    thread.join()


def test_a_student_s_launch_lands_on_the_quiz_logged_in(page, platform, live_server):
    platform.next_claims = {"sub": new_sub(), "name": "Han Meimei"}
    page.goto(f"{platform.url}/start")
    page.wait_for_url(f"{live_server.url}/chapters/transformer-by-hand")
    expect(page.locator("button.logout")).to_contain_text("Han Meimei")


@pytest.mark.parametrize("language", ["en", "zh"])
def test_deep_linking_sends_the_chosen_quiz_to_the_lms(page, platform, live_server, axe, language):
    platform.next_claims = {
        "sub": new_sub(),
        "roles": [INSTRUCTOR],
        LTI + "message_type": "LtiDeepLinkingRequest",
        LTI + "launch_presentation": {"locale": "zh-CN" if language == "zh" else "en-US"},
        DEEP_LINKING: {
            "deep_link_return_url": f"{platform.url}/deep-link-return",
            "accept_types": ["ltiResourceLink"],
            "accept_presentation_document_targets": ["iframe", "window"],
        },
    }
    platform.deep_links.clear()
    page.goto(f"{platform.url}/start")
    page.wait_for_url(f"{live_server.url}/lti/launch")
    title = {"en": "Choose a quiz for the link", "zh": "为链接选择测验"}[language]
    expect(page.locator("h1")).to_have_text(title)
    audit = Audit(axe, page, language)
    audit.check("Deep Linking")
    audit.assert_clean()
    page.check("input[value='drills:transformer-by-hand']")
    page.click("main button[type=submit]")
    page.wait_for_url(f"{platform.url}/deep-link-return")  # sent by the page's script
    (response_jwt,) = platform.deep_links
    public = jwt.PyJWK(keys.public_jwk(_tool_public_pem(live_server))).key
    message = jwt.decode(response_jwt, public, algorithms=["RS256"], audience=platform.issuer)
    (item,) = message["https://purl.imsglobal.org/spec/lti-dl/claim/content_items"]
    assert item["custom"] == {"drills": "transformer-by-hand"}
    assert re.fullmatch(r"(Drills|练习)[:：] ?.+", item["title"])


def _tool_public_pem(live_server) -> str:
    with live_server.sessions() as session:
        return store.lti.tool_keys(session)[0].public_pem
