"""Instructor reports: gradebook, event export, item statistics, one student's report.

Pure functions of a SQLAlchemy ``Session`` and the loaded ``Bank``: no Flask here.  The
web pages and ``quizsvc report ...`` call them.  Each module's docstring defines its
columns; :mod:`quizsvc.reports.formats` defines how CSV and JSON Lines are written.

- :mod:`~quizsvc.reports.gradebook`: one row per student (chapter scores, skill mastery,
  total, last activity), as rows or CSV.
- :mod:`~quizsvc.reports.events`: every submission and quiz answer, one row each, as CSV
  or JSON Lines, streamed in constant memory.
- :mod:`~quizsvc.reports.items`: facility and discrimination per question (Moodle's
  definitions).
- :mod:`~quizsvc.reports.student`: one student's progress, answers, reviews and drills.

Only students' work (role ``student``) is reported.  Begin the session with
``store.begin_read_only`` before calling: every function here only reads.
"""

from quizsvc.reports.column_help import EVENT_COLUMN_HELP, GRADEBOOK_COLUMN_HELP
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
    MASTERY_PREFIX,
    GradebookRow,
    chapter_questions,
    drill_questions,
    drill_skills,
    gradebook_csv_chunks,
    gradebook_header,
    gradebook_rows,
    iter_gradebook,
    skill_order,
    write_gradebook_csv,
)
from quizsvc.reports.items import ItemStats, format_item_table, item_statistics, pearson
from quizsvc.reports.student import (
    ChapterAnswerLine,
    DrillHistoryLine,
    SkillLine,
    StudentReport,
    student_report,
)

__all__ = [
    "EVENT_COLUMNS",
    "EVENT_COLUMN_HELP",
    "GRADEBOOK_COLUMN_HELP",
    "MASTERY_PREFIX",
    "UTF8_BOM",
    "ChapterAnswerLine",
    "DrillHistoryLine",
    "Event",
    "GradebookRow",
    "ItemStats",
    "SkillLine",
    "StudentReport",
    "chapter_questions",
    "drill_questions",
    "drill_skills",
    "events_csv_chunks",
    "events_jsonl_chunks",
    "format_item_table",
    "gradebook_csv_chunks",
    "gradebook_header",
    "gradebook_rows",
    "item_statistics",
    "iter_events",
    "iter_gradebook",
    "pearson",
    "skill_order",
    "student_report",
    "write_events",
    "write_gradebook_csv",
]
