"""Who the current user is: login sessions kept in the store behind the session cookie
(Flask-Login), Bearer tokens for drill clients, CSRF protection for cookie requests, and the
instructor's guard. `auth` holds the pages that log in and out; this module what every
request relies on.

Browsers authenticate with the session cookie and send a CSRF token with every form or, for
the JSON API, in the X-CSRFToken header. The cookie names the user together with the token
of a login session kept in the store (`store.begin_login_session`), and is a login only
while that session is live: a logout ends it on the server, so a copy of the cookie is no
login afterwards, and a new password ends every session of its user (the browser that
changed it gets a new one). A login lasts at most PERMANENT_SESSION_LIFETIME from the login,
however often its cookie is written again. A login or logout starts a fresh session (with a
new CSRF token), carrying over only the page language.
Drill clients may instead send `Authorization: Bearer <token>` (see `quizsvc user token`),
which needs no CSRF token because a browser never adds it on its own. Such a request is
authenticated by its token alone: the session cookie it may also carry is neither read nor
written (`BearerAwareSessionInterface`), so a wrong token is 401 whatever the cookie says.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import timedelta
from functools import wraps
from typing import Any, TypeVar

from flask import Flask, Request, abort, current_app, request, session
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface
from flask_babel import gettext
from flask_login import UserMixin, current_user, login_required, login_user
from sqlalchemy.orm import Session

from quizsvc import store
from quizsvc.web.context import db, state
from quizsvc.web.errors import is_api_request
from quizsvc.web.extensions import csrf, login_manager
from quizsvc.web.i18n import LANGUAGES


def init_app(app: Flask) -> None:
    app.session_interface = BearerAwareSessionInterface()
    app.before_request(_protect_from_csrf)


T = TypeVar("T")


@dataclass(frozen=True)
class CurrentUser(UserMixin):
    id: int
    name: str
    display_name: str
    role: str
    login_token: str  # of the store's login session; "" for a Bearer-token request
    language: str | None = None  # the language the user chose, kept with the account

    @property
    def is_instructor(self) -> bool:
        return self.role == "instructor"

    def get_id(self) -> str:
        """What the session cookie stores (Flask-Login's "alternative token")."""
        return f"{self.id}.{self.login_token}"

    @classmethod
    def of(cls, user: store.User, login_token: str = "") -> CurrentUser:
        return cls(user.id, user.name, user.display_name, user.role, login_token, user.language)


def _read(lookup: Callable[[Session], T]) -> T:
    """Its own read-only session, so the request's session can still begin as a writer."""
    with state().sessions() as session:
        store.begin_read_only(session)
        return lookup(session)


def _login_session(user_id: int, token: str) -> tuple[str | None, CurrentUser] | None:
    """Why the user's login session of ``token`` no longer lets them in (None while it does)
    and the user it names; None if there is no such session."""

    def lookup(session: Session) -> tuple[str | None, CurrentUser] | None:
        found = store.find_login_session(session, user_id, token, lifetime=login_lifetime())
        return None if found is None else (found.ended_by, CurrentUser.of(found.user, token))

    return _read(lookup)


def login_lifetime() -> timedelta:
    """How long a login lasts from the login: as long as Flask accepts the signed cookie
    after it was written, so the store prunes no login that a cookie could still name."""
    return current_app.permanent_session_lifetime


def log_in(user: store.User, language: str | None = None) -> None:
    """Begin a login session in the store for ``user`` and in this browser's cookie;
    ``language``: one to keep with the account from now on."""
    if language is not None:
        store.set_language(db(), user.id, language)
    token = store.begin_login_session(db(), user.id, lifetime=login_lifetime())
    current = CurrentUser.of(user, token)
    login_user(current if language is None else replace(current, language=language))


# Marks the session's language as chosen with the toggle while logged out: this visitor's
# choice, kept with the account they then log in to or create. A language left in the
# session by a logout is not: it was the user's before, not necessarily the next one's.
CHOSEN_LOGGED_OUT = "lang_chosen_logged_out"


def log_in_from_form(user: store.User) -> None:
    """A login by the login or registration form: a fresh session (which keeps the page's
    language), and the language chosen on the page before, if any, kept with the account."""
    chosen = session.get("lang") if session.get(CHOSEN_LOGGED_OUT) else None
    start_fresh_session()
    log_in(user, chosen if chosen in LANGUAGES else None)


def bearer_token(req: Request) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, the scheme in any letter case
    (RFC 7235); "" when the header names the scheme without a usable token; None when the
    request carries no Bearer header at all."""
    authorization = req.authorization  # Werkzeug's parser lower-cases the scheme
    if authorization is None or authorization.type != "bearer":
        return None
    return authorization.token or ""


class _TokenRequestSession(SecureCookieSession):
    """The session of a request carrying a Bearer token: starts empty and is never saved."""


class BearerAwareSessionInterface(SecureCookieSessionInterface):
    """The cookie session, except for requests carrying a Bearer token: they get an empty
    session, so Flask-Login finds no user in it and asks the token (`_load_user_from_token`),
    and nothing is written back, so the browser's own session stays as it was."""

    def open_session(self, app, request):
        if bearer_token(request) is not None:
            return _TokenRequestSession()
        return super().open_session(app, request)

    def save_session(self, app, session, response) -> None:
        if isinstance(session, _TokenRequestSession):
            return
        super().save_session(app, session, response)


# Set in the session when it is refused for an old password, until the learner has been told.
_SIGNED_OUT_BY_PASSWORD_CHANGE = "signed_out_by_password_change"


@login_manager.user_loader
def _load_user(session_id: str) -> CurrentUser | None:
    user_id, _, token = session_id.partition(".")
    # ASCII digits: str.isdigit() also passes "²", which int() refuses
    if not re.fullmatch(r"[0-9]+", user_id) or not token:
        return None
    found = _login_session(int(user_id), token)
    # unknown (never begun, pruned, or a cookie from before login sessions were kept),
    # logged out, or too old: not a login, and nothing to tell
    if found is None:
        return None
    ended_by, user = found
    if ended_by == "password_change":
        # forget the user, as logging out does, so that the session is refused (and the
        # learner told why) only once
        for name in ("_user_id", "_fresh", "_id"):
            session.pop(name, None)
        session[_SIGNED_OUT_BY_PASSWORD_CHANGE] = True
        return None
    return user if ended_by is None else None


def why_signed_out() -> str | None:
    """Once, after a session was refused for an old password: that the password changed."""
    if session.pop(_SIGNED_OUT_BY_PASSWORD_CHANGE, False):
        return gettext(
            "Your password was changed, so you were signed out here: log in "
            "again with the new password."
        )
    return None


def _login_manager_message(message: str) -> str:
    """Flask-Login's messages, which it writes in English, in the page's language. Asking to
    log in after the session was refused for an old password says why instead."""
    if message == login_manager.login_message:
        return why_signed_out() or gettext("Please log in to access this page.")
    return message


login_manager.localize_callback = _login_manager_message
login_manager.login_message_category = "info"  # as the login page's own notices


@login_manager.request_loader
def _load_user_from_token(req: Request) -> CurrentUser | None:
    token = bearer_token(req)
    if not token:
        return None

    def lookup(session: Session) -> CurrentUser | None:
        user = store.user_by_api_token(session, token)
        return CurrentUser.of(user) if user else None

    return _read(lookup)


def signed_jwt_endpoint(view: Callable[..., Any]) -> Callable[..., Any]:
    """Marks a view exempt from the CSRF check: one a platform posts to cross-site with a
    JWT it signed (the LTI launch), which no CSRF token could come with and which the
    signature, the state cookie and a nonce used once protect instead (`quizsvc.web.lti`)."""
    view.signed_jwt_endpoint = True  # type: ignore[attr-defined]
    return view


def _protect_from_csrf() -> None:
    view = current_app.view_functions.get(request.endpoint or "")
    if getattr(view, "signed_jwt_endpoint", False):
        return
    if bearer_token(request) is not None:
        return  # token clients: checked by the request loader, not sent by browsers
    if is_api_request() and not current_user.is_authenticated:
        return  # the API answers 401 before anything is done
    csrf.protect()


def instructor_required(view: Callable[..., Any]) -> Callable[..., Any]:
    @wraps(view)
    @login_required
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if not current_user.is_instructor:
            abort(403, description=gettext("This page is for instructors."))
        return view(*args, **kwargs)

    return wrapped


def start_fresh_session() -> None:
    """Empty the session but for its language, as a login or logout begins a new one. The
    cookie session is signed, not encrypted, and a browser may be shared: nothing of the
    user before (the drill answer they typed) may stay in it, and the CSRF token a page
    showed before the login (or one planted with the cookie) must not be valid after it."""
    language = session.get("lang")
    session.clear()
    if language is not None:
        session["lang"] = language
