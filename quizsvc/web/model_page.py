"""The page /model as the template shows it: the trained toy model's card (quizsvc.worked_example
.model_card) with its loss curve, its cross-attention heatmaps and its greedy decoding, texts in
the page's language."""

from __future__ import annotations

import math

import numpy as np
from flask import abort
from flask_babel import gettext

from engine.trained import TrainedModel
from quizsvc.drills import Tensor
from quizsvc.web.context import bank
from quizsvc.web.heatmap import heatmap_figure
from quizsvc.web.loss_chart import loss_chart_svg
from quizsvc.web.render import format_number
from quizsvc.worked_example.model_card import LOW_LOSS, ModelCard

RETRAIN_COMMAND = "quizsvc model train"


def served_model() -> tuple[TrainedModel, int | None]:
    """The trained model of the first chapter (in the bank's order) that has one, and the
    number of pairs it was trained on; a 404 if no chapter has one."""
    served = bank()
    chapter = next((c for c in served.chapters if c.id in served.models), None)
    if chapter is None:
        abort(404, description=gettext("No chapter has a trained model."))
    corpus = served.corpora.get(chapter.id)
    return served.models[chapter.id], len(corpus.pairs) if corpus else None


def format_probability(p: float) -> str:
    """Four decimals, or for a smaller probability its power of ten: 3.2 × 10⁻⁵."""
    if p >= 0.00005 or p == 0:
        return format_number(p, 4)
    mantissa, exponent = f"{p:.1e}".split("e")
    return f"{mantissa} × 10" + str(int(exponent)).translate(
        str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
    )


def format_loss(loss: float) -> str:
    return format_number(loss, 2) if loss >= 0.1 else format_probability(loss)


def _heatmap(values: np.ndarray, name: str, card: ModelCard) -> object:
    attention = card.cross_attention
    label = gettext(
        "Cross-attention weights %(name)s: one row per decoder query, one column per source "
        "word; the darker the square, the larger the weight, and each square shows its value.",
        name=name,
    )
    return heatmap_figure(Tensor(name, values, attention.queries, attention.keys), label)


def model_page(card: ModelCard) -> dict:
    milestones = [(step, format_loss(loss)) for step, loss in card.milestones]
    first, last = card.curve[0][1], card.curve[-1][1]
    description = gettext(
        "The loss falls from %(first)s at step 1 to %(last)s at step %(steps)s, on a "
        "logarithmic scale; the table below gives its value every 50 steps.",
        first=format_loss(first),
        last=format_loss(last),
        steps=card.steps,
    )
    heads = [
        {"name": gettext("Head %(head)s", head=h + 1), "values": weights}
        for h, weights in enumerate(card.cross_attention.heads)
    ]
    average = gettext("Average of the %(heads)s heads", heads=card.n_heads)
    heatmaps = [
        {"name": head["name"], "figure": _heatmap(head["values"], head["name"], card)}
        for head in [*heads, {"name": average, "values": card.cross_attention.average}]
    ]
    return {
        "card": card,
        "command": RETRAIN_COMMAND,
        "parameters": f"{card.parameters:,}",
        "loss_chart": loss_chart_svg(
            card.curve,
            title=gettext("Training loss per step"),
            description=description,
            x_label=gettext("Training step"),
            y_label=gettext("Loss (log scale)"),
        ),
        "milestones": milestones,
        "first_loss": format_loss(first),
        "uniform_loss": format_number(math.log(card.target_tokens), 2),
        "last_loss": format_loss(last),
        "low_loss": format_number(LOW_LOSS, 2),
        "heatmaps": heatmaps,
        "decoding": [
            {
                "prefix": " ".join(step.prefix),
                "chosen": step.chosen,
                "top": [
                    {
                        "token": t.token,
                        "probability": format_probability(t.probability),
                        "chosen": t.chosen,
                    }
                    for t in step.top
                ],
            }
            for step in card.decoding
        ],
    }
