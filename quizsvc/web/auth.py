"""Logging in and out, changing one's password, the language toggle, who the current user
is, and CSRF.

Browsers authenticate with the session cookie (Flask-Login) and send a CSRF token with every
form or, for the JSON API, in the X-CSRFToken header. The cookie names the user together with
the token of a login session kept in the store (`store.begin_login_session`), and is a login
only while that session is live: a logout ends it on the server, so a copy of the cookie is
no login afterwards, and a new password ends every session of its user (the browser that
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
from urllib.parse import urlsplit

from flask import (
    Blueprint,
    Request,
    abort,
    current_app,
    flash,
    make_response,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface
from flask_babel import gettext, ngettext
from flask_login import UserMixin, current_user, login_required, login_user, logout_user
from sqlalchemy.orm import Session

from quizsvc import store
from quizsvc.store.users import MAX_PASSWORD_LENGTH, USER_NAME_PATTERN
from quizsvc.web.context import db, state
from quizsvc.web.errors import is_api_request
from quizsvc.web.extensions import csrf, login_manager
from quizsvc.web.forms import (
    LanguageForm,
    LoginForm,
    PasswordChangeForm,
    RegistrationForm,
    first_error,
)
from quizsvc.web.i18n import LANGUAGES
from quizsvc.web.throttle import client_address, minutes, password_throttle

bp = Blueprint("auth", __name__)

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
_CHOSEN_LOGGED_OUT = "lang_chosen_logged_out"


def log_in_from_form(user: store.User) -> None:
    """A login by the login or registration form: a fresh session (which keeps the page's
    language), and the language chosen on the page before, if any, kept with the account."""
    chosen = session.get("lang") if session.get(_CHOSEN_LOGGED_OUT) else None
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


@bp.before_app_request
def _protect_from_csrf() -> None:
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


def too_many_attempts(page: str, wait: int):
    """A form refused because its account's password, or passwords from its address, were
    guessed at too often (`throttle`)."""
    response = make_response(page, 429)
    response.headers["Retry-After"] = str(wait)
    return response


def start_fresh_session() -> None:
    """Empty the session but for its language, as a login or logout begins a new one. The
    cookie session is signed, not encrypted, and a browser may be shared: nothing of the
    user before (the drill answer they typed) may stay in it, and the CSRF token a page
    showed before the login (or one planted with the cookie) must not be valid after it."""
    language = session.get("lang")
    session.clear()
    if language is not None:
        session["lang"] = language


def _safe_next(target: str | None) -> str:
    """Only same-site paths: never redirect to another host after login."""
    if target and target.startswith("/") and not target.startswith("//"):
        parts = urlsplit(target)
        if not parts.scheme and not parts.netloc:
            return target
    return url_for("quiz.index")


@bp.route("/login", methods=["GET", "POST"])
def login():
    form = LoginForm()
    if request.method == "POST":
        name = form.name.data
        refused = password_throttle().attempt(name, client_address())
        if refused is not None:
            count = minutes(refused.wait)
            if refused.reason == "name":
                flash(
                    ngettext(
                        "Too many failed attempts to log in as this user. Try again in "
                        "%(num)s minute.",
                        "Too many failed attempts to log in as this user. Try again in "
                        "%(num)s minutes.",
                        count,
                    ),
                    "error",
                )
            else:
                flash(
                    ngettext(
                        "Too many failed attempts to log in from this network address. "
                        "Try again in %(num)s minute.",
                        "Too many failed attempts to log in from this network address. "
                        "Try again in %(num)s minutes.",
                        count,
                    ),
                    "error",
                )
            return too_many_attempts(render_template("login.html", form=form), refused.wait)
        user = store.authenticate(db(), name, form.password.data)
        if user is None:
            password_throttle().failed(client_address())
            flash(gettext("Wrong user name or password."), "error")
            return render_template("login.html", form=form), 401
        password_throttle().succeeded(name)
        # a fresh session, also: logged in again, nothing to tell of a password change
        log_in_from_form(user)
        return redirect(_safe_next(request.args.get("next")))
    # a session refused here (current_user loads, and refuses, it) was not sent here by
    # Flask-Login, which would have said why: say it now
    if not current_user.is_authenticated and (reason := why_signed_out()):
        flash(reason, "info")
    return render_template("login.html", form=form)


MAX_DISPLAY_NAME_LENGTH = 200  # as store.create_user refuses longer ones (and the form says)


def account_problem(
    exc: store.StoreError, name: str = "", display_name: str = "", password: str = ""
) -> str:
    """Why the store refused an account form, in the page's language: the new account's
    ``name`` and ``display_name`` and the (new) ``password`` as the form sent them.

    The store's messages stay English (the CLI prints them); this tells the store's refusals
    apart by their type and, where one type has several reasons, by the form's values
    checked against the store's own rules. A refusal not recognised here (a role, say,
    which no form lets a learner choose) keeps the store's message."""
    match exc:
        case store.WrongPassword():
            return gettext("The current password is wrong.")
        case store.DuplicateUser():
            return gettext("A user named '%(name)s' already exists.", name=name)
        case store.InvalidUser() if not USER_NAME_PATTERN.fullmatch(name):
            return gettext(
                "Invalid user name '%(name)s': use 1 to 64 lower-case letters, "
                "digits, '.', '_' or '-', starting with a letter or digit.",
                name=name,
            )
        case store.InvalidUser() if "\x00" in display_name:
            # the one unstorable character a form can send (it arrives as UTF-8, which has
            # no lone surrogates)
            return gettext("The display name contains a NUL character (\\u0000).")
        case store.InvalidUser() if len(display_name) > MAX_DISPLAY_NAME_LENGTH:
            return gettext(
                "The display name must have 1 to %(max)s characters.", max=MAX_DISPLAY_NAME_LENGTH
            )
        case store.InvalidPassword() if not password:
            return gettext("The password is empty.")
        case store.InvalidPassword() if not password.strip():
            return gettext("The password is only spaces.")
        case store.InvalidPassword() if len(password) < store.MIN_PASSWORD_LENGTH:
            return gettext(
                "The password is too short: use at least %(min)s characters.",
                min=store.MIN_PASSWORD_LENGTH,
            )
        case store.InvalidPassword() if len(password) > MAX_PASSWORD_LENGTH:
            return gettext(
                "The password is longer than %(max)s characters.", max=MAX_PASSWORD_LENGTH
            )
    return str(exc)


