"""The long-format event export: exact rows in CSV and JSON Lines, and streaming."""

from __future__ import annotations

import csv
import io
import json

import pytest
from sqlalchemy import event

from quizsvc.reports import (
    EVENT_COLUMNS,
    UTF8_BOM,
    events_csv_chunks,
    events_jsonl_chunks,
    formats,
    iter_events,
    write_events,
)
from quizsvc.store import reports_queries

PARAMS = {"n": 3, "d_model": 4}
CELLS = [{"row": 0, "col": 0, "expected": "-inf", "given": "-inf", "ok": True}]
PARAMS_JSON = '{"n":3,"d_model":4}'
CELLS_JSON = '[{"row":0,"col":0,"expected":"-inf","given":"-inf","ok":true}]'


def expected_json(s) -> list[dict]:
    """By student (ada, bo, cy; dee did nothing; grace is an instructor), then time."""

    def quiz(i, student, name, question, kind, skill, answer, score, attempt, minute):
        return dict(
            event="quiz", event_id=s.quiz[i], student_id=student, student_name=name,
            question_id=question, kind=kind, skill=skill, seed=None, params=None,
            answer=answer, cells=None, raw_score=None, penalty=None, score=score,
            attempt=attempt, at=f"2026-11-30T09:{minute:02d}:00Z",
        )  # fmt: skip

    def drill(i, student, name, question, kind, skill, seed, raw, penalty, score, attempt, minute):
        return dict(
            event="drill", event_id=s.drill[i], student_id=student, student_name=name,
            question_id=question, kind=kind, skill=skill, seed=seed, params=PARAMS,
            answer=s.DRILL_ANSWER, cells=CELLS, raw_score=raw, penalty=penalty, score=score,
            attempt=attempt, at=f"2026-11-30T09:{minute:02d}:00Z",
        )  # fmt: skip

    return [
        quiz(0, s.ada, "ada", "q-single", "single_choice", "qkv", "B", 1.0, 1, 1),
        quiz(1, s.ada, "ada", "q-multi", "multiple_choice", "softmax", "a,c", 0.5, 1, 2),
        # the reviewed open answer carries the confirmed score
        quiz(2, s.ada, "ada", "q-open", "open", "multi_head", s.ADA_OPEN, 0.75, 1, 3),
        drill(0, s.ada, "ada", "d-scores", "score_row", "scores", 11, 0.5, 0.0, 0.5, 1, 20),
        # second try: penalty min(1.0, 0.1 x 1) = 0.1, score 1.0 - 0.1 = 0.9
        drill(1, s.ada, "ada", "d-scores", "score_row", "scores", 11, 1.0, 0.1, 0.9, 2, 21),
        drill(2, s.ada, "ada", "d-softmax", "softmax_row", "softmax", 12, 1.0, 0.0, 1.0, 1, 22),
        quiz(3, s.bo, "bo", "q-single", "single_choice", "qkv", "A", 0.0, 1, 4),
        quiz(4, s.bo, "bo", "q-open", "open", "multi_head", s.BO_OPEN, None, 1, 5),  # awaiting
        drill(3, s.bo, "bo", "d-scores", "score_row", "scores", 13, 0.25, 0.0, 0.25, 1, 23),
        quiz(5, s.cy, "cy", "q-single", "single_choice", "qkv", "A", 0.0, 1, 6),
        quiz(6, s.cy, "cy", "q-single", "single_choice", "qkv", "B", 1.0, 2, 7),
    ]


def as_csv_cells(row: dict) -> list[str]:
    def cell(column, value):
        if value is None:
            return ""
        if column == "params":
            return PARAMS_JSON
        if column == "cells":
            return CELLS_JSON
        return str(value)  # the drills' "-inf, 0.5" is only numbers: no apostrophe

    return [cell(column, row[column]) for column in EVENT_COLUMNS]


def test_events_are_every_students_submission_and_answer_in_order(seeded, session, bank):
    events = [e.json_dict() for e in iter_events(session, bank)]
    assert events == expected_json(seeded)


def test_csv_has_a_bom_the_columns_and_exact_rows(seeded, session, bank):
    data = b"".join(events_csv_chunks(session, bank))
    assert data.startswith(UTF8_BOM + b"event,event_id,student_id,student_name,question_id,")
    text = data[len(UTF8_BOM) :].decode("utf-8")
    assert '"Heads, ""views""\nand more"' in text  # comma, quotes, line break
    assert seeded.BO_OPEN in text  # Chinese, and U+2028 kept as it is inside the field
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert rows[0] == list(EVENT_COLUMNS)
    assert rows[1:] == [as_csv_cells(row) for row in expected_json(seeded)]


