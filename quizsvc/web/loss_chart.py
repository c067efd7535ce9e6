"""A training loss curve as an SVG line chart: steps on x, the loss on a logarithmic y axis
(a loss falls over orders of magnitude), both axes with ticks and labels.

It is an image with a name and a description (``<title>``, ``<desc>``, ``aria-labelledby``);
the page gives its key values as a table beside it. Sized by its viewBox, so the stylesheet
(svg.chart) scales it down to a narrow box rather than widening the page. Built with
escaping, as in ``render``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from markupsafe import Markup, escape

from quizsvc.web.render import format_number

WIDTH, HEIGHT = 480, 280  # px
LEFT, RIGHT, TOP, BOTTOM = 72, 16, 12, 48  # px: room for the ticks' labels and axis titles
FONT = 13  # px
SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def decade_label(exponent: int) -> str:
    """10 to the power `exponent` as the axis writes it: 1, 10, 0.1, 0.01, then 10⁻³, ..."""
    if -2 <= exponent <= 1:
        return format_number(10.0**exponent, max(-exponent, 0))
    return "10" + str(exponent).translate(SUPERSCRIPTS)


def step_ticks(last: int, most: int = 7) -> list[int]:
    """Round steps 0, s, 2s, ... up to `last`: s is 1, 2 or 5 times a power of ten, the
    smallest giving at most `most` ticks."""
    spacings = (f * 10**k for k in range(len(str(max(last, 1))) + 1) for f in (1, 2, 5))
    spacing = next(s for s in spacings if last // s + 1 <= most)
    return list(range(0, max(last, 0) + 1, spacing))


def loss_chart_svg(
    curve: Sequence[tuple[int, float]],
    title: str,
    description: str,
    x_label: str,
    y_label: str,
    ident: str = "loss",
) -> Markup:
    """`curve` is (step, loss > 0) from step 1; `ident` makes the title's and description's
    element ids unique on the page."""
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    steps = [step for step, _ in curve]
    losses = [max(loss, 1e-12) for _, loss in curve]
    low = math.floor(math.log10(min(losses, default=1.0)))
    high = math.ceil(math.log10(max(losses, default=10.0)))
    high = max(high, low + 1)
    last = max(steps, default=1)

    def x(step: float) -> float:
        return LEFT + inner_w * step / last

    def y(loss: float) -> float:
        return TOP + inner_h * (high - math.log10(loss)) / (high - low)

    title_id, desc_id = f"{ident}-title", f"{ident}-desc"
    parts = [
        f"<svg class='chart loss-chart' xmlns='http://www.w3.org/2000/svg' width='{WIDTH}' "
        f"height='{HEIGHT}' viewBox='0 0 {WIDTH} {HEIGHT}' role='img' "
        f"aria-labelledby='{title_id} {desc_id}'>"
        f"<title id='{title_id}'>{escape(title)}</title>"
        f"<desc id='{desc_id}'>{escape(description)}</desc>"
        f"<rect x='{LEFT}' y='{TOP}' width='{inner_w}' height='{inner_h}' fill='none' "
        f"stroke='#999'/>"
    ]
    for exponent in range(low, high + 1):
        ty = y(10.0**exponent)
        parts.append(
            f"<line x1='{LEFT}' y1='{ty:.1f}' x2='{LEFT + inner_w}' y2='{ty:.1f}' "
            f"stroke='#ccc' stroke-dasharray='4 3'/>"
            f"<text x='{LEFT - 6}' y='{ty + 4:.1f}' text-anchor='end' font-size='{FONT}'>"
            f"{escape(decade_label(exponent))}</text>"
        )
    for step in step_ticks(last):
        tx = x(step)
        parts.append(
            f"<line x1='{tx:.1f}' y1='{TOP + inner_h}' x2='{tx:.1f}' y2='{TOP + inner_h + 5}' "
            f"stroke='#999'/>"
            f"<text x='{tx:.1f}' y='{TOP + inner_h + 18}' text-anchor='middle' "
            f"font-size='{FONT}'>{step}</text>"
        )
    parts.append(
        f"<text x='{LEFT + inner_w / 2:.1f}' y='{HEIGHT - 8}' text-anchor='middle' "
        f"font-size='{FONT}'>{escape(x_label)}</text>"
        f"<text x='14' y='{TOP + inner_h / 2:.1f}' text-anchor='middle' font-size='{FONT}' "
        f"transform='rotate(-90 14 {TOP + inner_h / 2:.1f})'>{escape(y_label)}</text>"
    )
    if curve:
        path = " ".join(f"{x(s):.1f},{y(v):.1f}" for s, v in zip(steps, losses, strict=True))
        parts.append(f"<polyline points='{path}' fill='none' stroke='#2166ac' stroke-width='2'/>")
    parts.append("</svg>")
    return Markup("".join(parts))
