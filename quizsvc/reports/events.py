"""Every drill submission and every quiz answer of the students, one event each (long format).

Columns (:data:`EVENT_COLUMNS`), for a drill submission / a quiz answer:

=============  ============================================  ==================================
column         ``event = "drill"``                           ``event = "quiz"``
=============  ============================================  ==================================
event          ``drill``                                     ``quiz``
event_id       the submission's id                           the quiz answer's id
student_id     the student's user id                         same
student_name   the student's login name (``users.name``)     same
question_id    the drill question's id                       the question's id
kind           the drill kind (``score_row``, ...)           the question's type in the bank
                                                             (``single_choice``, ``open``, ...);
                                                             empty if no longer in the bank
skill          the variant's skill                           the answer's skill (its first tag)
seed           the variant's seed                            empty
params         the variant's params (JSON object)            empty
answer         the text the student submitted                the open/numeric answer's text, or
                                                             the chosen choice ids (as
                                                             authored, not the letters of the
                                                             student's page) joined by ","
cells          per-cell results (JSON array)                 empty
raw_score      the score before the attempts penalty         empty
penalty        what the penalty took off                     empty
score          the score after the penalty (0 to 1)          the score (0 to 1); empty while an
                                                             open answer awaits review
attempt        the attempt at this variant (1, 2, ...)       the attempt at this question
at             when submitted (ISO 8601 UTC)                 when answered (ISO 8601 UTC)
=============  ============================================  ==================================

Only students' work is exported.  Events come by student id, then time, then drill
before quiz, then id.  In CSV, empty means none and ``params``/``cells`` are JSON text; in
JSON Lines every key is present, empty is ``null``, ``params``/``cells`` are JSON values and
``at`` is the ISO string (see :mod:`quizsvc.reports.formats` for both formats).

Everything is streamed: two cursors (submissions, quiz answers), each fetching
``yield_per`` rows at a time, merged on the fly, and encoded into chunks of about 64 KiB.
Memory does not grow with the number of rows.  The session must stay open (and, on
SQLite, should be begun with ``store.begin_read_only``) until the last chunk is taken; in
Flask, wrap the chunks in ``stream_with_context``.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any, BinaryIO

from sqlalchemy.orm import Session

from quizsvc.bank import Bank
from quizsvc.reports.formats import csv_chunks, iso_utc, json_text, jsonl_chunks, number_text
from quizsvc.store import reports_queries as queries

EVENT_COLUMNS = (
    "event",
    "event_id",
    "student_id",
    "student_name",
    "question_id",
    "kind",
    "skill",
    "seed",
    "params",
    "answer",
    "cells",
    "raw_score",
    "penalty",
    "score",
    "attempt",
    "at",
)

CHOICE_SEPARATOR = ","
_EVENT_ORDER = {"drill": 0, "quiz": 1}


@dataclass(frozen=True, slots=True)
class Event:
    """One row of the export (see the module's table); None is an empty cell."""

    event: str
    event_id: int
    student_id: int
    student_name: str
    question_id: str
    kind: str | None
    skill: str | None
    seed: int | None
    params: dict[str, Any] | None
    answer: str
    cells: list[Any] | None
    raw_score: float | None
    penalty: float | None
    score: float | None
    attempt: int
    at: datetime

    def sort_key(self) -> tuple[int, datetime, int, int]:
        return (self.student_id, self.at, _EVENT_ORDER[self.event], self.event_id)

    def csv_row(self) -> list[str]:
        return [
            self.event,
            str(self.event_id),
            str(self.student_id),
            self.student_name,
            self.question_id,
            self.kind or "",
            self.skill or "",
            number_text(self.seed),
            "" if self.params is None else json_text(self.params),
            self.answer,
            "" if self.cells is None else json_text(self.cells),
            number_text(self.raw_score),
            number_text(self.penalty),
            number_text(self.score),
            str(self.attempt),
            iso_utc(self.at),
        ]

    def json_dict(self) -> dict[str, Any]:
        """The JSON Lines object (before ±inf become strings in ``json_text``)."""
        return {
            "event": self.event,
            "event_id": self.event_id,
            "student_id": self.student_id,
            "student_name": self.student_name,
            "question_id": self.question_id,
            "kind": self.kind,
            "skill": self.skill,
            "seed": self.seed,
            "params": self.params,
            "answer": self.answer,
            "cells": self.cells,
            "raw_score": self.raw_score,
            "penalty": self.penalty,
            "score": self.score,
            "attempt": self.attempt,
            "at": iso_utc(self.at),
        }


def _drill_events(session: Session, yield_per: int) -> Iterator[Event]:
    query = queries.drill_events_query()  # selects Event's fields after `event`, in order
    for row in queries.stream_rows(session, query, yield_per=yield_per):
        yield Event("drill", *row)


def _quiz_events(session: Session, bank: Bank | None, yield_per: int) -> Iterator[Event]:
    query = queries.quiz_events_query()
    for row in queries.stream_rows(session, query, yield_per=yield_per):
        event_id, student, name, question_id, skill, choices, text, score, attempt, at = row
        question = bank.questions.get(question_id) if bank is not None else None
        yield Event(
            "quiz",
            event_id,
            student,
            name,
            question_id,
            kind=question.type if question is not None else None,
            skill=skill,
            seed=None,
            params=None,
            answer=text if text is not None else CHOICE_SEPARATOR.join(choices or ()),
            cells=None,
            raw_score=None,
            penalty=None,
            score=score,
            attempt=attempt,
            at=at,
        )


def iter_events(
    session: Session, bank: Bank | None = None, *, yield_per: int = queries.DEFAULT_YIELD_PER
) -> Iterator[Event]:
    """Every student's submissions and quiz answers as events, streamed in constant memory.

    ``bank`` gives quiz events their question type (``kind``); without it, or for a
    question no longer in the bank, ``kind`` is None.  Closing the iterator early closes
    both cursors.
    """
    drills = _drill_events(session, yield_per)
    quizzes = _quiz_events(session, bank, yield_per)
    try:
        # Both streams come sorted by (student, time, id), so merging keeps that order.
        yield from heapq.merge(drills, quizzes, key=Event.sort_key)
    finally:
        drills.close()
        quizzes.close()


def events_csv_chunks(
    session: Session, bank: Bank | None = None, *, yield_per: int = queries.DEFAULT_YIELD_PER
) -> Iterator[bytes]:
    """The events as CSV (UTF-8 BOM, header, one row per event) in chunks of ~64 KiB.

    Closing the iterator early (a client that goes away) closes the cursors at once."""
    events = iter_events(session, bank, yield_per=yield_per)
    try:
        yield from csv_chunks(EVENT_COLUMNS, (e.csv_row() for e in events))
    finally:
        events.close()


def events_jsonl_chunks(
    session: Session, bank: Bank | None = None, *, yield_per: int = queries.DEFAULT_YIELD_PER
) -> Iterator[bytes]:
    """The events as JSON Lines (UTF-8, no BOM, one object per line) in chunks of ~64 KiB.

    Closing the iterator early closes the cursors at once."""
    events = iter_events(session, bank, yield_per=yield_per)
    try:
        yield from jsonl_chunks(e.json_dict() for e in events)
    finally:
        events.close()


def write_events(
    session: Session, binary_out: BinaryIO, *, format: str = "csv", bank: Bank | None = None
) -> None:
    """Write the events as ``format`` ("csv" or "jsonl") to a binary stream, chunk by chunk."""
    if format == "csv":
        chunks = events_csv_chunks(session, bank)
    elif format == "jsonl":
        chunks = events_jsonl_chunks(session, bank)
    else:
        raise ValueError(f"unknown events format {format!r}: use 'csv' or 'jsonl'")
    for chunk in chunks:
        binary_out.write(chunk)
