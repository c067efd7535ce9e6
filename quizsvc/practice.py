"""What a learner does, as domain operations: start a drill, submit an answer, answer a quiz
question, see what to practise next. Joins the bank, the drills, the grader and the store;
the web layer only translates requests into these calls (no Flask here)."""

from __future__ import annotations

import functools
import secrets
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
from sqlalchemy.orm import Session

from quizsvc import deadlines, store
from quizsvc.bank import (
    Bank,
    DrillQuestion,
    MultipleChoiceQuestion,
    NumericQuestion,
    OpenQuestion,
    SingleChoiceQuestion,
    question_tries,
)
from quizsvc.drills import DRILL_KINDS, Variant, generate_variant
from quizsvc.drills.mistakes import CellDiagnosis, diagnose
from quizsvc.drills.trained import ChapterModel
from quizsvc.grading import (
    N_,
    AnswerRejected,
    NumericGrade,
    Rejection,
    RubricPoint,
    RubricSuggestion,
    Tolerance,
    grade_multiple_choice,
    grade_numeric,
    grade_single_choice,
    parse_shaped_answer,
    score_of_points,
    suggest_open_score,
)


class PracticeError(Exception):
    """A request that names something that does not exist or cannot be done."""


def drill_question(bank: Bank, question_id: str) -> DrillQuestion:
    question = bank.questions.get(question_id)
    if not isinstance(question, DrillQuestion):
        raise PracticeError(f"no drill {question_id!r}")
    return question


def drill_skill(question: DrillQuestion) -> str:
    return DRILL_KINDS[question.kind].skill


def chapter_model(bank: Bank, question_id: str) -> ChapterModel | None:
    """The trained model (and its corpus) of the question's chapter, if it ships one."""
    chapter_id = bank.chapter_of.get(question_id)
    model, corpus = bank.models.get(chapter_id or ""), bank.corpora.get(chapter_id or "")
    return None if model is None or corpus is None else ChapterModel(model, corpus)


def build_variant(
    question: DrillQuestion, seed: int, chapter: ChapterModel | None = None
) -> Variant:
    """The drill kind's variant, with the question's own tolerance and scoring rule;
    ``chapter``: the chapter's trained model (``chapter_model``), for ``weights``."""
    return generate_variant(question.kind, seed, question.params, chapter).with_scoring(
        question_tolerance(question), question.all_or_nothing
    )


def question_tolerance(question: DrillQuestion) -> Tolerance | None:
    if question.tolerance is None:
        return None
    return Tolerance(question.tolerance.atol, question.tolerance.rtol)


@dataclass(frozen=True)
class DrillState:
    """A learner's variant and what has happened to it so far."""

    stored: store.StoredVariant
    variant: Variant
    submissions: list[store.SubmissionResult]

    @property
    def solved(self) -> bool:
        return any(s.raw_score == 1.0 for s in self.submissions)

    @property
    def finished(self) -> bool:
        """Solved or out of attempts: from now on the answer and solution may be shown."""
        return self.solved or self.stored.attempts_left <= 0


def start_drill(
    session: Session,
    bank: Bank,
    learner_id: int,
    question_id: str,
    seed: int | None = None,
    *,
    now: datetime | None = None,
) -> store.IssuedVariant:
    """Issue a new variant of the drill; deadlines.DeadlineRefused while the chapter's
    drills take no answers from the learner."""
    question = drill_question(bank, question_id)
    deadlines.require_answerable(
        session, bank, learner_id, bank.chapter_of[question.id], "drills", now
    )
    seed = secrets.randbelow(2**31) if seed is None else seed
    variant = build_variant(question, seed, chapter_model(bank, question.id))
    return store.issue_variant(
        session,
        learner_id=learner_id,
        question_id=question.id,
        kind=question.kind,
        seed=seed,
        params=variant.params,
        variant_json=variant.to_json(),
        content_version=bank.version,
        attempts_allowed=question.attempts,
        penalty=question.penalty,
        skill=variant.skill,
    )


