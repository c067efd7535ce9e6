"""The pages of an account: logging in and out, registering, changing one's password, the
language toggle. Who the current user is, login sessions and CSRF: `login_session`.
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from flask import (
    Blueprint,
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
from flask_babel import gettext, ngettext
from flask_login import current_user, login_required, logout_user

from quizsvc import store
from quizsvc.store.users import MAX_PASSWORD_LENGTH, USER_NAME_PATTERN
from quizsvc.web.context import db
from quizsvc.web.forms import (
    LanguageForm,
    LoginForm,
    PasswordChangeForm,
    RegistrationForm,
    first_error,
)
from quizsvc.web.i18n import LANGUAGES
from quizsvc.web.login_session import (
    CHOSEN_LOGGED_OUT,
    log_in,
    log_in_from_form,
    start_fresh_session,
    why_signed_out,
)
from quizsvc.web.throttle import client_address, minutes, password_throttle

bp = Blueprint("auth", __name__)


def too_many_attempts(page: str, wait: int):
    """A form refused because its account's password, or passwords from its address, were
    guessed at too often (`throttle`)."""
    response = make_response(page, 429)
    response.headers["Retry-After"] = str(wait)
    return response


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
        if user.deactivated_at is not None:
            flash(
                gettext("This account is deactivated: ask your instructor to activate it."),
                "error",
            )
            return render_template("login.html", form=form), 403
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
        case store.CommonPassword():
            return gettext(
                "This password is one of the most common passwords, which are the first "
                "ones tried when someone guesses passwords. Choose another: a few unrelated "
                "words make a long password that is easy to remember."
            )
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


@bp.get("/account/data.json")
@login_required
def personal_data():
    """Everything stored about the user, as one JSON file to keep (their right of access)."""
    store.begin_read_only(db())
    document = json.dumps(store.personal_data(db(), current_user.id), ensure_ascii=False, indent=1)
    response = make_response(document)
    response.mimetype = "application/json"
    response.headers["Content-Disposition"] = (
        f'attachment; filename="quizsvc-{current_user.name}.json"'
    )
    response.headers["Cache-Control"] = "private, no-store"
    return response


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
        session[CHOSEN_LOGGED_OUT] = True  # kept with the account at the login
    return redirect(_safe_next(LanguageForm().back_to.data))
