"""The bank's Markdown: CommonMark with raw HTML escaped, and LaTeX formulas between dollar
signs (``$...$`` in a sentence, ``$$...$$`` set as a block) rendered as MathML.

A formula the converter cannot read is an authoring error: the loader reports it for content
(``formula_problems``) and the self-test for the drills' generated texts, so a page never
meets one. Should one get through all the same, it is shown as its LaTeX source rather than
failing the page.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from html import escape, unescape

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.dollarmath import dollarmath_plugin

from quizsvc.bank.mathml import FormulaError, latex_to_mathml

# Pandoc's rules for a dollar that opens a formula: no space inside either dollar and no digit
# right after the closing one, so "$5 and $10" stays text.
_MATH_SYNTAX = {
    "allow_labels": False,
    "allow_space": False,
    "allow_digits": False,
    "double_inline": True,
}
_MATH_TOKENS = ("math_inline", "math_inline_double", "math_block")


def _formula(tex: str, display: bool, plain: bool) -> str:
    """A formula's MathML; in ``plain`` text (an excerpt) its LaTeX."""
    tex = tex.strip()
    if plain:
        return escape(tex, quote=False)
    try:
        return latex_to_mathml(tex, display=display)
    except FormulaError:
        return f"<code class='math-source'>{escape(tex, quote=False)}</code>"


# A display formula comes in a box of its own, which the stylesheet sets as a block that
# scrolls sideways where the formula is wider than the page: a span where it stands inside a
# paragraph ($$...$$ in a sentence), a div where it stands on lines of its own. The box is a
# keyboard stop, so that it can be scrolled without a mouse; the pages' scroll.js takes it out
# of the Tab order where the formula fits.
_DISPLAY_BOXES = {"math_inline_double": "span", "math_block": "div"}


def _render_math(self, tokens: Sequence[Token], idx: int, options, env) -> str:
    token = tokens[idx]
    box = _DISPLAY_BOXES.get(token.type)
    html = _formula(token.content, box is not None, bool(env.get("plain")))
    if box is not None:
        opening = f"<{box} class='math-display' tabindex='0'>"
        return f"{opening}{html}</{box}>" + ("\n" if box == "div" else "")
    leading, trailing = (escape(token.meta.get(end, ""), quote=False) for end in _ENDS)
    if (leading or trailing) and not env.get("plain"):
        return f"<span class='math-inline'>{leading}{html}{trailing}</span>"
    return leading + html + trailing


# A browser may break the line between a formula and the punctuation around it (a formula is
# one box to it), leaving a lone "(" at the end of a line or "." at the start of one: that
# punctuation goes into the formula's box instead, which the stylesheet keeps on one line.
_ENDS = ("leading", "trailing")
_OPENING_PUNCTUATION = re.compile(r"[(\[「『“‘（【《]+$")
_CLOSING_PUNCTUATION = re.compile(r"^[.,;:!?)\]」』”’。，、；：！？）】》]+")


def _keep_punctuation_with_formulas(state) -> None:
    for block in state.tokens:
        children = block.children or []
        neighbours = zip([None, *children], children, [*children[1:], None], strict=False)
        for before, token, after in neighbours:
            if token.type != "math_inline":
                continue
            if before is not None and before.type == "text":
                match = _OPENING_PUNCTUATION.search(before.content)
                if match:
                    token.meta["leading"] = match[0]
                    before.content = before.content[: match.start()]
            if after is not None and after.type == "text":
                match = _CLOSING_PUNCTUATION.match(after.content)
                if match:
                    token.meta["trailing"] = match[0]
                    after.content = after.content[match.end() :]


def _markdown() -> MarkdownIt:
    # Content is written by instructors, but rendered into pages that learners' browsers
    # trust; raw HTML is escaped so a stray <script> in a prompt is shown, not run.
    md = MarkdownIt("commonmark", {"html": False}).use(dollarmath_plugin, **_MATH_SYNTAX)
    for name in _MATH_TOKENS:
        md.add_render_rule(name, _render_math)
    md.core.ruler.push("math_trailing_punctuation", _keep_punctuation_with_formulas)
    return md


_MARKDOWN = _markdown()


# A page renders the same prompts again and again: each text's HTML is kept (a pure
# function of the text; a reloaded bank's texts are new keys).
@functools.lru_cache(maxsize=4096)
def render_markdown(text: str, *, inline: bool = False) -> str:
    """Markdown to HTML with raw HTML escaped and formulas as MathML.

    ``inline=True`` renders without the surrounding ``<p>``, for short texts such as
    choice labels that sit inside other markup.
    """
    if inline:
        return _MARKDOWN.renderInline(text)
    return _MARKDOWN.render(text)


def markdown_plain_text(text: str) -> str:
    """The text a reader sees, on one line, formulas as their LaTeX: for a title or an excerpt,
    where the formatting (and MathML, whose text repeats the formula) would be in the way."""
    html = _MARKDOWN.render(text, {"plain": True})
    return " ".join(_strip_tags(html).split())


# kept as render_markdown's HTML is: a drill's prompt is sent again with every read of it
@functools.lru_cache(maxsize=4096)
def markdown_text(text: str) -> str:
    """Markdown as plain text, for a reader that shows no HTML: code without its backticks,
    emphasis without its marks, a link as its text, a list item on a line of its own after
    its marker ("- ", "1. "), paragraphs and lists separated by a blank line, a formula as
    its LaTeX between the dollar signs it was written with."""
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
        elif token.type in ("inline", "fence", "code_block", "math_block"):
            if token.type == "inline":
                content = _inline_text(token)
            elif token.type == "math_block":
                content = f"$${token.content.strip()}$$"
            else:
                content = token.content.rstrip()
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
        elif child.type == "math_inline":  # with the punctuation kept beside it
            leading, trailing = (child.meta.get(end, "") for end in _ENDS)
            parts.append(f"{leading}${child.content.strip()}${trailing}")
        elif child.type == "math_inline_double":
            parts.append(f"$${child.content.strip()}$$")
        elif child.type == "image":
            parts.append(child.content)  # its alternative text
    return "".join(parts)


_TAG = re.compile(r"<[^>]*>")


def _strip_tags(html: str) -> str:
    return unescape(_TAG.sub("", html))


@dataclass(frozen=True)
class FormulaProblem:
    """A formula in a Markdown text that does not convert: its LaTeX and the converter's
    reason, and the 0-based line of the text it starts on."""

    tex: str
    reason: str
    line: int


def formula_problems(text: str) -> list[FormulaProblem]:
    """Each formula of ``text`` that cannot be rendered, in order."""
    problems = []
    for token, line in _math_tokens(_MARKDOWN.parse(text)):
        tex = token.content.strip()
        try:
            latex_to_mathml(tex, display=token.type != "math_inline")
        except FormulaError as error:
            problems.append(FormulaProblem(tex, error.reason, line))
    return problems


def _math_tokens(tokens: Sequence[Token], line: int = 0) -> Iterator[tuple[Token, int]]:
    for token in tokens:
        start = token.map[0] if token.map else line
        if token.type in _MATH_TOKENS:
            yield token, start
        if token.children:
            yield from _math_tokens(token.children, start)
