"""Cheap password hashes for tests that create users by the store's own code: a PBKDF2 of
1 000 rounds instead of Werkzeug's default scrypt (~0.1 s a hash), as Django's test settings
do. Checking a password still runs the real code on the stored hash; the store's tests of
hashing itself (tests/store/test_store_users.py) keep the real one."""

from __future__ import annotations

import functools

import pytest
from werkzeug.security import generate_password_hash

from quizsvc.store import users


def hash_passwords_cheaply(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cheap hashes until ``monkeypatch`` undoes it; so is a dummy hash (the one an unknown
    name is checked against) made meanwhile, which would otherwise outlive the patch."""
    cheap = functools.partial(generate_password_hash, method="pbkdf2:sha256:1000")
    monkeypatch.setattr(users, "generate_password_hash", cheap)
    monkeypatch.setattr(users, "_DUMMY_HASH", users._DUMMY_HASH)
