"""One JSON error format for /api, friendly HTML pages elsewhere.

JSON: {"error": {"status": 404, "code": "not_found", "message": "..."}}

JSON messages stay English: clients parse them. Pages are in the page's language: views
abort with a translated description, and Werkzeug's own descriptions (a 404 for a URL no
route has, a 405, a 500) are replaced by the catalog's for their status.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Flask, flash, jsonify, redirect, render_template, request, url_for
from flask_babel import gettext
from flask_login import current_user
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException, InternalServerError

from quizsvc import store

API_PREFIX = "/api"


def is_api_request() -> bool:
    """Under /api: "/api" itself too, which is no route but must not get an HTML page."""
    return request.path == API_PREFIX or request.path.startswith(API_PREFIX + "/")


def error_response(
    status: int,
    code: str,
    message: str,
    page_message: str | None = None,
    reason: str | None = None,
):
    """`message` for the JSON API (with `reason`, a finer code, when there is one); a page
    shows `page_message` (in the page's language) when there is one, else `message`."""
    if is_api_request():
        error: dict[str, object] = {"status": status, "code": code, "message": message}
        if reason is not None:
            error["reason"] = reason
        return jsonify(error=error), status
    shown = message if page_message is None else page_message
    return render_template("error.html", status=status, message=shown), status


def _code(exc: HTTPException) -> str:
    return (exc.name or "error").lower().replace(" ", "_").replace("'", "")


def standard_page_message(status: int) -> str | None:
    """The catalog's text for a status whose Werkzeug description was not replaced by the
    view (a URL no route has, a method a route does not take, ...)."""
    match status:
        case 400:
            return gettext(
                "The browser (or proxy) sent a request that this server could not understand."
            )
        case 403:
            return gettext(
                "You don't have the permission to access the requested resource. "
                "It is either read-protected or not readable by the server."
            )
        case 404:
            return gettext(
                "The requested URL was not found on the server. If you entered "
                "the URL manually please check your spelling and try again."
            )
        case 405:
            return gettext("The method is not allowed for the requested URL.")
        case 413:
            return gettext("The data value transmitted exceeds the capacity limit.")
        case 500:
            return gettext(
                "The server encountered an internal error and was unable to "
                "complete your request. Either the server is overloaded or there "
                "is an error in the application."
            )
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
            flash(
                gettext(
                    "You had been logged out (in another tab, say), so the form was "
                    "not sent. Log in and send it again."
                ),
                "info",
            )
            return redirect(url_for("auth.login", next=_form_page()))
        return error_response(
            400,
            "csrf_failed",
            f"CSRF check failed: {exc.description}",
            page_message=gettext(
                "CSRF check failed: the form's security token is missing or out "
                "of date, so the form was not sent. Go back to the form's page, "
                "reload it and send the form again (reloading this page would "
                "send the old form again)."
            ),
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
            422,
            "invalid_text",
            str(exc),
            page_message=gettext(
                "The text sent holds characters that cannot be stored (such as NUL)."
            ),
        )

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):
        app.logger.exception("unhandled error on %s", request.path)
        return error_response(
            500,
            "internal_server_error",
            InternalServerError.description,
            page_message=gettext(
                "The server encountered an internal error and was unable to "
                "complete your request. Either the server is overloaded or there "
                "is an error in the application."
            ),
        )
