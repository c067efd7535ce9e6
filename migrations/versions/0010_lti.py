"""The LMS launch (LTI 1.3): platforms, the tool's keys, LMS users' accounts, the values kept
between an OIDC login and its launch, and grade passback's links and outbox
(``quizsvc.store.lti_models``). The downgrade drops the six tables: the registrations and
the mapping of LMS users to accounts go (the accounts stay, as plain accounts).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-07
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

URL = sa.String(length=2000)


def upgrade() -> None:
    op.create_table(
        "lti_platforms",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("issuer", URL, nullable=False),
        sa.Column("client_id", sa.String(length=255), nullable=False),
        sa.Column("deployment_ids", sa.JSON(none_as_null=True), nullable=False),
        sa.Column("auth_login_url", URL, nullable=False),
        sa.Column("auth_token_url", URL, nullable=False),
        sa.Column("key_set_url", URL, nullable=False),
        sa.Column("auth_audience", URL, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_platforms")),
        sa.UniqueConstraint("issuer", "client_id", name=op.f("uq_lti_platforms_issuer_client_id")),
    )
    op.create_table(
        "lti_tool_keys",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kid", sa.String(length=64), nullable=False),
        sa.Column("private_pem", sa.Text(), nullable=False),
        sa.Column("public_pem", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_tool_keys")),
        sa.UniqueConstraint("kid", name=op.f("uq_lti_tool_keys_kid")),
    )
    op.create_table(
        "lti_accounts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("issuer", URL, nullable=False),
        sa.Column("sub", sa.String(length=255), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_lti_accounts_user_id_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_accounts")),
        sa.UniqueConstraint("issuer", "sub", name=op.f("uq_lti_accounts_issuer_sub")),
    )
    op.create_index(op.f("ix_lti_accounts_user_id"), "lti_accounts", ["user_id"])
    op.create_table(
        "lti_launch_values",
        sa.Column("key", sa.String(length=255), nullable=False),
        sa.Column("value", sa.JSON(none_as_null=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_lti_launch_values")),
    )
    op.create_index(op.f("ix_lti_launch_values_expires_at"), "lti_launch_values", ["expires_at"])
    op.create_table(
        "lti_grade_links",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("platform_id", sa.Integer(), nullable=False),
        sa.Column("chapter_id", sa.String(length=100), nullable=False),
        sa.Column("lineitem", URL, nullable=False),
        sa.Column("scopes", sa.JSON(none_as_null=True), nullable=False),
        sa.Column("lms_user_id", sa.String(length=255), nullable=False),
        sa.Column("posted_score", sa.Float(), nullable=True),
        sa.Column("posted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["platform_id"],
            ["lti_platforms.id"],
            name=op.f("fk_lti_grade_links_platform_id_lti_platforms"),
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_lti_grade_links_user_id_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_grade_links")),
        sa.UniqueConstraint(
            "user_id",
            "platform_id",
            "lineitem",
            name=op.f("uq_lti_grade_links_user_id_platform_id_lineitem"),
        ),
    )
    op.create_index(op.f("ix_lti_grade_links_user_id"), "lti_grade_links", ["user_id"])
    op.create_table(
        "lti_grade_outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("queued_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("tries", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_lti_grade_outbox_user_id_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_grade_outbox")),
    )
    op.create_index(op.f("ix_lti_grade_outbox_user_id"), "lti_grade_outbox", ["user_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_lti_grade_outbox_user_id"), table_name="lti_grade_outbox")
    op.drop_table("lti_grade_outbox")
    op.drop_index(op.f("ix_lti_grade_links_user_id"), table_name="lti_grade_links")
    op.drop_table("lti_grade_links")
    op.drop_index(op.f("ix_lti_launch_values_expires_at"), table_name="lti_launch_values")
    op.drop_table("lti_launch_values")
    op.drop_index(op.f("ix_lti_accounts_user_id"), table_name="lti_accounts")
    op.drop_table("lti_accounts")
    op.drop_table("lti_tool_keys")
    op.drop_table("lti_platforms")
