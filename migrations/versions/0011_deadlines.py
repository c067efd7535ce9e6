"""Deadlines: ``quiz_starts`` (when a learner started a chapter's timed quiz),
``deadline_extensions`` (an instructor's later close or extra minutes for one learner), and
``late_penalty`` on quiz answers and drill submissions (the fraction of the score taken off a
late answer; 0 for every answer recorded before). The downgrade drops them all, which
forgets starts and extensions and gives late answers their score before the penalty back
only as far as a later regrade recomputes it: the scores recorded stay as they are.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-07
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "quiz_starts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("learner_id", sa.Integer(), nullable=False),
        sa.Column("chapter_id", sa.String(length=100), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["learner_id"], ["users.id"], name=op.f("fk_quiz_starts_learner_id_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_quiz_starts")),
        sa.UniqueConstraint(
            "learner_id", "chapter_id", name=op.f("uq_quiz_starts_learner_id_chapter_id")
        ),
    )
    op.create_table(
        "deadline_extensions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("learner_id", sa.Integer(), nullable=False),
        sa.Column("chapter_id", sa.String(length=100), nullable=False),
        sa.Column("part", sa.String(length=10), nullable=False),
        sa.Column("closes_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("extra_minutes", sa.Integer(), nullable=False),
        sa.Column("set_by", sa.Integer(), nullable=True),
        sa.Column("set_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("part IN ('quiz', 'drills')", name=op.f("ck_deadline_extensions_part")),
        sa.CheckConstraint("extra_minutes >= 0", name=op.f("ck_deadline_extensions_extra_minutes")),
        sa.ForeignKeyConstraint(
            ["learner_id"], ["users.id"], name=op.f("fk_deadline_extensions_learner_id_users")
        ),
        sa.ForeignKeyConstraint(
            ["set_by"], ["users.id"], name=op.f("fk_deadline_extensions_set_by_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_deadline_extensions")),
        sa.UniqueConstraint(
            "learner_id",
            "chapter_id",
            "part",
            name=op.f("uq_deadline_extensions_learner_id_chapter_id_part"),
        ),
    )
    for table in ("quiz_answers", "submissions"):
        op.add_column(
            table,
            sa.Column("late_penalty", sa.Float(), server_default=sa.text("0"), nullable=False),
        )


def downgrade() -> None:
    for table in ("submissions", "quiz_answers"):
        op.drop_column(table, "late_penalty")
    op.drop_table("deadline_extensions")
    op.drop_table("quiz_starts")
