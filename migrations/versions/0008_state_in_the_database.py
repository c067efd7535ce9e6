"""State every worker process shares, kept in the database rather than in one process.

``login_attempts``: the attempts at passwords the login throttle counts, a row each, so that
every worker counts against the same limit and a restart forgets nothing. ``content_loads``:
the question bank versions made live, the newest being the one every worker serves.
``content_workers``: the version each worker process serves, so the instructor sees a worker
that could not follow. The downgrade drops the three tables: the throttle's counts start
afresh, and so does the record of content versions.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "login_attempts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=100), nullable=False),
        sa.Column("attempted_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_login_attempts")),
    )
    op.create_index(
        op.f("ix_login_attempts_key_attempted_at"), "login_attempts", ["key", "attempted_at"]
    )
    op.create_index(op.f("ix_login_attempts_attempted_at"), "login_attempts", ["attempted_at"])
    op.create_table(
        "content_loads",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("version", sa.String(length=128), nullable=False),
        sa.Column("loaded_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_content_loads")),
    )
    op.create_table(
        "content_workers",
        sa.Column("worker", sa.String(length=300), nullable=False),
        sa.Column("version", sa.String(length=128), nullable=False),
        sa.Column("load_id", sa.Integer(), nullable=True),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("worker", name=op.f("pk_content_workers")),
    )
    op.create_index(op.f("ix_content_workers_seen_at"), "content_workers", ["seen_at"])


def downgrade() -> None:
    op.drop_index(op.f("ix_content_workers_seen_at"), table_name="content_workers")
    op.drop_table("content_workers")
    op.drop_table("content_loads")
    op.drop_index(op.f("ix_login_attempts_attempted_at"), table_name="login_attempts")
    op.drop_index(op.f("ix_login_attempts_key_attempted_at"), table_name="login_attempts")
    op.drop_table("login_attempts")
