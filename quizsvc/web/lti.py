"""The LMS launch (LTI 1.3), served with pylti1p3's Flask classes over `quizsvc.lti`: the OIDC
login initiation (`/lti/login`), the launch (`/lti/launch`: into a chapter's quiz or drills,
logged in to the account of the LMS user, created at the first launch), Deep Linking (the
instructor picks a quiz; the platform gets a signed response), the tool's key set
(`/lti/jwks`), and grade passback after a request that changed a score.

What must agree across worker processes (state, nonces, launch data, the platform's key set)
is in the store (`StoreLaunchDataStorage`). docs/lti.md has what an LMS administrator enters.
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from flask import (
    Blueprint,
    Flask,
    Response,
    abort,
    g,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import force_locale, gettext
from flask_login import current_user, login_required
from pylti1p3.contrib.flask import FlaskMessageLaunch, FlaskOIDCLogin, FlaskRequest
from pylti1p3.exception import LtiException, OIDCException

from quizsvc import store
from quizsvc.bank import localize
from quizsvc.lti import grades, keys
from quizsvc.lti.launch import (
    Target,
    deep_link_resource,
    display_name_of,
    grade_service_of,
    language_of,
    role_of,
    target_of,
    targets,
)
from quizsvc.lti.tool import OneTimeNonceSessionService, StoreLaunchDataStorage, StoreToolConf
from quizsvc.web.context import bank, db, state
from quizsvc.web.i18n import negotiated_language
from quizsvc.web.login_session import log_in, signed_jwt_endpoint, start_fresh_session

log = logging.getLogger(__name__)
bp = Blueprint("lti", __name__, url_prefix="/lti")

# How long the platform's key set fetched at a launch is kept (in the store, for every worker)
KEY_SET_LIFETIME = 3600
LAUNCH_ID = "lti_launch_id"  # the Flask session's key for the launch a Deep Linking page is for
# What a launch cannot use, whatever pylti1p3 found wrong: the page says it plainly
REFUSALS = (TypeError, ValueError, KeyError, AttributeError)


def init_app(app: Flask) -> None:
    app.after_request(_flush_grades_after_a_change)


def _conf() -> StoreToolConf:
    return StoreToolConf(db)


def _message_launch(req: FlaskRequest) -> FlaskMessageLaunch:
    storage = StoreLaunchDataStorage(db)
    launch = FlaskMessageLaunch(
        req,
        _conf(),
        session_service=OneTimeNonceSessionService(req),
        launch_data_storage=storage,
    )
    launch.set_public_key_caching(storage, cache_lifetime=KEY_SET_LIFETIME)
    return launch


@bp.route("/login", methods=["GET", "POST"])
@signed_jwt_endpoint
def login():
    """The platform's third-party initiated login: back to its OIDC endpoint with a state (in
    a cookie) and a nonce (in the store), which the launch must bring back. (Exempt from
    the CSRF check: the platform posts it cross-site, and it only starts a login that the
    platform's signed id_token must then complete.)"""
    req = FlaskRequest()
    oidc = FlaskOIDCLogin(
        req,
        _conf(),
        session_service=OneTimeNonceSessionService(req),
        launch_data_storage=StoreLaunchDataStorage(db),
    )
    try:
        return oidc.redirect(url_for("lti.launch", _external=True))
    except (OIDCException, LtiException, *REFUSALS) as exc:
        log.info("LTI login refused: %s", exc)
        return _refused(
            400, lambda: gettext("This LMS is not registered with quizsvc: ask its administrator.")
        )


@bp.post("/launch")
@signed_jwt_endpoint
def launch():
    """The launch: the id_token checked by pylti1p3 (signature against the platform's key
    set, issuer and audience against a registration, deployment, state, expiry, and a nonce
    used once). (Exempt from the CSRF check: the platform posts it cross-site, and the
    id_token it carries is signed by the platform and bound to this browser's state cookie.)"""
    message = _message_launch(FlaskRequest())
    try:
        claims: dict[str, Any] = dict(message.get_launch_data())
    except (LtiException, *REFUSALS) as exc:
        reason = str(exc)
        log.info("LTI launch refused: %s", reason)
        return _refused(403, lambda: _refusal_message(reason))
    language = language_of(claims)
    account = store.lti.account_for_launch(
        db(),
        issuer=claims["iss"],
        sub=str(claims["sub"]),
        role=role_of(claims),
        display_name=display_name_of(claims),
        language=language,
    )
    start_fresh_session()
    log_in(account.user, language)
    if message.is_deep_link_launch():
        if account.user.role != "instructor":
            abort(403, description=gettext("Only an instructor picks what a link opens."))
        session[LAUNCH_ID] = message.get_launch_id()
        return render_template("lti_deep_link.html", choices=_choices())
    target = target_of(claims, bank())
    if target is None:
        abort(404, description=gettext("The activity's chapter is not in the question bank."))
    service = grade_service_of(claims)
    if service is not None and target.kind == "quiz" and account.user.role == "student":
        platform = store.lti.find_platform(db(), claims["iss"], message.get_client_id())
        assert platform is not None  # the launch was checked against it
        store.lti.link_grades(
            db(),
            user_id=account.user.id,
            platform_id=platform.id,
            chapter_id=target.chapter_id,
            lineitem=service.lineitem,
            scopes=service.scopes,
            lms_user_id=str(claims["sub"]),
        )
    return redirect(_address(target), code=303)


def _address(target: Target) -> str:
    if target.kind == "quiz":
        return url_for("quiz.chapter", chapter_id=target.chapter_id)
    return url_for("drills.index")


def _title(target: Target) -> str:
    chapter = localize(bank().chapter(target.chapter_id).title, negotiated_language())
    if target.kind == "quiz":
        return gettext("Quiz: %(chapter)s", chapter=chapter)
    return gettext("Drills: %(chapter)s", chapter=chapter)


def _choices() -> list[dict[str, str]]:
    return [{"value": f"{t.kind}:{t.chapter_id}", "title": _title(t)} for t in targets(bank())]


@bp.post("/deep-link")
@login_required
def deep_link():
    """The instructor's pick, sent back to the platform as a signed LtiDeepLinkingResponse.
    A form of this site's page, so it carries the CSRF token as every other does."""
    launch_id = session.get(LAUNCH_ID)
    chosen = {c["value"]: c for c in _choices()}.get(request.form.get("target", ""))
    if not launch_id or not current_user.is_instructor:
        abort(403, description=gettext("Start the link's setup again from the LMS."))
    if chosen is None:
        abort(400, description=gettext("Choose one of the quizzes listed."))
    kind, _, chapter_id = chosen["value"].partition(":")
    target = Target(kind, chapter_id)  # type: ignore[arg-type]
    req = FlaskRequest()
    try:
        message = FlaskMessageLaunch.from_cache(
            launch_id,
            req,
            _conf(),
            session_service=OneTimeNonceSessionService(req),
            launch_data_storage=StoreLaunchDataStorage(db),
        )
        link = message.get_deep_link()
        resource = deep_link_resource(
            target, url_for("lti.launch", _external=True), chosen["title"]
        )
        token = link.get_response_jwt([resource])
        settings = message.get_launch_data()[_DEEP_LINKING_SETTINGS]
        return_url = settings["deep_link_return_url"]
    except (LtiException, *REFUSALS) as exc:
        log.info("LTI deep linking refused: %s", exc)
        abort(403, description=gettext("Start the link's setup again from the LMS."))
    session.pop(LAUNCH_ID, None)
    page = render_template("lti_deep_link_return.html", return_url=return_url, token=token)
    response = Response(page)
    response.headers["Content-Security-Policy"] = _policy_posting_to(return_url)
    return response


_DEEP_LINKING_SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"


def _policy_posting_to(url: str) -> str:
    """The app's Content-Security-Policy, with the platform's origin as a form's target."""
    from quizsvc.web import content_security_policy  # here: quizsvc.web imports this module

    parts = urlsplit(url)
    origin = f"{parts.scheme}://{parts.netloc}"
    policy = content_security_policy()
    return policy.replace("form-action 'self'", f"form-action 'self' {origin}")


@bp.get("/jwks")
def jwks():
    """The tool's public keys, with which a platform checks what the tool signs."""
    return jsonify(keys.jwks(db()))


# --- refusals -------------------------------------------------------------------------------


def _refusal_message(reason: str) -> str:
    """What the learner is told for pylti1p3's reason (English, for the log)."""
    if "expired" in reason:
        return gettext("The launch has expired: start the activity again from your course.")
    if "Nonce" in reason or "nonce" in reason:
        return gettext("This launch was already used: start the activity again from your course.")
    if "Registration not found" in reason or "Client id" in reason:
        return gettext("The launch was not meant for this tool, or its LMS is not registered here.")
    if "deployment" in reason:
        return gettext("This deployment of the LMS is not registered here.")
    if "State not found" in reason or "state" in reason:
        return gettext(
            "The launch could not be matched to its login: allow cookies for this site, or"
            " open the activity in a new window."
        )
    if "signature" in reason.lower() or "decode" in reason or "public key" in reason:
        return gettext("The launch's signature could not be verified.")
    return gettext("The launch could not be checked: start the activity again from your course.")


def _refused(status: int, message: Callable[[], str]) -> tuple[str, int]:
    """The error page, in the language of the launch's locale when it names one (read from
    the token unverified: it only picks the page's language)."""
    language = language_of(_unverified_claims()) or negotiated_language()
    with force_locale(language):
        page = render_template("error.html", status=status, message=message(), lang=language)
    return page, status


def _unverified_claims() -> dict[str, Any]:
    token = request.form.get("id_token", "")
    try:
        body = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    except (IndexError, ValueError):
        return {}
    return claims if isinstance(claims, dict) else {}


# --- grade passback -------------------------------------------------------------------------


def _flush_grades_after_a_change(response: Response) -> Response:
    """After a request whose session queued a grade passback (an answer scored, a review),
    once the response is sent: post the totals the outbox holds. Other requests cost
    nothing."""
    request_session = g.get("db")
    if request_session is None or not request_session.info.pop(store.lti.GRADES_QUEUED, False):
        return response
    sessions, current_bank = state().sessions, bank()

    def flush() -> None:
        try:
            with sessions() as flush_session:
                grades.flush_grades(flush_session, current_bank)
        except Exception:  # the response is sent: a failure is logged, the outbox kept
            log.exception("grade passback failed")

    response.call_on_close(flush)
    return response
