"""The page of the chapter's trained toy model: what it is, how it learned, what its
cross-attention and its greedy decoding do on 我 爱 你."""

from __future__ import annotations

from flask import Blueprint, abort, render_template
from flask_babel import gettext
from flask_login import login_required

from quizsvc.web.context import bank
from quizsvc.web.model_page import model_page
from quizsvc.worked_example.model_card import model_card

bp = Blueprint("model", __name__)


@bp.get("/model")
@login_required
def index():
    """The model of the first chapter (in the bank's order) that has one."""
    served = bank()
    chapter = next((c for c in served.chapters if c.id in served.models), None)
    if chapter is None:
        abort(404, description=gettext("No chapter has a trained model."))
    corpus = served.corpora.get(chapter.id)
    card = model_card(served.models[chapter.id], len(corpus.pairs) if corpus else None)
    return render_template("model.html", **model_page(card))
