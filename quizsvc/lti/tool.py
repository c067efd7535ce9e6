"""quizsvc as an LTI 1.3 tool for pylti1p3, from the store: the registrations of the platforms
(`StoreToolConf`), the values kept between an OIDC login and its launch
(`StoreLaunchDataStorage`, in the database so that every worker process sees them), and a
session service that lets a nonce be used once (`OneTimeNonceSessionService`). No Flask here:
the web layer hands these to pylti1p3's Flask classes.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from pylti1p3.deployment import Deployment
from pylti1p3.launch_data_storage.base import LaunchDataStorage
from pylti1p3.registration import Registration
from pylti1p3.session import SessionService
from pylti1p3.tool_config import ToolConfAbstract
from sqlalchemy.orm import Session

from quizsvc import store
from quizsvc.lti.keys import public_jwk

# How long a value pylti1p3 keeps lasts when it names no time of its own (its default for
# launch data: a day).
DEFAULT_LIFETIME = 86400


class ToolRegistration(Registration):
    """A platform's registration signed with the tool's newest key, which it names by its
    key id (the JWKS's `kid`), so the platform finds it in the tool's key set."""

    _kid: str | None = None

    def set_kid(self, kid: str) -> ToolRegistration:
        self._kid = kid
        return self

    def get_kid(self) -> str | None:
        return self._kid

    def get_jwks(self) -> list[dict[str, Any]]:
        public = self.get_tool_public_key()
        return [public_jwk(public, self._kid)] if public and self._kid else []


class StoreToolConf(ToolConfAbstract):
    """The platforms registered with `quizsvc lti add-platform`, looked up by issuer and
    client id (an issuer may have several clients); `session` gives the request's session."""

    def __init__(self, session: Callable[[], Session]) -> None:
        super().__init__()
        self._session = session

    # every issuer may have several client ids: pylti1p3 then always asks by both
    def check_iss_has_one_client(self, iss: str) -> bool:
        return False

    def check_iss_has_many_clients(self, iss: str) -> bool:
        return True

    def find_registration_by_issuer(self, iss: str, *args: Any, **kwargs: Any) -> Registration:
        return self.find_registration_by_params(iss, None, *args, **kwargs)

    def find_registration_by_params(  # type: ignore[override]
        self, iss: str, client_id: str | None, *args: Any, **kwargs: Any
    ) -> Registration | None:
        platform = store.lti.find_platform(self._session(), iss, client_id)
        return None if platform is None else self.registration(platform)

    def registration(self, platform: store.LtiPlatform) -> ToolRegistration:
        registration = ToolRegistration()
        registration.set_issuer(platform.issuer).set_client_id(platform.client_id)
        registration.set_auth_login_url(platform.auth_login_url)
        registration.set_auth_token_url(platform.auth_token_url)
        registration.set_key_set_url(platform.key_set_url)
        if platform.auth_audience:
            registration.set_auth_audience(platform.auth_audience)
        keys = store.lti.tool_keys(self._session())
        if keys:
            registration.set_tool_private_key(keys[0].private_pem)
            registration.set_tool_public_key(keys[0].public_pem)
            registration.set_kid(keys[0].kid)
        return registration

    def find_deployment(self, iss: str, deployment_id: str) -> Deployment | None:
        return self.find_deployment_by_params(iss, deployment_id, None)

    def find_deployment_by_params(  # type: ignore[override]
        self, iss: str, deployment_id: str, client_id: str | None, *args: Any, **kwargs: Any
    ) -> Deployment | None:
        platform = store.lti.find_platform(self._session(), iss, client_id)
        if platform is None or deployment_id not in platform.deployment_ids:
            return None
        return Deployment().set_deployment_id(deployment_id)


class StoreLaunchDataStorage(LaunchDataStorage[Any]):
    """pylti1p3's launch values in the store's `lti_launch_values`. Its keys are random
    (state, nonce, launch id), so they are not prefixed with a browser's session id: the
    launch comes in a cross-site POST, which may carry no cookie of an earlier response
    but the state one pylti1p3 checks."""

    def __init__(self, session: Callable[[], Session]) -> None:
        super().__init__()
        self._session = session

    def get_session_cookie_name(self) -> str | None:
        return None

    def can_set_keys_expiration(self) -> bool:
        return True

    def get_value(self, key: str) -> Any:
        return store.lti.launch_value(self._session(), self._prepare_key(key))

    def set_value(self, key: str, value: Any, exp: int | None = None) -> None:
        lifetime = timedelta(seconds=exp or DEFAULT_LIFETIME)
        store.lti.set_launch_value(
            self._session(),
            self._prepare_key(key),
            value,
            expires_at=datetime.now(UTC) + lifetime,
        )

    def check_value(self, key: str) -> bool:
        return self.get_value(key) is not None

    def take_value(self, key: str) -> bool:
        return store.lti.take_launch_value(self._session(), self._prepare_key(key))


class OneTimeNonceSessionService(SessionService):
    """pylti1p3's session service, but a nonce is taken when a launch is checked: the same
    id_token posted again (a replay) finds its nonce gone and is refused. (pylti1p3 only
    checks that the nonce exists, so that a reload of the launch page would pass.)"""

    def check_nonce(self, nonce: str) -> bool:
        storage = self.data_storage
        if not isinstance(storage, StoreLaunchDataStorage):
            raise TypeError("the launch data storage must be the store's")
        return storage.take_value(self._get_key("nonce", nonce))
