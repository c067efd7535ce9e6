"""run_selftest and its checks: they pass on a sound answer key and fail on a broken one."""

from __future__ import annotations

import dataclasses
import itertools
import math
import re

import numpy as np
import pytest
from selftest_content import drill_question, numeric_question

from quizsvc.bank import load_bank
from quizsvc.drills import drill_param_models, generate_variant
from quizsvc.grading import AnswerRejected, Tolerance, grade_numeric, parse_answer
from quizsvc.selftest import answer_text, check_answer_key, run_selftest, runner

OPEN_QUESTION = """\
  - id: why
    type: open
    tags: [multi_head]
    prompt: {zh: 为什么, en: Why}
    reference_answer: {zh: 因为有多个头, en: Because of several heads}
    rubric:
      - key: heads
        weight: 1
        description: {zh: 头, en: heads}
        phrases: {zh: [头], en: [head]}
"""

CHOICE_QUESTION = """\
  - id: which
    type: single_choice
    tags: [qkv]
    prompt: {zh: 哪个, en: Which}
    choices:
      - {id: A, text: {zh: 甲, en: A}}
      - {id: B, text: {zh: 乙, en: B}}
    correct: A
    explanation: {zh: 因为, en: Because}
"""

MASKED = '[[2.0, "-inf"], [2.7, 2.89]]'


def load(write_bank, *questions: str):
    return load_bank(write_bank(q="questions:\n" + "".join(questions)), drill_param_models())


def by_name(checks) -> dict[str, list]:
    grouped: dict[str, list] = {}
    for check in checks:
        grouped.setdefault(check.name, []).append(check)
    return grouped


# --- answer_text ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "values",
    [
        [[0.1]],
        [[1 / 3, -2.0, 1e-05, 123456.789]],
        [[0.471, 0.529, 0.0], [1.0, -np.inf, np.inf]],
        [[3.0]],
    ],
)
def test_answer_text_reads_back_as_exactly_the_same_numbers(values) -> None:
    matrix = np.array(values, dtype=float)
    text = answer_text(matrix)
    assert np.array_equal(parse_answer(text), matrix)
    assert text.count(";") == matrix.shape[0] - 1


def test_answer_text_writes_infinities_as_a_learner_would() -> None:
    assert answer_text(np.array([[1.5, -np.inf]])) == "1.5 -inf"


# --- check_answer_key ------------------------------------------------------------------------


def test_a_sound_answer_key_passes_every_check() -> None:
    checks = check_answer_key(np.array([[0.471, 0.529, 0.0]]), Tolerance(atol=0.005), False, 3)
    assert [(c.name, c.seed, c.passed) for c in checks] == [
        ("expected", 3, True),
        ("perturbed", 3, True),
        ("tolerance", 3, True),
        ("malformed", 3, True),
    ]


def test_exact_and_all_or_nothing_answers_pass() -> None:
    checks = check_answer_key(np.array([[4.0]]), Tolerance(atol=0.0), True, None)
    assert all(check.passed for check in checks)


def test_a_tolerance_that_accepts_a_plausible_mistake_fails_perturbed_and_tolerance() -> None:
    checks = by_name(check_answer_key(np.array([[2.0, 2.5, 3.0]]), Tolerance(atol=1.0), False, 0))
    assert not checks["perturbed"][0].passed
    assert "was accepted" in checks["perturbed"][0].message
    assert "too loose" in checks["perturbed"][0].message
    assert not checks["tolerance"][0].passed
    assert "accepts answers up to 1 away" in checks["tolerance"][0].message
    assert checks["expected"][0].passed and checks["malformed"][0].passed


def test_a_relative_tolerance_that_is_too_loose_is_reported() -> None:
    checks = by_name(check_answer_key(np.array([[100.0]]), Tolerance(rtol=0.1), False, 0))
    assert not checks["tolerance"][0].passed
    assert not checks["perturbed"][0].passed


