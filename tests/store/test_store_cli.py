"""`quizsvc db upgrade`, `quizsvc user create`, `user password` and `user list`."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from quizsvc.cli import main
from quizsvc.store import list_users, make_engine, make_session_factory, migrate, verify_password


@pytest.fixture
def url(empty_db_url: str) -> str:
    return empty_db_url


def invoke(url: str, *args: str, password: str | None = None, input: str | None = None):
    env = {"DATABASE_URL": url, "QUIZSVC_PASSWORD": password}
    return CliRunner().invoke(main, list(args), env=env, input=input)


def users(url: str):
    engine = make_engine(url)
    try:
        with make_session_factory(engine)() as session:
            return list_users(session)
    finally:
        engine.dispose()


@pytest.fixture
def upgraded(url: str) -> str:
    result = invoke(url, "db", "upgrade")
    assert result.exit_code == 0, result.output
    return url


def test_db_upgrade_migrates_an_empty_database_from_any_directory(url, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = invoke(url, "db", "upgrade")
    assert result.exit_code == 0, result.output
    head = migrate.head_revisions()[0]
    assert f"is at revision {head}" in result.output
    engine = make_engine(url)
    try:
        assert migrate.is_up_to_date(engine)
    finally:
        engine.dispose()
    again = invoke(url, "db", "upgrade")
    assert again.exit_code == 0 and f"is at revision {head}" in again.output


def test_an_unreachable_database_is_a_one_line_error():
    result = invoke("postgresql+psycopg://me:s3cret@127.0.0.1:1/nothing", "db", "upgrade")
    assert result.exit_code == 1
    assert result.output.startswith("error: ") and "Traceback" not in result.output
    assert "s3cret" not in result.output


def test_user_create_with_the_password_from_the_environment(upgraded):
    result = invoke(
        upgraded,
        "user",
        "create",
        "grace",
        "--role",
        "instructor",
        "--display-name",
        "Grace H.",
        password="cobol rules",
    )
    assert result.exit_code == 0, result.output
    assert "created instructor 'grace'" in result.output
    (grace,) = users(upgraded)
    assert (grace.name, grace.role, grace.display_name) == ("grace", "instructor", "Grace H.")
    assert verify_password(grace.password_hash, "cobol rules")

    listed = invoke(upgraded, "user", "list")
    assert listed.exit_code == 0
    assert listed.output.split()[:3] == [
        "grace",
        "instructor",
        grace.created_at.strftime("%Y-%m-%d"),
    ]
    assert "Grace H." in listed.output


def test_user_create_asks_twice_for_a_hidden_password(upgraded):
    result = invoke(
        upgraded,
        "user",
        "create",
        "ada",
        "--role",
        "student",
        input="first try 1\nmismatch 22\nengine 1843\nengine 1843\n",
    )
    assert result.exit_code == 0, result.output
    assert "do not match" in result.output
    assert "engine 1843" not in result.output  # hidden
    (ada,) = users(upgraded)
    assert ada.role == "student" and ada.display_name == "ada"
    assert verify_password(ada.password_hash, "engine 1843")


@pytest.mark.parametrize(
    ("password", "input", "message"),
    [
        ("", None, "the password is empty"),
        ("short", None, "too short"),
        (None, "\n\n", "the password is empty"),
        (None, "abc\nabc\n", "too short"),
    ],
)
def test_empty_and_short_passwords_are_refused(upgraded, password, input, message):
    result = invoke(
        upgraded, "user", "create", "ada", "--role", "student", password=password, input=input
    )
    assert result.exit_code == 1
    assert message in result.output
    assert users(upgraded) == []


def test_duplicate_names_are_refused_before_asking_for_a_password(upgraded):
    first = invoke(upgraded, "user", "create", "ada", "--role", "student", password="12345678")
    assert first.exit_code == 0, first.output
    result = invoke(upgraded, "user", "create", "ada", "--role", "instructor", input="")
    assert result.exit_code == 1
    assert "a user named 'ada' already exists" in result.output
    assert "Password" not in result.output
    assert [u.role for u in users(upgraded)] == ["student"]


def test_the_password_is_never_an_argument(upgraded):
    result = invoke(upgraded, "user", "create", "ada", "--role", "student", "--password", "x")
    assert result.exit_code == 2
    assert "No such option" in result.output


def test_bad_names_and_roles_are_refused(upgraded):
    result = invoke(upgraded, "user", "create", "Ada", "--role", "student", password="12345678")
    assert result.exit_code == 1 and "invalid user name" in result.output
    result = invoke(upgraded, "user", "create", "ada", "--role", "admin", password="12345678")
    assert result.exit_code == 2 and "admin" in result.output
    assert users(upgraded) == []


def test_user_commands_need_an_upgraded_database(url):
    for args in (("user", "list"), ("user", "create", "ada", "--role", "student")):
        result = invoke(url, *args, password="12345678")
        assert result.exit_code == 1
        assert "run `quizsvc db upgrade`" in result.output


def test_user_list_on_an_empty_database(upgraded):
    result = invoke(upgraded, "user", "list")
    assert result.exit_code == 0 and result.output == "no users\n"


def test_user_password_sets_a_new_password_for_an_existing_user(upgraded):
    assert (
        invoke(
            upgraded, "user", "create", "ada", "--role", "student", password="first one"
        ).exit_code
        == 0
    )
    result = invoke(upgraded, "user", "password", "ada", input="second one\nsecond one\n")
    assert result.exit_code == 0, result.output
    assert "'ada' has a new password" in result.output and "second one" not in result.output
    (ada,) = users(upgraded)
    assert verify_password(ada.password_hash, "second one")
    assert not verify_password(ada.password_hash, "first one")


@pytest.mark.parametrize(
    ("name", "password", "message"),
    [("nobody", "long enough", "no user named 'nobody'"), ("ada", "short", "too short")],
)
def test_user_password_refusals_name_the_problem_and_change_nothing(
    upgraded, name, password, message
):
    assert (
        invoke(
            upgraded, "user", "create", "ada", "--role", "student", password="first one"
        ).exit_code
        == 0
    )
    result = invoke(upgraded, "user", "password", name, password=password)
    assert result.exit_code == 1
    assert message in result.output and "Traceback" not in result.output
    (ada,) = users(upgraded)
    assert verify_password(ada.password_hash, "first one")
