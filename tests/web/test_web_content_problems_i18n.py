"""The content loader's errors and the self-test's findings in the instructor's language: the
Chinese page says in Chinese what the English page (and the CLI) says in English, at the
same file, line and path."""

from __future__ import annotations

import html
import re
import string
from pathlib import Path

import pytest
from babel.support import Translations
from click.testing import CliRunner

from quizsvc import cli
from quizsvc.bank import CONTENT_MESSAGES, ContentProblem
from quizsvc.drills import PARAMS_MESSAGES, ParamsProblem
from quizsvc.selftest import CHECK_NAMES, FINDING_MESSAGES, CheckName, Finding
from quizsvc.web.catalogs import TRANSLATIONS

CHAPTER = "transformer-by-hand"
QUESTIONS = f"{CHAPTER}/questions.yaml"
DRILLS = f"{CHAPTER}/drills.yaml"


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


CHINESE = Translations.load(str(TRANSLATIONS), ["zh"])


@pytest.mark.parametrize(
    ("codes", "english"),
    [
        (ContentProblem, CONTENT_MESSAGES),
        (Finding, FINDING_MESSAGES),
        (ParamsProblem, PARAMS_MESSAGES),
    ],
    ids=["content", "selftest", "drill params"],
)
def test_every_code_has_an_english_and_a_chinese_text_with_the_same_parameters(codes, english):
    assert set(english) == set(codes)
    for code in codes:
        chinese = CHINESE.gettext(english[code])
        # translated: the catalog's text differs, or has no words but its placeholders
        assert chinese != english[code] or not re.sub(r"\{[^}]*\}", "", chinese).strip(), code
        assert fields(chinese) == fields(english[code]), code


def test_every_self_test_check_has_a_chinese_name():
    assert set(CHECK_NAMES) == set(CheckName)
    for name in CheckName:
        assert re.search("[\u4e00-\u9fff]", CHINESE.gettext(CHECK_NAMES[name])), name


def edit(content_dir: Path, file: str, old: str, new: str) -> list[str]:
    """Replace the first ``old`` with ``new``; the file's lines afterwards."""
    path = content_dir / file
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    text = text.replace(old, new, 1)
    path.write_text(text, encoding="utf-8")
    return text.splitlines()


def line_of(lines: list[str], text: str, after: int = 0) -> int:
    """The 1-based number of the first line from ``after`` that is ``text``."""
    return lines.index(text, after) + 1


def error_rows(page: str) -> dict[tuple[str, str, str], str]:
    rows = re.findall(
        r'<tr class="content-error"><td class="file">([^<]*)</td><td class="line">([^<]*)</td>'
        r'<td class="path"><code>([^<]*)</code></td><td class="message">([^<]*)</td>',
        page,
    )
    return {
        (file, line, html.unescape(path)): html.unescape(text) for file, line, path, text in rows
    }


