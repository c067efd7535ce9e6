"""A student's account: deactivate it (their work stays, they cannot log in), activate it
again, or delete the student with everything recorded of them."""

from __future__ import annotations

from flask import abort, flash, redirect, url_for
from flask_babel import gettext

from quizsvc import store
from quizsvc.web.context import db
from quizsvc.web.forms import StudentDeletionForm
from quizsvc.web.instructor.common import bp
from quizsvc.web.instructor.students import render_student, student_or_404
from quizsvc.web.login_session import instructor_required
from quizsvc.web.throttle import name_key


@bp.post("/students/<int:user_id>/deactivate")
@instructor_required
def deactivate_student(user_id: int):
    student = student_or_404(user_id)
    store.deactivate_student(db(), student.id)
    flash(
        gettext(
            "%(name)s's account is deactivated: their work stays, and they cannot log in.",
            name=student.name,
        ),
        "info",
    )
    return redirect(url_for("instructor.student", user_id=user_id))


@bp.post("/students/<int:user_id>/activate")
@instructor_required
def activate_student(user_id: int):
    student = student_or_404(user_id)
    store.reactivate_student(db(), student.id)
    flash(gettext("%(name)s can log in again.", name=student.name), "info")
    return redirect(url_for("instructor.student", user_id=user_id))


@bp.post("/students/<int:user_id>/delete")
@instructor_required
def delete_student(user_id: int):
    form = StudentDeletionForm()
    student = student_or_404(user_id)
    if form.confirm_name.data != student.name:
        error = gettext(
            "Type the student's login name, %(name)s, to delete them and their work.",
            name=student.name,
        )
        return render_student(student, deletion_error=error), 422
    name = student.name
    try:
        store.delete_student(db(), student.id, name_keys=(name_key(name),))
    except store.NotFound:  # deleted meanwhile by another instructor
        abort(404, description=gettext("There is no student %(id)s.", id=user_id))
    flash(gettext("%(name)s and everything recorded of them are deleted.", name=name), "info")
    return redirect(url_for("instructor.students"))
