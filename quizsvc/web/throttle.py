"""Password guessing slowed down: attempts to prove an account's password (logging in, the
current password of a password change) are counted per account name, and once an account
has had LOGIN_ATTEMPT_LIMITS of them without a success (default 10 in any 10 minutes), its
password is not checked again until the oldest counted attempt has left the window. A
success forgets the account's count.

Counted per name, not per client address: behind a reverse proxy every client has the
proxy's address, and one address's limit would lock out everyone. The price is that
someone who keeps failing as another user keeps that user out for as long as they go on;
the limit is set so that this costs them a steady stream of requests while a guesser gets at
most 1,440 passwords a day. Names that are nobody's are counted like any other, so the
answer never tells whether an account exists.

The counts live in the `limits` library's storage named by LOGIN_THROTTLE_STORAGE:
"memory://" (the default) holds them in this process, which is right for `make run`'s one
process; a deployment of several processes needs a storage they share (`redis://...`,
`memcached://...`, with that `limits` extra installed), or each process counts on its own.
"""

from __future__ import annotations

import hashlib
import math
import time
from dataclasses import dataclass

from flask import current_app
from limits import RateLimitItem
from limits.storage import storage_from_string
from limits.strategies import MovingWindowRateLimiter

from quizsvc.settings import parse_rate_limits


@dataclass(frozen=True)
class PasswordThrottle:
    limiter: MovingWindowRateLimiter
    limits: tuple[RateLimitItem, ...]

    @classmethod
    def create(cls, storage_uri: str, limits: str) -> PasswordThrottle:
        """ValueError naming the setting for limits that do not read as such ("10 per
        fortnight"; "5 per minute; 20 per hour" is two) or a storage `limits` lacks."""
        try:
            items = parse_rate_limits(limits)
        except ValueError as exc:
            raise ValueError(f"QUIZSVC_LOGIN_ATTEMPT_LIMITS: {exc}") from None
        try:
            storage = storage_from_string(storage_uri)
        except Exception as exc:  # limits raises ConfigurationError, ImportError, ...
            raise ValueError(
                f"QUIZSVC_LOGIN_THROTTLE_STORAGE is not a storage the limits library can use: {exc}"
            ) from None
        return cls(MovingWindowRateLimiter(storage), items)

    def attempt(self, name: str) -> int | None:
        """Count an attempt at `name`'s password, before checking it: None if it may be
        checked, else the whole seconds until it may be tried again."""
        key = _key(name)
        # hit (count if under the limit) in one step, not test then hit: requests sent at
        # once could otherwise all pass the test
        counted = [self.limiter.hit(item, key) for item in self.limits]
        return None if all(counted) else self._wait(key)

    def succeeded(self, name: str) -> None:
        """The password was right: the attempts before it are forgotten."""
        key = _key(name)
        for item in self.limits:
            self.limiter.clear(item, key)

    def _wait(self, key: str) -> int:
        now = time.time()
        waits = [
            self.limiter.get_window_stats(item, key).reset_time - now
            for item in self.limits
            if not self.limiter.test(item, key)
        ]
        return max(1, math.ceil(max(waits, default=1)))


def password_throttle() -> PasswordThrottle:
    return current_app.extensions["quizsvc.password_throttle"]


def init_app(app) -> None:
    app.extensions["quizsvc.password_throttle"] = PasswordThrottle.create(
        app.config["LOGIN_THROTTLE_STORAGE"], app.config["LOGIN_ATTEMPT_LIMITS"]
    )


def minutes(seconds: int) -> int:
    """A wait as the whole minutes to tell a person (rounded up: never too early)."""
    return math.ceil(seconds / 60)


def _key(name: str) -> str:
    # a digest: a typed name may be of any length and hold any character
    return "password:" + hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()
