"""The feedback that teaches on a drill's page and in the API: beside each wrong cell of the
latest attempt, the known mistake that explains it or else how far off it is (the
diagnosis `practice.submission_diagnosis` computes), in the page's language; before an
attempt, what it may score; after a worse retry, which score counts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask_babel import force_locale, gettext

from quizsvc import practice, store
from quizsvc.drills.mistakes import DISTANCE_MESSAGES, MISTAKES, CellDiagnosis, Distance
from quizsvc.grading import score_after_attempts
from quizsvc.web.answer_grid import cell_field
from quizsvc.web.render import format_whole_percent


def mistake_message(code: str) -> str:
    return gettext(MISTAKES[code].template)


def distance_message(distance: Distance) -> str:
    return gettext(DISTANCE_MESSAGES[distance])


@dataclass(frozen=True)
class CellNote:
    """What the page says of one wrong cell: numbered as the mark beside the cell shows it,
    named by its headers (``label``), the messages of the mistakes that explain it, or of
    how far off it is when none does (``explained`` False)."""

    number: int
    row: int
    col: int
    label: str
    messages: tuple[str, ...]
    explained: bool

    @property
    def field(self) -> str:
        """The id of the cell's input, which names the note in its aria-describedby."""
        return cell_field(self.row, self.col)

    @property
    def note_id(self) -> str:
        return f"note-{self.row}-{self.col}"


@dataclass(frozen=True)
class CellNotes:
    """The notes box under the grid: a summary line and one note per wrong cell, row-major."""

    summary: str | None
    notes: tuple[CellNote, ...]

    def at(self, row: int, col: int) -> CellNote | None:
        return next((n for n in self.notes if (n.row, n.col) == (row, col)), None)


def cell_notes(
    diagnosis: tuple[CellDiagnosis, ...], names: list[list[str]], cells: int
) -> CellNotes | None:
    """The notes of an attempt's wrong cells (``names``: each cell's headers as the page
    shows them; ``cells``: how many the answer has), or None when none was wrong."""
    if not diagnosis:
        return None
    notes = tuple(
        CellNote(
            number,
            cell.row,
            cell.col,
            names[cell.row][cell.col],
            tuple(mistake_message(code) for code in cell.named)
            or (distance_message(cell.distance),),
            bool(cell.codes),
        )
        for number, cell in enumerate(diagnosis, start=1)
    )
    explained = sum(note.explained for note in notes)
    if cells == 1:  # one number: its note says all there is
        summary = None
    elif explained == 0:
        summary = gettext(
            "%(wrong)s of %(cells)s cells wrong; no known mistake explains them.",
            wrong=len(notes),
            cells=cells,
        )
    else:
        summary = gettext(
            "%(wrong)s of %(cells)s cells wrong; %(explained)s explained by a known mistake.",
            wrong=len(notes),
            cells=cells,
            explained=explained,
        )
    return CellNotes(summary, notes)


def latest_notes(state: practice.DrillState, names: list[list[str]]) -> CellNotes | None:
    """The notes of the variant's latest attempt, if it had a wrong cell."""
    if not state.submissions:
        return None
    diagnosis = practice.submission_diagnosis(state, state.submissions[-1])
    return cell_notes(diagnosis, names, state.variant.answer.values.size)


def next_attempt_cost(stored: store.StoredVariant) -> str:
    """Beside the Submit button: what the attempt about to be sent may score, and what a
    retry after it costs (the store's rule, `grading.score_after_attempts`: each attempt
    after the first takes the penalty off once more)."""
    if stored.attempts_allowed == 1:
        return gettext("This is your only attempt: this drill cannot be retried.")
    attempt = stored.attempts_allowed - stored.attempts_left + 1
    best = format_whole_percent(score_after_attempts(1.0, attempt, stored.penalty))
    if stored.attempts_left == 1:
        return gettext("This is your last attempt; it can score at most %(best)s.", best=best)
    if stored.penalty == 0:
        return gettext("A retry costs nothing: every attempt can score %(best)s.", best=best)
    return gettext(
        "This attempt can score at most %(best)s; each retry takes %(penalty)s more off.",
        best=best,
        penalty=format_whole_percent(stored.penalty),
    )


def score_that_counts(submissions: list[store.SubmissionResult]) -> str | None:
    """Which score is the variant's once it has more than one attempt: the best (the
    progress counts a variant at its best attempt, `store.progress`), said outright when the
    latest attempt scored less."""
    if len(submissions) < 2:
        return None
    best = max(submissions, key=lambda s: s.score)  # the first of equal bests
    latest = submissions[-1]
    if latest.score < best.score:
        return gettext(
            "Your best score, %(best)s (attempt %(best_attempt)s), counts, not the %(latest)s "
            "of attempt %(latest_attempt)s: a retry never lowers your score.",
            best=format_whole_percent(best.score),
            best_attempt=best.attempt,
            latest=format_whole_percent(latest.score),
            latest_attempt=latest.attempt,
        )
    return gettext(
        "Your score for this drill: %(score)s (your best attempt counts, so a retry never "
        "lowers it).",
        score=format_whole_percent(best.score),
    )


def diagnosis_json(cell: CellDiagnosis) -> dict[str, Any]:
    """A wrong cell's diagnosis as the API sends it, its messages in the request's locale."""
    return {
        "mistakes": [{"code": code, "message": mistake_message(code)} for code in cell.codes],
        "distance": {"code": cell.distance.value, "message": distance_message(cell.distance)},
    }


def cells_with_diagnosis(
    cells: list[dict[str, Any]], diagnosis: tuple[CellDiagnosis, ...], lang: str
) -> list[dict[str, Any]]:
    """A submission's cells as the API sends them (`api_json.submission_json`), each wrong
    one with its ``diagnosis``, its messages in ``lang``."""
    by_cell = {(cell.row, cell.col): cell for cell in diagnosis}
    with force_locale(lang):
        return [
            {**cell, "diagnosis": diagnosis_json(by_cell[cell["row"], cell["col"]])}
            if (cell["row"], cell["col"]) in by_cell
            else cell
            for cell in cells
        ]
