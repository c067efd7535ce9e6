"""Self-test of the question bank, in the spirit of PrairieLearn's element tests.

For every numeric question (once) and every drill (for several seeds) the answer key is put
through the real grader the way a learner's typed answer would be:

- ``expected``: the expected answer, typed at full precision, grades 100%;
- ``perturbed``: the same answer with a few cells off by a plausible mistake grades below
  100%, with exactly those cells marked wrong;
- ``tolerance``: every cell's accepted interval is well inside a plausible mistake, so a
  tolerance so loose that mistakes pass is reported even for cells not perturbed;
- ``malformed``: an answer of the wrong shape, and one that is not a number, are rejected
  (``AnswerRejected``) rather than graded;
- for drills, ``generate`` (the kind produces a variant), and ``stored`` (the variant
  survives its JSON record and is reproduced from its seed and recorded params).

For every open question, ``reference (zh)`` and ``reference (en)``: the reference answer in
that language makes every rubric point, as the review queue's suggestion finds them. A point
none of whose phrases occurs in the model answer has a misspelt or missing phrase, and the
queue would suggest less than 100% for a right answer.

A *plausible mistake* does not depend on the question's tolerance (otherwise a huge
tolerance would only make the perturbation huge too): it is 0.1 or 10% of the value,
whichever is larger, i.e. a wrong first decimal of a value of the chapter's size.
Infinite cells (masked scores) are perturbed to 0, the classic mistake there.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any

import numpy as np

from quizsvc.bank import LANGUAGES, Bank, DrillQuestion, NumericQuestion, OpenQuestion, localize
from quizsvc.drills import DRILL_KINDS, Variant, generate_variant
from quizsvc.grading import N_, AnswerRejected, Tolerance, grade_numeric, suggest_open_score
from quizsvc.practice import question_tolerance, rubric_points

DEFAULT_SEEDS: tuple[int, ...] = (0, 1, 2, 3, 4)

MISTAKE_ABSOLUTE = 0.1
MISTAKE_RELATIVE = 0.1
# An accepted interval's half-width may be at most this share of a plausible mistake, so a
# mistake is rejected with a wide margin rather than at the edge of the interval.
MAX_TOLERANCE_SHARE = 1 / 3
MAX_PERTURBED_CELLS = 2

NOT_A_NUMBER = "abc"


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
    Finding.GENERATE_FAILED: N_("{error}"),
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


def run_selftest(bank: Bank, seeds: Sequence[int] = DEFAULT_SEEDS) -> SelfTestReport:
    """Test every numeric and open question once and every drill question for each of
    ``seeds``."""
    reports = []
    skipped = []
    for question in bank.questions.values():
        source = str(bank.source_of[question.id])
        if isinstance(question, NumericQuestion):
            reports.append(_numeric_report(question, source))
        elif isinstance(question, DrillQuestion):
            reports.append(_drill_report(question, bank.drill_params[question.id], source, seeds))
        elif isinstance(question, OpenQuestion):
            reports.append(_open_report(question, source))
        else:
            skipped.append(question.id)
    return SelfTestReport(questions=tuple(reports), skipped=tuple(skipped))


def answer_text(values: np.ndarray) -> str:
    """An answer typed as a learner would: rows separated by "; ", every digit kept.

    ``repr`` of a float is the shortest text that reads back as the same float; infinities
    are written ``inf`` / ``-inf`` as the grader accepts them.
    """
    return "; ".join(" ".join(repr(float(value)) for value in row) for row in np.atleast_2d(values))


def check_answer_key(
    expected: np.ndarray, tolerance: Tolerance, all_or_nothing: bool, seed: int | None
) -> list[Check]:
    """The grader checks for one expected answer (a 2-D array)."""
    expected = np.atleast_2d(np.asarray(expected, dtype=np.float64))
    rng = np.random.default_rng(0 if seed is None else seed)
    return [
        _check_expected(expected, tolerance, all_or_nothing, seed),
        _check_perturbed(expected, tolerance, all_or_nothing, seed, rng),
        _check_tolerance(expected, tolerance, seed),
        _check_malformed(expected, tolerance, all_or_nothing, seed),
    ]


def plausible_mistake(expected: float) -> float:
    return max(MISTAKE_ABSOLUTE, MISTAKE_RELATIVE * abs(expected))


# --- per question ----------------------------------------------------------------------


def _numeric_report(question: NumericQuestion, source: str) -> QuestionReport:
    tolerance = Tolerance(atol=question.tolerance.atol, rtol=question.tolerance.rtol)
    checks = check_answer_key(question.answer_matrix(), tolerance, question.all_or_nothing, None)
    return QuestionReport(question.id, question.type, None, source, (), tuple(checks))


def _drill_report(
    question: DrillQuestion, params: object, source: str, seeds: Sequence[int]
) -> QuestionReport:
    checks: list[Check] = []
    notes: list[Problem] = []
    for seed in seeds:
        try:
            variant = generate_variant(question.kind, seed, params)
        except Exception as exc:  # a broken kind is a test failure, not a crash of the test
            error = f"{type(exc).__name__}: {exc}"
            checks.append(
                Check.failed(
                    CheckName.GENERATE, seed, Problem(Finding.GENERATE_FAILED, error=error)
                )
            )
            continue
        checks.append(Check(CheckName.GENERATE, seed, True))
        graded = variant.with_scoring(question_tolerance(question), question.all_or_nothing)
        if question.tolerance is not None:
            notes.extend(_tighter_than_kind(graded.tolerance, variant))
        checks.extend(
            check_answer_key(graded.answer.values, graded.tolerance, graded.all_or_nothing, seed)
        )
        checks.append(_check_stored(variant, seed))
    kind = DRILL_KINDS.get(question.kind)
    return QuestionReport(
        question.id,
        question.type,
        question.kind if kind is not None else None,
        source,
        tuple(seeds),
        tuple(checks),
        tuple(dict.fromkeys(notes)),  # once per distinct note, in order
    )


def _open_report(question: OpenQuestion, source: str) -> QuestionReport:
    checks = tuple(_check_reference(question, lang) for lang in LANGUAGES)
    return QuestionReport(question.id, question.type, None, source, (), checks)


def _check_reference(question: OpenQuestion, lang: str) -> Check:
    name = CheckName(f"reference ({lang})")
    suggestion = suggest_open_score(
        localize(question.reference_answer, lang), rubric_points(question)
    )
    missed = [point for point in question.rubric if point.key not in suggestion.found]
    if not missed:
        return Check(name, None, True)
    points = tuple((point.key, tuple(getattr(point.phrases, lang))) for point in missed)
    score = f"{suggestion.score:.0%}"
    return Check.failed(
        name, None, Problem(Finding.REFERENCE_MISSES_POINTS, points=points, score=score)
    )


def _tighter_than_kind(tolerance: Tolerance, variant: Variant) -> Iterable[Problem]:
    if tolerance.atol < variant.tolerance.atol and tolerance.rtol <= variant.tolerance.rtol:
        yield Problem(
            Finding.TIGHTER_THAN_KIND,
            atol=f"{tolerance.atol:g}",
            kind_atol=f"{variant.tolerance.atol:g}",
        )


# --- the checks --------------------------------------------------------------------------


def _check_expected(
    expected: np.ndarray, tolerance: Tolerance, all_or_nothing: bool, seed: int | None
) -> Check:
    text = answer_text(expected)
    try:
        grade = grade_numeric(text, expected, tolerance, all_or_nothing=all_or_nothing)
    except AnswerRejected as exc:
        return Check.failed(
            CheckName.EXPECTED, seed, Problem(Finding.EXPECTED_REJECTED, text=text, rejection=exc)
        )
    if grade.score != 1.0 or not grade.all_correct:
        wrong = [f"[{cell.row}, {cell.col}]" for cell in grade.cells if not cell.correct]
        problem = Problem(
            Finding.EXPECTED_NOT_FULL_SCORE,
            text=text,
            score=f"{grade.score:g}",
            cells=", ".join(wrong),
        )
        return Check.failed(CheckName.EXPECTED, seed, problem)
    return Check(CheckName.EXPECTED, seed, True)


def _check_perturbed(
    expected: np.ndarray,
    tolerance: Tolerance,
    all_or_nothing: bool,
    seed: int | None,
    rng: np.random.Generator,
) -> Check:
    cells = list(np.ndindex(expected.shape))
    # Leave at least one cell as it is, so "exactly the perturbed cells" means something.
    count = 1 if len(cells) <= 2 else MAX_PERTURBED_CELLS
    chosen = sorted(cells[i] for i in rng.choice(len(cells), size=count, replace=False))
    submitted = expected.copy()
    for cell in chosen:
        value = expected[cell]
        if math.isinf(value):
            submitted[cell] = 0.0
        else:
            submitted[cell] = value + rng.choice((-1.0, 1.0)) * plausible_mistake(value)
    text = answer_text(submitted)
    try:
        grade = grade_numeric(text, expected, tolerance, all_or_nothing=all_or_nothing)
    except AnswerRejected as exc:
        problem = Problem(Finding.PERTURBED_REJECTED, text=text, rejection=exc)
        return Check.failed(CheckName.PERTURBED, seed, problem)
    wrong = {(cell.row, cell.col) for cell in grade.cells if not cell.correct}
    problems = []
    for cell in chosen:
        if cell not in wrong:
            problems.append(
                Problem(
                    Finding.MISTAKE_ACCEPTED,
                    row=cell[0],
                    col=cell[1],
                    submitted=repr(float(submitted[cell])),
                    expected=repr(float(expected[cell])),
                    atol=f"{tolerance.atol:g}",
                    rtol=f"{tolerance.rtol:g}",
                )
            )
    for cell in sorted(wrong - set(chosen)):
        problems.append(Problem(Finding.UNPERTURBED_MARKED_WRONG, row=cell[0], col=cell[1]))
    score = f"{grade.score:g}"
    if grade.score >= 1.0:
        problems.append(Problem(Finding.PERTURBED_FULL_SCORE, score=score))
    if all_or_nothing and grade.score != 0.0:
        problems.append(Problem(Finding.ALL_OR_NOTHING_PARTIAL, score=score))
    if problems:
        return Check.failed(CheckName.PERTURBED, seed, *problems)
    return Check(CheckName.PERTURBED, seed, True)


def _check_tolerance(expected: np.ndarray, tolerance: Tolerance, seed: int | None) -> Check:
    for cell in np.ndindex(expected.shape):
        value = float(expected[cell])
        if math.isinf(value):
            continue  # only the infinity itself is ever accepted
        half_width = tolerance.atol + tolerance.rtol * abs(value)
        mistake = plausible_mistake(value)
        if half_width > MAX_TOLERANCE_SHARE * mistake:
            problem = Problem(
                Finding.TOLERANCE_TOO_LOOSE,
                row=cell[0],
                col=cell[1],
                expected=repr(value),
                half_width=f"{half_width:g}",
                mistake=f"{mistake:g}",
                limit=f"{MAX_TOLERANCE_SHARE * mistake:g}",
            )
            return Check.failed(CheckName.TOLERANCE, seed, problem)
    return Check(CheckName.TOLERANCE, seed, True)


def _check_malformed(
    expected: np.ndarray, tolerance: Tolerance, all_or_nothing: bool, seed: int | None
) -> Check:
    wrong_shape = np.concatenate([expected, expected[:, :1]], axis=1)  # one column too many
    problems = []
    rows, cols = wrong_shape.shape
    for finding, text, shape in (
        (Finding.WRONG_SHAPE_GRADED, answer_text(wrong_shape), {"rows": rows, "cols": cols}),
        (Finding.NOT_A_NUMBER_GRADED, NOT_A_NUMBER, {}),
    ):
        try:
            grade = grade_numeric(text, expected, tolerance, all_or_nothing=all_or_nothing)
        except AnswerRejected:
            continue
        problems.append(Problem(finding, text=text, score=f"{grade.score:g}", **shape))
    if problems:
        return Check.failed(CheckName.MALFORMED, seed, *problems)
    return Check(CheckName.MALFORMED, seed, True)


def _check_stored(variant: Variant, seed: int) -> Check:
    try:
        record = json.loads(json.dumps(variant.to_json(), allow_nan=False))
        rebuilt = Variant.from_json(record)
        regenerated = generate_variant(variant.kind, seed, variant.params)
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
        return Check.failed(CheckName.STORED, seed, Problem(Finding.STORED_FAILED, error=error))
    if rebuilt != variant:
        return Check.failed(CheckName.STORED, seed, Problem(Finding.STORED_DIFFERS))
    if regenerated != variant:
        return Check.failed(CheckName.STORED, seed, Problem(Finding.STORED_NOT_REPRODUCED))
    return Check(CheckName.STORED, seed, True)
