"""The interface in zh and en, with Flask-Babel: the learner's choice (the header's toggle,
kept in the session and with the account) or else Accept-Language; the content's language
follows the same choice.

The texts are gettext catalogs, `translations/{zh,en}/LC_MESSAGES/messages.po` beside this
module, with English as the source language: a msgid is the English text. `make translations`
extracts them from the views and templates and compiles them; tests/web/test_web_i18n.py checks
that every msgid has both languages and that the catalogs hold exactly what the code uses.

The domain writes its own messages in English, as templates marked `N_` and formatted with
`str.format` (the grader's rejections, the content errors, the self-test's findings, skill
names, drill titles, the drills' tensor words): the helpers here look a template up in the
catalog and then format it with the message's parameters, so the CLI and the API keep the
domain's English as it is.
"""

from __future__ import annotations

import dataclasses
import re
from datetime import date, datetime

from babel import dates
from babel.support import NullTranslations
from flask import Flask, request, session
from flask_babel import (
    Babel,
    get_locale,
    get_translations,
    gettext,
    refresh,
    to_user_timezone,
)
from flask_babel import format_date as babel_format_date
from flask_login import current_user
from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup, escape

from quizsvc.bank import (
    CONTENT_MESSAGES,
    GOT_SUFFIX,
    NOTHING,
    ContentError,
    DrillQuestion,
    format_problem,
    localize,
    markdown_plain_text,
)
from quizsvc.drills import (
    DRILL_TITLES,
    PARAMS_MESSAGES,
    POSITION_LABEL,
    SKILL_NAMES,
    TENSOR_WORDS,
    ParamsProblem,
    Tensor,
    Variant,
    with_each_tensor,
)
from quizsvc.grading import AnswerRejected
from quizsvc.selftest import (
    FINDING_MESSAGES,
    Check,
    Finding,
    Problem,
    SelfTestReport,
    check_text,
    points_text,
)
from quizsvc.web.context import bank

LANGUAGES = ("zh", "en")
DEFAULT_LANGUAGE = "en"

babel = Babel()


def negotiated_language() -> str:
    """The session's choice (the header's toggle in this browser), else the account's (the
    toggle in any browser the user was logged in to), else the browser's Accept-Language."""
    chosen = session.get("lang")
    if chosen in LANGUAGES:
        return chosen
    account = current_user.language if current_user.is_authenticated else None
    if account in LANGUAGES:
        return account
    return request.accept_languages.best_match(LANGUAGES, default=DEFAULT_LANGUAGE)


_POSITION = re.compile(r"pos (\d+)")


def tensor_word(word: str) -> str:
    """A tensor's name or label in the page's language ("pos 2 爱" is "位置 2 爱")."""
    if word in TENSOR_WORDS:
        return gettext(word)
    return _POSITION.sub(lambda match: gettext(POSITION_LABEL).format(number=match[1]), word)


def localized_tensor(tensor: Tensor) -> Tensor:
    return dataclasses.replace(
        tensor,
        name=tensor_word(tensor.name),
        row_labels=tuple(tensor_word(label) for label in tensor.row_labels),
        col_labels=tuple(tensor_word(label) for label in tensor.col_labels),
    )


def localized_variant(variant: Variant) -> Variant:
    """The variant as a page shows it: its tensors' names and labels in the page's language
    (the stored variant, and the API, keep the drills' own)."""
    return with_each_tensor(variant, localized_tensor)


def answer_problem(rejection: AnswerRejected) -> str:
    """Why an answer was rejected, in the page's language, as a clause ("the answer is
    empty"), to follow a label; `as_sentence` makes it one on its own."""
    if rejection.code is None:
        return str(rejection)  # a caller's own words, in no catalog
    return gettext(rejection.template).format(**rejection.params)


def content_problem(error: ContentError) -> str:
    """What is wrong with the content, in the page's language; a message that has no code
    (pydantic's own) stays in English, as the loader wrote it."""
    if error.code is None:
        return error.message
    templates = PARAMS_MESSAGES if isinstance(error.code, ParamsProblem) else CONTENT_MESSAGES
    return format_problem(
        gettext(templates[error.code]), error.params, gettext(GOT_SUFFIX), gettext(NOTHING)
    )


def selftest_problem(problem: Problem) -> str:
    """A self-test finding (a failure or a note) in the page's language."""
    values = dict(problem.params)
    for name, value in values.items():
        if isinstance(value, AnswerRejected):
            values[name] = answer_problem(value)
    if problem.code is Finding.REFERENCE_MISSES_POINTS:
        values["points"] = points_text(values["points"], gettext)
    return gettext(FINDING_MESSAGES[problem.code]).format(**values)


