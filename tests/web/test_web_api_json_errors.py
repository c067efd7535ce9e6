"""Every response under /api is JSON, errors included, whatever the error: a path no route
has, a method a route does not take, a body over the size limit, a request line or headers
too long (where the app sees them: gunicorn's own limits are in test_web_gunicorn_limits.py),
an unexpected error. Each in the one format: {"error": {"status", "code", "message"}}."""

from __future__ import annotations

import json

import pytest
from werkzeug.exceptions import abort

MAX_CONTENT_LENGTH = 256 * 1024  # create_app's


def assert_json_error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.data[:300]
    assert response.mimetype == "application/json"
    error = json.loads(response.data)["error"]
    assert (error["status"], error["code"]) == (status, code)
    assert isinstance(error["message"], str) and error["message"]
    return error


@pytest.fixture
def alice(browser_for):
    alice = browser_for("alice")
    alice.client.environ_base["HTTP_X_CSRFTOKEN"] = alice.token
    return alice.client


@pytest.mark.parametrize(
    "path", ["/api", "/api/", "/api/no-such-route", "/api/variants/not-a-number", "/api/%ff"]
)
def test_a_path_no_route_has_is_a_json_404(alice, path):
    error = assert_json_error(alice.get(path), 404, "not_found")
    assert error["message"].startswith("The requested URL was not found on the server.")


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("GET", "/api/drills/recommended/variants", {"POST", "OPTIONS"}),
        ("DELETE", "/api/progress", {"GET", "HEAD", "OPTIONS"}),
        ("PUT", "/api/variants/1/submissions", {"POST", "OPTIONS"}),
    ],
)
def test_a_method_a_route_does_not_take_is_a_json_405_with_allow(alice, method, path, allowed):
    response = alice.open(path, method=method)
    error = assert_json_error(response, 405, "method_not_allowed")
    assert error["message"] == "The method is not allowed for the requested URL."
    assert set(response.headers["Allow"].split(", ")) == allowed


def test_a_body_over_the_size_limit_is_a_json_413(alice):
    body = json.dumps({"answer": "1" * MAX_CONTENT_LENGTH})
    response = alice.post("/api/variants/1/submissions", data=body, content_type="application/json")
    error = assert_json_error(response, 413, "request_entity_too_large")
    assert error["message"] == "The data value transmitted exceeds the capacity limit."
    # a form body too: the limit is checked before anything reads it
    response = alice.post("/api/variants/1/submissions", data={"x": "1" * MAX_CONTENT_LENGTH})
    assert_json_error(response, 413, "request_entity_too_large")


class TestErrorsRaisedInAView:
    @pytest.fixture
    def app(self, fresh_app):
        def broken():
            raise RuntimeError("a bug with a secret in it")

        def too_long(status: int):
            abort(status)

        fresh_app.add_url_rule("/api/broken", view_func=broken)
        fresh_app.add_url_rule("/api/abort/<int:status>", view_func=too_long)
        return fresh_app

    def test_an_unexpected_error_is_a_json_500_that_tells_nothing_of_it(self, alice):
        response = alice.get("/api/broken")
        error = assert_json_error(response, 500, "internal_server_error")
        assert "secret" not in response.text and "Traceback" not in response.text
        assert error["message"].startswith("The server encountered an internal error")

    @pytest.mark.parametrize(
        ("status", "code"),
        [(414, "request_uri_too_long"), (431, "request_header_fields_too_large")],
    )
    def test_a_request_too_long_seen_by_the_app_is_json(self, alice, status, code):
        assert_json_error(alice.get(f"/api/abort/{status}"), status, code)
