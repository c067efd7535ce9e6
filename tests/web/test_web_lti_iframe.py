"""An LTI launch inside an LMS's iframe: with QUIZSVC_LTI_FRAME_ANCESTORS the pages may be framed
by those LMSs (and no other site), the cookies are SameSite=None and Secure, and the forms keep
their CSRF check; without HTTPS-only cookies the app refuses to start."""

from __future__ import annotations

import pytest

from quizsvc.settings import SettingsError, from_environment
from quizsvc.web import create_app

MOODLE = "https://moodle.example.edu"


@pytest.fixture
def framed_app(app_with):
    return app_with(
        {
            "SECRET_KEY": "test secret",
            "LTI_FRAME_ANCESTORS": (MOODLE,),
            "SESSION_COOKIE_SECURE": True,
        }
    )


def test_the_lms_may_frame_the_pages_and_no_other_site(framed_app):
    framed = framed_app.test_client().get("/login", base_url="https://localhost")
    policy = framed.headers["Content-Security-Policy"]
    assert f"frame-ancestors 'self' {MOODLE};" in policy
    assert "X-Frame-Options" not in framed.headers


def test_the_cookies_are_samesite_none_and_secure(framed_app):
    client = framed_app.test_client()
    page = client.get("/login", base_url="https://localhost")
    cookie = page.headers["Set-Cookie"]
    assert "SameSite=None" in cookie
    assert "Secure" in cookie
    # the forms keep their CSRF check: a post without the token is refused
    refused = client.post(
        "/login", data={"name": "alice", "password": "x"}, base_url="https://localhost"
    )
    assert refused.status_code == 400


def test_without_framing_the_pages_are_framed_by_nobody(app):
    page = app.test_client().get("/login")
    assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
    assert page.headers["X-Frame-Options"] == "DENY"
    assert "SameSite=Lax" in page.headers["Set-Cookie"]


def test_framing_without_https_only_cookies_stops_the_app(database_url, content_dir):
    with pytest.raises(RuntimeError, match="QUIZSVC_SESSION_COOKIE_SECURE=true"):
        create_app(
            {
                "SECRET_KEY": "x",
                "DATABASE_URL": database_url,
                "CONTENT_DIR": str(content_dir),
                "LTI_FRAME_ANCESTORS": (MOODLE,),
            }
        )


def test_the_setting_takes_origins_only():
    settings = from_environment({"QUIZSVC_LTI_FRAME_ANCESTORS": f"{MOODLE} https://c.edu:8443"})
    assert settings.flask_config()["LTI_FRAME_ANCESTORS"] == (MOODLE, "https://c.edu:8443")
    with pytest.raises(SettingsError, match="QUIZSVC_LTI_FRAME_ANCESTORS"):
        from_environment({"QUIZSVC_LTI_FRAME_ANCESTORS": "moodle.example.edu; script-src *"})
