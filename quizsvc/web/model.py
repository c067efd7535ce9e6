"""The page of the chapter's trained toy model: what it is, how it learned, what its
cross-attention and its greedy decoding do on 我 爱 你."""

from __future__ import annotations

from flask import Blueprint, render_template
from flask_login import login_required

from quizsvc.web.model_page import model_page, served_model
from quizsvc.worked_example.model_card import model_card

bp = Blueprint("model", __name__)


@bp.get("/model")
@login_required
def index():
    """The model of the first chapter (in the bank's order) that has one."""
    model, pairs = served_model()
    return render_template("model.html", **model_page(model_card(model, pairs)))
