"""What the self-test reports: each check's name and result, and what a failed check (or a
note) found, as a ``Finding`` code with its parameters beside its English text."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any


class CheckName(StrEnum):
    GENERATE = "generate"
    EXPECTED = "expected"
    PERTURBED = "perturbed"
    TOLERANCE = "tolerance"
    MALFORMED = "malformed"
    STORED = "stored"
    REFERENCE_ZH = "reference (zh)"
    REFERENCE_EN = "reference (en)"


class Finding(StrEnum):
    """What a failed check (or a note) found: a stable code an interface can translate, as
    ``quizsvc.grading.Rejection`` is for a learner's answer."""

    GENERATE_FAILED = "generate_failed"
    EXPECTED_REJECTED = "expected_rejected"
    EXPECTED_NOT_FULL_SCORE = "expected_not_full_score"
    PERTURBED_REJECTED = "perturbed_rejected"
    MISTAKE_ACCEPTED = "mistake_accepted"
    UNPERTURBED_MARKED_WRONG = "unperturbed_marked_wrong"
    PERTURBED_FULL_SCORE = "perturbed_full_score"
    ALL_OR_NOTHING_PARTIAL = "all_or_nothing_partial"
    TOLERANCE_TOO_LOOSE = "tolerance_too_loose"
    WRONG_SHAPE_GRADED = "wrong_shape_graded"
    NOT_A_NUMBER_GRADED = "not_a_number_graded"
    STORED_FAILED = "stored_failed"
    STORED_DIFFERS = "stored_differs"
    STORED_NOT_REPRODUCED = "stored_not_reproduced"
    REFERENCE_MISSES_POINTS = "reference_misses_points"
    TIGHTER_THAN_KIND = "tighter_than_kind"


# The English text of each finding, formatted with its parameters. "error" is a Python
# exception's own text; "rejection" is the grader's AnswerRejected; "points" the missed rubric
# points as (key, phrases) pairs, written out by ``_points_text``.
FINDING_MESSAGES: dict[Finding, str] = {
    Finding.GENERATE_FAILED: "{error}",
    Finding.EXPECTED_REJECTED: "the expected answer {text!r} was rejected: {rejection}",
    Finding.EXPECTED_NOT_FULL_SCORE: "the expected answer {text!r} scored {score}; cells marked"
    " wrong: {cells}",
    Finding.PERTURBED_REJECTED: "the perturbed answer {text!r} was rejected: {rejection}",
    Finding.MISTAKE_ACCEPTED: "cell [{row}, {col}] = {submitted} (expected {expected}) was"
    " accepted; the tolerance (atol={atol}, rtol={rtol}) is too loose",
    Finding.UNPERTURBED_MARKED_WRONG: "cell [{row}, {col}] was not perturbed but was marked wrong",
    Finding.PERTURBED_FULL_SCORE: "the perturbed answer scored {score}, not below 1",
    Finding.ALL_OR_NOTHING_PARTIAL: "an all-or-nothing answer with wrong cells scored {score}",
    Finding.TOLERANCE_TOO_LOOSE: "cell [{row}, {col}] (expected {expected}) accepts answers up"
    " to {half_width} away, but a plausible mistake of {mistake} must be rejected with a"
    " margin: the tolerance may be at most {limit} there",
    Finding.WRONG_SHAPE_GRADED: "a {rows} × {cols} answer ({text!r}) was graded (score"
    " {score}), not rejected",
    Finding.NOT_A_NUMBER_GRADED: "a text that is not a number ({text!r}) was graded (score"
    " {score}), not rejected",
    Finding.STORED_FAILED: "{error}",
    Finding.STORED_DIFFERS: "the variant differs after a JSON round trip",
    Finding.STORED_NOT_REPRODUCED: "the seed and recorded params do not reproduce the variant",
    Finding.REFERENCE_MISSES_POINTS: "the reference answer contains no phrase of rubric point"
    " {points}: the review queue would suggest {score} for it",
    Finding.TIGHTER_THAN_KIND: "tolerance atol={atol} is tighter than the kind's atol="
    "{kind_atol}, which allows for rounding every intermediate step by hand",
}


class Problem(str):
    """A finding's English text, which the CLI prints, with its ``code`` and ``params`` for
    an interface in another language."""

    code: Finding
    params: Mapping[str, Any]

    def __new__(cls, code: Finding, **params: Any) -> Problem:
        values = dict(params)
        if code is Finding.REFERENCE_MISSES_POINTS:
            values["points"] = _points_text(params["points"])
        problem = super().__new__(cls, FINDING_MESSAGES[code].format(**values))
        problem.code = code
        problem.params = MappingProxyType(params)
        return problem


def _points_text(points: Iterable[tuple[str, Sequence[str]]]) -> str:
    return "; ".join(f"{key!r} (phrases: {', '.join(phrases)})" for key, phrases in points)


@dataclass(frozen=True)
class Check:
    name: CheckName
    seed: int | None  # None for a numeric question, which has no seed
    passed: bool
    message: str = ""
    # what a failed check found; its message is their English texts
    problems: tuple[Problem, ...] = ()

    @classmethod
    def failed(cls, name: CheckName, seed: int | None, *problems: Problem) -> Check:
        return cls(name, seed, False, "; ".join(problems), problems)

    def __str__(self) -> str:
        where = "" if self.seed is None else f" (seed {self.seed})"
        status = "ok" if self.passed else "FAILED"
        return f"{self.name}{where}: {status}" + (f": {self.message}" if self.message else "")


@dataclass(frozen=True)
class QuestionReport:
    question_id: str
    question_type: str
    kind: str | None  # the drill kind
    source: str  # FILE:LINE where the question is written
    seeds: tuple[int, ...]
    checks: tuple[Check, ...]
    # Observations that do not fail the test (a tolerance tighter than the kind's default).
    notes: tuple[Problem, ...] = ()

    @property
    def passed(self) -> bool:
        return all(check.passed for check in self.checks)

    @property
    def failures(self) -> tuple[Check, ...]:
        return tuple(check for check in self.checks if not check.passed)


@dataclass(frozen=True)
class SelfTestReport:
    questions: tuple[QuestionReport, ...]  # numeric, open and drill questions, in bank order
    # ids of the choice questions: `validate` has checked all there is to their keys
    skipped: tuple[str, ...] = field(default=())

    @property
    def passed(self) -> bool:
        return all(question.passed for question in self.questions)

    @property
    def failed(self) -> tuple[QuestionReport, ...]:
        return tuple(question for question in self.questions if not question.passed)

    @property
    def check_count(self) -> int:
        return sum(len(question.checks) for question in self.questions)

    def summary(self) -> str:
        return (
            f"{len(self.questions)} questions tested ({self.check_count} checks): "
            f"{len(self.questions) - len(self.failed)} passed, {len(self.failed)} failed; "
            f"{len(self.skipped)} skipped (choice questions)"
        )
