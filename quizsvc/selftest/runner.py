"""Running the self-test: each numeric, drill and open question's checks, through the real
grader (see the package's docstring for what each check asks)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence

import numpy as np

from quizsvc.bank import (
    LANGUAGES,
    Bank,
    DrillQuestion,
    NumericQuestion,
    OpenQuestion,
    formula_problems,
    localize,
)
from quizsvc.drills import DRILL_KINDS, Variant, generate_variant
from quizsvc.drills.trained import ChapterModel
from quizsvc.grading import AnswerRejected, Tolerance, grade_numeric, suggest_open_score
from quizsvc.practice import chapter_model, question_tolerance, rubric_points
from quizsvc.selftest.findings import (
    Check,
    CheckName,
    Finding,
    Problem,
    QuestionReport,
    SelfTestReport,
)

DEFAULT_SEEDS: tuple[int, ...] = (0, 1, 2, 3, 4)

MISTAKE_ABSOLUTE = 0.1
MISTAKE_RELATIVE = 0.1
# An accepted interval's half-width may be at most this share of a plausible mistake, so a
# mistake is rejected with a wide margin rather than at the edge of the interval.
MAX_TOLERANCE_SHARE = 1 / 3
MAX_PERTURBED_CELLS = 2

NOT_A_NUMBER = "abc"


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
            params = bank.drill_params[question.id]
            chapter = chapter_model(bank, question.id)
            reports.append(_drill_report(question, params, source, seeds, chapter))
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
    question: DrillQuestion,
    params: object,
    source: str,
    seeds: Sequence[int],
    chapter: ChapterModel | None = None,
) -> QuestionReport:
    checks: list[Check] = []
    notes: list[Problem] = []
    for seed in seeds:
        try:
            variant = generate_variant(question.kind, seed, params, chapter=chapter)
        except Exception as exc:  # a broken kind is a test failure, not a crash of the test
            error = f"{type(exc).__name__}: {exc}"
            checks.append(
                Check.failed(
                    CheckName.GENERATE, seed, Problem(Finding.GENERATE_FAILED, error=error)
                )
            )
            continue
        checks.append(_check_generated(variant, seed))
        graded = variant.with_scoring(question_tolerance(question), question.all_or_nothing)
        if question.tolerance is not None:
            notes.extend(_tighter_than_kind(graded.tolerance, variant))
        checks.extend(
            check_answer_key(graded.answer.values, graded.tolerance, graded.all_or_nothing, seed)
        )
        checks.append(_check_stored(variant, seed, chapter))
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


def _check_generated(variant: Variant, seed: int) -> Check:
    """A generated variant's texts are Markdown the pages render: each formula in its prompt
    and its worked solution's steps must convert."""
    texts = [(Finding.BAD_FORMULA_IN_PROMPT, {}, variant.prompt)]
    texts += [
        (Finding.BAD_FORMULA_IN_STEP, {"step": number}, step.text)
        for number, step in enumerate(variant.solution, start=1)
    ]
    problems = [
        Problem(finding, **where, lang=lang, tex=bad.tex, reason=bad.reason)
        for finding, where, text in texts
        for lang in LANGUAGES
        for bad in formula_problems(text[lang])
    ]
    if problems:
        return Check.failed(CheckName.GENERATE, seed, *problems)
    return Check(CheckName.GENERATE, seed, True)


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


def _check_stored(variant: Variant, seed: int, chapter: ChapterModel | None) -> Check:
    try:
        record = json.loads(json.dumps(variant.to_json(), allow_nan=False))
        rebuilt = Variant.from_json(record)
        regenerated = generate_variant(variant.kind, seed, variant.params, chapter=chapter)
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
        return Check.failed(CheckName.STORED, seed, Problem(Finding.STORED_FAILED, error=error))
    if rebuilt != variant:
        return Check.failed(CheckName.STORED, seed, Problem(Finding.STORED_DIFFERS))
    if regenerated != variant:
        return Check.failed(CheckName.STORED, seed, Problem(Finding.STORED_NOT_REPRODUCED))
    return Check(CheckName.STORED, seed, True)