@pytest.fixture
def broken_content(content_dir):
    """Real mistakes, each with where it is, by reading the edited files."""
    questions = edit(content_dir, QUESTIONS, "    correct: B\n", "")  # qkv-origin's
    questions = edit(content_dir, QUESTIONS, "    tags: [qkv]\n", "    tags: [qkv]\n    hint: x\n")
    questions = edit(
        content_dir, QUESTIONS, "    tags: [scores, softmax]\n", "    tags: scores, softmax\n"
    )
    questions = edit(  # the third question's type
        content_dir,
        QUESTIONS,
        "  - id: masked-self-attention\n    type: single_choice\n",
        "  - id: masked-self-attention\n    type: single-choice\n",
    )
    drills = edit(content_dir, DRILLS, "  - id: drill-softmax-row\n", "  - id: drill-score-row\n")
    drills = edit(
        content_dir,
        DRILLS,
        "    kind: projection\n",
        "    kind: projection\n    penalty: 2\n",
    )
    chapter = (content_dir / CHAPTER / "chapter.yaml").read_text(encoding="utf-8")
    (content_dir / CHAPTER / "chapter.yaml").write_bytes(chapter.encode("gb18030"))
    (content_dir / CHAPTER / "tabs.yaml").write_text("questions:\n\t- id: x\n", encoding="utf-8")
    # a list left open: the parser notices at the end of the file, line 3
    (content_dir / CHAPTER / "open.yaml").write_text("questions:\n  - [a, b\n", encoding="utf-8")
    first_score_row = line_of(drills, "  - id: drill-score-row")
    return {
        "missing": (
            QUESTIONS,
            str(line_of(questions, "  - id: qkv-origin")),
            "questions[0].correct",
        ),
        "unknown": (QUESTIONS, str(line_of(questions, "    hint: x")), "questions[0].hint"),
        "type": (
            QUESTIONS,
            str(line_of(questions, "    tags: scores, softmax")),
            "questions[1].tags",
        ),
        "duplicate": (
            DRILLS,
            str(line_of(drills, "  - id: drill-score-row", first_score_row)),
            "questions[4].id",
        ),
        "question type": (
            QUESTIONS,
            str(line_of(questions, "    type: single-choice")),
            "questions[2].type",
        ),
        "range": (DRILLS, str(line_of(drills, "    penalty: 2")), "questions[1].penalty"),
        # the first line holds the chapter's Chinese title in a comment
        "encoding": (f"{CHAPTER}/chapter.yaml", "1", "<document>"),
        "tab": (f"{CHAPTER}/tabs.yaml", "2", "<document>"),
        "syntax": (f"{CHAPTER}/open.yaml", "3", "questions[0]"),
        "first_score_row": first_score_row,
    }


def test_a_reload_lists_each_problem_in_the_pages_language(app, browser_for, broken_content):
    ines = browser_for("ines")
    ines.post("/lang/zh")
    zh = ines.post("/instructor/content/reload")
    assert zh.status_code == 422
    ines.post("/lang/en")
    en = ines.post("/instructor/content/reload")
    assert en.status_code == 422
    zh_rows, en_rows = error_rows(zh.text), error_rows(en.text)
    assert zh_rows.keys() == en_rows.keys()
    where = broken_content
    first = where["first_score_row"]

    assert zh_rows[where["missing"]] == "缺少必需的键“correct”"
    assert en_rows[where["missing"]] == "missing required key 'correct'"
    assert zh_rows[where["unknown"]] == "未知的键“hint”"
    assert en_rows[where["unknown"]] == "unknown key 'hint'"
    assert zh_rows[where["type"]] == "必须是列表（实际是 'scores, softmax'）"
    assert en_rows[where["type"]] == "must be a list (got 'scores, softmax')"
    assert zh_rows[where["duplicate"]] == (
        f"题目 id“drill-score-row”重复（第一次定义在 {DRILLS}:{first}）"
    )
    assert en_rows[where["duplicate"]] == (
        f"duplicate question id 'drill-score-row' (first defined at {DRILLS}:{first})"
    )
    assert zh_rows[where["question type"]] == (
        "键 type 的值“single-choice”未知；应为以下之一："
        "'single_choice', 'multiple_choice', 'numeric', 'open', 'drill'"
    )
    assert en_rows[where["question type"]] == (
        "unknown type 'single-choice'; expected one of"
        " 'single_choice', 'multiple_choice', 'numeric', 'open', 'drill'"
    )
    assert zh_rows[where["range"]] == "必须小于或等于 1（实际是 2）"
    assert en_rows[where["range"]] == "Input should be less than or equal to 1 (got 2)"
    assert zh_rows[where["encoding"]] == (
        "文件不是 UTF-8，很可能是 GBK/GB18030 编码（中文 Windows 编辑器默认这样保存）："
        "请另存为 UTF-8（在编辑器的“另存为”中把编码选为 UTF-8）"
    )
    assert en_rows[where["encoding"]] == (
        "file is not UTF-8 but most likely GBK/GB18030, as Chinese Windows editors save by"
        " default: save it as UTF-8 (in the editor's Save As, choose the encoding UTF-8)"
    )
    # PyYAML's own description of the syntax error has no translation: it is quoted as is
    zh_tab = re.fullmatch(
        r"缩进里有制表符（Tab）：YAML 只能用空格缩进（YAML 语法错误：(.+)）", zh_rows[where["tab"]]
    )
    en_tab = re.fullmatch(
        r"a tab in the indentation: YAML indents with spaces only \(YAML syntax error: (.+)\)",
        en_rows[where["tab"]],
    )
    assert zh_tab and en_tab and zh_tab[1] == en_tab[1]
    assert "cannot start any token" in en_tab[1]
    zh_syntax = re.fullmatch(r"YAML 语法错误：(.+)", zh_rows[where["syntax"]])
    en_syntax = re.fullmatch(r"YAML syntax error: (.+)", en_rows[where["syntax"]])
    assert zh_syntax and en_syntax and zh_syntax[1] == en_syntax[1]

    # the content page, which checks the files on disk, says the same
    ines.post("/lang/zh")
    assert error_rows(ines.get("/instructor/content").text) == zh_rows


