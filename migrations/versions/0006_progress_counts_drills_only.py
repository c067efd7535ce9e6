"""A skill's progress counts drills only; the chapter's questions are a test of their own.

No schema change: every learner's skill_progress is recounted from their drill submissions
alone, under the rule of quizsvc/store/progress.py as of this revision (a variant counts once,
at its best attempt), and a row left with no drill on it is deleted (the learner never tried
one of that skill's drills). The downgrade recounts by the rule of revision 0002, a scored
quiz answer on the skill (its question's first tag) an item too, and brings back the row of a
skill practised by quiz answers alone. The rules are written out here, not imported, so that
later changes to the app cannot change what this migration does.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02
"""

from collections import defaultdict
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

MASTERY_WEIGHT = 0.5

variants = sa.table("drill_variants", sa.column("id", sa.Integer), sa.column("skill", sa.String))
submissions = sa.table(
    "submissions",
    sa.column("id", sa.Integer),
    sa.column("variant_id", sa.Integer),
    sa.column("learner_id", sa.Integer),
    sa.column("score", sa.Float),
    sa.column("submitted_at", sa.DateTime(timezone=True)),
)
quiz_answers = sa.table(
    "quiz_answers",
    sa.column("id", sa.Integer),
    sa.column("learner_id", sa.Integer),
    sa.column("skill", sa.String),
    sa.column("score", sa.Float),
    sa.column("answered_at", sa.DateTime(timezone=True)),
)
skill_progress = sa.table(
    "skill_progress",
    sa.column("id", sa.Integer),
    sa.column("learner_id", sa.Integer),
    sa.column("skill", sa.String),
    sa.column("attempts", sa.Integer),
    sa.column("best_score", sa.Float),
    sa.column("last_score", sa.Float),
    sa.column("mastery", sa.Float),
    sa.column("last_activity", sa.DateTime(timezone=True)),
)


def upgrade() -> None:
    _recount(with_quiz_answers=False)


def downgrade() -> None:
    _recount(with_quiz_answers=True)


def _recount(*, with_quiz_answers: bool) -> None:
    connection = op.get_bind()
    # (learner, skill) -> items (first answered, drills before quizzes, id, score, last
    # answered, attempts)
    items: dict[tuple[int, str], list[tuple]] = defaultdict(list)
    drills = (
        sa.select(
            submissions.c.learner_id,
            variants.c.skill,
            sa.func.min(submissions.c.submitted_at),
            sa.func.min(submissions.c.id),
            sa.func.max(submissions.c.score),
            sa.func.max(submissions.c.submitted_at),
            sa.func.count(),
        )
        .select_from(submissions.join(variants, variants.c.id == submissions.c.variant_id))
        .group_by(submissions.c.variant_id, submissions.c.learner_id, variants.c.skill)
    )
    for learner, skill, first_at, first_id, score, last_at, attempts in connection.execute(drills):
        items[learner, skill].append((first_at, 0, first_id, score, last_at, attempts))
    if with_quiz_answers:
        quizzes = sa.select(
            quiz_answers.c.learner_id,
            quiz_answers.c.skill,
            quiz_answers.c.answered_at,
            quiz_answers.c.id,
            quiz_answers.c.score,
        ).where(quiz_answers.c.score.is_not(None), quiz_answers.c.skill.is_not(None))
        for learner, skill, at, answer_id, score in connection.execute(quizzes):
            items[learner, skill].append((at, 1, answer_id, score, at, 1))

    rows = {
        (learner, skill): row_id
        for row_id, learner, skill in connection.execute(
            sa.select(skill_progress.c.id, skill_progress.c.learner_id, skill_progress.c.skill)
        )
    }
    for key, row_id in rows.items():
        if key not in items:
            connection.execute(skill_progress.delete().where(skill_progress.c.id == row_id))
    for (learner, skill), found in items.items():
        graded = sorted(found)
        mastery = 0.0
        for item in graded:
            mastery = (1.0 - MASTERY_WEIGHT) * mastery + MASTERY_WEIGHT * item[3]
        values = {
            "attempts": sum(item[5] for item in graded),
            "best_score": max(item[3] for item in graded),
            "last_score": graded[-1][3],
            "mastery": mastery,
            "last_activity": max(item[4] for item in graded),
        }
        if (learner, skill) in rows:
            connection.execute(
                skill_progress.update()
                .where(skill_progress.c.id == rows[learner, skill])
                .values(**values)
            )
        else:
            connection.execute(
                skill_progress.insert().values(learner_id=learner, skill=skill, **values)
            )
