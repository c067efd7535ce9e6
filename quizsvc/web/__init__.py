"""The Flask application: `create_app(config)` builds one, blueprints per area."""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask, Response, current_app, request
from werkzeug.routing import IntegerConverter

from quizsvc import settings
from quizsvc.web import (
    api,
    auth,
    content_sync,
    deadline_pages,
    delivery,
    drills,
    errors,
    health,
    i18n,
    instructor,
    login_session,
    lti,
    model,
    progress,
    quiz,
    render,
    throttle,
)
from quizsvc.web.context import AppState, close_db
from quizsvc.web.extensions import StrictJSONProvider, csrf, login_manager

REPO_ROOT = Path(__file__).resolve().parents[2]


# The id columns are INTEGER: 32-bit on PostgreSQL, which refuses a larger value with an error.
MAX_DATABASE_ID = 2**31 - 1


def decimal_at_most(limit: int) -> str:
    """A regex matching exactly the whole numbers 0 to `limit` in ASCII digits (leading zeros
    allowed, as Werkzeug's int converter allows them): for 253,
    `0*(?:[0-9]{1,2}|[0-1][0-9]{2}|2[0-4][0-9]{1}|25[0-2]|253)`."""
    digits = str(limit)
    length = len(digits)
    options = [f"[0-9]{{1,{length - 1}}}"] if length > 1 else []
    for position, digit in enumerate(digits):
        if digit != "0":  # the numbers with this prefix and a smaller digit here
            rest = length - position - 1
            options.append(
                f"{digits[:position]}[0-{int(digit) - 1}]" + (f"[0-9]{{{rest}}}" if rest else "")
            )
    options.append(digits)
    return f"0*(?:{'|'.join(options)})"


class DatabaseIdConverter(IntegerConverter):
    """`<int:...>` in every route: an id no id column can hold is simply not found (404), on
    every database, instead of overflowing PostgreSQL's INTEGER.

    The limit is in the regex, not only in `max`: a path whose id fails `to_python` is 405,
    not 404, when the same path has a rule for another method (Werkzeug's matcher has already
    counted that rule's methods as allowed). And ASCII digits only: Werkzeug's `\\d+` also
    matches "٣" or "３", which int() reads as 3, giving one variant many URLs.
    """

    regex = decimal_at_most(MAX_DATABASE_ID)

    def __init__(self, map, *args, **kwargs) -> None:
        kwargs.setdefault("max", MAX_DATABASE_ID)
        super().__init__(map, *args, **kwargs)


# Sent with every response (a view may set its own instead). The pages load only their own
# scripts and stylesheet, and inline SVG, which needs no source; the tab's icon is a data: URI.
# No inline script or style attribute anywhere, so none is allowed: injected markup can run
# nothing. Framing is refused (clickjacking of the instructor's buttons).
CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
    )
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",  # frame-ancestors for browsers without CSP level 2
    "Referrer-Policy": "same-origin",  # links in the content lead off the site: no URL sent
}
# With HSTS set (the site is served over HTTPS only): browsers go on using HTTPS for a year,
# whatever a link or a typed address says. Browsers ignore it over plain HTTP.
STRICT_TRANSPORT_SECURITY = "max-age=31536000"


def content_security_policy() -> str:
    """The policy, with the LMSs that may show the pages in an iframe (an LTI launch inside
    a course page: QUIZSVC_LTI_FRAME_ANCESTORS) as the frame's ancestors, if any."""
    ancestors = current_app.config.get("LTI_FRAME_ANCESTORS")
    if not ancestors:
        return CONTENT_SECURITY_POLICY
    allowed = " ".join(("'self'", *ancestors))
    return CONTENT_SECURITY_POLICY.replace("frame-ancestors 'none'", f"frame-ancestors {allowed}")


def add_security_headers(response: Response) -> Response:
    framed = bool(current_app.config.get("LTI_FRAME_ANCESTORS"))
    for name, value in SECURITY_HEADERS.items():
        if name == "Content-Security-Policy":
            value = content_security_policy()
        elif name == "X-Frame-Options" and framed:
            continue  # it cannot name the LMSs; frame-ancestors does, in every browser of now
        response.headers.setdefault(name, value)
    if current_app.config.get("HSTS"):
        response.headers.setdefault("Strict-Transport-Security", STRICT_TRANSPORT_SECURITY)
    # Pages show one person's work (and a CSRF token): kept by no cache, so that after a
    # logout the browser's Back button shows nothing of it. Static files are the same for
    # everyone and keep Flask's revalidated caching.
    if request.endpoint != "static":
        response.headers.setdefault("Cache-Control", "no-store")
    return response


