"""What the instructor's pages share: their blueprint, a read-only start for a request that
only reads, a prompt's start as one line of plain text."""

from __future__ import annotations

from flask import Blueprint
from markupsafe import Markup

from quizsvc import store
from quizsvc.bank import render_markdown
from quizsvc.web.context import db

bp = Blueprint("instructor", __name__, url_prefix="/instructor")

PROMPT_EXCERPT = 160


def begin_reading() -> None:
    """This request only reads: begin its transaction as a reader (if not yet begun)."""
    if not db().in_transaction():
        store.begin_read_only(db())


def excerpt(markdown: str, limit: int = PROMPT_EXCERPT) -> str:
    """A prompt's start as plain text on one line: its Markdown rendered and the tags
    stripped (as i18n.question_title does), so no backticks or ** show."""
    text = " ".join(Markup(render_markdown(markdown)).striptags().split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
