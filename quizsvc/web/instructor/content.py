"""The instructor's content pages: the loaded bank and the files on disk, reloading them, a
question's preview (a drill's variant for any seed), the self-test.

A reload records the new bank's version in the database, and every worker process follows it
within a second (`content_sync`); the content page shows which version each worker serves
when they differ.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from flask import abort, flash, redirect, render_template, url_for
from flask_babel import gettext, ngettext
from markupsafe import Markup

from quizsvc import practice
from quizsvc.bank import (
    Bank,
    BankError,
    ContentError,
    DrillQuestion,
    MultipleChoiceQuestion,
    NumericQuestion,
    OpenQuestion,
    localize,
    public_question,
    render_markdown,
    solution_view,
)
from quizsvc.quiz_standing import QuestionStanding
from quizsvc.selftest import run_selftest
from quizsvc.store import reports_queries
from quizsvc.web import content_sync
from quizsvc.web.context import bank, db, load_content, state
from quizsvc.web.drill_parts import attention_heatmap, cell_names, drill_rules, step_tables
from quizsvc.web.forms import ContentReloadForm, PreviewForm
from quizsvc.web.i18n import localized_variant, negotiated_language
from quizsvc.web.instructor.common import begin_reading, bp, excerpt
from quizsvc.web.login_session import instructor_required
from quizsvc.web.quiz import numeric_answer_tensor, question_rules
from quizsvc.web.render import format_number, matrix_table

MAX_SEED = 2**63 - 1  # the store keeps seeds in a BIGINT


def _question_rows(live: Bank, lang: str) -> list[dict[str, Any]]:
    return [
        {
            "id": question.id,
            "type": question.type,
            "kind": question.kind if isinstance(question, DrillQuestion) else None,
            "tags": question.tags,
            "chapter": live.chapter_of[question.id],
            "source": str(live.source_of[question.id]),
            "file": live.source_of[question.id].file,
            "prompt": excerpt(localize(question.prompt, lang)),
        }
        for question in live.questions.values()
    ]


@dataclass(frozen=True)
class DiskCheck:
    """The content directory as it is now: valid (with its version) or its errors."""

    version: str | None
    errors: tuple[ContentError, ...]

    @property
    def valid(self) -> bool:
        return not self.errors


def _check_disk() -> DiskCheck:
    try:
        return DiskCheck(load_content(state().content_dir).version, ())
    except BankError as exc:
        return DiskCheck(None, exc.errors)


def render_content(reload_errors: tuple[ContentError, ...] | None = None, status: int = 200):
    live = bank()  # once: a reload in another thread swaps the whole bank, never a part
    lang = negotiated_language()
    disk = _check_disk() if reload_errors is None else DiskCheck(None, reload_errors)
    return render_template(
        "instructor/content.html",
        bank=live,
        content_dir=state().content_dir,
        chapters=[
            {"id": c.id, "title": localize(c.title, lang), "order": c.order} for c in live.chapters
        ],
        questions=_question_rows(live, lang),
        disk=disk,
        files_with_errors={error.file for error in disk.errors},
        reload_failed=reload_errors is not None,
        served=content_sync.served_versions(),
    ), status


@bp.get("/content")
@instructor_required
def content():
    return render_content()


def _dropped_with_records(live: Bank, new: Bank) -> list[tuple[str, int]]:
    """Questions of the live bank missing from the new one, for which work is recorded."""
    gone = set(live.questions) - set(new.questions)
    if not gone:
        return []
    begin_reading()
    recorded = reports_queries.recorded_work_by_question(db())
    return sorted((question_id, recorded[question_id]) for question_id in gone & set(recorded))


@bp.get("/content/reload")
@instructor_required
def reload_content_page():
    """The confirmation page's address, reloaded or bookmarked: back to the content page."""
    return redirect(url_for("instructor.content"))


@bp.post("/content/reload")
@instructor_required
def reload_content():
    live = bank()
    old_version = live.version
    try:
        candidate = load_content(state().content_dir)
    except BankError as exc:
        # the whole new content is rejected; the live bank is the one it was
        return render_content(exc.errors, 422)
    dropped = _dropped_with_records(live, candidate)
    # A confirmation holds for the content it was shown for, not for what is on disk now.
    form = ContentReloadForm()
    if dropped and form.confirmed_version.data != candidate.version:
        return render_template(
            "instructor/reload_confirm.html",
            dropped=dropped,
            version=candidate.version,
            changed_again=form.is_confirmation,
        ), 409
    new = content_sync.publish(candidate)
    if new.version == old_version:
        flash(
            gettext(
                "Reloaded: the content has not changed (version %(version)s).",
                version=new.version[:12],
            ),
            "info",
        )
    else:
        flash(
            ngettext(
                "Reloaded: version %(old)s → %(new)s (%(num)s question).",
                "Reloaded: version %(old)s → %(new)s (%(num)s questions).",
                len(new.questions),
                old=old_version[:12],
                new=new.version[:12],
            ),
            "info",
        )
    return redirect(url_for("instructor.content"))


# --- preview ------------------------------------------------------------------------------


