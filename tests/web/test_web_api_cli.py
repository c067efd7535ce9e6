"""`quizsvc user token NAME`: a token for the JSON API, printed once."""

from __future__ import annotations

from click.testing import CliRunner

from quizsvc import store
from quizsvc.cli import main


def run(database_url: str, *args: str):
    return CliRunner().invoke(main, ["user", "token", *args], env={"DATABASE_URL": database_url})


def test_the_printed_token_authenticates_its_user_and_replaces_the_last_one(
    app, database_url, sessions
):
    first = run(database_url, "alice")
    assert first.exit_code == 0, first.output
    token = first.stdout.strip()
    assert len(token) >= 40 and token == first.stdout.rstrip("\n")  # the token and nothing else
    with sessions() as session:
        assert store.user_by_api_token(session, token).name == "alice"

    client = app.test_client()
    progress = client.get("/api/progress", headers={"Authorization": f"Bearer {token}"})
    assert progress.status_code == 200
    started = client.post(
        "/api/drills/drill-score-row/variants", headers={"Authorization": f"Bearer {token}"}
    )
    assert started.status_code == 201  # no CSRF token needed

    second = run(database_url, "alice").stdout.strip()
    assert second != token
    old = client.get("/api/progress", headers={"Authorization": f"Bearer {token}"})
    assert old.status_code == 401
    assert client.get(
        "/api/progress", headers={"Authorization": f"Bearer {second}"}
    ).status_code == (200)


def test_an_unknown_user_is_an_error(database_url, sessions):
    result = run(database_url, "zoe")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "error: no user named 'zoe'" in result.stderr
    with sessions() as session:
        assert all(u.api_token_hash is None for u in store.list_users(session))


def test_an_unmigrated_database_is_an_error(tmp_path):
    result = run(f"sqlite:///{tmp_path / 'empty.sqlite3'}", "alice")
    assert result.exit_code == 1
    assert "quizsvc db upgrade" in result.stderr
