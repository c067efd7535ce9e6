"""The parts of a drill's page that other pages show too (the instructor's preview, the
chapter's numeric questions): the rules stated before answering, the names of the answer's
cells, the marks of a graded attempt and the worked solution's tables."""

from __future__ import annotations

import math

from flask_babel import gettext
from markupsafe import Markup

from quizsvc.drills import Rounding, Step, Tensor, Variant, variant_conventions
from quizsvc.grading import Tolerance
from quizsvc.web.heatmap import heatmap_figure
from quizsvc.web.render import format_number, format_whole_percent, matrix_table


def tolerance_rule(tolerance: Tolerance) -> str:
    """How close an answer must be, as the learner reads it before answering."""
    atol, rtol = format_number(tolerance.atol, 6), format_number(tolerance.rtol, 6)
    if tolerance.atol == 0 and tolerance.rtol == 0:
        return gettext("Only the exact value counts as correct.")
    if tolerance.rtol == 0:
        return gettext("Answers within ±%(atol)s of the exact value count as correct.", atol=atol)
    return gettext(
        "Answers within ±(%(atol)s + %(rtol)s × |exact value|) of the "
        "exact value count as correct.",
        atol=atol,
        rtol=rtol,
    )


def rounding_rule(rounding: Rounding) -> str:
    """The decimals to give, as the drill's task asks for them."""
    if rounding.answer == 0:
        return gettext("Answer with a whole number: the token's id.")
    if rounding.intermediate is None:
        return gettext("Give the answer to %(answer)s decimals.", answer=rounding.answer)
    if rounding.exponentials is None:
        return gettext(
            "Keep %(intermediate)s decimals in each intermediate result and give the answer "
            "to %(answer)s.",
            intermediate=rounding.intermediate,
            answer=rounding.answer,
        )
    return gettext(
        "Keep %(intermediate)s decimals in each intermediate result (%(exponentials)s in eˣ "
        "and their sum) and give the answer to %(answer)s.",
        intermediate=rounding.intermediate,
        exponentials=rounding.exponentials,
        answer=rounding.answer,
    )


def masked_cell_rule(value: float) -> str:
    if math.isinf(value):
        return gettext("Write -inf in a masked cell (−∞ works too).")
    return gettext("Write %(value)s in a masked cell.", value=format_number(value, 6))


def drill_rules(variant: Variant, attempts_allowed: int, penalty: float) -> list[str]:
    """The rules a drill's page states before answering, the facts the API sends as data
    beside the task: the decimals, a masked cell's answer, how close, all or nothing, what a
    retry costs (the instructor's preview shows the same list)."""
    rules = []
    conventions = variant_conventions(variant)
    if conventions is not None:
        rules.append(rounding_rule(conventions.rounding))
        if conventions.masked_cell is not None:
            rules.append(masked_cell_rule(conventions.masked_cell))
    rules.append(tolerance_rule(variant.tolerance))
    if variant.all_or_nothing and variant.answer.values.size > 1:
        rules.append(gettext("Every cell must be right to score: one wrong cell scores 0."))
    if attempts_allowed == 1:
        rules.append(gettext("One attempt: this drill cannot be retried."))
    elif penalty > 0:
        rules.append(
            gettext(
                "Each further attempt takes %(penalty)s off the score.",
                penalty=format_whole_percent(penalty),
            )
        )
    return rules


def cell_names(answer) -> list[list[str]]:
    """What the learner calls each cell of the answer: its row and column headers as the page
    shows them ("我, d1"), a header left out where it is empty, the answer's name for a
    single number."""
    rows, cols = answer.shape
    if (rows, cols) == (1, 1):  # its one input is labelled with the answer's name
        return [[answer.name]]
    return [
        [
            ", ".join(label for label in (answer.row_labels[r], answer.col_labels[c]) if label)
            or answer.name
            for c in range(cols)
        ]
        for r in range(rows)
    ]


def cell_marks(
    cells: list[dict], rows: int, cols: int, reveal_wrong: bool
) -> list[list[dict[str, object]]]:
    """Graded cells (as `NumericGrade.to_json_dict()` writes them, infinities as strings),
    as the marks table shows them: right or wrong, the value given and, for a right cell or
    once `reveal_wrong`, the values that were accepted."""
    marks: list[list[dict[str, object]]] = [[{} for _ in range(cols)] for _ in range(rows)]
    for cell in cells:
        mark: dict[str, object] = {
            "correct": cell["correct"],
            "submitted": _shown(cell["submitted"]),
        }
        if reveal_wrong or cell["correct"]:
            low, high = _shown(cell["low"]), _shown(cell["high"])
            if low == high:  # an exact answer (a token id): one value, not an interval,
                if not cell["correct"]:  # and only where it is not the value given
                    mark |= {"interval": low, "interval_title": gettext("Accepted value")}
            else:
                mark |= {
                    "interval": f"[{low}, {high}]",
                    "interval_title": gettext("Accepted interval"),
                }
        marks[cell["row"]][cell["col"]] = mark
    return marks


def _shown(value: float | str) -> str:
    """A cell value from stored JSON, where infinities are the strings "inf" and "-inf"."""
    return format_number(float(value), 4)


def step_tables(step: Step, number: int, lang: str) -> list[Markup]:
    """A worked solution step's tensors, each box named after the step too: a step shows
    again what the drill gave (X', W_q), and two regions of one name cannot be told apart."""
    return [
        matrix_table(
            tensor, region_label=f"{number}. {step.title[lang]}{gettext(': ')}{tensor.name}"
        )
        for tensor in step.tensors
    ]


def attention_heatmap(heatmap: Tensor) -> Markup:
    """A drill's attention weights as the heatmap its page (and the instructor's preview)
    draws, with the text that says how to read it."""
    return heatmap_figure(
        heatmap,
        label=gettext(
            "Attention weights %(name)s: one row per query, one column per "
            "key; the darker the square, the larger the weight, and each "
            "square shows its value.",
            name=heatmap.name,
        ),
    )
