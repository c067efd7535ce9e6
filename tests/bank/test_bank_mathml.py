"""LaTeX formulas rendered server-side as MathML, the LaTeX kept as the accessible fallback."""

from __future__ import annotations

from xml.etree import ElementTree

import pytest

from quizsvc.bank import mathml
from quizsvc.bank.mathml import latex_to_mathml

MATHML = "{http://www.w3.org/1998/Math/MathML}"


def test_a_formula_becomes_mathml_with_its_latex_as_annotation_and_alttext():
    tex = r"\operatorname{softmax}\left(\frac{Q K^\top}{\sqrt{d_k}}\right) V"
    math = ElementTree.fromstring(latex_to_mathml(tex))
    assert math.tag == f"{MATHML}math"
    assert math.get("display") == "inline"
    assert math.get("alttext") == tex
    (semantics,) = list(math)
    assert semantics.tag == f"{MATHML}semantics"
    presentation, annotation = list(semantics)
    assert annotation.tag == f"{MATHML}annotation"
    assert annotation.get("encoding") == "application/x-tex"
    assert annotation.text == tex
    # the fraction, its square root and the subscript d_k, as MathML draws them
    fraction = presentation.find(f".//{MATHML}mfrac")
    assert fraction is not None
    root = fraction.find(f".//{MATHML}msqrt")
    assert [t.text for t in root.iter() if t.text and t.text.strip()] == ["d", "k"]


def test_display_sets_the_formula_as_a_block():
    assert ElementTree.fromstring(latex_to_mathml("x", display=True)).get("display") == "block"


def test_markup_in_the_latex_stays_text():
    # the converter copies \text{...} as it is: here it is escaped, in the formula and in
    # its fallbacks, so a formula from content can never inject markup
    html = latex_to_mathml(r"a < b \text{ <script>alert(1)</script> & more}")
    assert "<script>" not in html
    math = ElementTree.fromstring(html)
    texts = "".join(math.itertext())
    assert "<script>alert(1)</script>" in texts  # shown as the characters typed
    assert math.get("alttext").startswith("a < b")


def test_latex_the_converter_cannot_read_is_a_value_error():
    for tex in (r"\left( x", "x^", r"\begin{cases} a"):  # no \right, no exponent, no \end
        with pytest.raises(ValueError, match="LaTeX"):
            latex_to_mathml(tex)


def test_infinity_is_an_identifier_next_to_its_minus():
    # an operator would be spaced apart from the minus: "− ∞"
    math = ElementTree.fromstring(latex_to_mathml(r"-\infty"))
    minus, infinity = math.find(f"{MATHML}semantics/{MATHML}mrow/{MATHML}mrow")
    assert (minus.tag, minus.text) == (f"{MATHML}mo", "\u2212")
    assert (infinity.tag, infinity.text) == (f"{MATHML}mi", "∞")


def test_a_formula_met_again_is_not_converted_again(monkeypatch):
    conversions: list[str] = []
    real = mathml.convert

    def counting(tex: str, **options):
        conversions.append(tex)
        return real(tex, **options)

    monkeypatch.setattr(mathml, "convert", counting)
    latex_to_mathml.cache_clear()
    tex = r"q \cdot k_{17}"
    first = latex_to_mathml(tex)
    assert latex_to_mathml(tex) == first
    assert latex_to_mathml(tex, display=True) != first  # a block: converted on its own
    assert conversions == [tex, tex]
    latex_to_mathml.cache_clear()  # no other test sees the counting converter's results
