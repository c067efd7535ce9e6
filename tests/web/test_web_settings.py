"""The app and the `quizsvc` command read their settings from the environment the same way:
one database under either of its two names, and a value that cannot be used stops both at
start with a message naming the variable and what it accepts."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from werkzeug.middleware.proxy_fix import ProxyFix

from quizsvc.cli import main
from quizsvc.settings import SettingsError
from quizsvc.web import create_app

BOOLEAN = "true or false (also yes/no, on/off, 1/0; any case)"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    """Only what a test sets: the runner's own environment may hold either database name."""
    for name in ("DATABASE_URL", "QUIZSVC_DATABASE_URL", "QUIZSVC_SECRET_KEY"):
        monkeypatch.delenv(name, raising=False)


def quizsvc(*args: str):
    return CliRunner().invoke(main, list(args))


def test_quizsvc_database_url_is_the_database_of_the_command_and_of_the_app(tmp_path, monkeypatch):
    path = tmp_path / "named-by-quizsvc-database-url.sqlite3"
    monkeypatch.setenv("QUIZSVC_DATABASE_URL", f"sqlite:///{path}")
    monkeypatch.setenv("QUIZSVC_SECRET_KEY", "from the environment")

    upgraded = quizsvc("db", "upgrade")
    assert upgraded.exit_code == 0, upgraded.output
    assert upgraded.output.startswith(f"database sqlite:///{path} is at revision ")
    created = quizsvc("user", "demo")
    assert created.exit_code == 0, created.output
    student_password = created.output.splitlines()[0].rsplit(" ", 1)[-1]

    # the app, given nothing but the environment, serves that database: the demo student
    # the command just made can log in
    client = create_app().test_client()
    page = client.get("/login")
    token = page.text.split('name="csrf_token" value="')[1].split('"')[0]
    response = client.post(
        "/login",
        data={"csrf_token": token, "name": "demo-student", "password": student_password},
    )
    assert response.status_code == 302


def test_the_same_url_under_both_names_is_one_setting(database_url, monkeypatch):
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("QUIZSVC_DATABASE_URL", database_url)
    assert create_app({"SECRET_KEY": "s"}).config["DATABASE_URL"] == database_url
    listed = quizsvc("user", "list")
    assert listed.exit_code == 0, listed.output
    assert "alice" in listed.output


def test_two_different_database_urls_stop_the_app_and_the_command(tmp_path, monkeypatch):
    first, second = tmp_path / "first.sqlite3", tmp_path / "second.sqlite3"
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{first}")
    monkeypatch.setenv("QUIZSVC_DATABASE_URL", f"sqlite:///{second}")
    message = (
        "DATABASE_URL and QUIZSVC_DATABASE_URL are both set, to different URLs: they are one"
        " setting, so set only one of them (or both to the same URL)"
    )
    with pytest.raises(SettingsError) as caught:
        create_app({"SECRET_KEY": "s"})
    assert str(caught.value) == message
    result = quizsvc("db", "upgrade")
    assert result.exit_code == 1
    assert result.output == f"error: {message}\n"
    assert list(tmp_path.iterdir()) == []  # neither database was made


BAD_VALUES = [
    ("QUIZSVC_REGISTRATION_OPEN", "yes-please", BOOLEAN),
    ("QUIZSVC_SESSION_COOKIE_SECURE", "sometimes", BOOLEAN),
    ("QUIZSVC_DEVELOPMENT", "2", BOOLEAN),
    ("QUIZSVC_HSTS", "always", BOOLEAN),
    ("QUIZSVC_PERMANENT_SESSION_LIFETIME", "-60", "a whole number of seconds, 1 or more"),
    ("QUIZSVC_PERMANENT_SESSION_LIFETIME", "0", "a whole number of seconds, 1 or more"),
    ("QUIZSVC_PERMANENT_SESSION_LIFETIME", "31 days", "a whole number of seconds, 1 or more"),
    (
        "QUIZSVC_LOGIN_ATTEMPT_LIMITS",
        "10 per fortnight",
        "a rate limit such as '10 per 10 minutes', or several separated by ';'",
    ),
    (
        "QUIZSVC_LOGIN_ADDRESS_ATTEMPT_LIMITS",
        "lots",
        "a rate limit such as '10 per 10 minutes', or several separated by ';'",
    ),
    ("QUIZSVC_TRUSTED_PROXIES", "-1", "a whole number of proxies, 0 (none, the default) or more"),
    ("QUIZSVC_TRUSTED_PROXIES", "one", "a whole number of proxies, 0 (none, the default) or more"),
    ("QUIZSVC_CONTENT_DIR", "/no/such/directory", "the path of an existing directory"),
]