def test_the_cli_still_prints_the_english_messages(broken_content, content_dir):
    result = CliRunner().invoke(cli.main, ["content", "validate", str(content_dir)])
    assert result.exit_code == 1
    file, line, path = broken_content["missing"]
    assert f"{file}:{line}: {path}: missing required key 'correct'" in result.output
    file, line, path = broken_content["type"]
    assert f"{file}:{line}: {path}: must be a list (got 'scores, softmax')" in result.output
    assert not re.search(r"[\u4e00-\u9fff]", result.output)


def test_a_drill_kinds_own_rules_on_its_params_are_in_the_pages_language(
    app, browser_for, content_dir
):
    broken = {  # kind: (params, the question's index in the file, the field refused)
        "embedding_positional": ("{d_model: 3}", 0, "d_model"),
        "score_row": ("{position: 5}", 2, "position"),
        "masked_row": ("{position: 2}", 5, "position"),
        "multi_head": ("{n_heads: 3}", 7, "n_heads"),
        "teacher_forcing_loss": ("{position: 1}", 11, "position"),
        "greedy_next_token": ("{vocab_size: 5, generated: 3}", 13, "generated"),
    }
    path = content_dir / DRILLS
    text = path.read_text(encoding="utf-8")
    for kind, (params, _, _) in broken.items():
        at = text.index("    params: {}\n", text.index(f"    kind: {kind}\n"))
        text = text[:at] + f"    params: {params}\n" + text[at + len("    params: {}\n") :]
    path.write_text(text, encoding="utf-8")
    lines = text.splitlines()
    where = {
        kind: (
            DRILLS,
            str(line_of(lines, f"    params: {params}")),
            f"questions[{index}].params.{field}",
        )
        for kind, (params, index, field) in broken.items()
    }
    ines = browser_for("ines")
    pages = {}
    for lang in ("zh", "en"):
        ines.post(f"/lang/{lang}")
        reload = ines.post("/instructor/content/reload")
        assert reload.status_code == 422
        pages[lang] = error_rows(reload.text)

    # n = 3 tokens, d_model = 4, target_length = 3 and reduction: mean are the defaults
    assert pages["zh"] == {
        where["embedding_positional"]: "d_model 必须是偶数（2、4 或 6）（实际是 3）",
        where["score_row"]: "position 必须小于 n = 3（实际是 5）",
        where[
            "masked_row"
        ]: "position 必须小于 n - 1 = 2：最后一行没有可以遮住的未来位置（实际是 2）",
        where["multi_head"]: "d_model = 4 必须能被 n_heads 整除（实际是 3）",
        where["teacher_forcing_loss"]: (
            "position 只与 reduction: position 一起使用，不能与 mean 一起使用（实际是 1）"
        ),
        where["greedy_next_token"]: (
            "generated 最大为 vocab_size - 3 = 2："
            "已生成的词（I、love、you）必须在词表里（实际是 3）"
        ),
    }
    assert pages["en"] == {
        where["embedding_positional"]: "d_model must be even (2, 4 or 6) (got 3)",
        where["score_row"]: "position must be less than n = 3 (got 5)",
        where["masked_row"]: (
            "position must be less than n - 1 = 2: the last row has no future position to mask"
            " (got 2)"
        ),
        where["multi_head"]: "d_model = 4 must be divisible by n_heads (got 3)",
        where["teacher_forcing_loss"]: (
            "position is only used with reduction: position, not mean (got 1)"
        ),
        where["greedy_next_token"]: (
            "generated must be at most vocab_size - 3 = 2: the words generated so far"
            " (I, love, you) must be in the vocabulary (got 3)"
        ),
    }
    # the CLI prints the English, word for word
    result = CliRunner().invoke(cli.main, ["content", "validate", str(content_dir)])
    assert result.exit_code == 1
    for (file, line, field_path), message in pages["en"].items():
        assert f"{file}:{line}: {field_path}: {message}" in result.output


