"""Login sessions kept on the server: one row per login, so a logout ends it for good.

Before, the cookie alone said who was logged in (the user's id and a digest of their password
hash): a copy of it kept working after a logout, until the password changed. Now the cookie
carries a random token and the login is live only while its row here (the token's digest) is.
Sessions begun before this migration name no row, so everyone logs in once more. The
downgrade drops the table; the cookies it leaves name no password digest, so everyone logs in
once more then too.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "login_sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("end_reason", sa.String(length=16), nullable=True),
        sa.CheckConstraint(
            "end_reason IN ('logout', 'password_change')",
            name=op.f("ck_login_sessions_end_reason"),
        ),
        sa.CheckConstraint(
            "(ended_at IS NULL) = (end_reason IS NULL)",
            name=op.f("ck_login_sessions_ended_with_reason"),
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_login_sessions_user_id_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_login_sessions")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_login_sessions_token_hash")),
    )
    op.create_index(
        op.f("ix_login_sessions_user_id_created_at"),
        "login_sessions",
        ["user_id", "created_at"],
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_login_sessions_user_id_created_at"), table_name="login_sessions")
    op.drop_table("login_sessions")