DEVELOPMENT_KEY_FILE = "development_secret_key"


def development_secret_key(directory: Path) -> str:
    """The development server's secret key, kept in `directory` (the app's instance/): made
    at random by the first process that needs it, read by every other. Each of several
    gunicorn workers calls this, and all must sign cookies alike, or a login made on one
    worker is refused by the next. The file is written whole under another name and linked
    into place, so a racing process reads either nothing (and links its own, which fails
    when the first is there) or the whole key."""
    path = directory / DEVELOPMENT_KEY_FILE
    if not path.exists():
        directory.mkdir(parents=True, exist_ok=True)
        draft = directory / f".{DEVELOPMENT_KEY_FILE}.{os.getpid()}.{secrets.token_hex(4)}"
        descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as file:
            file.write(secrets.token_hex(32))
        try:
            os.link(draft, path)
        except FileExistsError:
            pass  # another process was first: its key is the one
        finally:
            draft.unlink()
    return path.read_text().strip()


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Settings come from `config`, else from the environment (`quizsvc.settings`, which
    raises SettingsError for a value it cannot use). SECRET_KEY is required unless
    DEVELOPMENT is true, which keeps one in instance/ (`development_secret_key`)."""
    app = Flask(__name__, instance_path=str(REPO_ROOT / "instance"))
    app.config.from_mapping(
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        REMEMBER_COOKIE_HTTPONLY=True,
        REMEMBER_COOKIE_SAMESITE="Lax",
        WTF_CSRF_CHECK_DEFAULT=False,  # checked in login_session, token clients skip it
        WTF_CSRF_TIME_LIMIT=None,
        # a message WTForms writes itself in the page's language, from WTForms' own catalog
        # (the forms give each of their rules a message of their own, in the app's catalogs)
        WTF_I18N_ENABLED=True,
        MAX_CONTENT_LENGTH=256 * 1024,
    )
    app.config.update(settings.from_environment().flask_config())
    app.url_map.converters["int"] = DatabaseIdConverter
    app.json = StrictJSONProvider(app)
    if config:
        app.config.update(config)
    if app.config.get("SESSION_COOKIE_SECURE"):
        app.config["REMEMBER_COOKIE_SECURE"] = True
    if app.config.get("LTI_FRAME_ANCESTORS"):
        # Inside an LMS's iframe the pages are a third party's: a browser sends their cookie
        # only if it is SameSite=None, which it accepts only with Secure (over HTTPS). The
        # CSRF token still guards every form (docs/lti.md).
        if not app.config.get("SESSION_COOKIE_SECURE"):
            raise RuntimeError(
                "QUIZSVC_LTI_FRAME_ANCESTORS needs QUIZSVC_SESSION_COOKIE_SECURE=true: the"
                " cookies of a page in an LMS's iframe must be SameSite=None, and browsers"
                " take those over HTTPS only"
            )
        app.config["SESSION_COOKIE_SAMESITE"] = "None"
        app.config["REMEMBER_COOKIE_SAMESITE"] = "None"
    if not app.config.get("SECRET_KEY"):
        if not app.config["DEVELOPMENT"]:
            raise RuntimeError(
                "SECRET_KEY is not set: set QUIZSVC_SECRET_KEY (make run generates one into "
                "instance/secret_key), or QUIZSVC_DEVELOPMENT=true for a development key"
            )
        app.config["SECRET_KEY"] = development_secret_key(Path(app.instance_path))

    app.extensions["quizsvc"] = AppState.create(
        app.config["DATABASE_URL"], Path(app.config["CONTENT_DIR"])
    )
    app.teardown_appcontext(close_db)
    content_sync.init_app(app)  # first of the before_request functions: they see its bank
    delivery.init_app(app)  # first: its compression runs after every other after_request
    app.after_request(add_security_headers)
    csrf.init_app(app)
    throttle.init_app(app)
    login_manager.init_app(app)
    i18n.init_app(app)
    render.init_app(app)
    errors.init_app(app)
    login_session.init_app(app)  # its CSRF check before the views' own hooks
    lti.init_app(app)
    blueprints = (
        auth.bp,
        quiz.bp,
        model.bp,
        deadline_pages.bp,
        drills.bp,
        progress.bp,
        instructor.bp,
        api.bp,
        health.bp,
        lti.bp,
    )
    for blueprint in blueprints:
        app.register_blueprint(blueprint)
    return app