@pytest.mark.parametrize(("variable", "value", "accepted"), BAD_VALUES)
def test_a_value_that_is_no_such_setting_stops_the_app_and_the_command(
    database_url, monkeypatch, variable, value, accepted
):
    monkeypatch.setenv(variable, value)
    message = f"{variable}={value!r} is not accepted: use {accepted}"
    with pytest.raises(SettingsError) as caught:
        create_app({"SECRET_KEY": "s", "DATABASE_URL": database_url})
    assert str(caught.value).startswith(message)
    monkeypatch.setenv("DATABASE_URL", database_url)
    result = quizsvc("user", "list")
    assert result.exit_code == 1
    assert result.output.startswith(f"error: {message}")
    assert "alice" not in result.output


def test_every_bad_setting_is_named_at_once(database_url, monkeypatch):
    monkeypatch.setenv("QUIZSVC_REGISTRATION_OPEN", "yes-please")
    monkeypatch.setenv("QUIZSVC_PERMANENT_SESSION_LIFETIME", "-1")
    with pytest.raises(SettingsError) as caught:
        create_app({"SECRET_KEY": "s", "DATABASE_URL": database_url})
    assert [line.split("=")[0] for line in str(caught.value).splitlines()] == [
        "QUIZSVC_REGISTRATION_OPEN",
        "QUIZSVC_PERMANENT_SESSION_LIFETIME",
    ]


def test_a_misspelt_setting_stops_the_app_instead_of_being_ignored(database_url, monkeypatch):
    monkeypatch.setenv("QUIZSVC_REGISTRATON_OPEN", "true")
    with pytest.raises(SettingsError, match=r"^QUIZSVC_REGISTRATON_OPEN is not a setting of") as c:
        create_app({"SECRET_KEY": "s", "DATABASE_URL": database_url})
    assert "QUIZSVC_REGISTRATION_OPEN" in str(c.value)  # the one meant is among those listed


@pytest.mark.parametrize(
    ("value", "registration_open"),
    [("true", True), ("TRUE", True), ("1", True), ("false", False), ("False", False), ("", False)],
)
def test_registration_opens_only_when_the_setting_says_so(
    database_url, monkeypatch, value, registration_open
):
    monkeypatch.setenv("QUIZSVC_REGISTRATION_OPEN", value)
    app = create_app({"SECRET_KEY": "s", "DATABASE_URL": database_url})
    status = app.test_client().get("/register").status_code
    assert status == (200 if registration_open else 404)


def test_the_session_lifetime_is_read_in_seconds(database_url, monkeypatch):
    monkeypatch.setenv("QUIZSVC_PERMANENT_SESSION_LIFETIME", "3600")
    app = create_app({"SECRET_KEY": "s", "DATABASE_URL": database_url})
    assert app.permanent_session_lifetime.total_seconds() == 3600


def test_a_value_given_to_create_app_wins_over_the_environment(database_url, monkeypatch):
    monkeypatch.setenv("QUIZSVC_REGISTRATION_OPEN", "true")
    app = create_app({"SECRET_KEY": "s", "DATABASE_URL": database_url, "REGISTRATION_OPEN": False})
    assert app.test_client().get("/register").status_code == 404


def test_trusted_proxies_from_the_environment_put_proxyfix_in_front(database_url, monkeypatch):
    assert not isinstance(
        create_app({"SECRET_KEY": "s", "DATABASE_URL": database_url}).wsgi_app, ProxyFix
    )
    monkeypatch.setenv("QUIZSVC_TRUSTED_PROXIES", "2")
    app = create_app({"SECRET_KEY": "s", "DATABASE_URL": database_url})
    assert isinstance(app.wsgi_app, ProxyFix)
    # the address, the scheme and the host, each from as many proxies; no port or prefix
    fix = app.wsgi_app
    assert (fix.x_for, fix.x_proto, fix.x_host, fix.x_port, fix.x_prefix) == (2, 2, 2, 0, 0)
