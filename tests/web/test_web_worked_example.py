"""The worked-example page: every step of the chapter's data flow in order, the engine's numbers
with their shapes, the chapter's misprints marked beside them and listed under Errata."""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest

from engine.chapter import PRINTED, errata
from quizsvc.worked_example import worked_example_parts, worked_example_text

ERRATA_MD = Path(__file__).parents[2] / "docs" / "errata.md"

# The list of the data flow, in its order: each step's anchor on the page
STEPS = [
    "embedding",  # tokens -> embedding + positional encoding
    "qkv",
    "scores",
    "scaling",
    "mask",
    "softmax",
    "weighted-sum",
    "head-1",  # every head, concatenation and W_O
    "head-2",
    "concat",
    "add-norm-1",
    "ffn",
    "add-norm-2",
    "encoder-output",
    "decoder-input",
    "masking",  # the chapter's own masking demonstration (its section 7.1)
    "decoder-self-attention",
    "cross-attention",
    "decoder-ffn",
    "output-softmax",
    "loss",
]


@dataclass
class Table:
    step: str  # the anchor of the step it is in
    caption: str
    shape: str
    columns: list[str] = field(default_factory=list)
    rows: dict[str, list[tuple[str, str | None]]] = field(default_factory=dict)  # (number, note)

    def cell(self, row: str, column: str) -> tuple[str, str | None]:
        return self.rows[row][self.columns.index(column)]