def test_jsonl_is_one_parseable_object_per_line_without_bom_or_nan_tokens(seeded, session, bank):
    data = b"".join(events_jsonl_chunks(session, bank))
    assert not data.startswith(UTF8_BOM)
    text = data.decode("utf-8")
    assert text.endswith("\n")
    for token in ("NaN", "Infinity"):
        assert token not in text
    # U+2028 is escaped, so even str.splitlines() sees one object per line
    assert "\\u2028" in text and "\u2028" not in text
    lines = text.splitlines()
    assert lines == text.split("\n")[:-1]
    assert [json.loads(line) for line in lines] == expected_json(seeded)
    assert "王小明" not in text and "多头注意力" in text  # UTF-8, not \\u escapes


def test_write_events_writes_either_format(seeded, session, bank):
    for fmt, chunks in (("csv", events_csv_chunks), ("jsonl", events_jsonl_chunks)):
        out = io.BytesIO()
        write_events(session, out, format=fmt, bank=bank)
        assert out.getvalue() == b"".join(chunks(session, bank))


def test_without_the_bank_or_for_a_removed_question_the_quiz_kind_is_empty(seeder, sessions):
    ada = seeder.user("ada")
    seeder.choose(ada, "q-single", ["B"], 1.0, 1)
    with sessions() as session:
        (without_bank,) = iter_events(session)
        assert without_bank.kind is None
        (row,) = list(csv.reader(io.StringIO(b"".join(events_csv_chunks(session)).decode())))[1:]
        assert row[EVENT_COLUMNS.index("kind")] == ""


def test_an_empty_database_gives_the_header_only(sessions, bank):
    with sessions() as session:
        assert b"".join(events_csv_chunks(session, bank)) == (
            UTF8_BOM + ",".join(EVENT_COLUMNS).encode() + b"\r\n"
        )
        assert b"".join(events_jsonl_chunks(session, bank)) == b""


def test_the_queries_stream_rather_than_fetch_everything(seeded, engine, sessions, bank):
    """Both event queries run with yield_per (stream_results: a server-side cursor on
    PostgreSQL), and the rows come in batches of that size."""
    seen = []

    @event.listens_for(engine, "before_cursor_execute")
    def record(conn, cursor, statement, parameters, context, executemany):
        if statement.lstrip().upper().startswith("SELECT"):
            seen.append(context.execution_options)

    try:
        with sessions() as session:
            assert len(list(iter_events(session, bank, yield_per=2))) == 11
    finally:
        event.remove(engine, "before_cursor_execute", record)
    assert len(seen) == 2
    assert all(o.get("yield_per") == 2 and o.get("stream_results") for o in seen)


@pytest.fixture
def open_cursors(monkeypatch) -> set:
    """The event streams whose cursor is open right now."""
    streams: set = set()
    original = reports_queries.stream_rows

    def tracked(session, query, *, yield_per):
        key = object()
        streams.add(key)
        try:
            yield from original(session, query, yield_per=yield_per)
        finally:
            streams.discard(key)

    monkeypatch.setattr(reports_queries, "stream_rows", tracked)
    return streams


def test_stopping_early_closes_both_cursors_at_once(seeded, sessions, bank, open_cursors):
    with sessions() as session:
        events = iter_events(session, bank, yield_per=1)
        first = next(events)
        assert (first.event, first.question_id) == ("quiz", "q-single")
        assert len(open_cursors) == 2
        events.close()
        assert not open_cursors
        assert len(list(iter_events(session, bank))) == 11  # the session is still usable


@pytest.mark.parametrize("export", [events_csv_chunks, events_jsonl_chunks])
def test_a_download_abandoned_after_one_chunk_closes_both_cursors_at_once(
    seeded, sessions, bank, open_cursors, monkeypatch, export
):
    monkeypatch.setattr(formats, "CHUNK_SIZE", 1)  # a chunk per row
    with sessions() as session:
        chunks = export(session, bank, yield_per=1)
        assert next(chunks)
        assert len(open_cursors) == 2
        chunks.close()  # what a WSGI server does when the client goes away
        assert not open_cursors


def test_at_the_same_instant_a_drill_event_comes_before_a_quiz_event(seeder, sessions, bank):
    # the quiz answer's id (1) is lower than the second submission's (2): the kind decides
    ivy = seeder.user("ivy")
    variant = seeder.variant(ivy, "d-scores", 1, 1)
    seeder.submit(ivy, variant, 0.5, 3)
    seeder.submit(ivy, variant, 1.0, 5)
    seeder.choose(ivy, "q-single", ["B"], 1.0, 5)
    with sessions() as session:
        order = [(e.event, e.event_id, e.at.minute) for e in iter_events(session, bank)]
    assert order == [("drill", 1, 3), ("drill", 2, 5), ("quiz", 1, 5)]
