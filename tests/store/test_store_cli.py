"""`quizsvc db upgrade`, `quizsvc user create`, `user password` and `user list`."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

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
def upgraded(migrated_db_url: str) -> str:
    """A database `db upgrade` would leave (test_db_upgrade_* run the command itself)."""
    return migrated_db_url


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
    first = invoke(
        upgraded, "user", "create", "ada", "--role", "student", password="analytical engine"
    )
    assert first.exit_code == 0, first.output
    result = invoke(upgraded, "user", "create", "ada", "--role", "instructor", input="")
    assert result.exit_code == 1
    assert "a user named 'ada' already exists" in result.output
    assert "Password" not in result.output
    assert [u.role for u in users(upgraded)] == ["student"]


def test_bad_names_and_unknown_users_are_refused_before_asking_for_a_password(upgraded):
    for args, message in [
        (("user", "create", "Ada!", "--role", "student"), "invalid user name 'Ada!'"),
        (("user", "password", "nobody"), "no user named 'nobody'"),
    ]:
        result = invoke(upgraded, *args, input="")
        assert result.exit_code == 1, args
        assert message in result.output and "Password" not in result.output, result.output
    assert users(upgraded) == []


def test_a_user_needs_a_role(upgraded):
    result = invoke(upgraded, "user", "create", "ada", password="12345678")
    assert result.exit_code == 2 and "Missing option '--role'" in result.output
    assert users(upgraded) == []


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


# --- what the commands say about a database they cannot use -------------------------------

# Every command that opens the database, with the arguments it needs.
DATABASE_COMMANDS = [
    ("db", "upgrade"),
    ("user", "list"),
    ("user", "token", "ada"),
    ("user", "demo"),
    ("user", "create", "ada", "--role", "student"),
    ("user", "password", "ada"),
]
URL_FORM = (
    "dialect+driver://user:password@host:port/database"
    " (e.g. sqlite:///path/to/quizsvc.sqlite3 or postgresql://user@host/quizsvc)"
)


@pytest.mark.parametrize("args", DATABASE_COMMANDS, ids=" ".join)
@pytest.mark.parametrize(
    ("bad_url", "message"),
    [
        ("not a url", f"DATABASE_URL is not a database URL of the form {URL_FORM}"),
        (
            "postgresql://u:s3cret@db:port/quiz",
            f"DATABASE_URL is not a database URL of the form {URL_FORM}",
        ),
        (
            "bogus://u:s3cret@db/quiz",
            "cannot use the database URL bogus://u:***@db/quiz: SQLAlchemy knows no database"
            " dialect or driver named 'bogus'",
        ),
        (
            "mysql://u:s3cret@127.0.0.1:1/x",
            "cannot use the database URL mysql://u:***@127.0.0.1:1/x: its driver is not"
            " installed (No module named 'MySQLdb')",
        ),
    ],
    ids=["unparsable", "bad-port", "unknown-dialect", "driver-not-installed"],
)
def test_a_bad_database_url_is_a_one_line_error_without_its_password(args, bad_url, message):
    if bad_url.startswith("mysql:") and importlib.util.find_spec("MySQLdb") is not None:
        pytest.skip("the MySQL driver is installed here")
    result = invoke(bad_url, *args, password="12345678")
    assert (result.exit_code, result.output) == (1, f"error: {message}\n")


def test_an_unknown_revision_is_a_one_line_error(url):
    result = invoke(url, "db", "upgrade", "--revision", "nope")
    assert (result.exit_code, result.output) == (
        1,
        "error: cannot upgrade to revision 'nope': Can't locate revision identified by 'nope'\n",
    )


def test_a_failed_first_upgrade_leaves_no_database_file_or_directory_behind(tmp_path):
    path = tmp_path / "missing" / "dir" / "quizsvc.sqlite3"
    result = invoke(f"sqlite:///{path}", "db", "upgrade", "--revision", "nope")
    assert result.exit_code == 1, result.output
    assert list(tmp_path.iterdir()) == []
    # and the next upgrade, to a revision that exists, creates the database as usual
    result = invoke(f"sqlite:///{path}", "db", "upgrade")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in path.parent.iterdir()) == ["quizsvc.sqlite3"]


def test_a_failed_upgrade_of_an_existing_database_keeps_it(tmp_path):
    path = tmp_path / "quizsvc.sqlite3"
    assert invoke(f"sqlite:///{path}", "db", "upgrade").exit_code == 0
    before = path.read_bytes()
    result = invoke(f"sqlite:///{path}", "db", "upgrade", "--revision", "nope")
    assert result.exit_code == 1, result.output
    assert [p.name for p in tmp_path.iterdir()] == ["quizsvc.sqlite3"]
    assert path.read_bytes() == before


@pytest.mark.parametrize("args", DATABASE_COMMANDS[1:], ids=" ".join)
def test_commands_other_than_db_upgrade_never_create_a_sqlite_database(tmp_path, args):
    path = tmp_path / "missing" / "dir" / "quizsvc.sqlite3"
    result = invoke(f"sqlite:///{path}", *args, password="12345678")
    assert (result.exit_code, result.output) == (
        1,
        f"error: no database at {path}: run `quizsvc db upgrade`\n",
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args", DATABASE_COMMANDS, ids=" ".join)
def test_a_sqlite_database_that_cannot_be_opened_is_named(tmp_path, args):
    # A directory where the database file should be: SQLite cannot open it.
    result = invoke(f"sqlite:///{tmp_path}", *args, password="12345678")
    assert (result.exit_code, result.output) == (
        1,
        f"error: SQLite database {tmp_path}: unable to open database file\n",
    )


def test_a_sqlite_directory_that_cannot_be_created_is_named(tmp_path):
    (tmp_path / "notes.txt").write_text("a file, not a directory\n", encoding="utf-8")
    path = tmp_path / "notes.txt" / "quizsvc.sqlite3"
    result = invoke(f"sqlite:///{path}", "db", "upgrade")
    assert (result.exit_code, result.output) == (
        1,
        f"error: cannot create the directory {path.parent} for the SQLite database {path}:"
        " File exists\n",
    )


@pytest.mark.slow  # a Python process of its own
@pytest.mark.parametrize(
    "args", [("user", "create", "bob", "--role", "student"), ("user", "password", "ada")]
)
def test_without_a_terminal_or_quizsvc_password_the_error_says_what_to_do(upgraded, args):
    created = invoke(upgraded, "user", "create", "ada", "--role", "student", password="first one")
    assert created.exit_code == 0, created.output
    env = {key: value for key, value in os.environ.items() if key != "QUIZSVC_PASSWORD"}
    env["DATABASE_URL"] = upgraded
    # A new session has no controlling terminal, and stdin is not one either.
    result = subprocess.run(
        [sys.executable, "-c", "from quizsvc.cli import main; main()", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=env,
        start_new_session=True,
        timeout=60,
        check=False,
    )
    assert (result.returncode, result.stdout, result.stderr) == (
        1,
        "",
        "error: no terminal to ask for the password on: set $QUIZSVC_PASSWORD,"
        " or run this in a terminal\n",
    )
    assert [u.name for u in users(upgraded)] == ["ada"]
    assert verify_password(users(upgraded)[0].password_hash, "first one")


def test_user_demo_creates_the_demo_accounts_then_gives_them_new_passwords(upgraded):
    printed = {}
    for run in range(2):
        result = invoke(upgraded, "user", "demo")
        assert result.exit_code == 0, result.output
        lines = result.output.splitlines()
        assert [line.rsplit(" ", 1)[0] for line in lines] == [
            "demo student: user demo-student, password",
            "demo instructor: user demo-instructor, password",
        ]
        printed[run] = [line.rsplit(" ", 1)[1] for line in lines]
        accounts = {user.name: user for user in users(upgraded)}
        assert {name: user.role for name, user in accounts.items()} == {
            "demo-student": "student",
            "demo-instructor": "instructor",
        }
        for name, password in zip(("demo-student", "demo-instructor"), printed[run], strict=True):
            assert len(password) >= 12  # token_urlsafe(9): 12 characters
            assert verify_password(accounts[name].password_hash, password)
    # run again: the same two accounts, each with a new password; the old ones stop working
    assert set(printed[0]).isdisjoint(printed[1])
    accounts = {user.name: user for user in users(upgraded)}
    for name, old in zip(("demo-student", "demo-instructor"), printed[0], strict=True):
        assert not verify_password(accounts[name].password_hash, old)