class TableReader(HTMLParser):
    """The page's matrix tables: caption, shape, labels, each cell's number and its note."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[Table] = []
        self.step = ""
        self.row: str | None = None
        self.reading: str | None = None  # the caption, its shape, a label, a cell, a note
        self.text = ""
        self.number = ""
        self.note: str | None = None
        self.hidden = False  # the marker's own "*", hidden from screen readers

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        css = attributes.get("class") or ""
        if tag == "section" and "we-step" in css:
            self.step = attributes["id"]
        elif tag == "table" and "matrix" in css:
            self.tables.append(Table(self.step, "", ""))
            self.row = None
        elif not self.tables:
            return
        elif tag == "span" and attributes.get("aria-hidden") == "true":
            self.hidden = True
        elif tag == "span" and css == "we-shape":
            self.tables[-1].caption = self.text.strip()
            self._read("shape")
        elif tag == "span" and css == "we-tip":
            self.number = self.text.strip()
            self._read("note")
        elif tag in ("caption", "th", "td"):
            self.note = None
            self._read(attributes.get("scope") or tag)

    def _read(self, what: str | None) -> None:
        self.reading, self.text = what, ""

    def handle_data(self, data):
        if self.reading and not self.hidden:
            self.text += data

    def handle_endtag(self, tag):
        if not self.tables or self.reading is None:
            self.hidden = False
            return
        table, text = self.tables[-1], self.text.strip()
        if tag == "span" and self.hidden:
            self.hidden = False
        elif tag == "span" and self.reading == "shape":
            table.shape = text
            self._read(None)
        elif tag == "span" and self.reading == "note":
            self.note = text
            self._read("after note")
        elif tag == "th" and self.reading == "col":
            table.columns.append(text)
            self._read(None)
        elif tag == "th" and self.reading == "row":
            self.row = text
            table.rows[text] = []
            self._read(None)
        elif tag == "td":
            if self.row is not None:  # not the corner above the row labels
                number = self.number if self.note is not None else text
                table.rows[self.row].append((number, self.note))
            self._read(None)


def tables_of(html: str) -> list[Table]:
    reader = TableReader()
    reader.feed(html)
    return reader.tables


def table(tables: list[Table], step: str, caption: str) -> Table:
    (found,) = [t for t in tables if t.step == f"step-{step}" and t.caption == caption]
    return found


@pytest.fixture
def pages(browser_for) -> dict[str, str]:
    alice = browser_for("alice")
    pages = {}
    for lang in ("zh", "en"):
        alice.post(f"/lang/{lang}")
        page = alice.get("/worked-example")
        assert page.status_code == 200
        pages[lang] = page.text
    return pages


def greedy_steps() -> list[str]:
    (inference,) = [p for p in worked_example_parts() if p.steps[0].slug.startswith("greedy")]
    return [s.slug for s in inference.steps]


def test_every_step_of_the_data_flow_in_order_linked_from_the_contents(pages):
    greedy = greedy_steps()
    assert greedy == [f"greedy-{n}" for n in range(1, len(greedy) + 1)] and greedy
    anchors = [f"step-{slug}" for slug in [*STEPS, *greedy]]
    for text in pages.values():
        assert re.findall(r"<section class=\"we-step\" id=\"([^\"]+)\">", text) == anchors
        toc = re.search(r"<nav class=\"we-toc\".*?</nav>", text, re.DOTALL).group(0)
        assert re.findall(r"href=\"#(step-[^\"]+)\"", toc) == anchors
        # numbered through, each heading an h3 under its part's h2
        numbers = [int(n) for n in re.findall(r"<h3>(\d+)\. ", text.split("we-errata")[0])]
        assert numbers == list(range(1, len(anchors) + 1))
        headings = re.findall(r"<(h[1-3])[ >]", text)
        assert headings[:3] == ["h1", "h2", "h2"]  # the page, the contents, the first part
        assert all(int(b[1]) - int(a[1]) <= 1 for a, b in itertools.pairwise(headings))
    en = pages["en"]
    assert "<h3>8. Multi-head attention: head 1</h3>" in en
    assert f"<h3>{len(anchors)}. Greedy step {len(greedy)}: " in en


def test_each_step_shows_its_formula_as_mathml_with_the_latex_kept(pages):
    text = pages["en"]
    sections = re.findall(r"<section class=\"we-step\".*?</section>", text, re.DOTALL)
    assert all("<math " in s and '<annotation encoding="application/x-tex">' in s for s in sections)
    softmax = sections[STEPS.index("softmax")]
    assert "<mfrac>" in softmax
    assert "A_{ij} = \\frac{e^{S&#x27;_{ij}}}{\\sum_k e^{S&#x27;_{ik}}}" in softmax  # alttext


def test_every_matrix_shows_its_shape_and_labels(pages):
    tables = tables_of(pages["en"])
    expected = {
        ("embedding", "X' = X + PE"): ("(3 × 4)", ["d0", "d1", "d2", "d3"], ["我", "爱", "你"]),
        ("qkv", "Q"): ("(3 × 4)", ["d0", "d1", "d2", "d3"], ["我", "爱", "你"]),
        ("scores", "Q Kᵀ"): ("(3 × 3)", ["我", "爱", "你"], ["我", "爱", "你"]),
        ("head-2", "Q₂"): ("(3 × 2)", ["d2", "d3"], ["我", "爱", "你"]),
        ("concat", "Concat = [head₁ | head₂]"): ("(3 × 4)", ["d0", "d1", "d2", "d3"], None),
        ("ffn", "max(0, Z W₁ + b₁)"): ("(3 × 8)", [f"h{i}" for i in range(8)], None),
        ("encoder-output", "memory"): ("(3 × 4)", None, ["我", "爱", "你"]),
        ("decoder-input", "Y' = Y + PE"): ("(4 × 4)", None, ["<s>", "I", "love", "you"]),
        ("cross-attention", "A₁"): ("(4 × 3)", ["我", "爱", "你"], ["<s>", "I", "love", "you"]),
        ("output-softmax", "P"): ("(4 × 6)", ["<pad>", "<s>", "<eos>", "I", "love", "you"], None),
    }
    for (step, caption), (shape, columns, rows) in expected.items():
        found = table(tables, step, caption)
        assert found.shape == shape, (step, caption)
        assert columns is None or found.columns == columns, (step, caption)
        assert rows is None or list(found.rows) == rows, (step, caption)
    for found in tables:  # every table: its shape is what it shows
        assert found.shape == f"({len(found.rows)} × {len(found.columns)})", found.caption


def test_the_engines_numbers_beside_the_chapters_misprints(pages):
    tables = tables_of(pages["en"])
    # Q[爱, d0] = (sin 1 + sin 0.01) / 2, which the chapter prints as 1.43
    true_q10 = (math.sin(1) + math.sin(0.01)) / 2
    assert table(tables, "qkv", "Q").cell("爱", "d0") == (
        f"{true_q10:.3f}",
        "The chapter prints 1.43",
    )
    # the scores' diagonal entry 2.00 is right: no marker
    assert table(tables, "scaling", "Q Kᵀ / √d_k").cell("我", "我") == ("2", None)
    zh = tables_of(pages["zh"])
    assert table(zh, "qkv", "Q").cell("爱", "d0")[1] == "本章印为 1.43"


def test_the_markers_are_the_misprints_of_docs_errata(pages):
    # each row of docs/errata.md's table, named as the page captions its matrix
    caption = {
        "PE": "PE",
        "X' = X + PE": "X' = X + PE",
        "Q = X' W_q": "Q",
        "K = X' W_k": "K",
        "Q Kᵀ": "Q Kᵀ",
        "Q Kᵀ / √d_k": "Q Kᵀ / √d_k",
        "e^score": "e^score (row sums Σ on the right)",
        "Σ e^score": "e^score (row sums Σ on the right)",
        "A = softmax(scores)": "A",
        "A[0, j] · V_j": "A[0, j] · V_j (the terms of 我's output Output₀, one row per V_j)",
        "Output = A V": "Output",
        "weights after masking": "A (after masking)",
    }
    listed = set()
    for line in ERRATA_MD.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 6 and re.fullmatch(r"[\d.]+", cells[0]):
            _, quantity, row, column, printed, _ = cells
            listed.add((caption[quantity], row, column, f"The chapter prints {printed}"))
    assert len(listed) == len(errata()) == 68
    marked = {
        (t.caption, row, column, note)
        for t in tables_of(pages["en"])
        for row, cells in t.rows.items()
        for column, (_, note) in zip(t.columns, cells, strict=True)
        if note
    }
    assert marked == listed


def misprints(text: str, step: str) -> list[str]:
    """The Errata section's list for one step."""
    errata_section = text[text.index('<details class="we-errata"') :]
    start = errata_section.index(f'<a href="#step-{step}">')
    end = errata_section.find("</ul>", start)
    return re.findall(r"<li>(.*?)</li>", errata_section[start:end])


