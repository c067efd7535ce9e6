"""The pages' forms as WTForms classes: each names the fields its form sends and hands the
views plain values (a user name without its surrounding spaces, a drill grid's cells as
typed, a reviewer's score as typed). Reading an answer stays where it is done for every
client: the grid in `quizsvc.grading.read_grid`, answers in `practice` and the grader,
accounts in the store; the views say what these refuse in the page's language.

The markup of each form is written out in its template, with the names, ids and ARIA links
that the tests, static/drafts.js and the browser tests rely on; a view builds its form from
the posted fields, calls `validate()` where a field has a rule of its own and shows the
`first_error` on the page again. The instructor's preview is the one form sent by GET.

CSRF is checked for every POST before any view runs (`auth._protect_from_csrf`, with
Flask-WTF's CSRFProtect), so that a form sent after its login ended leads to the login
(`errors`): the forms here do not check the token again. A form that is only a button (Log
out, a drill's Start or Continue, Next recommended, New variant, Run the self-test) sends
nothing but that token, and has no class here.
"""

from __future__ import annotations

import functools
import re
import uuid
from collections.abc import Callable
from datetime import UTC, datetime

from flask import request
from flask_babel import gettext, lazy_gettext
from flask_wtf import FlaskForm
from wtforms import Field, HiddenField, PasswordField, StringField, TextAreaField
from wtforms.validators import ValidationError

from quizsvc import store
from quizsvc.web.answer_grid import PASTE_BOX_FIELD, cell_field


class PageForm(FlaskForm):
    """A page's form: the fields posted to the view (none on a GET, where each field holds
    its default)."""

    class Meta:
        csrf = False  # checked before the view, for every POST (see the module's docstring)

    def __init__(self, **kwargs) -> None:
        # The posted form alone. Flask-WTF would read a JSON body instead, whose values need
        # not be strings; a field the form does not send holds its default.
        super().__init__(formdata=request.form if request.method == "POST" else None, **kwargs)


def first_error(form: PageForm) -> str | None:
    """The first field's first error (fields in the form's order), in the page's language."""
    for field in form:
        if field.errors:
            return str(field.errors[0])
    return None


def _stripped(value: str | None) -> str | None:
    return value.strip() if isinstance(value, str) else value


def _same_as(other: str, message: str) -> Callable[[PageForm, Field], None]:
    """A repetition's check: the field holds what ``other`` holds. A repetition that is not
    sent (its default None) is not checked."""

    def check(form: PageForm, field: Field) -> None:
        if field.data is not None and field.data != form[other].data:
            raise ValidationError(message)

    return check


class ValuesField(Field):
    """Every value sent under the field's name, in order (a question's ticked choices)."""

    def process_formdata(self, valuelist: list[str]) -> None:
        self.data = list(valuelist)


# --- accounts -----------------------------------------------------------------------------


class LoginForm(PageForm):
    name = StringField(default="", filters=[_stripped])
    password = PasswordField(default="")


class RegistrationForm(PageForm):
    """A new account, as a student creates their own (auth.create_account stores it)."""

    name = StringField(default="", filters=[_stripped])
    display_name = StringField(default="", filters=[_stripped])  # "": the user name is shown
    password = PasswordField(default="")
    password_again = PasswordField(
        validators=[_same_as("password", lazy_gettext("The two passwords differ."))]
    )


def _known_role(form: PageForm, field: Field) -> None:
    if field.data not in store.ROLES:
        raise ValidationError(gettext("Unknown role '%(role)s'.", role=field.data))


class AccountForm(RegistrationForm):
    """A new account of either role, as an instructor creates it on the students' page."""

    role = StringField(default="student", validators=[_known_role])


class PasswordChangeForm(PageForm):
    current_password = PasswordField(default="")
    new_password = PasswordField(default="")
    new_password_again = PasswordField(
        default="",
        validators=[_same_as("new_password", lazy_gettext("The two new passwords differ."))],
    )


class LanguageForm(PageForm):
    """The header's language button; the language is in the form's address."""

    # the page to go back to (auth keeps it to a path of this site)
    back_to = HiddenField(name="next")


# --- answers ------------------------------------------------------------------------------


class IdempotencyKeyField(HiddenField):
    """The key a page gives its answer form, so that the same form sent twice (a double
    click, a reload of the POST) is recorded once; a form without one gets a fresh key. A
    key the store cannot take (blank, too long, unstorable characters: a tampered form) is
    refused with a message."""

    refused = lazy_gettext(
        "The form's hidden key (idempotency_key) is blank, longer than %(max)s "
        "characters or holds characters that cannot be stored, so nothing was "
        "recorded. Reload the page and send the form again.",
        max=store.MAX_IDEMPOTENCY_KEY_LENGTH,
    )

    def process_formdata(self, valuelist: list[str]) -> None:
        self.data = valuelist[0] if valuelist and valuelist[0] else uuid.uuid4().hex

    def pre_validate(self, form: PageForm) -> None:
        key = self.data
        if (
            not key.strip()
            or len(key) > store.MAX_IDEMPOTENCY_KEY_LENGTH
            or store.unstorable_text(key) is not None
        ):
            raise ValidationError(self.refused)


class ChapterAnswerForm(PageForm):
    """The answer to one of a chapter's questions."""

    idempotency_key = IdempotencyKeyField()
    choice = ValuesField()  # the ticked choices' ids (one for a single choice question)
    text = TextAreaField()  # None when the form has no text box (a choice question)

    @property
    def choices(self) -> list[str] | None:
        """The ticked choices, None when the form ticks none (or has none)."""
        return self.choice.data or None


