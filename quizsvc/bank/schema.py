"""The question bank's content model: what an instructor may write in content/*.yaml.

Every model forbids unknown keys, so a misspelt key (``explaination:``) is an error
instead of a silently missing explanation.  Models are frozen and hold tuples rather
than lists: a loaded bank is shared by every request and must not be mutated.

Cross-field rules (a ``correct`` choice that exists, unique choice ids, ...) raise
``content_error`` (see ``quizsvc.bank.problems``) so the loader can point at the offending
key rather than at the whole question. Numeric answers are read by ``numeric_answers``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Annotated, Any, Literal, TypeAlias

import numpy as np
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    model_validator,
)
from pydantic_core import PydanticCustomError

from quizsvc.bank.numeric_answers import NumericAnswer, numeric_shape
from quizsvc.bank.problems import ContentProblem, content_error, english
from quizsvc.bank.schedule import DrillSchedule, QuizSchedule

Lang: TypeAlias = Literal["zh", "en"]
LANGUAGES: tuple[Lang, ...] = ("zh", "en")

QuestionType: TypeAlias = Literal["single_choice", "multiple_choice", "numeric", "open", "drill"]
QUESTION_TYPES: tuple[QuestionType, ...] = (
    "single_choice",
    "multiple_choice",
    "numeric",
    "open",
    "drill",
)

# Ids end up in URLs and in stored attempts, so they are restricted to a form that
# survives both unchanged.
_SLUG_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
_TAG_PATTERN = r"^[a-z][a-z0-9]*(?:[_-][a-z0-9]+)*$"
_CHOICE_ID_PATTERN = r"^[A-Za-z0-9]+(?:[_-][A-Za-z0-9]+)*$"
_DRILL_KIND_PATTERN = r"^[a-z][a-z0-9_]*$"
# What each pattern asks for, in an author's words rather than a regular expression's.
PATTERN_RULES = {
    _SLUG_PATTERN: ContentProblem.BAD_SLUG,
    _TAG_PATTERN: ContentProblem.BAD_TAG,
    _CHOICE_ID_PATTERN: ContentProblem.BAD_CHOICE_ID,
    _DRILL_KIND_PATTERN: ContentProblem.BAD_DRILL_KIND,
}

# The correct choices' scores must sum to 1 within this, so that three correct
# choices can be written as 0.333 each rather than as unreadable long decimals.
# The 1e-12 absorbs binary rounding, which would otherwise reject 0.5 + 0.499 but
# accept 0.5 + 0.501, both exactly 0.001 away as written.
_SCORE_SUM_TOLERANCE = 1e-3 + 1e-12


def _require_visible_text(text: str) -> str:
    if not text.strip():
        # the wording pydantic gives a ValueError, under a code of its own for translations
        raise PydanticCustomError(
            ContentProblem.BLANK_TEXT.value, english(ContentProblem.BLANK_TEXT, {})
        )
    return text


def at_least(count: int) -> BeforeValidator:
    """Require ``count`` items in the list as written.

    ``Field(min_length=...)`` counts the items left after validation, so one bad
    choice among two would also produce a misleading "at least 2 items" error.
    """

    def check(raw: Any) -> Any:
        if isinstance(raw, list | tuple) and len(raw) < count:
            code = ContentProblem.AT_LEAST_ONE_ITEM if count == 1 else ContentProblem.TOO_FEW_ITEMS
            raise PydanticCustomError(
                ContentProblem.TOO_FEW_ITEMS.value,
                english(code, {"count": count}),
                {"count": count},
            )
        return raw

    return BeforeValidator(check)


NonEmptyText = Annotated[StrictStr, AfterValidator(_require_visible_text)]
Slug = Annotated[StrictStr, Field(pattern=_SLUG_PATTERN, max_length=100)]
Tag = Annotated[StrictStr, Field(pattern=_TAG_PATTERN, max_length=50)]
ChoiceId = Annotated[StrictStr, Field(pattern=_CHOICE_ID_PATTERN, max_length=20)]
# strict=True keeps YAML booleans (``yes``/``true``) from passing as 1.0.
FiniteFloat = Annotated[float, Field(strict=True, allow_inf_nan=False)]


class ContentModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LocalizedText(ContentModel):
    """A human-readable text in both languages; Markdown where the field says so."""

    zh: NonEmptyText
    en: NonEmptyText


class LocalizedPhrases(ContentModel):
    """Phrases, per language, whose presence in an open answer shows a rubric point."""

    zh: Annotated[tuple[NonEmptyText, ...], at_least(1)]
    en: Annotated[tuple[NonEmptyText, ...], at_least(1)]


class Tolerance(ContentModel):
    """A value ``x`` matches ``expected`` when ``|x - expected| <= atol + rtol * |expected|``.

    The default suits the chapter's hand calculations, which keep two decimals.
    """

    atol: FiniteFloat = Field(default=0.01, ge=0)
    rtol: FiniteFloat = Field(default=0.0, ge=0)


# --- choices ---------------------------------------------------------------------------


class Choice(ContentModel):
    id: ChoiceId
    text: LocalizedText


class ScoredChoice(ContentModel):
    id: ChoiceId
    text: LocalizedText
    # Positive: a correct option's share of the points; negative: the penalty for
    # ticking a wrong one.
    score: FiniteFloat = Field(ge=-1, le=1)


def _duplicate_choice_error(choice_ids: Iterable[str]) -> PydanticCustomError | None:
    first_index: dict[str, int] = {}
    for index, choice_id in enumerate(choice_ids):
        if choice_id in first_index:
            return content_error(
                ContentProblem.DUPLICATE_CHOICE_ID,
                ("choices", index, "id"),
                id=choice_id,
                other=first_index[choice_id],
            )
        first_index[choice_id] = index
    return None


# --- questions -------------------------------------------------------------------------


class QuestionBase(ContentModel):
    id: Slug
    prompt: LocalizedText  # Markdown
    tags: Annotated[tuple[Tag, ...], at_least(1)]
    points: FiniteFloat = Field(default=1.0, gt=0)


class ChoiceQuestionBase(QuestionBase):
    """The tries of a choice question: the key and the explanation are shown once a try is
    fully right or none is left, so a wrong try may be followed by another."""

    attempts: StrictInt = Field(default=1, ge=1)
    # Fraction of the points lost per try after the first.
    penalty: FiniteFloat = Field(default=0.0, ge=0, le=1)


class SingleChoiceQuestion(ChoiceQuestionBase):
    type: Literal["single_choice"]
    choices: Annotated[tuple[Choice, ...], at_least(2)]
    correct: ChoiceId
    explanation: LocalizedText  # Markdown

    @model_validator(mode="after")
    def _check_choices(self) -> SingleChoiceQuestion:
        if error := _duplicate_choice_error(choice.id for choice in self.choices):
            raise error
        choice_ids = [choice.id for choice in self.choices]
        if self.correct not in choice_ids:
            raise content_error(
                ContentProblem.CORRECT_NOT_A_CHOICE,
                ("correct",),
                correct=self.correct,
                choices=choice_ids,
            )
        return self


class MultipleChoiceQuestion(ChoiceQuestionBase):
    type: Literal["multiple_choice"]
    choices: Annotated[tuple[ScoredChoice, ...], at_least(2)]
    explanation: LocalizedText  # Markdown

    @model_validator(mode="after")
    def _check_choices(self) -> MultipleChoiceQuestion:
        if error := _duplicate_choice_error(choice.id for choice in self.choices):
            raise error
        correct_total = math.fsum(choice.score for choice in self.choices if choice.score > 0)
        if abs(correct_total - 1.0) > _SCORE_SUM_TOLERANCE:
            raise content_error(
                ContentProblem.SCORES_NOT_ONE, ("choices",), total=f"{correct_total:g}"
            )
        return self

    @property
    def correct_choice_ids(self) -> tuple[str, ...]:
        return tuple(choice.id for choice in self.choices if choice.score > 0)


class NumericQuestion(QuestionBase):
    type: Literal["numeric"]
    answer: NumericAnswer
    tolerance: Tolerance = Tolerance()
    # True: any cell outside tolerance scores the whole question 0 instead of
    # giving credit per correct cell.
    all_or_nothing: StrictBool = False
    explanation: LocalizedText  # Markdown

    @property
    def answer_shape(self) -> tuple[int, ...]:
        return numeric_shape(self.answer)

    def answer_matrix(self) -> np.ndarray:
        """The answer as a 2-D float64 array: a number is (1, 1), a list is (1, n).

        This is the layout ``quizsvc.grading.parse.parse_answer`` gives a learner's
        answer, so the two can be compared cell by cell.
        """
        return np.atleast_2d(np.asarray(self.answer, dtype=np.float64))


class RubricPoint(ContentModel):
    key: Slug
    # Relative: a point is worth weight / (sum of the rubric's weights), so authors
    # need not make the weights add up to 1.
    weight: FiniteFloat = Field(gt=0)
    description: LocalizedText
    phrases: LocalizedPhrases


class OpenQuestion(QuestionBase):
    type: Literal["open"]
    reference_answer: LocalizedText  # Markdown
    rubric: Annotated[tuple[RubricPoint, ...], at_least(1)]

    @model_validator(mode="after")
    def _check_rubric_keys(self) -> OpenQuestion:
        first_index: dict[str, int] = {}
        for index, point in enumerate(self.rubric):
            if point.key in first_index:
                raise content_error(
                    ContentProblem.DUPLICATE_RUBRIC_KEY,
                    ("rubric", index, "key"),
                    key=point.key,
                    other=first_index[point.key],
                )
            first_index[point.key] = index
        return self


class DrillQuestion(QuestionBase):
    """A randomized exercise generated by a drill kind (see ``quizsvc.drills``).

    ``params`` is validated by the loader against the kind's own params model, which
    the bank does not know about; here it is kept exactly as authored.
    """

    type: Literal["drill"]
    kind: Annotated[StrictStr, Field(pattern=_DRILL_KIND_PATTERN)]
    params: dict[StrictStr, Any] = Field(default_factory=dict)
    # None: use the drill kind's own default tolerance.
    tolerance: Tolerance | None = None
    attempts: StrictInt = Field(default=3, ge=1)
    # Fraction of the points lost per try after the first.
    penalty: FiniteFloat = Field(default=0.1, ge=0, le=1)
    all_or_nothing: StrictBool = False


Question: TypeAlias = Annotated[
    SingleChoiceQuestion | MultipleChoiceQuestion | NumericQuestion | OpenQuestion | DrillQuestion,
    Field(discriminator="type"),
]


# --- files -----------------------------------------------------------------------------


class Chapter(ContentModel):
    """``content/<chapter-id>/chapter.yaml``."""

    id: Slug
    title: LocalizedText
    order: StrictInt
    intro: LocalizedText | None = None  # Markdown
    # when the chapter's questions and its drills take answers (quizsvc.bank.schedule)
    quiz: QuizSchedule | None = None
    drills: DrillSchedule | None = None


class QuestionFile(ContentModel):
    """Any other ``content/<chapter-id>/*.yaml``."""

    questions: Annotated[tuple[Question, ...], at_least(1)]


def question_tries(question: Question) -> tuple[int, float]:
    """(tries allowed, fraction of the points lost per try after the first) of a question:
    a choice question's as authored; one try for the others (a numeric question shows its
    key and per-cell marks after the answer, an open one waits for its review)."""
    if isinstance(question, ChoiceQuestionBase | DrillQuestion):
        return question.attempts, question.penalty
    return 1, 0.0


def localize(text: LocalizedText, lang: str) -> str:
    """The text in ``lang`` ("zh" or "en"); anything else is a programming error."""
    if lang not in LANGUAGES:
        raise ValueError(f"unsupported language {lang!r}; expected one of {LANGUAGES}")
    return text.zh if lang == "zh" else text.en