def test_one_collapsed_errata_section_at_the_end(pages):
    for lang, text in pages.items():
        assert text.count('<details class="we-errata"') == 1
        assert '<details class="we-errata" id="errata" open' not in text
        errata_section = text[text.index('<details class="we-errata"') :]
        assert "<section" not in errata_section  # after the last step
        assert len(re.findall(r"<li>", errata_section)) == 68, lang
    assert "<h2>Errata (68 numbers)</h2>" in pages["en"]
    assert "<h2>勘误（68 个数字）</h2>" in pages["zh"]
    # the red notes under each matrix are gone
    assert 'class="errata"' not in pages["en"] and "ul class='errata'" not in pages["en"]


def test_the_worked_example_page_is_in_chinese_throughout(pages):
    text = pages["zh"]
    headings = re.findall(r"<h3>(.*?)</h3>", text)
    assert headings[:2] == ["1. Token → Embedding + 位置编码", "2. Q、K、V（查询、键、值）"]
    assert '<h2 class="we-part">Encoder：源句“我 爱 你”</h2>' in text
    captions = [t.caption for t in tables_of(text)]
    assert "输出" in captions and "A（掩码前，题目给定）" in captions and "Output" not in captions
    assert "输出 = A V 的“我”行、“d0”列：本章印为" in text  # a misprint's label
    heatmap = re.search(r"<svg class='heatmap'[^>]*aria-label='([^']*)'", text).group(1)
    assert heatmap.startswith("注意力权重 A：每行是一个查询")
    for english in (
        "Embedding lookup",
        "Positional encoding",
        "after masking",
        "row sums",
        "Greedy step",
        "The chapter prints",
        "weights this step uses",
        "seeded weights",
    ):
        assert english not in text, english
    assert "<h3>2. Queries, keys and values</h3>" in pages["en"]


def test_each_step_says_whose_numbers_it_shows(pages):
    text = pages["en"]
    for slug in STEPS:
        section = re.search(rf"id=\"step-{slug}\">.*?</section>", text, re.DOTALL).group(0)
        chapter = "we-source-chapter" in section
        assert chapter == (STEPS.index(slug) < STEPS.index("head-1") or slug == "masking"), slug
    assert text.count("The engine&#39;s tiny model with seeded weights</span>") >= 15


def test_every_misprinted_quantity_is_shown_in_the_step_of_its_section():
    step_of = {
        "pe": "embedding",
        "x_prime": "embedding",
        "q": "qkv",
        "k": "qkv",
        "v": "qkv",
        "raw_scores": "scores",
        "scores": "scaling",
        "exp_scores": "softmax",
        "exp_sums": "softmax",
        "weights": "softmax",
        "weighted_values_row0": "weighted-sum",
        "output": "weighted-sum",
        "masked_weights": "masking",
    }
    steps = {s.slug: s for part in worked_example_parts() for s in part.steps}
    shown = {q: s.slug for s in steps.values() for m in s.matrices for q in m.quantities}
    assert shown == step_of and set(step_of) == set(PRINTED)
    for quantity, slug in step_of.items():
        # 3.2 within 3.1–3.4, 1 and 2 in 1–2, 7.1 in 7.1
        first, _, last = steps[slug].sections.partition("–")
        assert first <= PRINTED[quantity].section <= (last or first), quantity
    assert {e.quantity for e in errata()} <= set(shown)


