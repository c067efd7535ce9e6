"""Server-rendered views of numbers: matrix tables and SVG charts (heatmaps: ``heatmap``).

Everything returns `markupsafe.Markup` built with escaping, so labels from content can never
inject markup.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping, Sequence

from markupsafe import Markup, escape

from quizsvc.drills import Tensor
from quizsvc.drills.text import decimal_text


def format_number(value: float, decimals: int = 3) -> str:
    if math.isinf(value):
        return "−∞" if value < 0 else "∞"
    return decimal_text(value, decimals).replace("-", "−")


def format_percent(score: float) -> str:
    """A score in [0, 1] as a reviewer types it: 75%, 12.5%, 33.3% (one decimal where it
    needs one). Templates have it as the `percent` filter."""
    return decimal_text(score * 100, 1) + "%"


def format_whole_percent(score: float) -> str:
    """A score in [0, 1] as a whole percent, a half rounded up as learners round (1/8 of the
    cells: 13%). Templates have it as the `whole_percent` filter."""
    return decimal_text(score * 100, 0) + "%"


def init_app(app) -> None:
    app.jinja_env.filters["percent"] = format_percent
    app.jinja_env.filters["whole_percent"] = format_whole_percent
    app.jinja_env.filters["chinese_lang"] = chinese_lang
    app.jinja_env.globals["shape_caption"] = shape_caption


def chinese_lang(text: str) -> Markup:
    """` lang='zh-CN'` for a label with Chinese in it (the chapter's tokens, 我 爱 你), so that a
    screen reader on an English page reads it with a Chinese voice; otherwise nothing (on a
    Chinese page the attribute only repeats the page's own language). Templates have it as
    the `chinese_lang` filter, for a header's attributes."""
    wide = any(unicodedata.east_asian_width(c) in ("W", "F") for c in text)
    return Markup(" lang='zh-CN'" if wide else "")


def header_cell(label: str, scope: str) -> str:
    """A table's header cell for a row or column (``scope``), marked Chinese where it is."""
    return f"<th scope='{scope}'{chinese_lang(label)}>{escape(label)}</th>"


def shape_caption(name: str, rows: int, cols: int) -> Markup:
    """A matrix's name and, for more than one number, its shape: "Q (3 × 4)"."""
    if rows * cols <= 1:
        return escape(name)
    return Markup("{} <span class='shape'>({} × {})</span>").format(name, rows, cols)


def matrix_table(
    tensor: Tensor,
    marks: Sequence[Sequence[str]] | None = None,
    region_label: str | None = None,
) -> Markup:
    """A labelled table; `marks[r][c]` adds a CSS class per cell (e.g. "right", "wrong").

    The table comes in a box of its own that scrolls sideways where the table is wider than
    the page (a vocabulary's worth of columns on a phone), as the WAI pattern for scrollable
    regions has it: a region, focusable (tabindex 0) so the keyboard can scroll it too, named
    as the table's caption, or `region_label` where the page shows the same tensor twice (a
    page's regions need names of their own to be told apart). The corner above the row
    headers heads nothing, so it is a plain cell. Labels that are all empty (one number's
    column, "") are left out, rather than drawn as an empty strip of header cells. The
    caption gives the matrix's shape after its name."""
    with_col_headers = any(tensor.col_labels)
    with_row_headers = any(tensor.row_labels)
    corner = "<td></td>" if with_row_headers else ""
    head = "".join(header_cell(c, "col") for c in tensor.col_labels)
    rows = []
    for r, (label, values) in enumerate(zip(tensor.row_labels, tensor.values, strict=True)):
        cells = []
        for c, value in enumerate(values):
            css = f" class='{escape(marks[r][c])}'" if marks else ""
            cells.append(f"<td{css}>{escape(format_number(value))}</td>")
        header = header_cell(label, "row") if with_row_headers else ""
        rows.append(f"<tr>{header}{''.join(cells)}</tr>")
    region = escape(region_label) if region_label else escape(tensor.name)
    caption = shape_caption(tensor.name, len(tensor.values), len(tensor.values[0]))
    thead = f"<thead><tr>{corner}{head}</tr></thead>" if with_col_headers else ""
    return Markup(
        f"<div class='matrix-scroll' role='region' tabindex='0' aria-label='{region}'>"
        f"<table class='matrix'><caption>{caption}</caption>"
        f"{thead}<tbody>{''.join(rows)}</tbody></table></div>"
    )


CHART_FONT = 12  # px, the bar chart's labels and percentages


def text_width(text: str, font_size: int = CHART_FONT) -> int:
    """A conservative width of `text` in px, for laying out SVG text that is never measured:
    0.65 em a character, twice that for a wide one (CJK, full-width forms). DejaVu Sans, one
    of the widest fonts a browser falls back to, draws the English skill names at 0.46-0.61 em
    a character ("Add & Norm" the widest), and a CJK font draws 1 em a wide character."""
    units = sum(2 if unicodedata.east_asian_width(c) in ("W", "F") else 1 for c in text)
    return math.ceil(units * font_size * 13 / 20)


def _with_values(label: str, values: Sequence[str], separator: str = ", ") -> str:
    """A chart's text alternative: its title and then what it draws, as a screen reader
    announces it (an image's own text is not read); the tooltip (its title) stays short."""
    return f"{label}: {separator.join(values)}" if values else label


def chart_figure(picture: Markup, caption: str) -> Markup:
    """A chart with its title shown above it, in the page's language (the picture's own
    name, for screen readers, is its aria-label and title)."""
    return Markup(
        f"<figure class='chart'><figcaption>{escape(caption)}</figcaption>{picture}</figure>"
    )


def line_chart_svg(
    points: Sequence[float], width: int = 420, height: int = 140, label: str = ""
) -> Markup:
    """Scores in [0, 1] over time as a polyline with dots, in a frame 44 px from the left
    (room for the axis's 100 %, 50 % and 0 %, one at each gridline) and 12 px from the other
    edges; empty input gives an empty frame. Sized by its viewBox: the page's CSS may scale
    it down."""
    left, pad = 44, 12
    inner_w, inner_h = width - left - pad, height - 2 * pad
    middle = pad + inner_h / 2  # the 50 % gridline
    alternative = _with_values(label, [format_whole_percent(min(max(p, 0.0), 1.0)) for p in points])
    parts = [
        f"<svg class='chart' xmlns='http://www.w3.org/2000/svg' width='{width}' "
        f"height='{height}' viewBox='0 0 {width} {height}' role='img' "
        f"aria-label='{escape(alternative)}'><title>{escape(label)}</title>"
        f"<rect x='{left}' y='{pad}' width='{inner_w}' height='{inner_h}' fill='none' "
        f"stroke='#ccc'/>"
        f"<line x1='{left}' y1='{middle:g}' x2='{left + inner_w}' y2='{middle:g}' "
        f"stroke='#ddd' stroke-dasharray='4 3'/>"
    ]
    for share, y in ((1, pad), (0.5, middle), (0, pad + inner_h)):
        parts.append(
            f"<text x='{left - 6}' y='{y + 4:g}' text-anchor='end' font-size='11'>"
            f"{share:.0%}</text>"
        )
    if points:
        step = inner_w / max(len(points) - 1, 1)
        coords = [
            (left + i * step, pad + inner_h * (1 - min(max(p, 0.0), 1.0)))
            for i, p in enumerate(points)
        ]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
        parts.append(f"<polyline points='{path}' fill='none' stroke='#2166ac' stroke-width='2'/>")
        parts += [f"<circle cx='{x:.1f}' cy='{y:.1f}' r='3' fill='#2166ac'/>" for x, y in coords]
    parts.append("</svg>")
    return Markup("".join(parts))


def bar_chart_svg(bars: Sequence[tuple[str, float]], width: int = 420, label: str = "") -> Markup:
    """Horizontal bars for values in [0, 1], one per labelled row, each followed by its
    percentage (50 px).

    The labels' column is as wide as the longest label (`text_width`, so never clipped) plus
    4 px before and 6 px after it; the track takes the rest of `width`, but at least 120 px: a
    longer label widens the picture instead. Sized by its viewBox: the page's CSS may scale it
    down, so keeping the default width keeps the text legible on a phone."""
    row_h, pad, min_track = 22, 4, 120
    label_w = max((text_width(name) for name, _ in bars), default=0) + 10
    inner = max(width - label_w - 50, min_track)
    width = label_w + inner + 50
    height = max(len(bars), 1) * row_h + 2 * pad
    shares = [f"{name} {format_whole_percent(min(max(value, 0.0), 1.0))}" for name, value in bars]
    alternative = _with_values(label, shares, separator="; ")
    parts = [
        f"<svg class='chart' xmlns='http://www.w3.org/2000/svg' width='{width}' "
        f"height='{height}' viewBox='0 0 {width} {height}' role='img' "
        f"aria-label='{escape(alternative)}'><title>{escape(label)}</title>"
    ]
    for i, (name, value) in enumerate(bars):
        y = pad + i * row_h
        share = min(max(value, 0.0), 1.0)
        parts.append(
            f"<text x='{label_w - 6}' y='{y + 15}' text-anchor='end' font-size='{CHART_FONT}'>"
            f"{escape(name)}</text>"
            f"<rect x='{label_w}' y='{y + 3}' width='{inner}' height='{row_h - 6}' fill='#eee'/>"
            f"<rect x='{label_w}' y='{y + 3}' width='{inner * share:.1f}' "
            f"height='{row_h - 6}' fill='#2166ac'/>"
            f"<text x='{label_w + inner + 6}' y='{y + 15}' font-size='{CHART_FONT}'>"
            f"{format_whole_percent(share)}</text>"
        )
    parts.append("</svg>")
    return Markup("".join(parts))


def histogram_svg(counts: Sequence[int], label: str, bucket_names: Sequence[str]) -> Markup:
    """A small column chart of how many students scored in each bucket (0-10 % on the left,
    90-100 % on the right), 12 px a column, the tallest column full height; its text
    alternative names every bucket's count."""
    column, gap, height = 10, 2, 32
    width = len(counts) * (column + gap)
    tallest = max(counts, default=0)
    alternative = _with_values(
        label, [f"{name}: {count}" for name, count in zip(bucket_names, counts, strict=True)]
    )
    parts = [
        f"<svg class='histogram' xmlns='http://www.w3.org/2000/svg' width='{width}' "
        f"height='{height + 1}' viewBox='0 0 {width} {height + 1}' role='img' "
        f"aria-label='{escape(alternative)}'><title>{escape(label)}</title>"
        f"<line x1='0' y1='{height + 0.5}' x2='{width}' y2='{height + 0.5}' stroke='#999'/>"
    ]
    for i, count in enumerate(counts):
        if count:
            bar = max(round(height * count / tallest), 1)
            parts.append(
                f"<rect x='{i * (column + gap)}' y='{height - bar}' width='{column}' "
                f"height='{bar}' fill='#2166ac'/>"
            )
    parts.append("</svg>")
    return Markup("".join(parts))


def noted_matrix_table(
    tensor: Tensor,
    shape: str,
    region_label: str,
    notes: Mapping[tuple[int, int], str] | None = None,
) -> Markup:
    """A matrix_table with the matrix's shape after its name in the caption ("Q (3 × 4)"),
    and a note on some cells (the chapter's misprint of the number).

    A note is a small raised marker after the number: a button, so the keyboard reaches it,
    whose name is the note (a screen reader reads it with the cell), shown beside it on hover
    and focus by the stylesheet alone (.we-mark, .we-tip), as the Content-Security-Policy
    allows no inline script or style. The box is named `region_label` (the page shows many
    tables of the same name, A or PE, in different steps)."""
    notes = notes or {}
    head = "".join(header_cell(c, "col") for c in tensor.col_labels)
    rows = []
    for r, (label, values) in enumerate(zip(tensor.row_labels, tensor.values, strict=True)):
        cells = []
        for c, value in enumerate(values):
            number = escape(format_number(value))
            note = notes.get((r, c))
            if note is None:
                cells.append(f"<td>{number}</td>")
                continue
            cells.append(
                f"<td class='we-noted'>{number}<button type='button' class='we-mark'>"
                f"<span aria-hidden='true'>*</span><span class='we-tip'>{escape(note)}</span>"
                "</button></td>"
            )
        rows.append(f"<tr>{header_cell(label, 'row')}{''.join(cells)}</tr>")
    css = "matrix-scroll we-matrix we-with-notes" if notes else "matrix-scroll we-matrix"
    return Markup(
        f"<div class='{css}' role='region' tabindex='0' aria-label='{escape(region_label)}'>"
        f"<table class='matrix'><caption>{escape(tensor.name)} "
        f"<span class='we-shape'>{escape(shape)}</span></caption>"
        f"<thead><tr><td></td>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )
