"""The worked example's steps as the page /worked-example shows them: texts in the page's
language, formulas as MathML, tables with their shapes and the chapter's misprints marked."""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass

from flask_babel import get_locale, gettext
from markupsafe import Markup

from engine.chapter import Erratum, errata
from engine.trained import TrainedModel
from quizsvc.bank.mathml import latex_to_mathml
from quizsvc.drills import Tensor
from quizsvc.web.heatmap import heatmap_svg
from quizsvc.web.render import noted_matrix_table
from quizsvc.worked_example import (
    Heatmap,
    Matrix,
    Source,
    Step,
    erratum_label,
    shape_text,
    trained_example_parts,
)
from quizsvc.worked_example import worked_example_parts as parts_of_the_example

# a wider heatmap (the trained model's P over 36 tokens) scales down past reading: its
# table alone shows it
HEATMAP_COLUMNS = 12


@functools.cache
def display_formula(tex: str) -> Markup:
    return Markup(latex_to_mathml(tex, display=True))


@dataclass(frozen=True)
class ErratumItem:
    erratum: Erratum
    label: str  # the misprinted quantity's name in the page's language

    @property
    def printed(self) -> str:
        return f"{self.erratum.printed:.{self.erratum.decimals}f}"

    @property
    def true(self) -> str:
        return f"{self.erratum.true:.{self.erratum.decimals + 2}f}"


def _heatmap_description(matrix: Matrix, name: str) -> str:
    if matrix.heatmap is Heatmap.PROBABILITIES:
        return gettext(
            "Output probabilities %(name)s: one row per position, one column per token of the "
            "vocabulary; the darker the square, the larger the probability, and each square "
            "shows its value.",
            name=name,
        )
    return gettext(
        "Attention weights %(name)s: one row per query, one column per key; the darker the "
        "square, the larger the weight, and each square shows its value.",
        name=name,
    )


def _matrix(matrix: Matrix, heading: str, misprints: list[ErratumItem]) -> dict:
    name = matrix.caption.render(gettext)
    shown = [item for item in misprints if item.erratum.quantity in matrix.quantities]
    notes = {
        (matrix.row_labels.index(row), matrix.col_labels.index(column)): gettext(
            "The chapter prints %(printed)s", printed=item.printed
        )
        for item in shown
        for row, column in [item.erratum.place]
    }
    tensor = Tensor(name, matrix.values, matrix.row_labels, matrix.col_labels)
    region = f"{heading}: {name}"
    cell = 56 if matrix.heatmap is Heatmap.PROBABILITIES else 44  # room for "<pad>" above
    return {
        "table": noted_matrix_table(tensor, shape_text(matrix.shape), region, notes),
        # the table beside it gives its numbers: the picture names them too, for a screen reader
        "heatmap": heatmap_svg(tensor, cell=cell, label=_heatmap_description(matrix, name))
        if matrix.heatmap and matrix.shape[1] <= HEATMAP_COLUMNS
        else None,
        "errata": shown,
    }


def _step(step: Step, number: int, misprints: list[ErratumItem]) -> dict:
    title = step.title.render(gettext)
    heading = f"{number}. {title}"
    matrices = [_matrix(m, heading, misprints) for m in step.matrices]
    return {
        "anchor": step.anchor,
        "number": number,
        "title": title,
        "heading": heading,
        "sections": step.sections,
        "source_class": _SOURCE_CLASS[step.source],
        "source": gettext(step.source.value),
        "note": step.note.render(gettext) if step.note else None,
        "formulas": [display_formula(tex) for tex in step.formulas],
        "given": [_matrix(m, heading, []) for m in step.given],
        "matrices": matrices,
        "errata": [item for m in matrices for item in m["errata"]],
    }


_SOURCE_CLASS = {
    Source.CHAPTER: "we-source-chapter",
    Source.ENGINE: "we-source-engine",
    Source.TRAINED: "we-source-trained",
}


# The page's parts in a language, for the chapter's numbers (None) or a trained model: the
# same every time (a model is replaced whole on a reload, never changed), and the trained
# model's tables take a second to build. Each entry keeps its model, so an id is not reused
# while it is cached; a model that is no longer served leaves the cache.
_pages: dict[tuple[str, int | None], tuple[TrainedModel | None, dict]] = {}
_pages_lock = threading.Lock()


def worked_example_page(trained: TrainedModel | None = None) -> dict:
    """The template's parts (each with its steps, numbered through) and errata: the
    chapter's numbers, or with `trained` that model's (and no errata). Built once per
    language and model."""
    key = (str(get_locale()), None if trained is None else id(trained))
    cached = _pages.get(key)
    if cached is not None and cached[0] is trained:
        return cached[1]
    page = _build_page(trained)
    with _pages_lock:
        for other in [k for k, (m, _) in _pages.items() if m is not None and m is not trained]:
            del _pages[other]
        _pages[key] = (trained, page)
    return page


def _build_page(trained: TrainedModel | None) -> dict:
    if trained is None:
        misprints = [ErratumItem(e, erratum_label(e).render(gettext)) for e in errata()]
        example = parts_of_the_example()
    else:
        misprints, example = [], trained_example_parts(trained)
    parts, number = [], 0
    for part in example:
        steps = []
        for step in part.steps:
            number += 1
            steps.append(_step(step, number, misprints))
        parts.append({"title": part.title.render(gettext), "steps": steps})
    steps_with_errata = [s for part in parts for s in part["steps"] if s["errata"]]
    return {
        "parts": parts,
        "steps_with_errata": steps_with_errata,
        "errata_count": len(misprints),
        "trained": trained is not None,
        "d_model": trained.config.d_model if trained else None,
    }
