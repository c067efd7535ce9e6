"""``quizsvc content test``: output, exit status, and the same load errors as validate."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from selftest_content import drill_question, numeric_question

from quizsvc import cli

REPO_CONTENT_DIR = Path(__file__).resolve().parents[2] / "content"
DRILL_IDS = [
    "drill-embedding-positional",
    "drill-projection",
    "drill-score-row",
    "drill-masked-score-row",
    "drill-softmax-row",
    "drill-masked-row",
    "drill-attention-output-row",
    "drill-multi-head",
    "drill-add-norm",
    "drill-ffn-row",
    "drill-cross-attention-row",
    "drill-teacher-forcing-loss",
    "drill-logit-gradient",
    "drill-greedy-next-token",
]
OPEN_IDS = ["teacher-forcing-vs-autoregressive", "why-multi-head"]


def run(*args: str):
    return CliRunner().invoke(cli.main, ["content", *args])


def question_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line[:4] in ("ok  ", "FAIL")]


def test_the_repository_content_passes_by_default() -> None:
    result = run("test")
    assert result.exit_code == 0, result.output
    lines = question_lines(result.stdout)
    # drills.yaml is read before questions.yaml, which holds the two open questions
    assert [line.split()[1] for line in lines] == [*DRILL_IDS, *OPEN_IDS]
    assert all(line.startswith("ok") for line in lines)
    assert all(line.endswith("30 checks, 5 seeds") for line in lines[: len(DRILL_IDS)])
    assert all(line.endswith("open: 2 checks") for line in lines[len(DRILL_IDS) :])
    assert result.stdout.splitlines()[-1] == (
        "content test: 16 questions tested (424 checks): 16 passed, 0 failed;"
        " 4 skipped (choice questions)"
    )


def test_seeds_option_sets_the_number_of_seeds() -> None:
    result = run("test", str(REPO_CONTENT_DIR), "--seeds", "2")
    assert result.exit_code == 0, result.output
    drill_lines = question_lines(result.stdout)[: len(DRILL_IDS)]
    assert all(line.endswith("12 checks, 2 seeds") for line in drill_lines)
    assert run("test", "--seeds", "0").exit_code == 2  # a usage error


def test_a_loose_tolerance_fails_naming_the_question_and_where_it_is(write_bank) -> None:
    root = write_bank(
        q="questions:\n"
        + numeric_question("fine", "[0.471, 0.529, 0]", "{atol: 0.005}")
        + numeric_question("loose", '[[2.0, "-inf"], [2.7, 2.89]]', "{atol: 5}")
        + drill_question("drill", "ffn_row")
    )
    result = run("test", str(root))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("ok    fine ")
    assert lines[1] == "FAIL  loose  numeric at ch/q.yaml:9: 2 of 4 checks failed"
    assert lines[2].startswith("      perturbed: FAILED: cell [")
    assert "the tolerance (atol=5, rtol=0) is too loose" in lines[2]
    assert lines[3].startswith("      tolerance: FAILED: cell [0, 0] (expected 2.0)")
    assert lines[4].startswith("ok    drill  drill ffn_row: 30 checks")
    assert lines[-1] == (
        "content test: 3 questions tested (38 checks): 2 passed, 1 failed;"
        " 0 skipped (choice questions)"
    )


def test_an_invalid_bank_prints_the_same_errors_as_validate(write_bank) -> None:
    root = write_bank(
        q="questions:\n" + drill_question("d1", "multi_head", "    params: {n_heads: 3}\n"),
        bad="questions:\n  - id: o2\n    prompt: a: b\n",
    )
    tested, validated = run("test", str(root)), run("validate", str(root))
    assert tested.exit_code == validated.exit_code == 1
    assert tested.stdout == validated.stdout
    assert tested.stdout.splitlines() == [
        "ch/bad.yaml:3: questions[0]: YAML syntax error: mapping values are not allowed here",
        "ch/q.yaml:7: questions[0].params.n_heads: d_model = 4 must be divisible by n_heads"
        " (got 3)",
    ]
    assert tested.stderr == f"2 content error(s) in {root}\n"
    # ended on purpose, not by an error after the listing
    assert type(tested.exception) is type(validated.exception) is SystemExit


def test_validate_still_prints_its_summary(write_bank) -> None:
    root = write_bank(q="questions:\n" + drill_question("d1", "score_row"))
    result = run("validate", str(root))
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == f"content OK: {root}"


def test_a_note_is_printed_under_its_question(write_bank) -> None:
    root = write_bank(
        q="questions:\n" + drill_question("tight", "multi_head", "    tolerance: {atol: 0.02}\n")
    )
    result = run("test", str(root), "--seeds", "1")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[:2] == [
        "ok    tight  drill multi_head: 6 checks, 1 seed",
        "      note: tolerance atol=0.02 is tighter than the kind's atol=0.03, which allows for"
        " rounding every intermediate step by hand",
    ]


def test_a_file_given_as_the_content_directory_is_a_usage_error(write_bank) -> None:
    question_file = write_bank(q="questions:\n" + drill_question("d1", "score_row")) / "ch/q.yaml"
    for command in ("test", "validate"):
        result = run(command, str(question_file))
        assert result.exit_code == 2, result.output
        assert "is a file" in result.stderr