def test_a_tolerance_just_inside_the_margin_passes_and_just_outside_fails() -> None:
    # A plausible mistake at 0.5 is 0.1; the tolerance may be at most a third of it.
    inside = check_answer_key(np.array([[0.5]]), Tolerance(atol=0.033), False, 0)
    outside = check_answer_key(np.array([[0.5]]), Tolerance(atol=0.034), False, 0)
    assert by_name(inside)["tolerance"][0].passed
    assert not by_name(outside)["tolerance"][0].passed


def test_infinite_cells_are_perturbed_to_zero_and_that_is_wrong() -> None:
    expected = np.array([[-np.inf]])
    perturbed = by_name(check_answer_key(expected, Tolerance(atol=0.01), False, 0))["perturbed"]
    assert perturbed[0].passed


def test_perturbed_check_fails_if_the_grader_marks_other_cells_wrong(monkeypatch) -> None:
    def grader_that_marks_cell_0_wrong(answer, expected, tol, *, all_or_nothing=False):
        grade = grade_numeric(answer, expected, tol, all_or_nothing=all_or_nothing)
        cells = (dataclasses.replace(grade.cells[0], correct=False), *grade.cells[1:])
        return dataclasses.replace(grade, cells=cells, score=0.0)

    monkeypatch.setattr(runner, "grade_numeric", grader_that_marks_cell_0_wrong)
    expected = np.arange(1.0, 10.0).reshape(3, 3)
    checks = [check_answer_key(expected, Tolerance(atol=0.01), False, seed) for seed in range(5)]
    assert not any(by_name(seed_checks)["expected"][0].passed for seed_checks in checks)
    assert "cells marked wrong: [0, 0]" in by_name(checks[0])["expected"][0].message
    messages = [by_name(seed_checks)["perturbed"][0].message for seed_checks in checks]
    assert any("cell [0, 0] was not perturbed but was marked wrong" in m for m in messages)


def test_malformed_check_fails_if_a_wrong_shape_is_graded(monkeypatch) -> None:
    def grader_without_shape_check(answer, expected, tol, *, all_or_nothing=False):
        matrix = parse_answer(answer)
        return grade_numeric(matrix[:, : np.shape(expected)[1]], expected, tol)

    monkeypatch.setattr(runner, "grade_numeric", grader_without_shape_check)
    checks = by_name(check_answer_key(np.array([[1.0, 2.0]]), Tolerance(), False, 0))
    assert not checks["malformed"][0].passed
    assert "a 1 × 3 answer ('1.0 2.0 1.0') was graded" in checks["malformed"][0].message


def test_expected_check_fails_if_the_expected_text_is_rejected(monkeypatch) -> None:
    def grader_rejecting_everything(answer, expected, tol, *, all_or_nothing=False):
        raise AnswerRejected("no")

    monkeypatch.setattr(runner, "grade_numeric", grader_rejecting_everything)
    checks = by_name(check_answer_key(np.array([[1.0]]), Tolerance(), False, 0))
    assert not checks["expected"][0].passed
    assert checks["expected"][0].message == "the expected answer '1.0' was rejected: no"


def test_perturbed_cells_depend_on_the_seed_and_leave_others_alone(monkeypatch) -> None:
    submitted_texts: list[str] = []

    def spy(answer, expected, tol, *, all_or_nothing=False):
        submitted_texts.append(answer)
        return grade_numeric(answer, expected, tol, all_or_nothing=all_or_nothing)

    monkeypatch.setattr(runner, "grade_numeric", spy)
    expected = np.arange(1.0, 7.0).reshape(2, 3)
    chosen = set()
    for seed in range(20):
        submitted_texts.clear()
        assert runner._check_perturbed(
            expected, Tolerance(), False, seed, np.random.default_rng(seed)
        ).passed
        submitted = parse_answer(submitted_texts[0])
        cells = tuple(map(tuple, np.argwhere(submitted != expected)))
        assert len(cells) == 2  # two of the six cells, the other four as expected
        for cell in cells:
            mistake = max(0.1, expected[cell] / 10)
            assert math.isclose(abs(submitted[cell] - expected[cell]), mistake)
        chosen.add(cells)
    assert len(chosen) > 3


