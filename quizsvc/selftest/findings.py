"""What the self-test reports: each check's name and result, and what a failed check (or a
note) found, as a ``Finding`` code with its parameters beside its English text."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from quizsvc.messages import N_


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
    BAD_FORMULA_IN_PROMPT = "bad_formula_in_prompt"
    BAD_FORMULA_IN_STEP = "bad_formula_in_step"
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
# points as (key, phrases) pairs, written out by ``points_text``.
FINDING_MESSAGES: dict[Finding, str] = {
    Finding.GENERATE_FAILED: N_("{error}"),
    Finding.BAD_FORMULA_IN_PROMPT: N_(
        "the formula ${tex}$ in the variant's prompt ({lang}) cannot be rendered ({reason})"
    ),
    Finding.BAD_FORMULA_IN_STEP: N_(
        "the formula ${tex}$ in step {step} of the worked solution ({lang}) cannot be "
        "rendered ({reason})"
    ),
    Finding.EXPECTED_REJECTED: N_("the expected answer {text!r} was rejected: {rejection}"),
    Finding.EXPECTED_NOT_FULL_SCORE: N_(
        "the expected answer {text!r} scored {score}; cells marked wrong: {cells}"
    ),
    Finding.PERTURBED_REJECTED: N_("the perturbed answer {text!r} was rejected: {rejection}"),
    Finding.MISTAKE_ACCEPTED: N_(
        "cell [{row}, {col}] = {submitted} (expected {expected}) was "
        "accepted; the tolerance (atol={atol}, rtol={rtol}) is too loose"
    ),
    Finding.UNPERTURBED_MARKED_WRONG: N_(
        "cell [{row}, {col}] was not perturbed but was marked wrong"
    ),
    Finding.PERTURBED_FULL_SCORE: N_("the perturbed answer scored {score}, not below 1"),
    Finding.ALL_OR_NOTHING_PARTIAL: N_("an all-or-nothing answer with wrong cells scored {score}"),
    Finding.TOLERANCE_TOO_LOOSE: N_(
        "cell [{row}, {col}] (expected {expected}) accepts answers up to "
        "{half_width} away, but a plausible mistake of {mistake} must be "
        "rejected with a margin: the tolerance may be at most {limit} there"
    ),
    Finding.WRONG_SHAPE_GRADED: N_(
        "a {rows} × {cols} answer ({text!r}) was graded (score {score}), not rejected"
    ),
    Finding.NOT_A_NUMBER_GRADED: N_(
        "a text that is not a number ({text!r}) was graded (score {score}), not rejected"
    ),
    Finding.STORED_FAILED: N_("{error}"),
    Finding.STORED_DIFFERS: N_("the variant differs after a JSON round trip"),
    Finding.STORED_NOT_REPRODUCED: N_("the seed and recorded params do not reproduce the variant"),
    Finding.REFERENCE_MISSES_POINTS: N_(
        "the reference answer contains no phrase of rubric point {points}: "
        "the review queue would suggest {score} for it"
    ),
    Finding.TIGHTER_THAN_KIND: N_(
        "tolerance atol={atol} is tighter than the kind's "
        "atol={kind_atol}, which allows for rounding every intermediate "
        "step by hand"
    ),
}


class Problem(str):
    """A finding's English text, which the CLI prints, with its ``code`` and ``params`` for
    an interface in another language."""

    code: Finding
    params: Mapping[str, Any]

    def __new__(cls, code: Finding, **params: Any) -> Problem:
        values = dict(params)
        if code is Finding.REFERENCE_MISSES_POINTS:
            values["points"] = points_text(params["points"])
        problem = super().__new__(cls, FINDING_MESSAGES[code].format(**values))
        problem.code = code
        problem.params = MappingProxyType(params)
        return problem


def _same(text: str) -> str:
    return text


# The pieces the CLI's lines are made of, marked for the interface's catalogs: the functions
# below put them together, given a `translate` (a template's text in another language).
POINT = N_("{key!r} (phrases: {phrases})")
LIST_SEPARATOR = N_("; ")
PHRASE_SEPARATOR = N_(", ")
CHECK_NAMES: dict[CheckName, str] = {
    CheckName.GENERATE: N_("generate"),
    CheckName.EXPECTED: N_("expected"),
    CheckName.PERTURBED: N_("perturbed"),
    CheckName.TOLERANCE: N_("tolerance"),
    CheckName.MALFORMED: N_("malformed"),
    CheckName.STORED: N_("stored"),
    CheckName.REFERENCE_ZH: N_("reference (zh)"),
    CheckName.REFERENCE_EN: N_("reference (en)"),
}
CHECK_WITH_SEED = N_("{check} (seed {seed})")
CHECK_PASSED = N_("{check}: ok")
CHECK_FAILED = N_("{check}: FAILED")
CHECK_FAILED_WITH = N_("{check}: FAILED: {problems}")
SUMMARY = N_(
    "{tested} questions tested ({checks} checks): {passed} passed, {failed} failed; "
    "{skipped} skipped (choice questions)"
)


def points_text(
    points: Iterable[tuple[str, Sequence[str]]], translate: Callable[[str], str] = _same
) -> str:
    """Missed rubric points as REFERENCE_MISSES_POINTS says them: 'key' (phrases: a, b)."""
    point, comma = translate(POINT), translate(PHRASE_SEPARATOR)
    return translate(LIST_SEPARATOR).join(
        point.format(key=key, phrases=comma.join(phrases)) for key, phrases in points
    )


def check_text(
    check: Check, translate: Callable[[str], str] = _same, describe: Callable[[Problem], str] = str
) -> str:
    """A check as the CLI lists it ("perturbed (seed 3): FAILED: ..."), each problem as
    `describe` says it."""
    name = translate(CHECK_NAMES[check.name])
    if check.seed is not None:
        name = translate(CHECK_WITH_SEED).format(check=name, seed=check.seed)
    if check.passed:
        return translate(CHECK_PASSED).format(check=name)
    if not check.problems:
        return translate(CHECK_FAILED).format(check=name)
    found = translate(LIST_SEPARATOR).join(describe(problem) for problem in check.problems)
    return translate(CHECK_FAILED_WITH).format(check=name, problems=found)


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
        return check_text(self)


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

    def summary(self, translate: Callable[[str], str] = _same) -> str:
        return translate(SUMMARY).format(
            tested=len(self.questions),
            checks=self.check_count,
            passed=len(self.questions) - len(self.failed),
            failed=len(self.failed),
            skipped=len(self.skipped),
        )