def test_the_weighted_sum_shows_the_terms_of_output_row_0_with_their_misprints(pages):
    terms = table(
        tables_of(pages["en"]),
        "weighted-sum",
        "A[0, j] · V_j (the terms of 我's output Output₀, one row per V_j)",
    )
    # Worked by hand from the chapter's inputs: W_q and W_k add coordinates pairwise, so with
    # Q0 = [1, 1, 1, 1] the score of key j is the sum of X'_j over 2, and W_v = I gives
    # V_j = X'_j. X'_0 = [1, 1, 1, 1], X'_j = E_j + [sin j, cos j, sin j/100, cos j/100].
    x1 = [math.sin(1), 1 + math.cos(1), math.sin(0.01), 1 + math.cos(0.01)]
    x2 = [1 + math.sin(2), 1 + math.cos(2), math.sin(0.02), math.cos(0.02)]
    exps = [math.exp(sum(x) / 2) for x in ([1.0] * 4, x1, x2)]  # a softmax row by hand
    a02 = exps[2] / sum(exps)
    assert terms.cell("你", "d0") == (f"{a02 * x2[0]:.3f}", "The chapter prints 0.800")
    assert sum(1 for cells in terms.rows.values() for _, note in cells if note) == 12
    items = misprints(pages["en"], "weighted-sum")
    assert (
        "A[0, j] · V_j, row 你, column d0: the chapter prints 0.800, the true value is 0.49884"
        in items
    )
    assert "Output = A V, row 我, column d0: the chapter prints 1.340" in items[12]


def test_layer_norm_and_softmax_rows_by_hand():
    steps = {s.slug: s for part in worked_example_parts() for s in part.steps}
    add_norm = {m.caption.template: m.values for m in steps["add-norm-1"].matrices}
    row = list(add_norm["X' + MultiHead(X')"][2])  # 你's row
    mean = sum(row) / 4
    variance = sum((v - mean) ** 2 for v in row) / 4
    assert list(add_norm["Mean μ and variance σ² of each row"][2]) == pytest.approx(
        [mean, variance]
    )
    expected = [(v - mean) / math.sqrt(variance + 1e-5) for v in row]
    assert list(add_norm["Z"][2]) == pytest.approx(expected)
    # the decoder's masked scores of I (row 1): <s> and I visible, the future -inf
    attention = {m.caption.template: m.values for m in steps["decoder-self-attention"].matrices}
    scores = list(attention["Q₁ K₁ᵀ / √2 + M"][1])
    assert scores[2:] == [-math.inf, -math.inf]
    exps = [math.exp(s) for s in scores[:2]]
    assert list(attention["A₁"][1]) == pytest.approx([e / sum(exps) for e in exps] + [0, 0])


def test_the_loss_and_the_greedy_steps_follow_from_the_probabilities_shown():
    steps = {s.slug: s for part in worked_example_parts() for s in part.steps}
    (logits, probs) = (m.values for m in steps["output-softmax"].matrices)
    per_position, loss = (m.values for m in steps["loss"].matrices)
    vocab = steps["output-softmax"].matrices[1].col_labels
    labels = [vocab.index(w) for w in ("I", "love", "you", "<eos>")]
    by_hand = [-math.log(probs[t][label]) for t, label in enumerate(labels)]
    assert list(per_position[:, 1]) == pytest.approx(by_hand)
    assert list(loss[0]) == pytest.approx([sum(by_hand), sum(by_hand) / 4])
    for number, slug in enumerate(greedy_steps(), start=1):
        (shown,) = steps[slug].matrices
        chosen = max(range(len(vocab)), key=lambda i: shown.values[1][i])
        assert steps[slug].title.params["token"] == vocab[chosen]
        assert steps[slug].title.params["step"] == str(number)
    # step 1 reads <s> alone, as the first position of the teacher-forced pass does
    assert list(steps["greedy-1"].matrices[0].values[0]) == pytest.approx(list(logits[0]))


def test_the_terminal_shows_the_same_steps():
    lines = worked_example_text().splitlines()
    titles = [s.title.render() for part in worked_example_parts() for s in part.steps]
    headings = [line for line in lines if re.match(r"\d+\. ", line)]
    assert headings == [f"{n}. {title}" for n, title in enumerate(titles, start=1)]
    embedding = lines.index("1. Tokens → embedding + positional encoding")
    assert (
        lines[embedding + 1] == "   [chapter §1–2; The chapter's numbers, recomputed by the engine]"
    )
    assert "PE (3 × 4)" in lines[embedding:] and "X' = X + PE (3 × 4)" in lines[embedding:]
    assert "Q₁ (3 × 2)" in lines


