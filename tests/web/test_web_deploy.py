"""What running several workers, on several hosts behind a reverse proxy, relies on: one
development key for every worker, HSTS, the proxies' headers believed only when configured,
the load balancer's health check."""

from __future__ import annotations

import multiprocessing
import re
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from flask import jsonify, request

from quizsvc import store
from quizsvc.web import create_app, development_secret_key, throttle

ONE_YEAR = 365 * 24 * 3600


def _development_key_in(directory: str) -> str:
    return development_secret_key(Path(directory))


def test_the_development_key_is_one_for_racing_processes_and_random_per_directory(tmp_path):
    # eight processes start at once, as gunicorn's workers do: the first to link its key
    # into place wins and every one reads that key
    with ProcessPoolExecutor(8, mp_context=multiprocessing.get_context("fork")) as pool:
        keys = set(pool.map(_development_key_in, [str(tmp_path / "a")] * 8))
    [key] = keys
    assert re.fullmatch(r"[0-9a-f]{64}", key)
    assert sorted(path.name for path in (tmp_path / "a").iterdir()) == ["development_secret_key"]
    assert (tmp_path / "a" / "development_secret_key").stat().st_mode & 0o777 == 0o600
    assert development_secret_key(tmp_path / "a") == key  # kept: a restart signs alike
    assert development_secret_key(tmp_path / "b") != key  # random, never fixed


# --- HSTS ------------------------------------------------------------------------------


def test_hsts_is_sent_with_every_response_only_when_set(app_with):
    paths = ("/login", "/healthz", "/api/progress", "/no-such-page")
    plain = app_with({"SECRET_KEY": "s"}).test_client()
    for path in paths:
        assert "Strict-Transport-Security" not in plain.get(path).headers, path
    strict = app_with({"SECRET_KEY": "s", "HSTS": True}).test_client()
    for path in paths:
        assert strict.get(path).headers.getlist("Strict-Transport-Security") == [
            f"max-age={ONE_YEAR}"
        ], path


def test_hsts_from_the_environment(database_url, content_dir, monkeypatch):
    monkeypatch.setenv("QUIZSVC_HSTS", "true")
    app = create_app(
        {"SECRET_KEY": "s", "DATABASE_URL": database_url, "CONTENT_DIR": str(content_dir)}
    )
    assert app.test_client().get("/login").headers["Strict-Transport-Security"] == (
        f"max-age={ONE_YEAR}"
    )


# --- behind proxies ----------------------------------------------------------------------


def seen_by_app(database_url, content_dir, proxies: int):
    """A client of an app behind `proxies` proxies, with a page telling what the app made
    of the request: the throttle's client address, the scheme, the host."""
    app = create_app(
        {
            "SECRET_KEY": "s",
            "DATABASE_URL": database_url,
            "CONTENT_DIR": str(content_dir),
            "TRUSTED_PROXIES": proxies,
        }
    )

    @app.get("/seen")
    def seen():
        return jsonify(address=throttle.client_address(), scheme=request.scheme, host=request.host)

    return app.test_client()


FORWARDED = {
    "X-Forwarded-For": "203.0.113.9, 198.51.100.7",  # the client's own entry, the proxy's
    "X-Forwarded-Proto": "https",
    "X-Forwarded-Host": "quiz.example.edu",
}
# the connection comes from the proxy, to the address the proxy used for the app
FROM_PROXY = {"environ_base": {"REMOTE_ADDR": "10.0.0.2"}, "base_url": "http://10.0.0.5:8000"}


def test_forwarded_headers_are_ignored_without_trusted_proxies(database_url, content_dir):
    client = seen_by_app(database_url, content_dir, proxies=0)
    assert client.get("/seen", headers=FORWARDED, **FROM_PROXY).json == {
        "address": "10.0.0.2",
        "scheme": "http",
        "host": "10.0.0.5:8000",
    }


def test_one_trusted_proxy_gives_the_client_address_scheme_and_host(database_url, content_dir):
    client = seen_by_app(database_url, content_dir, proxies=1)
    # the last X-Forwarded-For entry is the one the proxy appended: the client's address
    assert client.get("/seen", headers=FORWARDED, **FROM_PROXY).json == {
        "address": "198.51.100.7",
        "scheme": "https",
        "host": "quiz.example.edu",
    }
    # a request without the headers (from the proxy itself) keeps the connection's values
    assert client.get("/seen", **FROM_PROXY).json["address"] == "10.0.0.2"


def test_behind_an_https_proxy_a_form_needs_a_referer_of_the_same_host(database_url, content_dir):
    client = seen_by_app(database_url, content_dir, proxies=1)
    https = {"X-Forwarded-For": "198.51.100.7", "X-Forwarded-Proto": "https"}
    https["X-Forwarded-Host"] = "quiz.example.edu"
    page = client.get("/login", headers=https, **FROM_PROXY)
    token = page.text.split('name="csrf_token" value="')[1].split('"')[0]
    form = {"csrf_token": token, "name": "nobody", "password": "wrong password"}

    def post(referer: str | None):
        headers = https | ({"Referer": referer} if referer else {})
        return client.post("/login", data=form, headers=headers, **FROM_PROXY).status_code

    assert post("https://quiz.example.edu/login") == 401  # checked: a wrong password
    assert post(None) == 400  # refused before the password is looked at
    assert post("https://elsewhere.example/login") == 400
    assert post("http://quiz.example.edu/login") == 400  # not the same origin either


# --- health ------------------------------------------------------------------------------


def test_health_is_ok_without_a_login_and_never_cached(app_with):
    client = app_with({"SECRET_KEY": "s"}).test_client()
    for _ in range(60):  # more than any throttle lets through: health is never throttled
        response = client.get("/healthz")
        assert response.status_code == 200
    assert response.json == {"status": "ok"}
    assert response.mimetype == "application/json"
    assert response.headers["Cache-Control"] == "no-store"
    assert "Set-Cookie" not in response.headers
    assert client.head("/healthz").status_code == 200


def test_health_is_503_while_the_database_does_not_answer(fresh_app, tmp_path):
    state = fresh_app.extensions["quizsvc"]
    reachable = state.sessions
    # a database file that is not there, opened without creating it: every connection fails
    missing = store.make_engine(f"sqlite:///{tmp_path / 'gone.sqlite3'}", create_if_missing=False)
    state.sessions = store.make_session_factory(missing)
    client = fresh_app.test_client()
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json == {"status": "unavailable", "reason": "the database did not answer"}
    assert response.headers["Cache-Control"] == "no-store"
    assert not (tmp_path / "gone.sqlite3").exists()

    state.sessions = reachable  # the database is back: so is the worker
    assert client.get("/healthz").status_code == 200
