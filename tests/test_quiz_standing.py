"""A learner's standing on a chapter question and the chapter's total, and the order of a
choice question's choices per learner."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from quizsvc import store
from quizsvc.bank import (
    LocalizedText,
    NumericQuestion,
    OpenQuestion,
    SingleChoiceQuestion,
)
from quizsvc.quiz_standing import (
    QuestionStanding,
    choice_labels,
    choice_letter,
    choice_order,
    quiz_total,
)

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
TEXT = LocalizedText(zh="文", en="text")


def single(question_id: str = "q", points: float = 1.0, **tries) -> SingleChoiceQuestion:
    return SingleChoiceQuestion(
        id=question_id,
        type="single_choice",
        prompt=TEXT,
        tags=("qkv",),
        points=points,
        choices=[{"id": c, "text": TEXT} for c in "ABCD"],
        correct="B",
        explanation=TEXT,
        **tries,
    )


def open_question(points: float = 2.0) -> OpenQuestion:
    rubric = [
        {"key": "k", "weight": 1, "description": TEXT, "phrases": {"zh": ["文"], "en": ["t"]}}
    ]
    return OpenQuestion(
        id="o",
        type="open",
        prompt=TEXT,
        tags=("multi_head",),
        points=points,
        reference_answer=TEXT,
        rubric=rubric,
    )


def numeric() -> NumericQuestion:
    return NumericQuestion(
        id="n", type="numeric", prompt=TEXT, tags=("softmax",), answer=0.5, explanation=TEXT
    )


def answer(attempt: int, raw: float | None, score: float | None, reviewed: bool = False):
    return store.AnsweredQuestion(
        answer_id=attempt,
        question_id="q",
        choices=["A"] if raw is not None else None,
        text=None if raw is not None else "why",
        score=score,
        suggested_score=None,
        answered_at=T0,
        review_comment="ok" if reviewed else None,
        reviewed_at=T0 if reviewed else None,
        attempt=attempt,
        raw_score=raw,
    )


@pytest.mark.parametrize(
    ("latest", "left", "finished", "status"),
    [
        (None, 3, False, "not_answered"),
        (answer(1, 0.0, 0.0), 2, False, "try_again"),
        (answer(2, 0.5, 0.25), 1, False, "try_again"),  # partly right: another try may do better
        (answer(2, 1.0, 0.75), 1, True, "answered"),  # right: tries left, but done
        (answer(3, 0.0, 0.0), 0, True, "answered"),  # out of tries
    ],
)
def test_a_choice_question_with_tries_is_finished_when_right_or_out_of_tries(
    latest, left, finished, status
):
    standing = QuestionStanding(single(attempts=3, penalty=0.25), latest)
    assert (standing.attempts, standing.penalty) == (3, 0.25)
    assert (standing.attempts_left, standing.finished, standing.status) == (left, finished, status)


def test_numeric_and_open_questions_have_one_try():
    wrong = QuestionStanding(numeric(), answer(1, 0.0, 0.0))
    assert (wrong.attempts, wrong.attempts_left, wrong.finished) == (1, 0, True)
    waiting = QuestionStanding(open_question(), answer(1, None, None))
    assert (waiting.finished, waiting.status) == (True, "awaiting_review")
    reviewed = QuestionStanding(open_question(), answer(1, None, 0.5, reviewed=True))
    assert reviewed.status == "answered"


def test_the_total_counts_the_latest_scores_and_is_final_once_everything_is_graded():
    right_late = QuestionStanding(single("a", attempts=2, penalty=0.25), answer(2, 1.0, 0.75))
    waiting = QuestionStanding(open_question(points=2), answer(1, None, None))
    unanswered = QuestionStanding(single("c", points=3), None)
    running = quiz_total([right_late, waiting, unanswered])
    # 1 x 0.75 of 1 + 2 + 3 points
    assert (running.earned, running.possible, running.answered) == (0.75, 6.0, 2)
    assert (running.awaiting_review, running.unfinished, running.final) == (1, 1, False)

    reviewed = QuestionStanding(open_question(points=2), answer(1, None, 0.5, reviewed=True))
    wrong = QuestionStanding(single("c", points=3), answer(1, 0.0, 0.0))
    final = quiz_total([right_late, reviewed, wrong])
    # 0.75 + 2 x 0.5 + 0 of 6
    assert (final.earned, final.possible, final.final) == (1.75, 6.0, True)
    assert final.fraction == pytest.approx(1.75 / 6)
    assert quiz_total([]).final is False and quiz_total([]).fraction is None


def test_the_choice_order_is_a_learner_s_own_and_the_same_every_time():
    ids = ["A", "B", "C", "D"]
    orders = {learner: choice_order(learner, "qkv-origin", ids) for learner in range(1, 9)}
    for learner, order in orders.items():
        assert sorted(order) == ids
        assert choice_order(learner, "qkv-origin", ids) == order
    assert len({tuple(order) for order in orders.values()}) >= 2
    # another question, another order for the same learner (of eight questions, not one
    # order for all: the question is part of the seed)
    per_question = {tuple(choice_order(1, f"q{n}", ids)) for n in range(8)}
    assert len(per_question) >= 2
    assert ids == ["A", "B", "C", "D"]  # the authored list is left as it was


def test_a_choice_s_letter_is_its_place_in_the_learner_s_order():
    assert [choice_letter(n) for n in range(4)] == ["A", "B", "C", "D"]
    # as a spreadsheet names its columns, past Z
    assert [choice_letter(n) for n in (25, 26, 27, 51, 52)] == ["Z", "AA", "AB", "AZ", "BA"]
    assert choice_labels(["q2", "q-x", "A"]) == {"q2": "A", "q-x": "B", "A": "C"}
    with pytest.raises(ValueError):
        choice_letter(-1)
