"""What each column of the downloads holds, in English, for the instructor's reports page (a
spreadsheet shows only the headers, and the files write scores as fractions where every page
shows percentages); marked for the interface's translation catalogs (``N_``)."""

from __future__ import annotations

from quizsvc.bank import N_

# "<question>", "best:<kind>" and "mastery:<kind>" stand for the gradebook's columns of those
# names.  Its scores are percentages rounded for display, or fractions in the exact download.
GRADEBOOK_COLUMN_HELP: dict[str, str] = {
    "student_id": N_("the student's user id"),
    "name": N_("the login name"),
    "display_name": N_("the display name"),
    "<question>": N_(
        "one column per chapter question, headed by its id: the score of the latest "
        "answer; empty if unanswered or while an open answer awaits review"
    ),
    "best:<kind>": N_(
        "one column per drill kind: the best score of the student's submissions to the "
        "chapter's drills of that kind (after the attempts penalty); empty if none"
    ),
    "mastery:<kind>": N_(
        "one column per drill kind: the mastery of the skill the kind trains (the "
        "percentage the progress pages show; kinds training one skill share it); empty "
        "if never graded on the skill"
    ),
    "total": N_(
        "the chapter total: the points-weighted mean score, Σ(points × score) / Σ points, "
        "unanswered questions and answers awaiting review counting 0, drills not counted; "
        "empty if no chapter question is answered"
    ),
    "drill_total": N_(
        "the mean of the best:<kind> columns, a kind never tried counting 0; empty if no "
        "drill was tried"
    ),
    "last_activity": N_(
        "when the student last submitted a drill or answered a question (UTC); empty if never"
    ),
}
EVENT_COLUMN_HELP: dict[str, str] = {
    "event": N_("drill (a drill submission) or quiz (an answer to a chapter question)"),
    "event_id": N_("the submission's or the answer's id"),
    "student_id": N_("the student's user id"),
    "student_name": N_("the student's login name"),
    "question_id": N_("the question's id"),
    "kind": N_(
        "the drill's kind, or the chapter question's type (empty if the question is no "
        "longer in the bank)"
    ),
    "skill": N_("the skill it trains"),
    "seed": N_(
        "the drill variant's seed (Preview shows that variant again); empty for a chapter question"
    ),
    "params": N_("the drill's parameters (JSON); empty for a chapter question"),
    "answer": N_(
        "what the student wrote; for a choice question the ids of the chosen choices as "
        "authored (not the letters of the student's page, which follow the student's own "
        "order of the choices), separated by commas"
    ),
    "cells": N_("the drill's result per cell (JSON); empty for a chapter question"),
    "raw_score": N_("the score before the attempts penalty (0 to 1); empty for a chapter question"),
    "penalty": N_("what the attempts penalty took off (0 to 1); empty for a chapter question"),
    "score": N_(
        "the score (0 to 1; a drill's after the penalty); empty while an open answer awaits review"
    ),
    "attempt": N_("the attempt at this drill variant or at this chapter question"),
    "at": N_("when it was submitted or answered (UTC)"),
}
ITEM_COLUMN_HELP: dict[str, str] = {
    "question_id": N_("the question's id"),
    "type": N_("the drill's kind, or the chapter question's type"),
    "points": N_("the question's points"),
    "students": N_("students with a score on the item"),
    "attempts": N_("answers or drill submissions recorded for it"),
    "mean_score": N_("the mean of the students' item scores (0 to 1)"),
    "facility": N_("the facility index: the mean score as a percentage of the maximum"),
    "discrimination": N_(
        "the discrimination index: the correlation (× 100) of the item score with the rest "
        "of the test"
    ),
    "part": N_(
        "empty on the item's line; choice:<id> on a line per choice, cell:<row>,<column> "
        "(from 1) on a line per cell of a drill's answer grid"
    ),
    "count": N_("students who chose the choice; submissions with the cell wrong"),
    "of": N_("the item's students; submissions that graded the cell"),
    "percent": N_("count / of × 100"),
    "credit": N_("the choice's credit: 1 for the correct one, else 0, or its score"),
}
