"""One JSON error format for /api, friendly HTML pages elsewhere.

JSON: {"error": {"status": 404, "code": "not_found", "message": "..."}}
"""

from __future__ import annotations

from flask import Flask, jsonify, render_template, request
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException, InternalServerError

API_PREFIX = "/api"


def is_api_request() -> bool:
    """Under /api: "/api" itself too, which is no route but must not get an HTML page."""
    return request.path == API_PREFIX or request.path.startswith(API_PREFIX + "/")


def error_response(status: int, code: str, message: str):
    if is_api_request():
        return jsonify(error={"status": status, "code": code, "message": message}), status
    return render_template("error.html", status=status, message=message), status


def _code(exc: HTTPException) -> str:
    return (exc.name or "error").lower().replace(" ", "_").replace("'", "")


def init_app(app: Flask) -> None:
    @app.errorhandler(CSRFError)
    def _csrf(exc: CSRFError):
        return error_response(400, "csrf_failed", f"CSRF check failed: {exc.description}")

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException):
        body, status = error_response(exc.code or 500, _code(exc), exc.description or exc.name)
        response = app.make_response((body, status))
        # Werkzeug's own headers for the status (Allow on a 405, Retry-After, ...); the body
        # is ours, so not its Content-Type.
        for name, value in exc.get_headers():
            if name.lower() != "content-type":
                response.headers.add(name, value)
        return response

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):
        app.logger.exception("unhandled error on %s", request.path)
        return error_response(500, "internal_server_error", InternalServerError.description)
