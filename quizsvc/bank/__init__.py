"""The question bank: content models, loading/validation, and learner-facing views.

Pure domain code: no web framework, no database, and no import of the drill
implementations (their params models are passed to ``load_bank``).
"""

from quizsvc.bank.files import content_version
from quizsvc.bank.loader import Bank, DrillKinds, SourceLocation, load_bank
from quizsvc.bank.markdown import (
    FormulaProblem,
    formula_problems,
    markdown_plain_text,
    markdown_text,
    render_markdown,
)
from quizsvc.bank.problems import (
    CONTENT_MESSAGES,
    GOT_SUFFIX,
    NOTHING,
    BankError,
    ContentError,
    ContentProblem,
    format_problem,
)
from quizsvc.bank.schema import (
    LANGUAGES,
    QUESTION_TYPES,
    Chapter,
    Choice,
    DrillQuestion,
    Lang,
    LocalizedText,
    MultipleChoiceQuestion,
    NumericQuestion,
    OpenQuestion,
    Question,
    QuestionType,
    RubricPoint,
    ScoredChoice,
    SingleChoiceQuestion,
    Tolerance,
    localize,
    question_tries,
)
from quizsvc.bank.views import public_question, solution_view
from quizsvc.messages import N_

__all__ = [
    "CONTENT_MESSAGES",
    "GOT_SUFFIX",
    "LANGUAGES",
    "NOTHING",
    "N_",
    "QUESTION_TYPES",
    "Bank",
    "BankError",
    "Chapter",
    "Choice",
    "ContentError",
    "ContentProblem",
    "DrillKinds",
    "DrillQuestion",
    "FormulaProblem",
    "Lang",
    "LocalizedText",
    "MultipleChoiceQuestion",
    "NumericQuestion",
    "OpenQuestion",
    "Question",
    "QuestionType",
    "RubricPoint",
    "ScoredChoice",
    "SingleChoiceQuestion",
    "SourceLocation",
    "Tolerance",
    "content_version",
    "format_problem",
    "formula_problems",
    "load_bank",
    "localize",
    "markdown_plain_text",
    "markdown_text",
    "public_question",
    "question_tries",
    "render_markdown",
    "solution_view",
]
