"""One JSON error format for /api, friendly HTML pages elsewhere.

JSON: {"error": {"status": 404, "code": "not_found", "message": "..."}}
"""

from __future__ import annotations

from flask import Flask, jsonify, render_template, request
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException, InternalServerError


def wants_json() -> bool:
    return request.path.startswith("/api/")


def error_response(status: int, code: str, message: str):
    if wants_json():
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
        return error_response(exc.code or 500, _code(exc), exc.description or exc.name)

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):
        app.logger.exception("unhandled error on %s", request.path)
        return error_response(500, "internal_server_error", InternalServerError.description)
