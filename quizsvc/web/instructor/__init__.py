"""The instructor's pages, a module per family: `dashboard` (the overview), `content`
(reload, preview, self-test), `review` (the queue of open answers), `students` (the roster,
a student, their report, new accounts), `accounts` (deactivate, activate or delete a
student), `deadline_extensions` (a student's deadline extensions, as their page shows them),
`reports` (item statistics, downloads). Their one blueprint is `common.bp`.

Every view is `instructor_required` (login required, 403 for students); every POST carries
the CSRF token like any other form.
"""

from quizsvc.web.instructor import accounts, content, dashboard, reports, review, students
from quizsvc.web.instructor.common import bp

__all__ = ["accounts", "bp", "content", "dashboard", "reports", "review", "students"]
