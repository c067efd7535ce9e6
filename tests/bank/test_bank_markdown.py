"""Formulas in the bank's Markdown: $...$ in a sentence and $$...$$ as a block become MathML,
the LaTeX kept as its fallback; a formula that does not convert is an authoring error the
loader reports with file, path and line."""

from __future__ import annotations

import re
from collections.abc import Callable
from xml.etree import ElementTree

import pytest

from quizsvc.bank import (
    ContentError,
    ContentProblem,
    markdown_plain_text,
    markdown_text,
    render_markdown,
)
from quizsvc.bank.markdown import formula_problems

MATHML = "{http://www.w3.org/1998/Math/MathML}"
Errors = Callable[[dict[str, str | bytes]], list[ContentError]]


def formulas(html: str) -> list[ElementTree.Element]:
    return [ElementTree.fromstring(m) for m in re.findall(r"<math .*?</math>", html)]


def test_a_formula_in_a_sentence_is_inline_mathml_with_its_latex_kept() -> None:
    html = render_markdown(r"Divide by $\sqrt{d_k}$ first.")
    (math,) = formulas(html)
    assert math.get("display") == "inline" and math.get("alttext") == r"\sqrt{d_k}"
    assert math.find(f".//{MATHML}msqrt") is not None
    assert math.find(f".//{MATHML}annotation").text == r"\sqrt{d_k}"
    assert html.startswith("<p>Divide by <math ") and html.endswith("</math> first.</p>\n")


def test_punctuation_after_a_formula_stays_on_its_line() -> None:
    # the stylesheet keeps a .math-inline box on one line: no lone "." or "，" starts a line,
    # and no "(" ends one
    html = render_markdown("by $x$. Then ($y$), and $z$，中文 $w$ end")
    boxes = re.findall(r"<span class='math-inline'>([^<]*)<math .*?</math>(.*?)</span>", html)
    assert boxes == [("", "."), ("(", "),"), ("", "，")]
    assert "</span> Then <span" in html and html.endswith("</math> end</p>\n")
    assert markdown_plain_text("by $x$. Then ($y$)，") == "by x. Then (y)，"


def test_a_formula_on_lines_of_its_own_is_a_display_block() -> None:
    html = render_markdown("Attention:\n\n$$\n\\operatorname{softmax}(x)\n$$\n\nDone.")
    (math,) = formulas(html)
    assert math.get("display") == "block" and math.get("alttext") == r"\operatorname{softmax}(x)"
    # a box of its own between the paragraphs, which the stylesheet lets scroll sideways
    # (a keyboard stop, for when it scrolls)
    box = r"<div class='math-display' tabindex='0'><math .*</math></div>"
    assert re.search(rf"</p>\n{box}\n<p>Done", html)


def test_double_dollars_in_a_sentence_set_the_formula_as_a_block_inside_the_paragraph() -> None:
    html = render_markdown("so $$a = b$$ holds")
    (math,) = formulas(html)
    assert math.get("display") == "block"
    box = r"<span class='math-display' tabindex='0'><math .*</math></span>"
    assert re.fullmatch(rf"<p>so {box} holds</p>\n", html)


@pytest.mark.parametrize(
    "text",
    [
        "costs $5 and $10",  # a digit after the closing dollar: money, not a formula
        "a $ b $ c",  # a space inside the dollars
        r"an escaped \$x\$",
        "`$x$` in code",
    ],
)
def test_dollars_that_do_not_enclose_a_formula_stay_text(text: str) -> None:
    assert "<math" not in render_markdown(text)


def test_a_choice_label_renders_its_formula_without_a_paragraph() -> None:
    html = render_markdown(r"$Q = X \times W_q$", inline=True)
    assert html.startswith("<math ") and html.endswith("</math>")


def test_markup_inside_a_formula_is_never_markup() -> None:
    html = render_markdown(r"$a \text{<script>x</script>}$ and $</math><b>$")
    assert "<script>" not in html and "<b>" not in html


def test_a_formula_that_does_not_convert_shows_its_latex_rather_than_failing() -> None:
    # the loader and the self-test keep these off the pages; should one get through, the
    # reader sees the source
    html = render_markdown(r"bad $\left( x$ here")
    assert html == "<p>bad <code class='math-source'>\\left( x</code> here</p>\n"