@pytest.mark.parametrize(
    ("cells", "perturbed"),
    [(1, 1), (2, 1), (3, 2), (4, 2)],
    ids=["one cell", "two: one left alone", "three: two perturbed", "four"],
)
def test_how_many_cells_are_perturbed(monkeypatch, cells, perturbed) -> None:
    submitted_texts: list[str] = []

    def spy(answer, expected, tol, *, all_or_nothing=False):
        submitted_texts.append(answer)
        return grade_numeric(answer, expected, tol, all_or_nothing=all_or_nothing)

    monkeypatch.setattr(runner, "grade_numeric", spy)
    expected = np.arange(1.0, cells + 1.0).reshape(1, cells)
    assert runner._check_perturbed(expected, Tolerance(), False, 0, np.random.default_rng(0)).passed
    [text] = submitted_texts
    assert np.count_nonzero(parse_answer(text) != expected) == perturbed


# --- run_selftest on banks --------------------------------------------------------------------


def test_report_covers_numeric_open_and_drill_questions_and_skips_choices(write_bank) -> None:
    bank = load(
        write_bank,
        numeric_question("masked", MASKED, "{atol: 0.01}"),
        OPEN_QUESTION,
        CHOICE_QUESTION,
        drill_question("d1", "masked_row", "    params: {n: 4}\n"),
    )
    report = run_selftest(bank, seeds=(0, 1, 2))
    assert report.passed and not report.failed
    assert report.skipped == ("which",)
    numeric, open_question, drill = report.questions
    assert (open_question.question_id, open_question.source) == (
        "why",
        "ch/q.yaml:9",
    )  # after the 7 lines of the numeric
    assert [(c.name, c.seed, c.passed) for c in open_question.checks] == [
        ("reference (zh)", None, True),
        ("reference (en)", None, True),
    ]
    assert (numeric.question_id, numeric.question_type, numeric.kind) == ("masked", "numeric", None)
    assert numeric.source == "ch/q.yaml:2"
    assert [(c.name, c.seed) for c in numeric.checks] == [
        ("expected", None),
        ("perturbed", None),
        ("tolerance", None),
        ("malformed", None),
    ]
    assert (drill.question_id, drill.kind, drill.seeds) == ("d1", "masked_row", (0, 1, 2))
    assert len(drill.checks) == 3 * 6
    assert {c.name for c in drill.checks} == {
        "generate",
        "expected",
        "perturbed",
        "tolerance",
        "malformed",
        "stored",
    }
    assert report.summary() == (
        "3 questions tested (24 checks): 3 passed, 0 failed; 1 skipped (choice questions)"
    )


def test_a_rubric_point_the_reference_answer_does_not_make_fails(write_bank) -> None:
    # "several heads" is not "multiple heads": the English phrase list misses the model answer
    question = OPEN_QUESTION.replace("en: [head]", "en: [multiple heads]")
    report = run_selftest(load(write_bank, question))
    (result,) = report.questions
    assert not report.passed
    assert [(c.name, c.passed) for c in result.checks] == [
        ("reference (zh)", True),
        ("reference (en)", False),
    ]
    assert result.failures[0].message == (
        "the reference answer contains no phrase of rubric point 'heads' (phrases: multiple"
        " heads): the review queue would suggest 0% for it"
    )


def test_a_numeric_question_with_a_huge_tolerance_fails(write_bank) -> None:
    bank = load(
        write_bank,
        numeric_question("fine", MASKED, "{atol: 0.01}"),
        numeric_question("loose", MASKED, "{atol: 5}"),
    )
    report = run_selftest(bank)
    assert not report.passed
    assert [question.question_id for question in report.failed] == ["loose"]
    assert {check.name for check in report.failed[0].failures} == {"perturbed", "tolerance"}


