"""A drill's submission result carries the diagnosis of its wrong cells."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from quizsvc import practice, store
from quizsvc.bank import load_bank
from quizsvc.drills import drill_param_models
from quizsvc.drills.mistakes import Distance

CONTENT = Path(__file__).resolve().parents[1] / "content"


def test_a_submitted_drill_names_the_mistake_behind_a_wrong_cell(session_factory) -> None:
    bank = load_bank(CONTENT, drill_param_models())
    with session_factory() as session:
        learner = store.create_user(session, name="ada", role="student", password="x" * 12).id
        issued = practice.start_drill(session, bank, learner, "drill-score-row", seed=3)
        variant = practice.drill_state(session, learner, issued.id).variant
        raw = variant.given[0].values @ variant.given[1].values.T  # √d_k = 2 left out
        answer = " ".join(repr(float(value)) for value in raw[0])
        outcome = practice.submit_drill(session, learner, issued.id, answer, "key-1")
    wrong = [cell for cell in outcome.grade.cells if not cell.correct]
    assert wrong and [(d.row, d.col) for d in outcome.diagnosis] == [(c.row, c.col) for c in wrong]
    assert all("no_scaling" in d.codes for d in outcome.diagnosis)
    assert np.allclose(
        [d.off_by for d in outcome.diagnosis], [c.submitted - c.expected for c in wrong]
    )


def test_a_recorded_submission_is_diagnosed_again_from_its_stored_values(session_factory) -> None:
    bank = load_bank(CONTENT, drill_param_models())
    with session_factory() as session:
        learner = store.create_user(session, name="bo", role="student", password="x" * 12).id
        issued = practice.start_drill(session, bank, learner, "drill-masked-score-row", seed=2)
        expected = practice.drill_state(session, learner, issued.id).variant.answer.values
        finite = [col for col, value in enumerate(expected[0]) if np.isfinite(value)]
        typed = [
            "-inf" if col == finite[0] else repr(float(v)) for col, v in enumerate(expected[0])
        ]
        outcome = practice.submit_drill(session, learner, issued.id, " ".join(typed), "key-1")
        again = practice.submission_diagnosis(outcome.state, outcome.state.submissions[-1])
    # the stored "-inf" is read back as minus infinity: the one wrong cell, a number's place
    assert again == outcome.diagnosis
    assert [(d.col, d.distance) for d in again] == [(finite[0], Distance.NOT_FINITE)]
