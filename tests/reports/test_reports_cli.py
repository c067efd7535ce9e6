"""`quizsvc report gradebook|events|items` on a migrated, seeded database."""

from __future__ import annotations

import errno
import json
import os
import select
import socket
import stat
import subprocess
import sys
import threading
import tty
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy.exc import OperationalError
from xlsx_cells import read_sheet

import quizsvc.reports
from quizsvc.cli import main
from quizsvc.reports import UTF8_BOM, events_csv_chunks, gradebook_csv_chunks
from quizsvc.store import make_engine, make_session_factory


@pytest.fixture
def url(migrated_db_url: str) -> str:
    return migrated_db_url


@pytest.fixture
def db(url: str, seed_into):
    engine = make_engine(url)
    sessions = make_session_factory(engine)
    seeded = seed_into(sessions)
    yield sessions, seeded
    engine.dispose()


def invoke(url: str, *args: str):
    return CliRunner().invoke(main, ["report", *args], env={"DATABASE_URL": url})


def test_gradebook_to_a_file(db, url, content_dir, bank, tmp_path):
    sessions, _ = db
    out = tmp_path / "exports" / "gradebook.csv"
    out.parent.mkdir()
    result = invoke(url, "gradebook", "--out", str(out), "--content", str(content_dir))
    assert result.exit_code == 0, result.output
    with sessions() as session:
        assert out.read_bytes() == b"".join(gradebook_csv_chunks(session, bank))
    assert out.read_bytes().startswith(UTF8_BOM + b"student_id,name,display_name,q-single")
    assert [p.name for p in out.parent.iterdir()] == ["gradebook.csv"]  # no temporary left


def test_gradebook_to_stdout(db, url, content_dir):
    result = invoke(url, "gradebook", "--out", "-", "--content", str(content_dir))
    assert result.exit_code == 0, result.output
    text = result.stdout_bytes.decode("utf-8")
    assert text.startswith("\ufeffstudent_id,")
    assert "王小明" in text and len(text.splitlines()) == 1 + 4 + 1  # cy's name holds a \n


def test_gradebook_as_xlsx_exact_and_with_other_decimals(db, url, content_dir, tmp_path):
    out = tmp_path / "gradebook.xlsx"
    args = ["gradebook", "--format", "xlsx", "--out", str(out), "--content", str(content_dir)]
    assert invoke(url, *args).exit_code == 0
    cells = read_sheet(out.read_bytes())
    # ada's chapter total: (1 + 2 x 0.5 + 0.75) / 4 = 68.75 %, shown to one decimal
    assert (cells[(1, 1)].value, cells[(1, 10)].value, cells[(1, 10)].number_format) == (
        "ada",
        "68.8",
        "0.0",
    )
    assert invoke(url, *args, "--exact").exit_code == 0
    assert read_sheet(out.read_bytes())[(1, 10)].value == "0.6875"

    result = invoke(url, "gradebook", "--exact", "--content", str(content_dir))
    assert result.exit_code == 0, result.output
    lines = result.stdout_bytes.decode("utf-8-sig").splitlines()
    assert lines[1].split(",")[10:12] == ["0.6875", "0.95"]
    result = invoke(url, "gradebook", "--decimals", "2", "--content", str(content_dir))
    assert result.stdout_bytes.decode("utf-8-sig").splitlines()[1].split(",")[10] == "68.75"
    result = invoke(url, "gradebook", "--decimals", "7", "--content", str(content_dir))
    assert result.exit_code == 2 and "0<=x<=6" in result.output


def test_items_as_csv(db, url, content_dir):
    result = invoke(url, "items", "--format", "csv", "--content", str(content_dir))
    assert result.exit_code == 0, result.output
    assert result.stdout_bytes.startswith(UTF8_BOM + b"question_id,type,points,")
    lines = result.stdout_bytes.decode("utf-8-sig").splitlines()
    # q-single's line, then one per choice: A chosen by bo, B by ada and cy (latest answers)
    assert lines[2:4] == [
        "q-single,single_choice,,,,,,,choice:A,1,3,33.3333333333,0.0",
        "q-single,single_choice,,,,,,,choice:B,2,3,66.6666666667,1.0",
    ]


def test_events_as_csv_and_as_jsonl(db, url, content_dir, bank, tmp_path):
    sessions, seeded = db
    out = tmp_path / "events.csv"
    args = ["events", "--format", "csv", "--out", str(out), "--content", str(content_dir)]
    result = invoke(url, *args)
    assert result.exit_code == 0, result.output
    with sessions() as session:
        assert out.read_bytes() == b"".join(events_csv_chunks(session, bank))

    result = invoke(url, "events", "--format", "jsonl", "--content", str(content_dir))
    assert result.exit_code == 0, result.output
    lines = result.stdout_bytes.decode("utf-8").splitlines()
    events = [json.loads(line) for line in lines]
    assert len(events) == 11
    assert events[0]["event_id"] == seeded.quiz[0] and events[0]["kind"] == "single_choice"


