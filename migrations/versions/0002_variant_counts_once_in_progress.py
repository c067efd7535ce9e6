"""A drill variant counts once in a skill's progress, at its best attempt.

No schema change: every skill_progress row is recounted from the learner's submissions and
scored quiz answers under the rule of quizsvc/store/progress.py as of this revision (a
variant's attempts after the first replace its score by their best instead of each moving
mastery on their own). The downgrade recounts by the earlier rule, every attempt an item.
The rule is written out here, not imported, so that later changes to the app cannot change
what this migration does.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from collections import defaultdict
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
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
    _recount(variant_counts_once=True)


def downgrade() -> None:
    _recount(variant_counts_once=False)


def _recount(*, variant_counts_once: bool) -> None:
    connection = op.get_bind()
    # (learner, skill) -> items (first answered, drills before quizzes, id, score, last
    # answered, attempts)
    items: dict[tuple[int, str], list[tuple]] = defaultdict(list)
    joined = submissions.join(variants, variants.c.id == submissions.c.variant_id)
    if variant_counts_once:
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
            .select_from(joined)
            .group_by(submissions.c.variant_id, submissions.c.learner_id, variants.c.skill)
        )
    else:
        drills = sa.select(
            submissions.c.learner_id,
            variants.c.skill,
            submissions.c.submitted_at,
            submissions.c.id,
            submissions.c.score,
            submissions.c.submitted_at,
            sa.literal(1),
        ).select_from(joined)
    for learner, skill, first_at, first_id, score, last_at, attempts in connection.execute(drills):
        items[learner, skill].append((first_at, 0, first_id, score, last_at, attempts))
    quizzes = sa.select(
        quiz_answers.c.learner_id,
        quiz_answers.c.skill,
        quiz_answers.c.answered_at,
        quiz_answers.c.id,
        quiz_answers.c.score,
    ).where(quiz_answers.c.score.is_not(None), quiz_answers.c.skill.is_not(None))
    for learner, skill, at, answer_id, score in connection.execute(quizzes):
        items[learner, skill].append((at, 1, answer_id, score, at, 1))

    rows = connection.execute(
        sa.select(skill_progress.c.id, skill_progress.c.learner_id, skill_progress.c.skill)
    ).all()
    for row_id, learner, skill in rows:
        graded = sorted(items.get((learner, skill), []))
        if not graded:  # nothing graded: the row as a recount leaves it
            continue
        mastery = 0.0
        for item in graded:
            mastery = (1.0 - MASTERY_WEIGHT) * mastery + MASTERY_WEIGHT * item[3]
        connection.execute(
            skill_progress.update()
            .where(skill_progress.c.id == row_id)
            .values(
                attempts=sum(item[5] for item in graded),
                best_score=max(item[3] for item in graded),
                last_score=graded[-1][3],
                mastery=mastery,
                last_activity=max(item[4] for item in graded),
            )
        )