def test_formula_problems_names_each_bad_formula_its_reason_and_line() -> None:
    text = "fine $x$\n\nthen $\\left( x$ and $x^$\n\n$$\n\\begin{cases} a\n$$"
    problems = [(p.tex, p.reason, p.line) for p in formula_problems(text)]
    assert problems == [
        (r"\left( x", "extra left or missing right", 2),
        ("x^", "missing super script or subscript", 2),
        (r"\begin{cases} a", "missing end", 4),
    ]
    assert formula_problems(r"all fine: $\sqrt{d_k}$, $$\frac{a}{b}$$") == []


def test_plain_text_keeps_a_formula_as_its_latex_once() -> None:
    # a title or an excerpt: MathML's text would say the formula twice (with its annotation)
    assert markdown_plain_text("Why divide by $\\sqrt{d_k}$ **before** the\nsoftmax?") == (
        r"Why divide by \sqrt{d_k} before the softmax?"
    )
    assert markdown_plain_text("a < b & <i>c</i>") == "a < b & <i>c</i>"


# --- the loader ---------------------------------------------------------------------------

# Lines: 1 questions, 2 id, 3 type, 4 tags, 5 prompt, 6 zh, 7 en (|), 8-10 its text,
# 11 choices, 12-13 choice A, 14-15 choice B, 16 correct, 17 explanation. In a flow mapping
# ({...}) a formula's braces need quotes: single ones, which keep its backslashes.
QUESTION = """\
questions:
  - id: q1
    type: single_choice
    tags: [scores]
    prompt:
      zh: 为什么除以 $\\sqrt{d_k}$？
      en: |-
        Why divide by $\\sqrt{d_k}$?

        Think of $e^{x}$.
    choices:
      - id: A
        text: {zh: '$\\sqrt{d_k}$', en: '$\\sqrt{d_k}$'}
      - id: B
        text: {zh: 乙, en: second}
    correct: A
    explanation: {zh: 因为 $d_k$, en: Because $d_k$}
"""


def bad_formula(error: ContentError) -> tuple[str, str, int | None, str]:
    assert error.code is ContentProblem.BAD_FORMULA
    return error.file, error.path, error.line, error.params["tex"]


def test_the_sample_question_with_good_formulas_loads(make_content, drill_kinds) -> None:
    from quizsvc.bank import load_bank

    bank = load_bank(make_content({"ch/q.yaml": QUESTION}), drill_kinds)
    assert "<math" in render_markdown(bank.questions["q1"].prompt.en)


def test_a_bad_formula_is_reported_at_its_line_in_a_literal_block(content_errors: Errors):
    (error,) = content_errors({"ch/q.yaml": QUESTION.replace("e^{x}", "e^")})
    assert bad_formula(error) == ("ch/q.yaml", "questions[0].prompt.en", 10, "e^")
    assert error.message == (
        "the formula $e^$ cannot be rendered (missing super script or subscript): write it in "
        "the LaTeX that docs/authoring.md describes"
    )


def test_bad_formulas_in_every_markdown_field_are_each_reported(content_errors: Errors):
    broken = (
        QUESTION.replace(r"zh: 为什么除以 $\sqrt{d_k}$", r"zh: 为什么除以 $\sqrt{d_k}_$")
        .replace(r"text: {zh: '$\sqrt{d_k}$'", r"text: {zh: '$x^$'")
        .replace("Because $d_k$", r"Because $\left(d_k$")
    )
    errors = content_errors({"ch/q.yaml": broken})
    assert [bad_formula(e) for e in errors] == [
        ("ch/q.yaml", "questions[0].prompt.zh", 6, r"\sqrt{d_k}_"),
        ("ch/q.yaml", "questions[0].choices[0].text.zh", 13, "x^"),
        ("ch/q.yaml", "questions[0].explanation.en", 17, r"\left(d_k"),
    ]


def test_a_bad_formula_in_a_chapter_intro_is_reported(content_errors: Errors):
    chapter = "id: ch\norder: 1\ntitle: {zh: 章, en: Chapter}\nintro: {zh: 好 $x$, en: bad $x^$}\n"
    errors = content_errors({"ch/chapter.yaml": chapter, "ch/q.yaml": QUESTION})
    assert [bad_formula(e) for e in errors] == [("ch/chapter.yaml", "intro.en", 4, "x^")]


def test_plain_text_keeps_each_formula_as_its_latex_with_its_punctuation():
    source = "A token ($x_0$), then $\\sqrt{d_k}$. Both:\n\n$$\nq K^\\top\n$$\n\n- item $$a$$ here"
    assert markdown_text(source) == (
        "A token ($x_0$), then $\\sqrt{d_k}$. Both:\n\n$$q K^\\top$$\n\n- item $$a$$ here"
    )