def test_items_prints_the_table(db, url, content_dir):
    result = invoke(url, "items", "--content", str(content_dir))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split()[:3] == ["question", "type", "points"]
    assert lines[1].split() == [
        "q-single", "single_choice", "1", "3", "4", "0.667", "66.7%", "44.6%",
    ]  # fmt: skip
    assert len(lines) == 7


def test_reports_read_the_web_app_s_content_dir_when_no_content_is_given(
    db, url, content_dir, monkeypatch
):
    monkeypatch.setenv("QUIZSVC_CONTENT_DIR", str(content_dir))
    assert invoke(url, "items").output == invoke(url, "items", "--content", str(content_dir)).output
    assert "q-single" in invoke(url, "items").output  # a question only that bank has


def test_a_database_that_is_not_migrated_is_a_one_line_error(empty_db_url, content_dir, tmp_path):
    engine = make_engine(empty_db_url)
    with engine.connect():  # the database exists (on SQLite, an empty file)
        pass
    engine.dispose()
    out = tmp_path / "gradebook.csv"
    result = invoke(empty_db_url, "gradebook", "--out", str(out), "--content", str(content_dir))
    assert (result.exit_code, result.output) == (
        1,
        "error: the database is not at the latest migration: run `quizsvc db upgrade`\n",
    )
    assert not out.exists()


@pytest.mark.parametrize(
    "args", [("items",), ("gradebook",), ("events",)], ids=lambda args: args[0]
)
def test_a_missing_sqlite_database_is_named_and_not_created(args, content_dir, tmp_path):
    path = tmp_path / "missing" / "dir" / "quizsvc.sqlite3"
    result = invoke(f"sqlite:///{path}", *args, "--content", str(content_dir))
    assert (result.exit_code, result.output) == (
        1,
        f"error: no database at {path}: run `quizsvc db upgrade`\n",
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "args", [("items",), ("gradebook",), ("events",)], ids=lambda args: args[0]
)
@pytest.mark.parametrize(
    ("bad_url", "message"),
    [
        (
            "not a url",
            "DATABASE_URL is not a database URL of the form"
            " dialect+driver://user:password@host:port/database"
            " (e.g. sqlite:///path/to/quizsvc.sqlite3 or postgresql://user@host/quizsvc)",
        ),
        (
            "bogus://u:s3cret@db/quiz",
            "cannot use the database URL bogus://u:***@db/quiz: SQLAlchemy knows no database"
            " dialect or driver named 'bogus'",
        ),
    ],
    ids=["unparsable", "unknown-dialect"],
)
def test_a_bad_database_url_is_a_one_line_error(args, bad_url, message, content_dir):
    result = invoke(bad_url, *args, "--content", str(content_dir))
    assert (result.exit_code, result.output) == (1, f"error: {message}\n")


def test_invalid_content_lists_its_errors(url, tmp_path):
    (tmp_path / "ch").mkdir()
    (tmp_path / "ch" / "chapter.yaml").write_text("id: ch\n", encoding="utf-8")
    result = invoke(url, "items", "--content", str(tmp_path))
    assert result.exit_code == 1
    assert "ch/chapter.yaml" in result.output


def test_a_failed_export_leaves_the_previous_file_alone(
    db, url, content_dir, tmp_path, monkeypatch
):
    def failing(session, bank, **options):
        yield b"\xef\xbb\xbfstudent_id,name\r\n"
        raise OperationalError("SELECT ...", {}, Exception("disk I/O error"))

    monkeypatch.setattr(quizsvc.reports, "gradebook_csv_chunks", failing)
    out = tmp_path / "exports" / "gradebook.csv"
    out.parent.mkdir()
    out.write_bytes(b"yesterday's gradebook")
    result = invoke(url, "gradebook", "--out", str(out), "--content", str(content_dir))
    assert result.exit_code == 1
    assert result.output.startswith("error: ") and "disk I/O error" in result.output
    assert "Traceback" not in result.output
    assert out.read_bytes() == b"yesterday's gradebook"
    assert [p.name for p in out.parent.iterdir()] == ["gradebook.csv"]


@pytest.mark.parametrize("command", ["gradebook", "events"])
def test_an_unwritable_destination_is_a_one_line_error(db, url, content_dir, out_dir, command):
    (out_dir / "notes.txt").write_bytes(b"notes")
    for out, problem in [
        (out_dir / "missing" / "gradebook.csv", f"there is no directory {out_dir}/missing"),
        (out_dir, "it is a directory"),
        (out_dir / "notes.txt" / "gradebook.csv", "Not a directory"),
    ]:
        result = invoke(url, command, "--out", str(out), "--content", str(content_dir))
        assert (result.exit_code, result.output) == (1, f"error: cannot write {out}: {problem}\n")
    assert sorted(p.name for p in out_dir.iterdir()) == ["notes.txt"]
    assert (out_dir / "notes.txt").read_bytes() == b"notes"


