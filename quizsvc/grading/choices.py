"""Grade single- and multiple-choice answers given as choice ids."""

from __future__ import annotations

import math
import numbers
from collections.abc import Collection, Mapping

from quizsvc.grading.errors import AnswerRejected, Rejection
from quizsvc.messages import N_


def grade_single_choice(selected: str | None, correct: str) -> float:
    """1.0 when the selected choice id is the correct one, else 0.0 (None: no answer).

    Ids are compared exactly; they are machine ids from the question bank, not text
    the learner typed.
    """
    if not isinstance(correct, str) or not correct:
        raise ValueError(f"the correct choice id must be a non-empty string, got {correct!r}")
    if selected is not None and not isinstance(selected, str):
        raise TypeError(f"selected must be a choice id or None, got {selected!r}")
    return 1.0 if selected == correct else 0.0


def grade_multiple_choice(selected: Collection[str], choice_scores: Mapping[str, float]) -> float:
    """Sum of the selected choices' scores, clamped to [0, 1].

    Wrong choices usually carry negative scores so that ticking everything does not
    pay; the clamp keeps the total a valid score.  Selecting the same id twice counts
    once.  An id that is not in choice_scores raises AnswerRejected.
    """
    # A bare string is a Collection[str] of its characters; accepting it would grade
    # "ab" as the two choices "a" and "b".
    if isinstance(selected, str):
        raise TypeError("selected must be a collection of choice ids, not a single string")
    for choice, score in choice_scores.items():
        if (
            isinstance(score, bool)
            or not isinstance(score, numbers.Real)
            or not math.isfinite(score)
        ):
            raise ValueError(f"choice {choice!r} has an invalid score {score!r}")

    chosen = set(selected)
    unknown = sorted(str(choice) for choice in chosen if choice not in choice_scores)
    if len(unknown) == 1:
        raise AnswerRejected(
            N_("'{choice}' is not one of the choices"),
            Rejection.UNKNOWN_CHOICE,
            choice=unknown[0],
        )
    if unknown:
        listed = ", ".join(f"'{choice}'" for choice in unknown)
        raise AnswerRejected(
            N_("{choices} are not among the choices"), Rejection.UNKNOWN_CHOICES, choices=listed
        )

    total = math.fsum(float(choice_scores[choice]) for choice in chosen)
    return min(1.0, max(0.0, total))
