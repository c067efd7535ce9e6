"""Grade passback through Assignment and Grade Services: the learners in the store's grade
outbox get their chapter totals posted to the line items of their launches.

The outbox is filled in the transaction that changed a score (`store.record_quiz_answer`,
`store.record_review`), so no change is lost; the web app flushes it after such a request
and `quizsvc lti flush-grades` retries what failed. A total is read after the outbox row, so
the total posted includes every change the deleted rows stood for."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime

import requests
from pylti1p3.assignments_grades import AssignmentsGradesService
from pylti1p3.exception import LtiException, LtiServiceException
from pylti1p3.grade import Grade
from pylti1p3.service_connector import ServiceConnector
from sqlalchemy.orm import Session

from quizsvc import store
from quizsvc.bank import Bank
from quizsvc.lti.tool import StoreToolConf
from quizsvc.quiz_standing import QuizTotal, chapter_standings, quiz_total

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FlushResult:
    posted: int  # totals posted
    failed: int  # learners whose totals could not all be posted (kept for the next flush)


def grade_of(total: QuizTotal, lms_user_id: str, now: datetime) -> Grade:
    """The AGS score of a chapter total: points earned of points possible, final once every
    question is answered for good and reviewed."""
    grade = Grade()
    grade.set_score_given(total.earned).set_score_maximum(total.possible)
    grade.set_activity_progress("Completed" if total.final else "InProgress")
    grade.set_grading_progress("FullyGraded" if total.final else "Pending")
    grade.set_timestamp(now.isoformat(timespec="milliseconds"))
    return grade.set_user_id(lms_user_id)


@dataclass(frozen=True)
class _Post:
    link_id: int
    platform_id: int
    lineitem: str
    scopes: list[str]
    lms_user_id: str
    total: QuizTotal


def flush_grades(
    session: Session,
    bank: Bank,
    *,
    requests_session: requests.Session | None = None,
    limit: int = 100,
) -> FlushResult:
    """Post the totals of the learners in the outbox (at most ``limit`` learners). What is
    posted is read first, in a read-only transaction that ends before any request to a
    platform (a writer is never held up by a platform's answer)."""
    session.rollback()
    store.begin_read_only(session)
    conf = StoreToolConf(lambda: session)
    work = [
        (pending, _posts(session, bank, pending))
        for pending in store.lti.pending_grades(session, limit=limit)
    ]
    registrations = {
        platform.id: conf.registration(platform) for platform in store.lti.list_platforms(session)
    }
    session.rollback()
    connectors: dict[int, ServiceConnector] = {}
    posted = failed = 0
    for pending, posts in work:
        done: dict[int, float] = {}
        try:
            for post in posts:
                connector = connectors.get(post.platform_id)
                if connector is None:
                    registration = registrations[post.platform_id]
                    if registration.get_tool_private_key() is None:
                        raise LtiException("the tool has no key: run quizsvc lti generate-key")
                    connector = ServiceConnector(registration, requests_session)
                    connectors[post.platform_id] = connector
                data = {"scope": post.scopes, "lineitem": post.lineitem}
                service = AssignmentsGradesService(connector, data)  # type: ignore[arg-type]
                service.put_grade(grade_of(post.total, post.lms_user_id, datetime.now(UTC)))
                done[post.link_id] = post.total.earned
        except (LtiException, LtiServiceException, requests.RequestException) as exc:
            log.warning("grade passback for user %s failed: %s", pending.user_id, exc)
            store.lti.grades_failed(session, outbox_ids=pending.outbox_ids, error=str(exc))
            failed += 1
            continue
        store.lti.grades_posted(session, outbox_ids=pending.outbox_ids, posted=done)
        posted += len(done)
    return FlushResult(posted, failed)


def _posts(session: Session, bank: Bank, pending: store.lti.PendingGrades) -> list[_Post]:
    posts = []
    for link in pending.links:
        try:
            standings = chapter_standings(session, bank, pending.user_id, link.chapter_id)
        except KeyError:
            continue  # a chapter the bank no longer has
        total = quiz_total(standings)
        posts.append(
            _Post(link.id, link.platform_id, link.lineitem, link.scopes, link.lms_user_id, total)
        )
    return posts