def create_account(form: RegistrationForm, role: str) -> store.User:
    """The user of a validated account form. Raises store.StoreError; `new_account_problem`
    says why to the person filling it in."""
    return store.create_user(
        db(),
        name=form.name.data,
        role=role,
        password=form.password.data,
        display_name=form.display_name.data or None,
    )


def new_account_problem(exc: store.StoreError, form: RegistrationForm) -> str:
    return account_problem(exc, form.name.data, form.display_name.data, form.password.data)


@bp.route("/register", methods=["GET", "POST"])
def register():
    """Students create their own accounts, only where REGISTRATION_OPEN is set (off by
    default: instructors create accounts)."""
    if not current_app.config["REGISTRATION_OPEN"]:
        abort(
            404, description=gettext("Self-registration is off: ask an instructor for an account.")
        )
    form = RegistrationForm()
    if request.method == "POST":
        if not form.validate():
            return render_template("register.html", form=form, error=first_error(form)), 422
        try:
            user = create_account(form, "student")
        except store.StoreError as exc:
            db().rollback()
            error = new_account_problem(exc, form)
            return render_template("register.html", form=form, error=error), 422
        log_in_from_form(user)
        return redirect(url_for("quiz.index"))
    return render_template("register.html", form=form, error=None)


@bp.route("/account/password", methods=["GET", "POST"])
@login_required
def change_password():
    """A user changes their own password; every other session of theirs ends."""
    form = PasswordChangeForm()
    if request.method == "POST":
        if not form.validate():
            return render_template("account_password.html", error=first_error(form)), 422
        new_password = form.new_password.data
        try:
            # the current password is a password to guess, as at the login
            refused = password_throttle().attempt(current_user.name)
            if refused is not None:
                error = ngettext(
                    "The current password was wrong too many times. Try again in %(num)s minute.",
                    "The current password was wrong too many times. Try again in %(num)s minutes.",
                    minutes(refused.wait),
                )
                return too_many_attempts(
                    render_template("account_password.html", error=error), refused.wait
                )
            user = store.change_password(
                db(), current_user.id, form.current_password.data, new_password
            )
        except store.StoreError as exc:
            db().rollback()
            error = account_problem(exc, password=new_password)
            return render_template("account_password.html", error=error), 422
        password_throttle().succeeded(current_user.name)
        log_in(user)  # the password ended every session of the user: this browser stays in
        flash(gettext("Your password is changed; your other sessions are signed out."), "info")
        return redirect(url_for("quiz.index"))
    return render_template("account_password.html", error=None)


@bp.post("/logout")
def logout():
    if current_user.is_authenticated:
        store.end_login_session(db(), current_user.id, current_user.login_token)
    logout_user()
    start_fresh_session()
    flash(gettext("You are logged out."), "info")
    return redirect(url_for("auth.login"))


@bp.post("/lang/<code>")
def set_language(code: str):
    """The header's language button: a POST with the CSRF token (`_protect_from_csrf`), so
    another site cannot switch a user's language with an image or a link; back to the page
    it was on (the form's `next`, a path on this site only). A logged-in user's choice is
    kept with their account too, so it follows them to another browser."""
    if code not in LANGUAGES:
        abort(
            404,
            description=gettext(
                "Unknown language '%(code)s': choose one of %(choices)s.",
                code=code,
                choices=", ".join(LANGUAGES),
            ),
        )
    session["lang"] = code
    if current_user.is_authenticated:
        store.set_language(db(), current_user.id, code)
    else:
        session[_CHOSEN_LOGGED_OUT] = True  # kept with the account at the login
    return redirect(_safe_next(LanguageForm().back_to.data))