class DrillAnswerForm(PageForm):
    """A drill's answer: the grid's inputs (`cell_field` names them), the paste box. The
    class for a grid of one shape is `drill_answer_form`'s."""

    rows = 0
    cols = 0
    idempotency_key = IdempotencyKeyField()
    paste_box = TextAreaField(name=PASTE_BOX_FIELD, default="")

    def cells(self) -> list[list[str]]:
        """What each input of the grid holds, row by row, as typed."""
        return [[self[cell_field(r, c)].data for c in range(self.cols)] for r in range(self.rows)]


@functools.cache
def drill_answer_form(rows: int, cols: int) -> type[DrillAnswerForm]:
    """The answer form of a rows × cols grid (a drill's shapes are few: one class each)."""
    inputs = {cell_field(r, c): StringField(default="") for r in range(rows) for c in range(cols)}
    name = f"DrillAnswerForm{rows}x{cols}"
    return type(name, (DrillAnswerForm,), {"rows": rows, "cols": cols, **inputs})


# --- the instructor's forms ---------------------------------------------------------------


class ReviewForm(PageForm):
    """An instructor's review of an open answer, on the queue or on the answer's own page.
    The score and the comment are handed on as typed: `instructor.review` reads them and
    says what is wrong with them."""

    score = StringField(default="")
    point = ValuesField(default=list)  # the keys of the ticked rubric points
    comment = TextAreaField(default="")
    # "next": the Save and next button, which opens the next answer of the list
    then = HiddenField(default="")
    # the id of the latest review the page showed (0: none), so a review taken meanwhile
    # is not silently replaced
    seen_review = HiddenField(default="")
    return_to = HiddenField()  # "answer": the answer's own page; else the queue

    @property
    def seen_review_id(self) -> int | None:
        """None for a value no page writes: ASCII digits, and few (int() refuses over 4300
        digits, which a tampered form may send)."""
        seen = self.seen_review.data
        return int(seen) if re.fullmatch(r"[0-9]{1,10}", seen) else None

    @property
    def from_queue(self) -> bool:
        return self.return_to.data != "answer"


class ReviewListForm(PageForm):
    """The review list's filter, in the address of the review pages (and of their forms): a
    question's id (blank: every open question) and a state, as chosen
    (`instructor.review` says what is wrong with them)."""

    question = StringField(default="", filters=[_stripped])
    state = StringField(default="awaiting", filters=[_stripped])

    def __init__(self) -> None:
        FlaskForm.__init__(self, formdata=request.args)


class ContentReloadForm(PageForm):
    """Reloading the content; sent again from the confirmation page when the new content
    drops questions with recorded work, naming the version that page showed."""

    confirmed_version = HiddenField()

    @property
    def is_confirmation(self) -> bool:
        return self.confirmed_version.data is not None


class PreviewForm(PageForm):
    """The preview page's choice, sent by GET: a question's id, and a drill's seed as typed
    (`instructor.content` says what is wrong with it)."""

    question = StringField(default="", filters=[_stripped])
    seed = StringField(default="")

    def __init__(self) -> None:
        FlaskForm.__init__(self, formdata=request.args)


class StudentDeletionForm(PageForm):
    """Deleting a student: their login name typed again, so that no click deletes anyone."""

    confirm_name = StringField(default="", filters=[_stripped])


# --- deadlines ----------------------------------------------------------------------------

MAX_EXTRA_MINUTES = 10_000


def _extension_part(form: PageForm, field: Field) -> None:
    if field.data not in ("quiz", "drills"):
        raise ValidationError(gettext("Choose the quiz or the drills."))


def _moment_or_nothing(form: PageForm, field: Field) -> None:
    if field.data and form.closes_at is None:
        raise ValidationError(
            gettext(
                "Write the new close as a date and time, like 2026-09-15T18:00 (UTC), "
                "not '%(value)s'.",
                value=field.data[:40],
            )
        )


def _whole_minutes(form: PageForm, field: Field) -> None:
    text = field.data or "0"
    if not re.fullmatch(r"[0-9]{1,6}", text) or int(text) > MAX_EXTRA_MINUTES:
        raise ValidationError(
            gettext(
                "The extra time is a whole number of minutes from 0 to %(max)s, not '%(value)s'.",
                max=MAX_EXTRA_MINUTES,
                value=text[:40],
            )
        )


class ExtensionForm(PageForm):
    """An instructor's extension for one student on a chapter's quiz or drills: a later
    close (a datetime-local field, read as UTC, as the page says; empty: the chapter's) and
    extra minutes of a quiz's time limit. Neither removes the extension."""

    chapter = StringField(default="", filters=[_stripped])
    part = StringField(default="quiz", validators=[_extension_part])
    closes = StringField(default="", filters=[_stripped], validators=[_moment_or_nothing])
    extra_minutes = StringField(default="0", filters=[_stripped], validators=[_whole_minutes])

    @property
    def closes_at(self) -> datetime | None:
        """The new close as a UTC moment, None when the field is empty or unreadable."""
        text = self.closes.data or ""
        if not text:
            return None
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            return None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return moment.astimezone(UTC)

    @property
    def minutes(self) -> int:
        return int(self.extra_minutes.data or "0")