def resume_or_start_drill(session: Session, bank: Bank, learner_id: int, question_id: str) -> int:
    """The id of the learner's newest unfinished variant of the drill, or of a new one.

    Starting afresh while a variant waits would leave it behind unnoticed (its attempts
    unused, its numbers half worked out); a fresh variant on purpose is `start_drill`.
    """
    question = drill_question(bank, question_id)
    deadlines.require_answerable(session, bank, learner_id, bank.chapter_of[question.id], "drills")
    waiting = store.unfinished_variants(session, learner_id, question_id=question.id, limit=1)
    if waiting:
        return waiting[0].variant_id
    return start_drill(session, bank, learner_id, question.id).id


def issued_state(issued: store.IssuedVariant) -> DrillState:
    """A variant just issued, as ``drill_state`` would read it back: nothing answered yet
    (its variant rebuilt from the document stored, as every later read rebuilds it)."""
    stored = issued.as_stored()
    return DrillState(stored=stored, variant=Variant.from_json(stored.variant_json), submissions=[])


def drill_state(session: Session, learner_id: int, variant_id: int) -> DrillState:
    """Raises store.NotFound or store.NotYourVariant."""
    stored = store.load_variant(session, variant_id, learner_id=learner_id)
    return DrillState(
        stored=stored,
        variant=Variant.from_json(stored.variant_json),
        submissions=store.variant_submissions(session, variant_id),
    )


@dataclass(frozen=True)
class DrillOutcome:
    """``diagnosis``: each wrong cell with the known mistakes that explain it
    (``quizsvc.drills.mistakes``), recomputed from the variant and the answer graded (``parsed``),
    never stored; computed when first asked for (the API sends it, the page that follows a
    form's answer diagnoses the recorded attempt)."""

    grade: NumericGrade
    submission: store.SubmissionResult
    state: DrillState
    parsed: np.ndarray = field(repr=False, compare=False)

    @functools.cached_property
    def diagnosis(self) -> tuple[CellDiagnosis, ...]:
        return diagnose(self.state.variant, self.parsed)


def submit_drill(
    session: Session,
    learner_id: int,
    variant_id: int,
    answer_text: str,
    idempotency_key: str,
    *,
    state: DrillState | None = None,
    bank: Bank | None = None,
    now: datetime | None = None,
) -> DrillOutcome:
    """Grade against the stored variant (never regenerated) and record it.

    ``state``: the variant's state the caller has just read (``drill_state``), if any. A
    variant's numbers never change once issued, so the answer is parsed and graded before
    the write transaction begins; the write (store.record_submission) checks ownership,
    attempts and the idempotency key again under its lock, which it holds for that alone.
    With no transaction open in ``session``, the reads before and after the write are
    read-only transactions of their own (on SQLite, BEGIN DEFERRED: no write lock).

    ``bank``: the bank whose chapter schedule applies (its drills' ``drills:``); a late
    answer's score loses the late penalty, and deadlines.DeadlineRefused is raised while
    the drills take no answers. None (the self-test, seeded data): no schedule applies.

    Raises grading.AnswerRejected for unreadable input or a wrong shape (nothing recorded,
    no attempt used), store.AttemptsExhausted, store.NotYourVariant, store.NotFound.
    """
    if state is None:
        state = _read_state(session, learner_id, variant_id)
    late_penalty = 0.0
    question_id = state.stored.question_id
    if bank is not None and question_id in bank.chapter_of:
        chapter_id = bank.chapter_of[question_id]
        late_penalty = deadlines.require_answerable(
            session, bank, learner_id, chapter_id, "drills", now
        )
    variant = state.variant
    require_storable_text(answer_text)
    parsed = parse_shaped_answer(answer_text, variant.answer.values)
    grade = grade_numeric(
        parsed, variant.answer.values, variant.tolerance, all_or_nothing=variant.all_or_nothing
    )
    submission = store.record_submission(
        session,
        learner_id=learner_id,
        variant_id=variant_id,
        idempotency_key=idempotency_key,
        answer_text=answer_text,
        parsed_value=parsed.tolist(),
        raw_score=grade.score,
        cells=grade.to_json_dict()["cells"],
        late_penalty=late_penalty,
        now=now,
    )
    return DrillOutcome(grade, submission, _read_state(session, learner_id, variant_id), parsed)