def test_docs_errata_names_the_places_as_the_page_does():
    errata_md = ERRATA_MD.read_text(encoding="utf-8")
    # the same misprint as on the page, worked by hand above: Q_爱's d0
    assert "| 3.2 | Q = X' W_q | 爱 | d0 | 1.43 | 0.4257 |" in errata_md
    assert "| 4.3 | Σ e^score | 爱 | Σ | 65.01 | " in errata_md
    # the chapter's own Q_我 = [1, 1, 1, 1] and K_爱 = [1.43, 0.84, 1.43, 0.84] give 4.54
    assert "- Q Kᵀ, row 我, column 爱: printed 3.54, its own inputs give 4.54" in errata_md
    assert "[1, 0]" not in errata_md


def test_each_misprint_is_named_by_the_chapters_row_and_column_labels(pages):
    # Worked by hand from the chapter's section 2: X'_爱 = [sin 1, 1 + cos 1, sin 0.01,
    # 1 + cos 0.01] and X'_你 = [1 + sin 2, 1 + cos 2, sin 0.02, cos 0.02]. W_q puts
    # (x0 + x2) / 2 in d0 and d2 and (x1 + x3) / 2 in d1 and d3; W_k the other way round.
    x = {
        "爱": [math.sin(1), 1 + math.cos(1), math.sin(0.01), 1 + math.cos(0.01)],
        "你": [1 + math.sin(2), 1 + math.cos(2), math.sin(0.02), math.cos(0.02)],
    }
    even = {token: (v[0] + v[2]) / 2 for token, v in x.items()}  # 爱 0.4257, 你 0.9646
    odd = {token: (v[1] + v[3]) / 2 for token, v in x.items()}  # 爱 1.7701, 你 0.7918
    # The chapter's section 3.2 prints Q_爱 = [1.43, 1.77, 0.43, 1.77] and
    # Q_你 = [1.47, 0.79, 0.97, 0.79]; 3.3 prints K_爱 = [1.43, 0.84, 1.43, 0.84] and
    # K_你 = [0.79, 1.47, 0.79, 1.47]. Wrong by more than rounding: Q's d0 in both rows, all
    # of K_爱, and K_你's d1 and d3.
    q_wrong = [("爱", "d0", "1.43", even["爱"]), ("你", "d0", "1.47", even["你"])]
    k_wrong = [
        ("爱", "d0", "1.43", odd["爱"]),
        ("爱", "d1", "0.84", even["爱"]),
        ("爱", "d2", "1.43", odd["爱"]),
        ("爱", "d3", "0.84", even["爱"]),
        ("你", "d1", "1.47", even["你"]),
        ("你", "d3", "1.47", even["你"]),
    ]
    # the step of sections 3.1-3.4 lists Q's misprints, then K's
    assert misprints(pages["en"], "qkv") == [
        f"{name}, row {row}, column {column}: the chapter prints {printed},"
        f" the true value is {true:.4f}"
        for name, wrong in (("Q = X&#39; W_q", q_wrong), ("K = X&#39; W_k", k_wrong))
        for row, column, printed, true in wrong
    ]
    assert misprints(pages["zh"], "qkv") == [
        f"{name} 的“{row}”行、“{column}”列：本章印为 {printed}，真实值 {true:.4f}"
        for name, wrong in (("Q = X&#39; W_q", q_wrong), ("K = X&#39; W_k", k_wrong))
        for row, column, printed, true in wrong
    ]
    # 4.1 prints Q_我 · K_爱 as 3.54; Q_我 = [1, 1, 1, 1], so it is the sum of K_爱
    k_love = 2 * odd["爱"] + 2 * even["爱"]
    assert (
        f"Q Kᵀ, row 我, column 爱: the chapter prints 3.54, the true value is {k_love:.4f}"
        in misprints(pages["en"], "scores")
    )
    assert f"Q Kᵀ 的“我”行、“爱”列：本章印为 3.54，真实值 {k_love:.4f}" in misprints(
        pages["zh"], "scores"
    )
    # 4.3's row sums are the column Σ of the e^score table; the chapter's row 爱 sums
    # e^2.70 + e^2.89 + e^3.47 = 65.01
    assert any(
        item.startswith("Σ e^score, row 爱, column Σ: the chapter prints 65.01")
        for item in misprints(pages["en"], "softmax")
    )
    assert any(
        item.startswith("Σ e^score 的“爱”行、“Σ”列：本章印为 65.01")
        for item in misprints(pages["zh"], "softmax")
    )