def test_the_self_tests_findings_are_in_the_pages_language(app, browser_for, content_dir):
    edit(  # a tolerance so loose that mistakes pass
        content_dir,
        DRILLS,
        "    tolerance: {atol: 0.005, rtol: 0}\n",
        "    tolerance: {atol: 0.5, rtol: 0}\n",
    )
    edit(  # tighter than the kind's own: a note, not a failure
        content_dir,
        DRILLS,
        "    tolerance: {atol: 0.01, rtol: 0}\n",
        "    tolerance: {atol: 0.0001}\n",
    )
    edit(  # no English phrase of this rubric point is in the English reference answer
        content_dir,
        QUESTIONS,
        "          en: [one pattern, one kind of relationship, one relationship, one type of"
        " relationship, single pattern, only one kind, only one type]\n",
        "          en: [xyzzy]\n",
    )
    ines = browser_for("ines")
    assert ines.post("/instructor/content/reload").status_code == 302
    pages = {}
    for lang in ("zh", "en"):
        ines.post(f"/lang/{lang}")
        pages[lang] = html.unescape(ines.post("/instructor/selftest").text)
    zh, en = pages["zh"], pages["en"]

    assert "测试了 16 道题（424 项检查）：14 道通过，2 道失败；跳过 4 道（选择题）" in zh
    assert "16 questions tested (424 checks): 14 passed, 2 failed; 4 skipped" in en
    # softmax weights are below 1, so a plausible mistake is 0.1 and the tolerance may be a
    # third of it
    assert re.search(
        r"<li>容差（种子 0）：失败：单元格 \[0, \d\]（期望值 0\.\d+）"
        r"接受与它相差不超过 0\.5 的答案，"
        r"但 0\.1 这样的常见错误必须留有余量地判错：这里的容差最多为 0\.0333333</li>",
        zh,
    )
    assert re.search(
        r"<li>tolerance \(seed 0\): FAILED: cell \[0, \d\] \(expected 0\.\d+\) accepts answers up"
        r" to 0\.5 away, but a plausible mistake of 0\.1 must be rejected with a margin: the"
        r" tolerance may be at most 0\.0333333 there</li>",
        en,
    )
    assert re.search(
        r"<li>参考答案（英文）：失败：参考答案不含评分要点“one-pattern-per-head”（短语：xyzzy）"
        r"的任何短语：评阅队列会为它建议 \d+%</li>",
        zh,
    )
    assert re.search(
        r"<li>reference \(en\): FAILED: the reference answer contains no phrase of rubric point"
        r" 'one-pattern-per-head' \(phrases: xyzzy\): the review queue would suggest \d+% for"
        r" it</li>",
        en,
    )
    assert re.search(
        r"<li>容差 atol=0\.0001 比该练习类型的 atol=[\d.]+ 更严，"
        r"后者已考虑到手算时每一步的舍入</li>",
        zh,
    )
    assert re.search(
        r"<li>tolerance atol=0\.0001 is tighter than the kind's atol=[\d.]+, which allows for"
        r" rounding every intermediate step by hand</li>",
        en,
    )