def _read_state(session: Session, learner_id: int, variant_id: int) -> DrillState:
    """``drill_state``, in a read-only transaction ended afterwards when none was open (so
    that a write may follow in ``session``); else in the open one."""
    if session.in_transaction():
        return drill_state(session, learner_id, variant_id)
    store.begin_read_only(session)
    try:
        return drill_state(session, learner_id, variant_id)
    finally:
        session.commit()  # ends the reader (and, unlike a rollback, expires nothing)


def submission_diagnosis(
    state: DrillState, submission: store.SubmissionResult
) -> tuple[CellDiagnosis, ...]:
    """A recorded submission's wrong cells with the known mistakes that explain them and how
    far off they are, recomputed from the variant and the values the submission was graded
    on (stored as JSON, infinities as "inf" and "-inf")."""
    return diagnose(state.variant, submission.parsed_value)


@dataclass(frozen=True)
class Recommendation:
    """The drill to practise next and why: its skill's ``mastery``, or None when the skill
    has not been practised yet."""

    question_id: str
    skill: str
    mastery: float | None


def drill_recommendation(session: Session, bank: Bank, learner_id: int) -> Recommendation | None:
    """The drill of the learner's weakest skill: skills never practised first (in the bank's
    order), then lowest mastery. None when the bank has no drill."""
    mastery = {p.skill: p.mastery for p in store.progress_for(session, learner_id)}
    drills = [q for q in bank.questions.values() if isinstance(q, DrillQuestion)]
    if not drills:
        return None
    # sorted() is stable: ties keep the bank's order
    ranked = sorted(
        drills, key=lambda q: (drill_skill(q) in mastery, mastery.get(drill_skill(q), 0.0))
    )
    skill = drill_skill(ranked[0])
    return Recommendation(ranked[0].id, skill, mastery.get(skill))


def recommended_drill(session: Session, bank: Bank, learner_id: int) -> str | None:
    """The id of the drill `drill_recommendation` picks, or None when there is none."""
    recommendation = drill_recommendation(session, bank, learner_id)
    return recommendation.question_id if recommendation else None


@dataclass(frozen=True)
class QuizOutcome:
    answer: store.QuizAnswerResult
    score: float | None  # None: an open answer waits for an instructor
    suggestion: RubricSuggestion | None


def rubric_points(question: OpenQuestion) -> list[RubricPoint]:
    return [RubricPoint(p.key, p.weight, (*p.phrases.zh, *p.phrases.en)) for p in question.rubric]


def score_of_ticked_points(question: OpenQuestion, keys: list[str]) -> float:
    """The score of an open answer whose grader ticked the rubric points `keys`: their
    weights' share of the rubric's. ValueError names a key the rubric does not have."""
    return score_of_points(rubric_points(question), keys)


