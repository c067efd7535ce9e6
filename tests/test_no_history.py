"""No text in the repository narrates how the project got here: numbered work periods, which
machine a past run used, the dates of runs. Text states what holds now; git log keeps
the history. "Login session", "session cookie" and "database session" are words of the
software itself and are not flagged."""

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
THIS_FILE = Path(__file__).resolve().relative_to(ROOT).as_posix()  # holds the patterns
SKIPPED_DIRECTORIES = {".git", ".venv", "node_modules", "instance", "__pycache__"}

NARRATION = [
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        # a work period by its number; a login or database session numbered is the software's
        r"(?<!login )(?<!database )(?<!browser )\bsession \d+",
        r"\bsessions \d+\s*(?:-|–|to|and)\s*\d+",
        r"\bsince session\b",
        r"\bwork periods?\b",
        r"\b(?:earlier|previous|former|old) machines?\b",
        r"\bthe machine of\b",
        r"\b(?:on|of|for) this machine\b",  # which one? Name what matters: cores, CPU, BLAS
        r"\bthis run's fixes\b",
        r"\bbefore this run\b",
        r"\bwas [\d.]+ ?ms, now\b",
        # the date of a run or a measurement: "One run, 2026-12-01", "(2026-12-01)"
        r"\b(?:runs?|measured|measurements?)\b[^.\n]{0,20}\b20\d\d-\d\d-\d\d\b(?!T)",
        r"\(20\d\d-\d\d-\d\d\)",
    )
]


# The examples below are assembled from these words, so that this file does not itself hold
# the phrases it forbids (the standing check reads every tracked file, this one too).
PERIOD = "sess" + "ion"
EARLIER = "ear" + "lier"


def narration_in(text: str) -> list[str]:
    """The phrases of `text` that narrate history, as found."""
    return [match.group(0) for pattern in NARRATION for match in pattern.finditer(text)]


@pytest.mark.parametrize(
    "text",
    [
        f"Runs 1-4 are {PERIOD} 11's; runs 5 and 6 are {PERIOD} 12's.",
        f"### {PERIOD.title()}s 3-10, on the {EARLIER} machine",
        f"### The machine of {PERIOD} 11 on",
        "One run, 2026-12-01 (statements SQLite / PostgreSQL)",
        f"{PERIOD.title()} 11 (2026-12-01) found the project on another machine",
        "Before this run's fixes, the students list showed every learner",
        "the students list was 9.5 ms, now 12.7",
        "as in the previous work period",
        "2.13.0: the CPU wheel on this machine",
    ],
)
def test_the_detector_flags_narration(text):
    assert narration_in(text), text


@pytest.mark.parametrize(
    "text",
    [
        "Logging out ends the login session on the server.",
        "The session cookie signs the user in; one database session per request.",
        "A login session begun 2 hours ago is still live.",
        "Every write function takes a `Session` and is one transaction.",
        '"created_at": "2026-11-30T10:57:49+00:00"',
        "Create Date: 2026-12-01",
        "The table is replaced on each new run.",
        "The machine: 2 cores of an AMD EPYC with AVX2 and no AVX-512.",
    ],
)
def test_the_detector_leaves_present_facts_alone(text):
    assert narration_in(text) == []


def repository_files() -> list[str]:
    """Every file git tracks, and new ones it does not ignore; without git, the tree."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        ).stdout.decode()
        paths = sorted(set(filter(None, listed.split("\0"))))
    except (OSError, subprocess.CalledProcessError):
        paths = sorted(
            path.relative_to(ROOT).as_posix()
            for path in ROOT.rglob("*")
            if path.is_file() and not SKIPPED_DIRECTORIES.intersection(path.relative_to(ROOT).parts)
        )
    return [path for path in paths if (ROOT / path).is_file() and path != THIS_FILE]


def text_of(path: str) -> str | None:
    """The file as text; None for a binary one."""
    data = (ROOT / path).read_bytes()
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def test_no_text_in_the_repository_narrates_history():
    scanned, found = [], []
    for path in repository_files():
        text = text_of(path)
        if text is None:
            continue
        scanned.append(path)
        for number, line in enumerate(text.splitlines(), start=1):
            found.extend(f"{path}:{number}: {phrase!r}" for phrase in narration_in(line))
    # not vacuous: the texts that have carried such narration are among those read
    for expected in (
        "README.md",
        "benchmarks/engine.py",
        "docs/performance.md",
        "tests/conftest.py",
    ):
        assert expected in scanned
    assert len(scanned) > 100
    assert found == [], "\n".join(found)
