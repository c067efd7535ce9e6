"""The pure grading core: no web framework, no database, only NumPy.

Everything a caller needs is re-exported here; import from ``quizsvc.grading``
rather than from the submodules.
"""

from quizsvc.grading.attempts import score_after_attempts
from quizsvc.grading.choices import grade_multiple_choice, grade_single_choice
from quizsvc.grading.errors import REJECTION_PARAMETERS, AnswerRejected, Rejection
from quizsvc.grading.grid import (
    MAX_ANSWER_CELLS,
    ROWS_REJECTION_PARAMETERS,
    AnswerSource,
    CellProblem,
    GridAnswer,
    GridProblem,
    GridRejected,
    GridRejection,
    RowsRejected,
    RowsRejection,
    cell_problem,
    read_grid,
    rows_text,
    typed_cell,
)
from quizsvc.grading.numeric import (
    CellResult,
    NumericGrade,
    Tolerance,
    accepted_interval,
    expected_matrix,
    grade_numeric,
    parse_shaped_answer,
)
from quizsvc.grading.open_answer import (
    PhraseMatch,
    RubricPoint,
    RubricSuggestion,
    score_of_points,
    suggest_open_score,
)
from quizsvc.grading.parse import MAX_ANSWER_CHARS, normalise_typed_number, parse_answer
from quizsvc.messages import N_

__all__ = [
    "MAX_ANSWER_CELLS",
    "MAX_ANSWER_CHARS",
    "N_",
    "REJECTION_PARAMETERS",
    "ROWS_REJECTION_PARAMETERS",
    "AnswerRejected",
    "AnswerSource",
    "CellProblem",
    "CellResult",
    "GridAnswer",
    "GridProblem",
    "GridRejected",
    "GridRejection",
    "NumericGrade",
    "PhraseMatch",
    "Rejection",
    "RowsRejected",
    "RowsRejection",
    "RubricPoint",
    "RubricSuggestion",
    "Tolerance",
    "accepted_interval",
    "cell_problem",
    "expected_matrix",
    "grade_multiple_choice",
    "grade_numeric",
    "grade_single_choice",
    "normalise_typed_number",
    "parse_answer",
    "parse_shaped_answer",
    "read_grid",
    "rows_text",
    "score_after_attempts",
    "score_of_points",
    "suggest_open_score",
    "typed_cell",
]
