"""The content versions that learners' work was done under, one row each."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from quizsvc.store.models import ContentVersion


def content_version_id(session: Session, version: str, now: datetime) -> int:
    """The id of ``version``'s row, inserting it if needed (safe against a concurrent insert)."""
    dialect = session.get_bind().dialect.name
    if dialect in ("sqlite", "postgresql"):
        insert = sqlite_insert if dialect == "sqlite" else postgresql_insert
        session.execute(
            insert(ContentVersion)
            .values(version=version, created_at=now)
            .on_conflict_do_nothing(index_elements=["version"])
        )
    version_id = session.scalar(select(ContentVersion.id).where(ContentVersion.version == version))
    if version_id is None:
        row = ContentVersion(version=version, created_at=now)
        session.add(row)
        session.flush()
        version_id = row.id
    return version_id
