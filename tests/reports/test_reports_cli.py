"""`quizsvc report gradebook|events|items` on a migrated, seeded database."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from sqlalchemy.exc import OperationalError

import quizsvc.reports
from quizsvc.cli import main
from quizsvc.reports import UTF8_BOM, events_csv_chunks, gradebook_csv_chunks
from quizsvc.store import make_engine, make_session_factory, migrate


@pytest.fixture
def url(empty_db_url: str) -> str:
    migrate.upgrade(empty_db_url)
    return empty_db_url


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


def test_a_database_that_is_not_migrated_is_a_one_line_error(empty_db_url, content_dir, tmp_path):
    out = tmp_path / "gradebook.csv"
    result = invoke(empty_db_url, "gradebook", "--out", str(out), "--content", str(content_dir))
    assert result.exit_code == 1
    assert result.output.startswith("error: the database is not at the latest migration")
    assert not out.exists()


def test_invalid_content_lists_its_errors(url, tmp_path):
    (tmp_path / "ch").mkdir()
    (tmp_path / "ch" / "chapter.yaml").write_text("id: ch\n", encoding="utf-8")
    result = invoke(url, "items", "--content", str(tmp_path))
    assert result.exit_code == 1
    assert "ch/chapter.yaml" in result.output


def test_a_failed_export_leaves_the_previous_file_alone(
    db, url, content_dir, tmp_path, monkeypatch
):
    def failing(session, bank):
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


def test_an_unwritable_destination_is_a_one_line_error(db, url, content_dir, tmp_path):
    for out in (tmp_path / "missing" / "gradebook.csv", tmp_path):  # no directory; a directory
        result = invoke(url, "gradebook", "--out", str(out), "--content", str(content_dir))
        assert result.exit_code == 1
        assert result.output.startswith(f"error: cannot write {out}: ")
        assert "Traceback" not in result.output
    assert not any(p.name.endswith(".tmp") for p in tmp_path.iterdir())
