"""What a learner may see of a question, rendered for one language.

``public_question`` is the only view meant for a learner who has not yet submitted:
it is built by naming the fields that may be shown (never by removing secret ones),
so a field added to the schema later stays hidden until someone decides otherwise.
"""

from __future__ import annotations

import functools
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

from quizsvc.bank.numeric_answers import numeric_value_to_json
from quizsvc.bank.schema import (
    DrillQuestion,
    Lang,
    LocalizedText,
    MultipleChoiceQuestion,
    NumericQuestion,
    OpenQuestion,
    Question,
    SingleChoiceQuestion,
    Tolerance,
    localize,
    question_tries,
)

# Content is written by instructors, but rendered into pages that learners' browsers
# trust; raw HTML is escaped so a stray <script> in a prompt is shown, not run.
_MARKDOWN = MarkdownIt("commonmark", {"html": False})


# A page renders the same prompts again and again: each text's HTML is kept (a pure
# function of the text; a reloaded bank's texts are new keys).
@functools.lru_cache(maxsize=4096)
def render_markdown(text: str, *, inline: bool = False) -> str:
    """Markdown to HTML with raw HTML escaped.

    ``inline=True`` renders without the surrounding ``<p>``, for short texts such as
    choice labels that sit inside other markup.
    """
    if inline:
        return _MARKDOWN.renderInline(text)
    return _MARKDOWN.render(text)


def markdown_text(text: str) -> str:
    """Markdown as plain text, for a reader that shows no HTML: code without its backticks,
    emphasis without its marks, a link as its text, a list item on a line of its own after
    its marker ("- ", "1. "), paragraphs and lists separated by a blank line."""
    blocks: list[tuple[str, int | None]] = []  # (text, the list it is an item of)
    lists, depth, marker = 0, 0, ""
    for token in _MARKDOWN.parse(text):
        if token.type in ("bullet_list_open", "ordered_list_open"):
            lists += depth == 0
            depth += 1
        elif token.type in ("bullet_list_close", "ordered_list_close"):
            depth -= 1
        elif token.type == "list_item_open":
            marker = f"{token.info}{token.markup} " if token.info else f"{token.markup} "
        elif token.type in ("inline", "fence", "code_block"):
            content = _inline_text(token) if token.type == "inline" else token.content.rstrip()
            indent = "  " * max(depth - 1, 0)
            if marker:  # the item's first block; its further lines align after the marker
                padding = "\n" + indent + " " * len(marker)
                content = indent + marker + content.replace("\n", padding)
                marker = ""
            blocks.append((content, lists if depth else None))
    joined = ""
    for index, (content, in_list) in enumerate(blocks):
        if index:
            same_list = in_list is not None and in_list == blocks[index - 1][1]
            joined += "\n" if same_list else "\n\n"
        joined += content
    return joined


def _inline_text(token: Token) -> str:
    parts = []
    for child in token.children or ():
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append("\n")
        elif child.type == "image":
            parts.append(child.content)  # its alternative text
    return "".join(parts)


def _markdown_field(text: LocalizedText, lang: Lang, *, inline: bool = False) -> dict[str, str]:
    source = localize(text, lang)
    return {"markdown": source, "html": render_markdown(source, inline=inline)}


def _tolerance(tolerance: Tolerance) -> dict[str, float]:
    return {"atol": tolerance.atol, "rtol": tolerance.rtol}


def public_question(question: Question, lang: Lang) -> dict[str, Any]:
    """The learner-facing data of a question, safe to send before submission.

    Never contains the correct choice, choice scores, the numeric answer, the
    explanation, the reference answer or the rubric.  A numeric question does say
    the shape of its answer (so the UI can offer the right grid) and how close an
    answer must be; a drill's concrete numbers come from its generated instance.
    """
    view: dict[str, Any] = {
        "id": question.id,
        "type": question.type,
        "prompt": _markdown_field(question.prompt, lang),
        "tags": list(question.tags),
        "points": question.points,
    }
    if not isinstance(question, DrillQuestion):
        # stated before the first answer, as a drill's are
        view["attempts"], view["penalty"] = question_tries(question)
    match question:
        case SingleChoiceQuestion() | MultipleChoiceQuestion():
            view["choices"] = [
                {"id": choice.id, "text": _markdown_field(choice.text, lang, inline=True)}
                for choice in question.choices
            ]
        case NumericQuestion():
            view["answer_shape"] = list(question.answer_shape)
            view["tolerance"] = _tolerance(question.tolerance)
            view["all_or_nothing"] = question.all_or_nothing
        case DrillQuestion():
            view["kind"] = question.kind
            view["attempts"] = question.attempts
            view["penalty"] = question.penalty
            view["all_or_nothing"] = question.all_or_nothing
            view["tolerance"] = (
                None if question.tolerance is None else _tolerance(question.tolerance)
            )
        case OpenQuestion():
            pass
    return view


def solution_view(question: Question, lang: Lang) -> dict[str, Any]:
    """The answer key, for showing AFTER the learner has submitted.

    The public view plus the correct answer and its explanation.  For an open
    question the rubric's point descriptions are included, but not the phrases the
    grader looks for: those would teach learners to game the grader.
    """
    view = public_question(question, lang)
    match question:
        case SingleChoiceQuestion():
            view["correct"] = [question.correct]
            view["explanation"] = _markdown_field(question.explanation, lang)
        case MultipleChoiceQuestion():
            view["correct"] = list(question.correct_choice_ids)
            view["explanation"] = _markdown_field(question.explanation, lang)
        case NumericQuestion():
            view["answer"] = numeric_value_to_json(question.answer)
            view["explanation"] = _markdown_field(question.explanation, lang)
        case OpenQuestion():
            view["reference_answer"] = _markdown_field(question.reference_answer, lang)
            view["key_points"] = [
                {"key": point.key, "description": localize(point.description, lang)}
                for point in question.rubric
            ]
        case DrillQuestion():
            pass  # the worked solution belongs to the generated drill instance
    return view