def selftest_check(check: Check) -> str:
    """A failed check, as the CLI lists it ("perturbed (seed 3): FAILED: ..."), in the page's
    language."""
    return check_text(check, gettext, selftest_problem)


def selftest_summary(report: SelfTestReport) -> str:
    return report.summary(gettext)


def as_sentence(clause: str) -> str:
    """A clause (the grader's messages are written to follow a label) shown on its own: a
    capital and a full stop in English, a full stop in Chinese."""
    if not clause:
        return clause
    if negotiated_language() == "zh":
        return clause if clause.endswith(("。", "！", "？")) else clause + "。"
    clause = clause[0].upper() + clause[1:]
    return clause if clause.endswith((".", "!", "?")) else clause + "."


def skill_name(skill: str) -> str:
    name = SKILL_NAMES.get(skill)
    # a tag added to the content after the catalogs: readable, if not translated
    return gettext(name) if name else skill.replace("_", " ")


def drill_title(kind: str) -> str:
    title = DRILL_TITLES.get(kind)
    return gettext(title) if title else kind.replace("_", " ")


def question_title(question_id: str, length: int = 60) -> str:
    """What a learner calls a question: a drill's title, else the start of its prompt."""
    question = bank().questions.get(question_id)
    if question is None:
        return question_id  # no longer in the bank: its id is all there is to show
    if isinstance(question, DrillQuestion):
        return drill_title(question.kind)
    text = markdown_plain_text(localize(question.prompt, negotiated_language()))
    return text if len(text) <= length else text[: length - 1].rstrip() + "…"


def format_when(value: datetime) -> str:
    """A moment to the minute, as the page's language writes one (Babel's CLDR data), in
    UTC, which the pages say beside it: "Mar 5, 2026, 09:30", "2026年3月5日 09:30"."""
    locale, moment = get_locale(), to_user_timezone(value)
    # the locale's way of joining a date and a time, as babel.dates.format_datetime joins them
    joined = locale.datetime_formats["medium"].replace("'", "")
    day = dates.format_date(moment, "medium", locale=locale)
    return joined.replace("{1}", day).replace(
        "{0}", dates.format_skeleton("Hm", moment, locale=locale)
    )


def format_day(value: date) -> str:
    """A day, as the page's language writes one: "Mar 5, 2026", "2026年3月5日"."""
    return babel_format_date(value, "medium")


def init_app(app: Flask) -> None:
    # the catalogs beside this module; times shown in UTC, as the pages say
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", "translations")
    app.config.setdefault("BABEL_DEFAULT_TIMEZONE", "UTC")
    babel.init_app(app, locale_selector=negotiated_language)
    # Jinja's gettext (Flask-Babel installs the newstyle one) takes a translation for markup;
    # the catalogs hold text, escaped as every other value is, so no translation can add
    # markup or end an attribute
    app.jinja_env.install_gettext_callables(
        gettext=_template_gettext,
        ngettext=_template_ngettext,
        pgettext=_template_pgettext,
        npgettext=_template_npgettext,
        newstyle=True,
    )
    # Flask-Babel keeps the locale in `g`, which requests share within one application
    # context (a test's, a CLI command's): each request negotiates its own
    app.before_request(refresh)
    app.jinja_env.filters["when"] = format_when
    app.jinja_env.filters["day"] = format_day
    # for templates shared with pages whose views do not pass names (the instructor's)
    app.jinja_env.globals["skill_name"] = skill_name
    app.jinja_env.globals["question_title"] = question_title
    app.jinja_env.globals["content_problem"] = content_problem
    app.jinja_env.globals["selftest_problem"] = selftest_problem
    app.jinja_env.globals["selftest_check"] = selftest_check
    app.jinja_env.globals["selftest_summary"] = selftest_summary

    @app.context_processor
    def _language() -> dict[str, object]:
        return {"lang": negotiated_language(), "_catalog": get_translations()}


# A page looks up a hundred texts: the catalog is found once per page (Flask-Babel's lookup
# goes through the request context each time), or per text in a macro imported without the
# page's context.
def _catalog(context: Context) -> NullTranslations:
    catalog = context.get("_catalog")
    return catalog if catalog is not None else get_translations()


@pass_context
def _template_gettext(context: Context, string: str) -> Markup:
    return escape(_catalog(context).ugettext(string))


@pass_context
def _template_ngettext(context: Context, one: str, many: str, n: int) -> Markup:
    return escape(_catalog(context).ungettext(one, many, n))


@pass_context
def _template_pgettext(context: Context, message_context: str, string: str) -> Markup:
    return escape(_catalog(context).upgettext(message_context, string))


@pass_context
def _template_npgettext(
    context: Context, message_context: str, one: str, many: str, n: int
) -> Markup:
    return escape(_catalog(context).unpgettext(message_context, one, many, n))