@pytest.mark.parametrize("command", ["gradebook", "events"])
def test_an_empty_output_path_is_named(db, url, content_dir, command):
    result = invoke(url, command, "--out", "", "--content", str(content_dir))
    assert (result.exit_code, result.output) == (
        1,
        "error: the output path is empty (give a file, or - for stdout)\n",
    )


@pytest.fixture
def out_dir(tmp_path: Path) -> Path:
    """A directory for the reports alone (tmp_path holds the SQLite database too)."""
    directory = tmp_path / "out"
    directory.mkdir()
    return directory


def expected_gradebook(sessions, bank) -> bytes:
    with sessions() as session:
        return b"".join(gradebook_csv_chunks(session, bank))


def test_a_symlink_keeps_pointing_at_its_target_which_gets_the_report(
    db, url, content_dir, bank, out_dir
):
    sessions, _ = db
    (out_dir / "exports").mkdir()
    target = out_dir / "exports" / "gradebook.csv"
    target.write_bytes(b"yesterday's gradebook")
    link = out_dir / "latest.csv"
    link.symlink_to(Path("exports") / "gradebook.csv")  # relative, as people write them
    result = invoke(url, "gradebook", "--out", str(link), "--content", str(content_dir))
    assert (result.exit_code, result.output) == (0, "")
    assert link.is_symlink() and os.readlink(link) == "exports/gradebook.csv"
    assert target.read_bytes() == expected_gradebook(sessions, bank)
    assert sorted(p.name for p in out_dir.iterdir()) == ["exports", "latest.csv"]
    assert [p.name for p in target.parent.iterdir()] == ["gradebook.csv"]


def test_a_symlink_to_a_file_not_yet_there_creates_its_target(db, url, content_dir, bank, out_dir):
    sessions, _ = db
    link = out_dir / "latest.csv"
    link.symlink_to(out_dir / "gradebook.csv")
    result = invoke(url, "gradebook", "--out", str(link), "--content", str(content_dir))
    assert (result.exit_code, result.output) == (0, "")
    assert link.is_symlink() and os.readlink(link) == str(out_dir / "gradebook.csv")
    assert (out_dir / "gradebook.csv").read_bytes() == expected_gradebook(sessions, bank)


def read_all_in_a_thread(path: Path) -> tuple[threading.Thread, list[bytes]]:
    """Start reading ``path`` to its end; the bytes land in the list."""
    received: list[bytes] = []

    def read() -> None:
        with open(path, "rb") as fifo:
            received.append(fifo.read())

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread, received


def test_a_fifo_is_written_through_and_stays_a_fifo(db, url, content_dir, bank, out_dir):
    sessions, _ = db
    fifo = out_dir / "gradebook.fifo"
    os.mkfifo(fifo)
    reader, received = read_all_in_a_thread(fifo)
    result = invoke(url, "gradebook", "--out", str(fifo), "--content", str(content_dir))
    reader.join(timeout=10)
    assert (result.exit_code, result.output) == (0, "")
    assert b"".join(received) == expected_gradebook(sessions, bank)
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert [p.name for p in out_dir.iterdir()] == ["gradebook.fifo"]


def test_a_terminal_is_written_through(db, url, content_dir, bank):
    # A pseudo-terminal of this test's own, in raw mode so that bytes pass unchanged: the
    # character device `--out /dev/stdout` names when run in a terminal.  (Nothing can be
    # created in /dev/pts, so no version of the command could replace the node.)
    sessions, _ = db
    expected = expected_gradebook(sessions, bank)
    assert len(expected) < 4096  # fits the terminal's buffer: nobody reads while it writes
    controller, terminal = os.openpty()
    try:
        tty.setraw(terminal)
        device = os.ttyname(terminal)
        result = invoke(url, "gradebook", "--out", device, "--content", str(content_dir))
        assert (result.exit_code, result.output) == (0, "")
        received = b""
        while len(received) < len(expected) and select.select([controller], [], [], 5)[0]:
            received += os.read(controller, 65536)
        assert received == expected
        assert stat.S_ISCHR(os.stat(device).st_mode)
    finally:
        os.close(terminal)
        os.close(controller)


# /dev/stdout by another name: /dev/fd/1 goes through the same link into /proc/self/fd,
# but no version of the command could ever rename a file over it (nothing can be created
# in /proc), whereas /dev is writable for root.
STDOUT_BY_PATH = "/dev/fd/1"


