"""A choice question may take several tries: each quiz answer keeps the grader's score.

``quiz_answers.raw_score`` is the grader's score of a choice or numeric answer, before the
attempts penalty that ``score`` has had taken off; the store refuses a try after one whose
raw score is 1 (right at last: the key is shown). Every answer recorded before was a first
try, with no penalty, so a graded answer's raw score is its score; an open answer (a text
with a review, or awaiting one) has none. The downgrade drops the column.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

quiz_answers = sa.table(
    "quiz_answers",
    sa.column("id", sa.Integer),
    sa.column("choices", sa.JSON),
    sa.column("score", sa.Float),
    sa.column("raw_score", sa.Float),
)
reviews = sa.table("open_answer_reviews", sa.column("answer_id", sa.Integer))


def upgrade() -> None:
    # ADD COLUMN with its CHECK, which SQLite takes as it is (no table rebuild) and
    # PostgreSQL too; the constraint's name is the models' naming convention's.
    op.execute(
        "ALTER TABLE quiz_answers ADD COLUMN raw_score FLOAT "
        "CONSTRAINT ck_quiz_answers_raw_score "
        "CHECK (raw_score IS NULL OR (raw_score >= 0 AND raw_score <= 1))"
    )
    reviewed = sa.exists().where(reviews.c.answer_id == quiz_answers.c.id)
    op.execute(
        quiz_answers.update()
        .where(
            quiz_answers.c.score.is_not(None),
            sa.or_(quiz_answers.c.choices.is_not(None), ~reviewed),
        )
        .values(raw_score=quiz_answers.c.score)
    )


def downgrade() -> None:
    op.drop_column("quiz_answers", "raw_score")
