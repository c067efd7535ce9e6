"""The store's domain exceptions: each says plainly what was refused and why."""

from __future__ import annotations


class StoreError(Exception):
    """Base class of everything the store refuses on purpose."""


class NotFound(StoreError):
    """A user, variant or answer id that does not exist."""


class NotYourVariant(StoreError):
    """A learner submitted to a drill variant issued to someone else."""


class AttemptsExhausted(StoreError):
    """Every attempt the question allows has been used."""


class IdempotencyConflict(StoreError):
    """An idempotency key reused for a different answer (or variant, or question)."""


class InvalidText(StoreError):
    """Text no database can store as given (a NUL character, a lone surrogate)."""


class StaleReview(StoreError):
    """A review based on a page that no longer shows the answer's latest review."""


class NotAllowed(StoreError):
    """The user's role does not allow this (e.g. a student reviewing an answer)."""


class InvalidUser(StoreError):
    """A user name, display name or role that cannot be stored."""


class DuplicateUser(InvalidUser):
    """A user name that is already taken."""


class InvalidPassword(StoreError):
    """A password that is empty, too short, too long or too common."""


class CommonPassword(InvalidPassword):
    """A password on the list of the most common passwords."""


class WrongPassword(InvalidPassword):
    """A password that is not the user's own (when they change it)."""
