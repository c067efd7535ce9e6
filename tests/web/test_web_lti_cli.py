"""`quizsvc lti`: a platform registered (with the tool's key made at the first one), listed,
updated; a URL that is not http(s) refused with nothing stored; the URLs an LMS administrator
enters."""

from __future__ import annotations

from click.testing import CliRunner

from quizsvc import store
from quizsvc.cli import main

PLATFORM = [
    "--issuer",
    "https://moodle.example.edu",
    "--client-id",
    "client-9",
    "--deployment-id",
    "1",
    "--auth-login-url",
    "https://moodle.example.edu/mod/lti/auth.php",
    "--auth-token-url",
    "https://moodle.example.edu/mod/lti/token.php",
    "--key-set-url",
    "https://moodle.example.edu/mod/lti/certs.php",
]


def run(database_url: str, *args: str):
    return CliRunner().invoke(main, ["lti", *args], env={"DATABASE_URL": database_url})


def test_add_platform_registers_it_and_makes_the_tool_s_key_once(database_url, sessions):
    first = run(database_url, "add-platform", *PLATFORM)
    assert first.exit_code == 0, first.output
    assert "registered platform 1: https://moodle.example.edu (client id client-9)" in first.output
    assert "made the tool's key pair" in first.output
    again = run(database_url, "add-platform", *PLATFORM, "--deployment-id", "2")
    assert again.exit_code == 0, again.output
    assert "updated platform 1" in again.output
    assert "key pair" not in again.output
    with sessions() as session:
        (platform,) = store.lti.list_platforms(session)
        assert platform.deployment_ids == ["1", "2"]
        assert len(store.lti.tool_keys(session)) == 1
    listed = run(database_url, "platforms")
    assert "1  https://moodle.example.edu  client id client-9" in listed.output
    assert "deployments: 1, 2" in listed.output


def test_add_platform_refuses_a_url_that_is_not_http(database_url, sessions):
    arguments = [
        a if a != "https://moodle.example.edu/mod/lti/certs.php" else "ftp://x" for a in PLATFORM
    ]
    refused = run(database_url, "add-platform", *arguments)
    assert refused.exit_code == 1
    assert "error: the key set URL 'ftp://x' is not an http(s) URL" in refused.output
    with sessions() as session:
        assert store.lti.list_platforms(session) == []


def test_urls_names_what_the_lms_administrator_enters(database_url):
    result = run(database_url, "urls", "https://quiz.example.edu/")
    assert result.output.splitlines() == [
        "OIDC login initiation URL: https://quiz.example.edu/lti/login",
        "Launch / redirect URL:     https://quiz.example.edu/lti/launch",
        "Deep linking URL:          https://quiz.example.edu/lti/launch",
        "Public keyset (JWKS) URL:  https://quiz.example.edu/lti/jwks",
    ]


def test_generate_key_adds_a_key_that_signs_from_now_on(database_url, sessions):
    made = run(database_url, "generate-key")
    assert made.exit_code == 0, made.output
    kid = made.output.split()[-1]
    with sessions() as session:
        assert [k.kid for k in store.lti.tool_keys(session)] == [kid]
