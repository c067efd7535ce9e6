"""One JSON error format for /api, friendly HTML pages elsewhere.

JSON: {"error": {"status": 404, "code": "not_found", "message": "..."}}

JSON messages stay English: clients parse them. Pages are in the page's language: views
abort with a translated description, and Werkzeug's own descriptions (a 404 for a URL no
route has, a 405, a 500) are replaced by the catalog's for their status.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Flask, flash, jsonify, redirect, render_template, request, url_for
from flask_login import current_user
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException, InternalServerError

from quizsvc import store
from quizsvc.web.i18n import translate

API_PREFIX = "/api"


def is_api_request() -> bool:
    """Under /api: "/api" itself too, which is no route but must not get an HTML page."""
    return request.path == API_PREFIX or request.path.startswith(API_PREFIX + "/")


def error_response(status: int, code: str, message: str, page_message: str | None = None):
    """`message` for the JSON API; a page shows `page_message` (in the page's language)
    when there is one, else `message`."""
    if is_api_request():
        return jsonify(error={"status": status, "code": code, "message": message}), status
    shown = message if page_message is None else page_message
    return render_template("error.html", status=status, message=shown), status


def _code(exc: HTTPException) -> str:
    return (exc.name or "error").lower().replace(" ", "_").replace("'", "")


def standard_page_message(status: int) -> str | None:
    """The catalog's text for a status whose Werkzeug description was not replaced by the
    view (a URL no route has, a method a route does not take, ...)."""
    match status:
        case 400:
            return translate("error_bad_request")
        case 403:
            return translate("error_forbidden")
        case 404:
            return translate("error_not_found")
        case 405:
            return translate("error_method_not_allowed")
        case 413:
            return translate("error_too_large")
        case 500:
            return translate("error_internal")
    return None


# The forms a visitor sends: their token fails for another reason than a login that ended
_VISITORS_FORMS = frozenset({"auth.login", "auth.register"})


def _sent_after_the_login_ended() -> bool:
    """A page's form sent once its login has ended (a logout in another tab, say), which
    took the session's token with it: nothing to protect, the form only needs a login."""
    return (
        not is_api_request()
        and not current_user.is_authenticated
        and request.endpoint is not None
        and request.endpoint not in _VISITORS_FORMS
    )


def _form_page() -> str:
    """The page a form was sent from: its Referer, when that is a page of this site (the
    Referrer-Policy sends it within the site), else the form's own address, which for a
    learner's answer leads back to its page too (but is a 405 for a form with no page at its
    address, such as a logout's or an instructor's)."""
    referrer = urlsplit(request.referrer or "")
    if referrer.netloc != request.host or not referrer.path.startswith("/"):
        return request.path
    return f"{referrer.path}?{referrer.query}" if referrer.query else referrer.path


def init_app(app: Flask) -> None:
    @app.errorhandler(CSRFError)
    def _csrf(exc: CSRFError):
        # the reason (token missing, expired, ...) is for the log: a person can only reload
        app.logger.info("CSRF check failed on %s: %s", request.path, exc.description)
        if _sent_after_the_login_ended():
            # to the login page and from there back to the form's page, where the drill
            # page's script puts back what was typed
            flash(translate("signed_out_form_not_sent"), "info")
            return redirect(url_for("auth.login", next=_form_page()))
        return error_response(
            400,
            "csrf_failed",
            f"CSRF check failed: {exc.description}",
            page_message=translate("error_csrf_failed"),
        )

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException):
        status = exc.code or 500
        message = exc.description or exc.name
        # Werkzeug's own description, unless the view gave one (already in the page language)
        unchanged = exc.description == type(exc).description
        page_message = standard_page_message(status) if unchanged else None
        body, status = error_response(status, _code(exc), message, page_message)
        response = app.make_response((body, status))
        # Werkzeug's own headers for the status (Allow on a 405, Retry-After, ...); the body
        # is ours, so not its Content-Type.
        for name, value in exc.get_headers():
            if name.lower() != "content-type":
                response.headers.add(name, value)
        return response

    @app.errorhandler(store.InvalidText)
    def _unstorable_text(exc: store.InvalidText):
        # the views check what people type; this catches a tampered hidden field
        return error_response(
            422, "invalid_text", str(exc), page_message=translate("error_unstorable_text")
        )

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):
        app.logger.exception("unhandled error on %s", request.path)
        return error_response(
            500,
            "internal_server_error",
            InternalServerError.description,
            page_message=translate("error_internal"),
        )
