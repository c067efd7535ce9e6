"""Attention weights (or output probabilities) as an SVG heatmap: one square per (row, column)
with its value in it and on hover, token labels on both axes and a legend; as a figure, with
the same numbers in a table for screen readers.

The picture is sized by its viewBox, so the stylesheet (.hm) scales it down to a narrow box
rather than widening the page; a square is at least ``MIN_CELL`` px before that, and wide
enough for its column's label. Everything is built with escaping, as in ``render``.
"""

from __future__ import annotations

from markupsafe import Markup, escape

from quizsvc.drills import Tensor
from quizsvc.web.render import format_number, header_cell, text_width

MIN_CELL = 32  # px: a square, its two-decimal value and its column label legible
LABEL_FONT = 12  # px, the axes' labels and the values
ROW_LABELS_MIN = 70  # px, the column of the row labels (wider for a longer label)
COLUMN_LABELS = 24  # px, the row of the column labels
LEGEND_STEPS = (0.0, 0.25, 0.5, 0.75, 1.0)
LEGEND_SWATCH = (20, 14)  # px, width and height of one step of the legend
LEGEND_GAP = 10  # px between the grid and the legend, and below the legend


def heat_colour(weight: float) -> tuple[int, int, int]:
    """White (0) to deep blue (1)."""
    w = min(max(weight, 0.0), 1.0)
    r, g, b = (round(255 - (255 - t) * w) for t in (33, 102, 172))
    return r, g, b


