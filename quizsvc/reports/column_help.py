"""What each column of the downloads holds, in English, for the instructor's reports page (a
spreadsheet shows only the headers, and the files write scores as fractions where every page
shows percentages); marked for the interface's translation catalogs (``N_``)."""

from __future__ import annotations

from quizsvc.bank import N_

# "<question>" and "mastery:<skill>" stand for the gradebook's columns of those names.
GRADEBOOK_COLUMN_HELP: dict[str, str] = {
    "student_id": N_("the student's user id"),
    "name": N_("the login name"),
    "display_name": N_("the display name"),
    "<question>": N_(
        "one column per chapter question, headed by its id: the score of the latest "
        "answer (0 to 1; times the question's points for points); empty if unanswered or "
        "while an open answer awaits review"
    ),
    "mastery:<skill>": N_(
        "one column per drill skill: the mastery (0 to 1, the percentage the progress "
        "pages show); empty if never graded on the skill"
    ),
    "total": N_(
        "the chapter total: the points-weighted mean score, Σ(points × score) / Σ points "
        "(0 to 1), unanswered questions and answers awaiting review counting 0, drills "
        "not counted; empty if no chapter question is answered"
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
