"""The language a user chose, kept with the account: it follows them to another browser.

``users.language`` is "zh", "en" or NULL (never chosen while logged in: the browser's
Accept-Language decides). The downgrade drops the column; each browser's own choice, kept in
its session cookie, stays.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # ADD COLUMN with its CHECK, as 0005 adds quiz_answers.raw_score (no table rebuild)
    op.execute(
        "ALTER TABLE users ADD COLUMN language VARCHAR(2) "
        "CONSTRAINT ck_users_language CHECK (language IN ('zh', 'en'))"
    )


def downgrade() -> None:
    op.drop_column("users", "language")
