"""Initial schema.

Users, content versions, drill variants, submissions, quiz answers, open-answer reviews
and per-skill progress, as in quizsvc/store/models.py.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "content_versions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("version", sa.String(length=128), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_content_versions")),
        sa.UniqueConstraint("version", name=op.f("uq_content_versions_version")),
    )
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("display_name", sa.String(length=200), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("password_hash", sa.String(length=255), nullable=False),
        sa.Column("api_token_hash", sa.String(length=255), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("role IN ('student', 'instructor')", name=op.f("ck_users_role")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_users")),
        sa.UniqueConstraint("api_token_hash", name=op.f("uq_users_api_token_hash")),
        sa.UniqueConstraint("name", name=op.f("uq_users_name")),
    )
    op.create_table(
        "drill_variants",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("learner_id", sa.Integer(), nullable=False),
        sa.Column("question_id", sa.String(length=100), nullable=False),
        sa.Column("content_version_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=64), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("params", sa.JSON(), nullable=False),
        sa.Column("variant_json", sa.JSON(), nullable=False),
        sa.Column("skill", sa.String(length=100), nullable=False),
        sa.Column("attempts_allowed", sa.Integer(), nullable=False),
        sa.Column("penalty", sa.Float(), nullable=False),
        sa.Column("attempts_used", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "attempts_allowed >= 1", name=op.f("ck_drill_variants_attempts_allowed")
        ),
        sa.CheckConstraint(
            "attempts_used >= 0 AND attempts_used <= attempts_allowed",
            name=op.f("ck_drill_variants_attempts_used"),
        ),
        sa.CheckConstraint("penalty >= 0 AND penalty <= 1", name=op.f("ck_drill_variants_penalty")),
        sa.ForeignKeyConstraint(
            ["content_version_id"],
            ["content_versions.id"],
            name=op.f("fk_drill_variants_content_version_id_content_versions"),
        ),
        sa.ForeignKeyConstraint(
            ["learner_id"], ["users.id"], name=op.f("fk_drill_variants_learner_id_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_drill_variants")),
    )
    op.create_index(
        op.f("ix_drill_variants_learner_id_question_id"),
        "drill_variants",
        ["learner_id", "question_id"],
        unique=False,
    )
    op.create_table(
        "quiz_answers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("learner_id", sa.Integer(), nullable=False),
        sa.Column("question_id", sa.String(length=100), nullable=False),
        sa.Column("content_version_id", sa.Integer(), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("idempotency_key", sa.String(length=128), nullable=False),
        sa.Column("choices", sa.JSON(), nullable=True),
        sa.Column("text", sa.Text(), nullable=True),
        sa.Column("score", sa.Float(), nullable=True),
        sa.Column("suggested_score", sa.Float(), nullable=True),
        sa.Column("skill", sa.String(length=100), nullable=True),
        sa.Column("answered_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("attempt >= 1", name=op.f("ck_quiz_answers_attempt")),
        sa.CheckConstraint(
            "choices IS NOT NULL OR text IS NOT NULL", name=op.f("ck_quiz_answers_choices_or_text")
        ),
        sa.CheckConstraint(
            "score IS NULL OR (score >= 0 AND score <= 1)", name=op.f("ck_quiz_answers_score")
        ),
        sa.ForeignKeyConstraint(
            ["content_version_id"],
            ["content_versions.id"],
            name=op.f("fk_quiz_answers_content_version_id_content_versions"),
        ),
        sa.ForeignKeyConstraint(
            ["learner_id"], ["users.id"], name=op.f("fk_quiz_answers_learner_id_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_quiz_answers")),
        sa.UniqueConstraint(
            "learner_id", "idempotency_key", name=op.f("uq_quiz_answers_learner_id_idempotency_key")
        ),
        sa.UniqueConstraint(
            "learner_id",
            "question_id",
            "attempt",
            name=op.f("uq_quiz_answers_learner_id_question_id_attempt"),
        ),
    )
    op.create_index(
        op.f("ix_quiz_answers_learner_id_answered_at"),
        "quiz_answers",
        ["learner_id", "answered_at"],
        unique=False,
    )
    op.create_table(
        "skill_progress",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("learner_id", sa.Integer(), nullable=False),
        sa.Column("skill", sa.String(length=100), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("best_score", sa.Float(), nullable=False),
        sa.Column("last_score", sa.Float(), nullable=False),
        sa.Column("mastery", sa.Float(), nullable=False),
        sa.Column("last_activity", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("attempts >= 0", name=op.f("ck_skill_progress_attempts")),
        sa.CheckConstraint("mastery >= 0 AND mastery <= 1", name=op.f("ck_skill_progress_mastery")),
        sa.ForeignKeyConstraint(
            ["learner_id"], ["users.id"], name=op.f("fk_skill_progress_learner_id_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_skill_progress")),
        sa.UniqueConstraint("learner_id", "skill", name=op.f("uq_skill_progress_learner_id_skill")),
    )
    op.create_table(
        "open_answer_reviews",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("answer_id", sa.Integer(), nullable=False),
        sa.Column("reviewer_id", sa.Integer(), nullable=False),
        sa.Column("suggested_score", sa.Float(), nullable=True),
        sa.Column("confirmed_score", sa.Float(), nullable=False),
        sa.Column("comment", sa.Text(), nullable=False),
        sa.Column("reviewed_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "confirmed_score >= 0 AND confirmed_score <= 1",
            name=op.f("ck_open_answer_reviews_confirmed_score"),
        ),
        sa.ForeignKeyConstraint(
            ["answer_id"],
            ["quiz_answers.id"],
            name=op.f("fk_open_answer_reviews_answer_id_quiz_answers"),
        ),
        sa.ForeignKeyConstraint(
            ["reviewer_id"], ["users.id"], name=op.f("fk_open_answer_reviews_reviewer_id_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_open_answer_reviews")),
    )
    op.create_index(
        op.f("ix_open_answer_reviews_answer_id"), "open_answer_reviews", ["answer_id"], unique=False
    )
    op.create_index(
        op.f("ix_open_answer_reviews_reviewer_id"),
        "open_answer_reviews",
        ["reviewer_id"],
        unique=False,
    )
    op.create_table(
        "submissions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("variant_id", sa.Integer(), nullable=False),
        sa.Column("learner_id", sa.Integer(), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("idempotency_key", sa.String(length=128), nullable=False),
        sa.Column("answer_text", sa.Text(), nullable=False),
        sa.Column("parsed_value", sa.JSON(), nullable=False),
        sa.Column("raw_score", sa.Float(), nullable=False),
        sa.Column("penalty_applied", sa.Float(), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("cells", sa.JSON(), nullable=False),
        sa.Column("submitted_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("attempt >= 1", name=op.f("ck_submissions_attempt")),
        sa.CheckConstraint(
            "raw_score >= 0 AND raw_score <= 1", name=op.f("ck_submissions_raw_score")
        ),
        sa.CheckConstraint("score >= 0 AND score <= 1", name=op.f("ck_submissions_score")),
        sa.ForeignKeyConstraint(
            ["learner_id"], ["users.id"], name=op.f("fk_submissions_learner_id_users")
        ),
        sa.ForeignKeyConstraint(
            ["variant_id"],
            ["drill_variants.id"],
            name=op.f("fk_submissions_variant_id_drill_variants"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_submissions")),
        sa.UniqueConstraint(
            "learner_id", "idempotency_key", name=op.f("uq_submissions_learner_id_idempotency_key")
        ),
        sa.UniqueConstraint(
            "variant_id", "attempt", name=op.f("uq_submissions_variant_id_attempt")
        ),
    )
    op.create_index(
        op.f("ix_submissions_learner_id_submitted_at"),
        "submissions",
        ["learner_id", "submitted_at"],
        unique=False,
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_submissions_learner_id_submitted_at"), table_name="submissions")
    op.drop_table("submissions")
    op.drop_index(op.f("ix_open_answer_reviews_reviewer_id"), table_name="open_answer_reviews")
    op.drop_index(op.f("ix_open_answer_reviews_answer_id"), table_name="open_answer_reviews")
    op.drop_table("open_answer_reviews")
    op.drop_table("skill_progress")
    op.drop_index(op.f("ix_quiz_answers_learner_id_answered_at"), table_name="quiz_answers")
    op.drop_table("quiz_answers")
    op.drop_index(op.f("ix_drill_variants_learner_id_question_id"), table_name="drill_variants")
    op.drop_table("drill_variants")
    op.drop_table("users")
    op.drop_table("content_versions")
