"""Instructor reports: gradebook, event export, item statistics, one student's report.

Pure functions of a SQLAlchemy ``Session`` and the loaded ``Bank``: no Flask here.  The
web pages and ``quizsvc report ...`` call them.  Each module's docstring defines its
columns; :mod:`quizsvc.reports.formats` defines how CSV and JSON Lines are written.

- :mod:`~quizsvc.reports.gradebook`: one row per student (chapter scores, best score and
  mastery per drill kind, totals, last activity), as rows, CSV or XLSX, rounded for
  display or exact.
- :mod:`~quizsvc.reports.events`: every submission and quiz answer, one row each, as CSV
  or JSON Lines, streamed in constant memory.
- :mod:`~quizsvc.reports.items`: facility and discrimination per question (Moodle's
  definitions), per-choice counts, per-cell error rates of drills, as data or CSV.
- :mod:`~quizsvc.reports.student`: one student's progress, answers, reviews and drills.

Only students' work (role ``student``) is reported.  Begin the session with
``store.begin_read_only`` before calling: every function here only reads.
"""

from quizsvc.reports.column_help import (
    EVENT_COLUMN_HELP,
    GRADEBOOK_COLUMN_HELP,
    ITEM_COLUMN_HELP,
)
from quizsvc.reports.events import (
    EVENT_COLUMNS,
    Event,
    events_csv_chunks,
    events_jsonl_chunks,
    iter_events,
    write_events,
)
from quizsvc.reports.formats import UTF8_BOM
from quizsvc.reports.gradebook import (
    BEST_PREFIX,
    DEFAULT_DECIMALS,
    MASTERY_PREFIX,
    MAX_DECIMALS,
    GradebookRow,
    chapter_questions,
    check_decimals,
    drill_kinds,
    drill_questions,
    drill_skills,
    gradebook_csv_chunks,
    gradebook_header,
    gradebook_rows,
    gradebook_values,
    gradebook_xlsx_chunks,
    iter_gradebook,
    skill_order,
    write_gradebook,
    write_gradebook_csv,
)
from quizsvc.reports.items import (
    ITEM_COLUMNS,
    CellErrors,
    ChoiceCount,
    ItemStats,
    format_item_table,
    item_rows,
    item_statistics,
    items_csv_chunks,
    pearson,
)
from quizsvc.reports.student import (
    ChapterAnswerLine,
    DrillHistoryLine,
    SkillLine,
    StudentReport,
    student_report,
)

__all__ = [
    "BEST_PREFIX",
    "DEFAULT_DECIMALS",
    "EVENT_COLUMNS",
    "EVENT_COLUMN_HELP",
    "GRADEBOOK_COLUMN_HELP",
    "ITEM_COLUMNS",
    "ITEM_COLUMN_HELP",
    "MASTERY_PREFIX",
    "MAX_DECIMALS",
    "UTF8_BOM",
    "CellErrors",
    "ChapterAnswerLine",
    "ChoiceCount",
    "DrillHistoryLine",
    "Event",
    "GradebookRow",
    "ItemStats",
    "SkillLine",
    "StudentReport",
    "chapter_questions",
    "check_decimals",
    "drill_kinds",
    "drill_questions",
    "drill_skills",
    "events_csv_chunks",
    "events_jsonl_chunks",
    "format_item_table",
    "gradebook_csv_chunks",
    "gradebook_header",
    "gradebook_rows",
    "gradebook_values",
    "gradebook_xlsx_chunks",
    "item_rows",
    "item_statistics",
    "items_csv_chunks",
    "iter_events",
    "iter_gradebook",
    "pearson",
    "skill_order",
    "student_report",
    "write_events",
    "write_gradebook",
    "write_gradebook_csv",
]
