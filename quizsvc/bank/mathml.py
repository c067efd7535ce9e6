"""LaTeX formulas as MathML, which browsers render natively (MathML Core), for question texts,
drill prompts, worked solutions and the worked example."""

from __future__ import annotations

import functools
import re
from html import escape
from xml.etree import ElementTree

from latex2mathml.converter import convert

# latex2mathml writes the argument of \text{...} as it is, unescaped, but for the character
# references it puts in place of spaces
_TEXT = re.compile(r"<mtext>(.*?)</mtext>", re.DOTALL)
_BARE_AMPERSAND = re.compile(r"&(?!#?\w+;)")
# latex2mathml sets \infty as an operator, spaced apart from the minus before it ("− ∞");
# it is a quantity, set as an identifier as TeX and MathJax set it
_INFINITY_OPERATOR = "<mo>&#x0221E;</mo>"
_INFINITY = '<mi mathvariant="normal">&#x0221E;</mi>'


def _escape_text(text: str) -> str:
    return _BARE_AMPERSAND.sub("&amp;", text).replace("<", "&lt;").replace(">", "&gt;")


_WORD_START = re.compile(r"(?<!^)(?=[A-Z])")


class FormulaError(ValueError):
    """LaTeX the converter cannot read, or whose MathML is malformed; ``reason`` says why in
    a few words ("missing end", "extra left or missing right")."""

    def __init__(self, tex: str, reason: str) -> None:
        super().__init__(f"cannot convert the LaTeX {tex!r}: {reason}")
        self.tex = tex
        self.reason = reason


def _reason(error: Exception) -> str:
    """The converter's message, or its exception's name in words where it gives none
    (``MissingSuperScriptOrSubscriptError()``: "missing super script or subscript")."""
    if str(error):
        return str(error)
    name = type(error).__name__.removesuffix("Error")
    return _WORD_START.sub(" ", name).lower() or "unreadable"


# Drills' prompts differ in their numbers but share most of their formulas ($q$, $\sqrt{d_k}$,
# a matrix's name): each formula is converted once (a pure function of its LaTeX).
@functools.lru_cache(maxsize=8192)
def latex_to_mathml(tex: str, display: bool = False) -> str:
    """``<math>`` markup for ``tex``, safe to embed in HTML, with the LaTeX kept as the
    formula's annotation and its alttext: what assistive technology, copying and a browser
    without MathML fall back to.

    ``display`` sets the formula as a block of its own rather than inline in a sentence.
    Raises FormulaError, a ValueError, for LaTeX the converter cannot read.
    """
    try:
        converted = convert(tex, display="block" if display else "inline")
    except Exception as error:  # the converter raises its own exceptions and plain ones
        raise FormulaError(tex, _reason(error)) from error
    converted = _TEXT.sub(lambda m: f"<mtext>{_escape_text(m[1])}</mtext>", converted)
    converted = converted.replace(_INFINITY_OPERATOR, _INFINITY)
    start = converted.index(">") + 1  # past the opening <math ...>
    end = converted.rindex("</math>")
    annotation = f'<annotation encoding="application/x-tex">{escape(tex, quote=False)}</annotation>'
    mathml = (
        f'{converted[: start - 1]} alttext="{escape(tex)}">'
        f"<semantics><mrow>{converted[start:end]}</mrow>{annotation}</semantics></math>"
    )
    try:
        ElementTree.fromstring(mathml)  # well-formed: no markup of the input's leaked through
    except ElementTree.ParseError as error:
        raise FormulaError(tex, f"malformed MathML: {error}") from error
    return mathml