def test_a_drill_question_with_a_huge_tolerance_fails_for_every_seed(write_bank) -> None:
    bank = load(write_bank, drill_question("d1", "ffn_row", "    tolerance: {atol: 1}\n"))
    (question,) = run_selftest(bank).questions
    failed = by_name(question.failures)
    assert [check.seed for check in failed["perturbed"]] == [0, 1, 2, 3, 4]
    assert [check.seed for check in failed["tolerance"]] == [0, 1, 2, 3, 4]


def test_a_drill_tolerance_tighter_than_the_kinds_is_noted_but_passes(write_bank) -> None:
    bank = load(write_bank, drill_question("d1", "multi_head", "    tolerance: {atol: 0.02}\n"))
    (question,) = run_selftest(bank, seeds=(0, 1)).questions
    assert question.passed
    assert question.notes == (
        "tolerance atol=0.02 is tighter than the kind's atol=0.03, which allows for rounding"
        " every intermediate step by hand",
    )


def test_a_drill_whose_generation_fails_is_reported_per_seed(write_bank, monkeypatch) -> None:
    def generate_failing_for_seed_1(kind, seed, params=None, chapter=None):
        if seed == 1:
            raise RuntimeError("boom")
        return generate_variant(kind, seed, params, chapter)

    monkeypatch.setattr(runner, "generate_variant", generate_failing_for_seed_1)
    bank = load(write_bank, drill_question("d1", "softmax_row"))
    (question,) = run_selftest(bank, seeds=(0, 1, 2)).questions
    assert not question.passed
    assert [str(check) for check in question.failures] == [
        "generate (seed 1): FAILED: RuntimeError: boom"
    ]
    assert len(question.checks) == 2 * 6 + 1


def test_a_drill_whose_texts_hold_a_formula_that_does_not_render_fails_generate(
    write_bank, monkeypatch
) -> None:
    def generate_with_bad_formulas(kind, seed, params=None, chapter=None):
        variant = generate_variant(kind, seed, params, chapter)
        if seed != 1:
            return variant
        prompt = {**variant.prompt, "en": variant.prompt["en"] + r" Use $\left( x$."}
        last = variant.solution[-1]
        broken = dataclasses.replace(last, text={**last.text, "zh": "先 $x^$，再 $y_$"})
        solution = (*variant.solution[:-1], broken)
        return dataclasses.replace(variant, prompt=prompt, solution=solution)

    monkeypatch.setattr(runner, "generate_variant", generate_with_bad_formulas)
    bank = load(write_bank, drill_question("d1", "softmax_row"))
    (question,) = run_selftest(bank, seeds=(0, 1)).questions
    (failure,) = question.failures
    assert (failure.name, failure.seed) == ("generate", 1)
    steps = len(generate_variant("softmax_row", 1, bank.drill_params["d1"]).solution)
    assert failure.problems == (
        "the formula $\\left( x$ in the variant's prompt (en) cannot be rendered (extra left or "
        "missing right)",
        f"the formula $x^$ in step {steps} of the worked solution (zh) cannot be rendered "
        "(missing super script or subscript)",
        f"the formula $y_$ in step {steps} of the worked solution (zh) cannot be rendered "
        "(missing super script or subscript)",
    )


def test_a_drill_that_does_not_reproduce_its_variant_fails_stored(write_bank, monkeypatch) -> None:
    calls = itertools.count()

    def generate_differently_every_time(kind, seed, params=None, chapter=None):
        return generate_variant(kind, seed + 100 * next(calls), params, chapter)

    monkeypatch.setattr(runner, "generate_variant", generate_differently_every_time)
    bank = load(write_bank, drill_question("d1", "score_row"))
    (question,) = run_selftest(bank, seeds=(0,)).questions
    (failure,) = question.failures
    assert failure.name == "stored"
    assert "do not reproduce" in failure.message


def test_the_real_content_passes() -> None:
    from pathlib import Path

    bank = load_bank(Path(__file__).resolve().parents[2] / "content", drill_param_models())
    report = run_selftest(bank)
    assert report.passed, [str(c) for q in report.failed for c in q.failures]
    checks = {question.question_id: len(question.checks) for question in report.questions}
    assert len(checks) == 16
    assert checks.pop("teacher-forcing-vs-autoregressive") == checks.pop("why-multi-head") == 2
    assert set(checks.values()) == {30}  # the drills