def _relative_luminance(rgb: tuple[int, int, int]) -> float:
    """WCAG 2.1's relative luminance of an sRGB colour."""

    def linear(channel: int) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = map(linear, rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


# Black or white, whichever contrasts more with the cell: at the colour where the two are equal
# each has sqrt(21) = 4.58 : 1, so every cell's value reaches WCAG AA's 4.5 : 1 (with #111 in
# place of black that point had 4.35 : 1, and white on mid-blue cells 2.4 : 1).
_WHITE_INK_BELOW = (1.05 * 0.05) ** 0.5 - 0.05  # luminance where (1.05)/(L+.05) = (L+.05)/.05


def _ink(fill: tuple[int, int, int]) -> str:
    return "#fff" if _relative_luminance(fill) < _WHITE_INK_BELOW else "#000"


def _value(value: float) -> str:
    return format_number(float(value), 2)


def _values_text(tensor: Tensor) -> str:
    """The numbers of a heatmap as text, row by row: what its picture shows, for a screen
    reader (an image's children are not read)."""
    return "; ".join(
        f"{query}: "
        + ", ".join(f"{key} {_value(v)}" for key, v in zip(tensor.col_labels, row, strict=True))
        for query, row in zip(tensor.row_labels, tensor.values, strict=True)
    )


def _legend(left: float, top: float) -> str:
    """The colour scale: a swatch per step from 0 (white) to 1 (deep blue), 0 before it and
    1 after it."""
    width, height = LEGEND_SWATCH
    baseline = top + height / 2 + 4
    parts = [
        f"<g class='hm-legend'><text x='{left - 6}' y='{baseline}' text-anchor='end' "
        f"font-size='{LABEL_FONT}'>{format_number(LEGEND_STEPS[0])}</text>"
    ]
    for i, step in enumerate(LEGEND_STEPS):
        r, g, b = heat_colour(step)
        parts.append(
            f"<rect x='{left + i * width}' y='{top}' width='{width}' height='{height}' "
            f"fill='rgb({r},{g},{b})' stroke='#767676'/>"
        )
    right = left + len(LEGEND_STEPS) * width
    parts.append(
        f"<text x='{right + 6}' y='{baseline}' font-size='{LABEL_FONT}'>"
        f"{format_number(LEGEND_STEPS[-1])}</text></g>"
    )
    return "".join(parts)


def legend_width() -> int:
    """The legend's width right of the grid's left edge: its swatches, a gap and the "1"."""
    return len(LEGEND_STEPS) * LEGEND_SWATCH[0] + 6 + text_width("1", LABEL_FONT)


def heatmap_svg(tensor: Tensor, cell: int = 44, label: str = "", hidden: bool = False) -> Markup:
    """The heatmap as an SVG grid, one square per (query, key) with its value in it and, on
    hover, a tooltip naming its row, column and value; the row labels on the left, the
    column labels above, the legend below.

    A square is ``cell`` px, at least ``MIN_CELL`` and as wide as its widest column label
    needs; the row labels' column is as wide as the widest needs (at least 70 px).

    ``label`` is what a screen reader announces for the picture (its title), followed by the
    values; it should say what the rows and columns are, in the page's language. Without one,
    the tensor's name. ``hidden`` leaves the picture out of the accessibility tree, for a
    figure whose table says the same (``heatmap_figure``).
    """
    label = label or tensor.name
    rows, cols = tensor.shape
    widest_key = max((text_width(key, LABEL_FONT) for key in tensor.col_labels), default=0)
    cell = max(cell, MIN_CELL, widest_key + 8)
    widest_query = max((text_width(q, LABEL_FONT) for q in tensor.row_labels), default=0)
    label_w, label_h = max(ROW_LABELS_MIN, widest_query + 12), COLUMN_LABELS
    legend_top = label_h + rows * cell + LEGEND_GAP
    width = label_w + max(cols * cell, legend_width())
    height = legend_top + LEGEND_SWATCH[1] + LEGEND_GAP
    if hidden:
        role = "aria-hidden='true' focusable='false'"
    else:
        role = f"role='img' aria-label='{escape(f'{label} {_values_text(tensor)}')}'"
    parts = [
        f"<svg class='heatmap' xmlns='http://www.w3.org/2000/svg' width='{width}' "
        f"height='{height}' viewBox='0 0 {width} {height}' {role}><title>{escape(label)}</title>"
    ]
    for c, key in enumerate(tensor.col_labels):
        x = label_w + c * cell + cell / 2
        parts.append(
            f"<text x='{x}' y='16' text-anchor='middle' font-size='{LABEL_FONT}'>"
            f"{escape(key)}</text>"
        )
    for r, query in enumerate(tensor.row_labels):
        y = label_h + r * cell
        baseline = y + cell / 2 + 5
        parts.append(
            f"<text x='{label_w - 6}' y='{baseline}' text-anchor='end' font-size='{LABEL_FONT}'>"
            f"{escape(query)}</text>"
        )
        for c, key in enumerate(tensor.col_labels):
            value = float(tensor.values[r, c])
            x = label_w + c * cell
            fill = heat_colour(value)
            shown = escape(_value(value))
            parts.append(
                f"<rect x='{x}' y='{y}' width='{cell}' height='{cell}' "
                f"fill='rgb({fill[0]},{fill[1]},{fill[2]})' stroke='#ccc'>"
                f"<title>{escape(query)} → {escape(key)}: {shown}</title></rect>"
                f"<text x='{x + cell / 2}' y='{y + cell / 2 + 5}' text-anchor='middle' "
                f"fill='{_ink(fill)}' font-size='{LABEL_FONT}' class='hm-value'>{shown}</text>"
            )
    parts.append(_legend(label_w, legend_top))
    parts.append("</svg>")
    return Markup("".join(parts))


def heatmap_table(tensor: Tensor, label: str) -> Markup:
    """The heatmap's numbers as a table, captioned ``label``, for screen readers: in a box the
    stylesheet hides from view (a table's own box cannot be clipped), as the picture beside it
    shows the same."""
    head = "".join(header_cell(c, "col") for c in tensor.col_labels)
    rows = "".join(
        f"<tr>{header_cell(query, 'row')}"
        + "".join(f"<td>{escape(_value(v))}</td>" for v in values)
        + "</tr>"
        for query, values in zip(tensor.row_labels, tensor.values, strict=True)
    )
    return Markup(
        f"<div class='hm-table'><table><caption>{escape(label)}</caption>"
        f"<thead><tr><td></td>{head}</tr></thead><tbody>{rows}</tbody></table></div>"
    )


def heatmap_figure(tensor: Tensor, label: str, cell: int = 44) -> Markup:
    """The heatmap as a page shows it: the picture (hidden from screen readers) and the same
    numbers as a table (for them), in a figure the picture scales down to fit."""
    label = label or tensor.name
    return Markup(
        f"<figure class='hm'>{heatmap_svg(tensor, cell, label, hidden=True)}"
        f"{heatmap_table(tensor, label)}</figure>"
    )
