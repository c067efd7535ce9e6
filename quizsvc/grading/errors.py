"""The one exception the grading core raises for bad learner input."""

from __future__ import annotations


class AnswerRejected(ValueError):
    """The learner's input cannot be graded; it does not count as an attempt.

    ``str(exc)`` is a complete English sentence fragment meant to be shown to the
    learner as is, so messages never mention Python types or internals.
    Subclassing ValueError lets generic callers treat it as "bad value" without
    importing this module.
    """
