"""Password guessing slowed down, counted two ways:

- per account name: attempts to prove an account's password (logging in, the current
  password of a password change). Once an account has had LOGIN_ATTEMPT_LIMITS of them
  without a success (default 10 in any 10 minutes), its password is not checked again until
  the oldest counted attempt has left the window. A success forgets the account's count.
  Names that are nobody's are counted like any other, so the answer never tells whether an
  account exists. Someone who keeps failing as another user keeps that user out for as long
  as they go on; the limit is set so that this costs them a steady stream of requests while
  a guesser gets at most 1,440 passwords a day per account.
- per client address: failed logins from one address, whatever the names
  (LOGIN_ADDRESS_ATTEMPT_LIMITS, default 50 in any 10 minutes), so that trying a few
  passwords on many accounts (password spraying) is slowed too. Only failures count, and a
  success forgets nothing: logging in to one's own account must not reset a sprayer's count.
  The limit is generous because a class behind one school's NAT shares an address. An IPv6
  address counts by its /64 network, which a single host usually has whole.

The client address is the connection's. Behind reverse proxies that is the nearest proxy's,
and every client would share one count: TRUSTED_PROXIES (default 0) names how many proxies
in front of the app to believe, and Werkzeug's ProxyFix then takes the address from as many
X-Forwarded-For entries (`init_app`), and the scheme and host from X-Forwarded-Proto and
X-Forwarded-Host alike. Never more than there are: a client can write any X-Forwarded-For it
likes, and only the entries the trusted proxies appended are true.

The counts live in the database (`quizsvc.store.login_attempts`, a row per counted attempt):
every worker process, on every host, counts against the same limits, exactly (an attempt is
counted in one transaction holding its name's lock), and a restart forgets nothing. They are
kept in the request's own session (`db()`), whose transaction a login's password check may
already hold: on SQLite a second connection would wait for that one's write lock.
"""

from __future__ import annotations

import hashlib
import ipaddress
import math
from dataclasses import dataclass
from datetime import timedelta

from flask import Flask, current_app, request
from werkzeug.middleware.proxy_fix import ProxyFix

from quizsvc import store
from quizsvc.settings import parse_rate_limits
from quizsvc.web.context import db


@dataclass(frozen=True)
class Refusal:
    """Why an attempt may not be checked now: "name" or "address", and the whole seconds
    until one may be tried again."""

    reason: str
    wait: int


@dataclass(frozen=True)
class PasswordThrottle:
    name_limits: tuple[store.AttemptLimit, ...]
    address_limits: tuple[store.AttemptLimit, ...]

    @classmethod
    def create(cls, name_limits: str, address_limits: str) -> PasswordThrottle:
        """ValueError naming the setting for limits that do not read as such ("10 per
        fortnight"; "5 per minute; 20 per hour" is two)."""
        parsed = []
        for setting, limits in (
            ("QUIZSVC_LOGIN_ATTEMPT_LIMITS", name_limits),
            ("QUIZSVC_LOGIN_ADDRESS_ATTEMPT_LIMITS", address_limits),
        ):
            try:
                items = parse_rate_limits(limits)
            except ValueError as exc:
                raise ValueError(f"{setting}: {exc}") from None
            parsed.append(
                tuple(
                    store.AttemptLimit(item.amount, timedelta(seconds=item.get_expiry()))
                    for item in items
                )
            )
        return cls(*parsed)

    @property
    def keep(self) -> timedelta:
        """How long an attempt counts for any limit."""
        return max(limit.window for limit in (*self.name_limits, *self.address_limits))

    def attempt(self, name: str, address: str | None = None) -> Refusal | None:
        """Count an attempt at `name`'s password (from `address`, for a login), before
        checking it: None if it may be checked, else why not and for how long."""
        # tested, not counted: the address counts failures only (`failed`)
        checked = (
            (store.Counter(_address_key(address), self.address_limits),)
            if address is not None
            else ()
        )
        # counted if under the limit in one step, not tested then counted: requests sent at
        # once could otherwise all pass the test
        refused = store.count_attempt(
            db(),
            store.Counter(name_key(name), self.name_limits),
            checked=checked,
            keep=self.keep,
        )
        if refused is None:
            return None
        reason = "name" if refused.key.startswith(NAME_PREFIX) else "address"
        return Refusal(reason, max(1, math.ceil(refused.wait.total_seconds())))

    def failed(self, address: str) -> None:
        """A login from `address` had a wrong name or password. (Counted after the check, so
        requests in flight at once may each pass `attempt` first: past the limit by at most
        as many as the server handles at a time.)"""
        store.count_attempt(
            db(), store.Counter(_address_key(address), self.address_limits), keep=self.keep
        )

    def succeeded(self, name: str) -> None:
        """The password was right: the attempts at this name before it are forgotten."""
        store.forget_attempts(db(), name_key(name))


def password_throttle() -> PasswordThrottle:
    return current_app.extensions["quizsvc.password_throttle"]


def client_address() -> str:
    """The address this request came from (the client's, with TRUSTED_PROXIES set right)."""
    return request.remote_addr or ""


def init_app_state(app: Flask) -> None:
    """The throttle for the app's settings (its counts are in the app's database)."""
    app.extensions["quizsvc.password_throttle"] = PasswordThrottle.create(
        app.config["LOGIN_ATTEMPT_LIMITS"],
        app.config["LOGIN_ADDRESS_ATTEMPT_LIMITS"],
    )


def init_app(app: Flask) -> None:
    init_app_state(app)
    if proxies := app.config["TRUSTED_PROXIES"]:
        # the client's address, and the scheme and host it asked for (TLS ends at the proxy:
        # the app sees plain HTTP, and knows from X-Forwarded-Proto that the page is HTTPS)
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies
        )


def minutes(seconds: int) -> int:
    """A wait as the whole minutes to tell a person (rounded up: never too early)."""
    return math.ceil(seconds / 60)


NAME_PREFIX = "password:"


def name_key(name: str) -> str:
    """The key a user name's failed passwords are counted under."""
    # a digest: a typed name may be of any length and hold any character
    return NAME_PREFIX + hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()


def _address_key(address: str) -> str:
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:  # no address (a Unix socket) or not an IP: counted as it is
        return "address:" + hashlib.sha256(address.encode("utf-8", "surrogatepass")).hexdigest()
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:  # ::ffff:192.0.2.1, an IPv4 client of a v6 socket
            return f"address:{parsed.ipv4_mapped}"
        return f"address:{ipaddress.ip_network(f'{parsed}/64', strict=False)}"
    return f"address:{parsed}"