def answer_question(
    session: Session,
    bank: Bank,
    learner_id: int,
    question_id: str,
    idempotency_key: str,
    choices: list[str] | None = None,
    text: str | None = None,
    now: datetime | None = None,
) -> QuizOutcome:
    """Grade and record an answer to a chapter question, within the question's tries (its
    penalty taken off a later try's score) and the chapter's schedule (a late answer's
    score loses the late penalty; deadlines.DeadlineRefused when it takes none). Raises
    grading.AnswerRejected for an answer of the wrong form, PracticeError for an unknown
    question, store.AttemptsExhausted when no try is left (or the last was right)."""
    question = bank.questions.get(question_id)
    if question is None or isinstance(question, DrillQuestion):
        raise PracticeError(f"no question {question_id!r}")
    late_penalty = deadlines.require_answerable(
        session, bank, learner_id, bank.chapter_of[question.id], "quiz", now
    )
    if text is not None and isinstance(question, OpenQuestion | NumericQuestion):
        require_storable_text(text)  # the text is stored as typed
    suggestion = None
    score: float | None
    match question:
        case SingleChoiceQuestion():
            selected = _one_choice(choices)
            _require_choice(question, selected)
            score = grade_single_choice(selected, question.correct)
        case MultipleChoiceQuestion():
            selected = [c for c in choices or [] if c]  # a form may send an empty value
            if not selected:  # nothing ticked is no answer: it would use the only attempt
                raise AnswerRejected(N_("choose an answer before submitting"), Rejection.NO_CHOICE)
            choices = selected
            score = grade_multiple_choice(selected, {c.id: c.score for c in question.choices})
        case NumericQuestion():
            score = grade_numeric_answer(question, text or "").score
        case OpenQuestion():
            if not text or not text.strip():
                raise AnswerRejected(N_("write an answer before submitting"), Rejection.NO_TEXT)
            suggestion = suggest_open_score(text, rubric_points(question))
            score = None
    attempts, penalty = question_tries(question)
    answer = store.record_quiz_answer(
        session,
        learner_id=learner_id,
        question_id=question.id,
        content_version=bank.version,
        idempotency_key=idempotency_key,
        choices=choices if not isinstance(question, OpenQuestion | NumericQuestion) else None,
        text=text if isinstance(question, OpenQuestion | NumericQuestion) else None,
        score=score,
        suggested_score=suggestion.score if suggestion else None,
        skill=question.tags[0],
        attempts_allowed=attempts,
        penalty=penalty,
        late_penalty=late_penalty,
        now=now,
    )
    return QuizOutcome(answer, answer.score, suggestion)


def require_storable_text(text: str) -> None:
    """Refuse typed text that no database can hold as it is (store.unstorable_text), before
    it is graded or recorded, as grading.AnswerRejected: every interface shows it as any
    other unreadable answer."""
    problem = store.unstorable_text(text)
    if problem is not None:
        if problem == "nul":
            raise AnswerRejected(
                N_("answer contains a NUL character (\\u0000)"), Rejection.CONTROL_CHARACTER
            )
        raise AnswerRejected(
            N_("answer contains a lone surrogate (\\ud800-\\udfff), which is not text"),
            Rejection.LONE_SURROGATE,
        )


def grade_numeric_answer(question: NumericQuestion, text: str) -> NumericGrade:
    """A typed answer to a numeric chapter question, graded cell by cell against its key.

    The score of a recorded answer is the store's; this grades the recorded text again to
    show which cells were right (the store keeps the text, not the cells). Raises
    grading.AnswerRejected for text that is not a table of numbers of the key's shape.
    """
    return grade_numeric(
        text,
        question.answer_matrix(),
        Tolerance(question.tolerance.atol, question.tolerance.rtol),
        all_or_nothing=question.all_or_nothing,
    )


def _one_choice(choices: list[str] | None) -> str:
    choices = [c for c in choices or [] if c]  # a form may send an empty value
    if not choices:
        raise AnswerRejected(N_("choose an answer before submitting"), Rejection.NO_CHOICE)
    if len(choices) > 1:
        raise AnswerRejected(N_("choose exactly one answer"), Rejection.SEVERAL_CHOICES)
    return choices[0]


def _require_choice(question: SingleChoiceQuestion, choice: str) -> None:
    if choice not in {c.id for c in question.choices}:
        raise AnswerRejected(
            N_("{choice!r} is not one of the choices"),
            Rejection.UNKNOWN_CHOICE,
            choice=choice,
        )
