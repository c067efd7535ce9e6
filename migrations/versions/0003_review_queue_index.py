"""An index for the review queue: the open answers still awaiting review, oldest first.

The queue (``store.answers_awaiting_review``, the instructor's overview and reviews pages)
reads the answers with no score yet, by (answered_at, id). Without this index both SQLite
and PostgreSQL scanned every quiz answer and sorted the waiting ones. It is partial (score
IS NULL): it holds only the waiting answers, in queue order, so reading the first page of the
queue costs the same however many answers a course has recorded.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEX = "ix_quiz_answers_awaiting_review"


def upgrade() -> None:
    op.create_index(
        INDEX,
        "quiz_answers",
        ["answered_at", "id"],
        sqlite_where=sa.text("score IS NULL"),
        postgresql_where=sa.text("score IS NULL"),
    )


def downgrade() -> None:
    op.drop_index(INDEX, table_name="quiz_answers")