def _parse_seed(raw: str | None) -> int:
    """The seed asked for (0 when none); ValueError with a message for anything else."""
    if raw is None or not raw.strip():
        return 0
    text = raw.strip()
    if not re.fullmatch(r"[0-9]{1,19}", text) or int(text) > MAX_SEED:
        raise ValueError(
            gettext(
                "The seed must be a whole number from 0 to %(max)s, not '%(seed)s'.",
                seed=text[:40],
                max=MAX_SEED,
            )
        )
    return int(text)


def _param_value(value: object) -> str:
    """A drill parameter as its YAML would write it (null: drawn or not used)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _variant_view(live: Bank, question: DrillQuestion, seed: int, lang: str) -> dict[str, Any]:
    """Generated here and now, never stored (a preview is not a learner's variant). What the
    learner sees before answering comes from the drill page's own functions (its rules, its
    cells' names), so the preview cannot misstate it."""
    chapter = practice.chapter_model(live, question.id)
    variant = localized_variant(practice.build_variant(question, seed, chapter))
    answer = variant.answer
    rows, cols = answer.shape
    return {
        "seed": seed,
        "skill": variant.skill,
        "params": [(name, _param_value(value)) for name, value in variant.params.items()],
        "rules": drill_rules(variant, question.attempts, question.penalty),
        "attempts": question.attempts,
        "prompt": Markup(render_markdown(variant.prompt[lang])),
        "given": [matrix_table(t) for t in variant.given],
        "grid": {
            "name": answer.name,
            "rows": rows,
            "cols": cols,
            "scalar": (rows, cols) == (1, 1),
            "row_labels": answer.row_labels,
            "col_labels": answer.col_labels,
            "cell_names": cell_names(answer),
        },
        "answer": matrix_table(
            variant.answer,
            region_label=gettext("Correct answer") + gettext(": ") + variant.answer.name,
        ),
        "heatmap": attention_heatmap(variant.heatmap) if variant.heatmap is not None else None,
        "solution": [
            {
                "title": step.title[lang],
                "text": Markup(render_markdown(step.text[lang])),
                "tensors": step_tables(step, number, lang),
            }
            for number, step in enumerate(variant.solution, start=1)
        ],
    }


def _choice_scores(question: MultipleChoiceQuestion, lang: str) -> list[dict[str, Any]]:
    """Every choice with what ticking it scores (a negative score is a penalty)."""
    return [
        {
            "id": choice.id,
            "text": Markup(render_markdown(localize(choice.text, lang), inline=True)),
            "score": format_number(choice.score, 6),
            "penalty": choice.score < 0,
        }
        for choice in question.choices
    ]


def _rubric_view(question: OpenQuestion, lang: str) -> list[dict[str, Any]]:
    return [
        {
            "key": point.key,
            "weight": point.weight,
            "description": localize(point.description, lang),
            "phrases": [*point.phrases.zh, *point.phrases.en],
        }
        for point in question.rubric
    ]


@bp.get("/preview")
@instructor_required
def preview():
    live = bank()
    lang = negotiated_language()
    form = PreviewForm()
    question_id = form.question.data
    seed_error = None
    try:
        # only a drill has a seed; the field is ignored for any other question
        is_drill = isinstance(live.questions.get(question_id), DrillQuestion)
        seed = _parse_seed(form.seed.data) if is_drill or not question_id else 0
    except ValueError as exc:
        seed, seed_error = 0, str(exc)
    selected: dict[str, Any] | None = None
    if question_id and seed_error is None:
        question = live.questions.get(question_id)
        if question is None:
            abort(404, description=gettext("There is no question '%(id)s'.", id=question_id[:100]))
        public = public_question(question, lang)
        selected = {
            "id": question.id,
            "type": question.type,
            "source": str(live.source_of[question.id]),
            "public": public,
            # the list the chapter page shows learners before their first answer, so the
            # preview cannot misstate it
            "answer_rules": (
                None
                if isinstance(question, DrillQuestion)
                else question_rules(QuestionStanding(question, None), public)
            ),
            "solution": solution_view(question, lang),
            "answer": (
                matrix_table(numeric_answer_tensor(question))
                if isinstance(question, NumericQuestion)
                else None
            ),
            "choice_scores": (
                _choice_scores(question, lang)
                if isinstance(question, MultipleChoiceQuestion)
                else None
            ),
            "rubric": _rubric_view(question, lang) if isinstance(question, OpenQuestion) else None,
            "variant": (
                _variant_view(live, question, seed, lang)
                if isinstance(question, DrillQuestion)
                else None
            ),
        }
    return render_template(
        "instructor/preview.html",
        questions=[(q.id, q.type) for q in live.questions.values()],
        question_id=question_id,
        seed=form.seed.data[:40] if seed_error else seed,
        seed_error=seed_error,
        selected=selected,
    ), (400 if seed_error else 200)


# --- self-test ----------------------------------------------------------------------------


@bp.get("/selftest")
@instructor_required
def selftest():
    return render_template("instructor/selftest.html", report=None, bank=bank())


@bp.post("/selftest")
@instructor_required
def run_selftest_view():
    live = bank()
    report = run_selftest(live)
    return render_template("instructor/selftest.html", report=report, bank=live)
