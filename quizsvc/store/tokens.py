"""Random bearer secrets (API tokens, login sessions) and the digests the store keeps of them."""

from __future__ import annotations

import hashlib
import secrets


def new_token() -> str:
    """256 random bits, URL-safe: for a header or a cookie."""
    return secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    # A token is 256 random bits, so a fast digest is enough: nothing to brute-force, and the
    # lookup by digest stays an indexed equality.
    return hashlib.sha256(token.encode()).hexdigest()