# --- the messages, at their limits --------------------------------------------------------


def test_a_loose_tolerance_on_two_cells_perturbs_one_and_says_everything_wrong() -> None:
    checks = by_name(check_answer_key(np.array([[2.0, 3.0]]), Tolerance(atol=1.0), False, 0))
    perturbed = checks["perturbed"][0].message
    # of two cells one is left as it is; the perturbed one is off by 0.1 * |value| (0.2 or 0.3)
    accepted = re.findall(
        r"cell \[0, (\d)\] = ([0-9.]+) \(expected ([0-9.]+)\) was accepted", perturbed
    )
    [(column, submitted, expected)] = accepted
    assert float(expected) == [2.0, 3.0][int(column)]
    assert math.isclose(abs(float(submitted) - float(expected)), float(expected) / 10)
    assert perturbed.endswith(
        "the tolerance (atol=1, rtol=0) is too loose; the perturbed answer scored 1, not below 1"
    )
    # 2.0's plausible mistake is 0.2, a third of it 0.0666667
    assert checks["tolerance"][0].message == (
        "cell [0, 0] (expected 2.0) accepts answers up to 1 away, but a plausible mistake of 0.2"
        " must be rejected with a margin: the tolerance may be at most 0.0666667 there"
    )


def test_a_tolerance_of_exactly_a_third_of_the_plausible_mistake_passes() -> None:
    at_limit = Tolerance(atol=0.1 / 3)  # 0.5's plausible mistake is the absolute 0.1
    assert by_name(check_answer_key(np.array([[0.5]]), at_limit, False, 0))["tolerance"][0].passed


def test_infinite_cells_need_no_tolerance_even_a_relative_one() -> None:
    checks = check_answer_key(np.array([[0.5, -np.inf]]), Tolerance(atol=0.01, rtol=0.01), False, 0)
    assert all(check.passed for check in checks), [str(c) for c in checks]


def test_a_numeric_question_perturbs_the_same_cells_on_every_run() -> None:
    expected = np.arange(1.0, 17.0).reshape(4, 4)
    runs = [check_answer_key(expected, Tolerance(atol=5.0), False, None) for _ in range(3)]
    messages = {by_name(run)["perturbed"][0].message for run in runs}
    assert len(messages) == 1, messages


@pytest.mark.parametrize(
    "tolerance",
    ["{atol: 0.03}", "{atol: 0.02, rtol: 0.001}"],
    ids=["the kind's own", "tighter atol but looser rtol"],
)
def test_a_drill_tolerance_not_tighter_than_the_kinds_gets_no_note(write_bank, tolerance) -> None:
    bank = load(write_bank, drill_question("d1", "multi_head", f"    tolerance: {tolerance}\n"))
    (question,) = run_selftest(bank, seeds=(0, 1)).questions
    assert question.passed, [str(c) for c in question.failures]
    assert question.notes == ()


def test_a_variant_that_does_not_survive_its_json_record_fails_stored(
    write_bank, monkeypatch
) -> None:
    bank = load(write_bank, drill_question("d1", "score_row"))
    real_from_json = runner.Variant.from_json

    def from_json_with_another_seed(record):
        return dataclasses.replace(real_from_json(record), seed=record["seed"] + 1)

    monkeypatch.setattr(runner.Variant, "from_json", staticmethod(from_json_with_another_seed))
    (question,) = run_selftest(bank, seeds=(0,)).questions
    assert [str(check) for check in question.failures] == [
        "stored (seed 0): FAILED: the variant differs after a JSON round trip"
    ]

    def unreadable(record):
        raise KeyError("answer")

    monkeypatch.setattr(runner.Variant, "from_json", staticmethod(unreadable))
    (question,) = run_selftest(bank, seeds=(0,)).questions
    assert [str(check) for check in question.failures] == [
        "stored (seed 0): FAILED: KeyError: 'answer'"
    ]