def run_quizsvc(
    url: str, *args: str, stdout, stderr=subprocess.PIPE
) -> subprocess.CompletedProcess:
    """The real command in a process of its own, with these standard output and error."""
    return subprocess.run(
        [sys.executable, "-c", "from quizsvc.cli import main; main()", *args],
        env={**os.environ, "DATABASE_URL": url},
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=stderr,
        timeout=120,
        check=False,
    )


@pytest.mark.slow  # run_quizsvc: a Python process of its own
def test_stdout_by_path_is_the_pipe_stdout_is(db, url, content_dir, bank):
    sessions, _ = db
    args = ("report", "gradebook", "--out", STDOUT_BY_PATH, "--content", str(content_dir))
    result = run_quizsvc(url, *args, stdout=subprocess.PIPE)
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout == expected_gradebook(sessions, bank)


@pytest.mark.slow  # run_quizsvc: a Python process of its own
def test_stdout_by_path_appends_to_the_file_stdout_appends_to(db, url, content_dir, bank, out_dir):
    # `quizsvc report gradebook --out /dev/stdout >> log`: replacing the file would lose
    # what the log held before.
    sessions, _ = db
    log = out_dir / "log"
    log.write_bytes(b"earlier lines\n")
    args = ("report", "gradebook", "--out", STDOUT_BY_PATH, "--content", str(content_dir))
    with open(log, "ab") as appending:
        result = run_quizsvc(url, *args, stdout=appending)
    assert (result.returncode, result.stderr) == (0, b"")
    assert log.read_bytes() == b"earlier lines\n" + expected_gradebook(sessions, bank)
    assert [p.name for p in out_dir.iterdir()] == ["log"]


@pytest.mark.slow  # run_quizsvc: a Python process of its own
def test_stderr_by_path_appends_to_the_file_stderr_appends_to(db, url, content_dir, bank, out_dir):
    sessions, _ = db
    log = out_dir / "log"
    log.write_bytes(b"earlier lines\n")
    args = ("report", "gradebook", "--out", "/dev/fd/2", "--content", str(content_dir))
    with open(log, "ab") as appending:
        result = run_quizsvc(url, *args, stdout=subprocess.PIPE, stderr=appending)
    assert (result.returncode, result.stdout) == (0, b"")
    assert log.read_bytes() == b"earlier lines\n" + expected_gradebook(sessions, bank)


@pytest.mark.slow  # run_quizsvc: a Python process of its own
def test_a_reader_that_went_away_ends_the_export_with_status_1_and_no_traceback(
    db, url, content_dir
):
    # `quizsvc report gradebook --out - | head -0`: the pipe has no reader left
    read_end, write_end = os.pipe()
    os.close(read_end)
    with os.fdopen(write_end, "wb") as closed_pipe:
        args = ("report", "gradebook", "--out", "-", "--content", str(content_dir))
        result = run_quizsvc(url, *args, stdout=closed_pipe)
    assert (result.returncode, result.stderr) == (1, b"")


def test_an_export_failing_to_write_names_the_reason_and_leaves_no_temporary_file(
    db, url, content_dir, out_dir, monkeypatch
):
    def disk_fills_up(session, bank, **options):
        yield b"\xef\xbb\xbfstudent_id,name\r\n"
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(quizsvc.reports, "gradebook_csv_chunks", disk_fills_up)
    out = out_dir / "gradebook.csv"
    result = invoke(url, "gradebook", "--out", str(out), "--content", str(content_dir))
    assert (result.exit_code, result.output) == (
        1,
        f"error: cannot write {out}: No space left on device\n",
    )
    assert list(out_dir.iterdir()) == []


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_a_device_that_refuses_the_report_is_a_one_line_error(db, url, content_dir):
    result = invoke(url, "gradebook", "--out", "/dev/full", "--content", str(content_dir))
    assert (result.exit_code, result.output) == (
        1,
        "error: cannot write /dev/full: No space left on device\n",
    )
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)  # written through, not replaced


def test_a_socket_is_no_place_for_a_report(db, url, content_dir, out_dir):
    path = out_dir / "listening.sock"
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind(str(path))
        result = invoke(url, "events", "--out", str(path), "--content", str(content_dir))
    assert (result.exit_code, result.output) == (
        1,
        f"error: cannot write {path}: not a regular file, a FIFO or a character device\n",
    )
    assert stat.S_ISSOCK(os.stat(path).st_mode)


@pytest.mark.parametrize("command", ["gradebook", "events", "items"])
def test_content_that_is_a_file_or_missing_is_a_usage_error(db, url, content_dir, command):
    for content, problem in [
        (next(content_dir.rglob("*.yaml")), "is a file"),
        (content_dir / "missing", "does not exist"),
    ]:
        result = invoke(url, command, "--content", str(content))
        assert result.exit_code == 2, result.output
        assert problem in result.output
