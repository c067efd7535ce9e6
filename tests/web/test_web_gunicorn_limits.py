"""gunicorn's limits on a request's head (gunicorn.conf.py, read by `make run`): no request
the API takes comes near them, and what goes over gets gunicorn's own 414 or 431 (HTML,
before the app sees the request), as docs/api.md says."""

from __future__ import annotations

import socket
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import served_app
from served_app import serve

pytestmark = pytest.mark.slow  # starts gunicorn

REPO = Path(__file__).resolve().parents[2]
LINE_LIMIT = 8190  # gunicorn.conf.py's limit_request_line
FIELD_LIMIT = 16380  # its limit_request_field_size


def config() -> dict[str, object]:
    settings: dict[str, object] = {}
    exec((REPO / "gunicorn.conf.py").read_text(), settings)
    return settings


def test_the_settings_make_run_serves_with():
    settings = config()
    assert settings["limit_request_line"] == LINE_LIMIT
    assert settings["limit_request_field_size"] == FIELD_LIMIT
    # make run serves from the repository's root, where gunicorn reads the file by default
    assert served_app.GUNICORN_CONFIG == REPO / "gunicorn.conf.py"


def raw_get(base: str, target: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    """The status and body of a GET sent as bytes (no client refuses a long line first)."""
    address = urlsplit(base)
    head = f"GET {target} HTTP/1.1\r\nHost: {address.netloc}\r\nConnection: close\r\n"
    head += "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items())
    with socket.create_connection((address.hostname, address.port), timeout=30) as connection:
        connection.sendall((head + "\r\n").encode())
        reply = b""
        while chunk := connection.recv(65536):
            reply += chunk
    status_line, _, rest = reply.decode("utf-8", "replace").partition("\r\n")
    return int(status_line.split(" ")[1]), rest.partition("\r\n\r\n")[2]


def test_gunicorn_refuses_a_request_line_or_header_over_its_limits(
    tmp_path, migrated_db_url, content_dir
):
    with serve(tmp_path, migrated_db_url, content_dir, workers=1) as served:
        # "GET " + target + " HTTP/1.1": the target that makes the line exactly the limit
        longest = LINE_LIMIT - len("GET  HTTP/1.1")
        target = "/api/chapters?lang=en&pad="
        status, body = raw_get(served.base, target + "x" * (longest - len(target)))
        # the app's answer (JSON: a 401, no token was sent)
        assert (status, body[:10]) == (401, '{"error":{')
        status, body = raw_get(served.base, target + "x" * (longest - len(target) + 1))
        assert status == 414
        assert f"Request Line is too large ({LINE_LIMIT + 1} &gt; {LINE_LIMIT})" in body
        assert "<html>" in body  # gunicorn's page, not the API's JSON

        # a header: its name, ": ", value and line end count
        value = "x" * (FIELD_LIMIT - len("X-Pad: \r\n"))
        assert raw_get(served.base, "/api/chapters", {"X-Pad": value})[0] == 401
        status, body = raw_get(served.base, "/api/chapters", {"X-Pad": value + "x"})
        assert status == 431
        assert "Error parsing headers: &#x27;limit request headers fields size&#x27;" in body
