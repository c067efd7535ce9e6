"""What the instructor's pages share: their blueprint, a read-only start for a request that
only reads, a prompt's start as one line of plain text."""

from __future__ import annotations

from flask import Blueprint

from quizsvc import store
from quizsvc.bank import markdown_plain_text
from quizsvc.web.context import db

bp = Blueprint("instructor", __name__, url_prefix="/instructor")

PROMPT_EXCERPT = 160


def begin_reading() -> None:
    """This request only reads: begin its transaction as a reader (if not yet begun)."""
    if not db().in_transaction():
        store.begin_read_only(db())


def excerpt(markdown: str, limit: int = PROMPT_EXCERPT) -> str:
    """A prompt's start as plain text on one line (as i18n.question_title has it), so no
    backticks or ** show, and a formula shows as its LaTeX."""
    text = markdown_plain_text(markdown)
    return text if len(text) <= limit else text[: limit - 1] + "…"
