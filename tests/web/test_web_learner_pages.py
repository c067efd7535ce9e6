"""What the learner's pages say and how they can be found and read: drills by their titles and
skills by their names (not ids), the task and tolerance before answering, unfinished variants,
how mastery moves, answered choices with their options, and the labels a screen reader reads.

Mastery follows the content's rule m <- 0.5 * m + 0.5 * score, starting at 0."""

from __future__ import annotations

import html
import re

import numpy as np
from sqlalchemy import event
from web_helpers import ENGLISH_WHEN, PASSWORD, reading, start, user_id

from quizsvc import practice
from quizsvc.bank import render_markdown
from quizsvc.web.context import load_content

CHAPTER_URL = "/chapters/transformer-by-hand"
QKV = "qkv-origin"  # single choice, correct: B


def drill_state(sessions, name: str, variant_id: int) -> practice.DrillState:
    with reading(sessions) as session:
        return practice.drill_state(session, user_id(sessions, name), variant_id)


def solve(browser, sessions, name: str, variant_id: int) -> None:
    values = drill_state(sessions, name, variant_id).variant.answer.values
    form = {f"cell-{r}-{c}": repr(float(v)) for (r, c), v in np.ndenumerate(values)}
    assert browser.post(f"/variants/{variant_id}/submissions", form).status_code == 302


def text_of(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def first(pattern: str, page_html: str) -> str:
    match = re.search(pattern, page_html, re.S)
    assert match, pattern
    return match.group(1)


# --- the drill page before answering -------------------------------------------------


def test_the_drill_page_states_the_task_its_rounding_and_the_tolerance(browser_for):
    alice = browser_for("alice")
    variant_id = start(alice, "drill-softmax-row")  # atol 0.005, 3 attempts, penalty 0.1
    page = alice.get(f"/variants/{variant_id}").text
    assert "<title>The softmax of one row of scores · Transformer by hand</title>" in page
    h1 = text_of(first(r"<h1>(.*?)</h1>", page))
    assert h1 == "Drills: The softmax of one row of scores"  # not the kind, softmax_row
    # the question's own prompt, with how many decimals to give, above the variant's
    task = text_of(first(r'<div class="task">(.*?)</div>', page))
    assert task.startswith("Apply the softmax") and task.endswith("Round to three decimals.")
    rules = re.findall(r"<li>(.*?)</li>", first(r'<ul class="rules" id="rules">(.*?)</ul>', page))
    assert rules == [
        "Keep 3 decimals in each intermediate result and give the answer to 3.",
        "Answers within ±0.005 of the exact value count as correct.",
        "Each further attempt takes 10% off the score.",
    ]

    alice.post("/lang/zh")
    page = alice.get(f"/variants/{variant_id}").text
    assert "计算练习：对给定" not in page
    assert (
        text_of(first(r"<h1>(.*?)</h1>", page)) == "计算练习： 对一行分数做 Softmax"
    )  # full-width colon
    assert text_of(first(r'<div class="task">(.*?)</div>', page)).endswith("保留三位小数。")
    assert "<li>与精确值相差不超过 ±0.005 的答案算对。</li>" in page

    # a token id: right or wrong, one attempt
    alice.post("/lang/en")
    variant_id = start(alice, "drill-greedy-next-token")
    page = alice.get(f"/variants/{variant_id}").text
    rules = re.findall(r"<li>(.*?)</li>", first(r'<ul class="rules" id="rules">(.*?)</ul>', page))
    assert rules == [
        "Answer with a whole number: the token&#39;s id.",
        "Only the exact value counts as correct.",
        "One attempt: this drill cannot be retried.",
    ]


def test_an_exact_answer_is_shown_as_its_value_not_as_an_interval(browser_for, sessions):
    alice = browser_for("alice")
    variant_id = start(alice, "drill-greedy-next-token")
    expected = int(drill_state(sessions, "alice", variant_id).variant.answer.values[0, 0])
    form = {"cell-0-0": str(expected + 1)}
    assert alice.post(f"/variants/{variant_id}/submissions", form).status_code == 302
    page = alice.get(f"/variants/{variant_id}").text  # one attempt: finished, so shown
    interval = re.search(r'<small class="interval" title="([^"]+)">([^<]*)</small>', page)
    assert interval.groups() == ("Accepted value", str(expected))


def test_every_answer_cell_has_a_name_without_an_empty_part(browser_for):
    alice = browser_for("alice")
    page = alice.get(f"/variants/{start(alice, 'drill-score-row')}").text
    names = re.findall(r'<input name="cell-[^"]+"[^>]*aria-label="([^"]*)"', page)
    assert len(names) == 3 and all(re.fullmatch(r"\S+, \S+", n) for n in names), names


def test_a_single_number_is_answered_in_one_labelled_input(browser_for):
    """The loss and the next token's id are one number each: one input with a visible label
    (the answer's name), not a 1 x 1 grid with an empty header, no paste box for a matrix,
    and no -inf hint (neither a loss nor a token id can be infinite)."""
    alice = browser_for("alice")
    for question_id, name, lang in [
        ("drill-teacher-forcing-loss", "Loss", "en"),
        ("drill-greedy-next-token", "next token id", "en"),
        ("drill-teacher-forcing-loss", "损失", "zh"),  # the name in the page's language
        ("drill-greedy-next-token", "下一个 token 的 id", "zh"),
    ]:
        alice.post(f"/lang/{lang}")
        page = alice.get(f"/variants/{start(alice, question_id)}").text
        form = first(r'(<form method="post" action="/variants/\d+/submissions.*?</form>)', page)
        assert re.findall(r"<input name=\"(cell-[^\"]+)\"", form) == ["cell-0-0"]
        label = re.search(r'<label for="cell-0-0">([^<]*)</label>\s*<input ([^>]*)>', form)
        assert label and label.group(1) == name, question_id
        assert 'id="cell-0-0"' in label.group(2) and "aria-label" not in label.group(2)
        assert "<table" not in form and "<textarea" not in form, question_id
        assert "inf" not in text_of(form), question_id  # no -inf hint, and no help about it
        assert ("Paste a matrix" in page, "粘贴矩阵" in page) == (False, False)


# --- the drills list -------------------------------------------------------------------


def test_the_drills_list_names_each_drill_and_each_button(app, browser_for):
    alice = browser_for("alice")
    page = alice.get("/drills").text
    drills = [q for q in app.extensions["quizsvc"].bank.questions.values() if q.type == "drill"]
    headings = re.findall(r'<h3 id="drill-[^"]+">(.*?)</h3>', page)
    labels = re.findall(
        r'<button type="submit" aria-label="([^"]+)" aria-describedby="status-[^"]+">'
        r"Start</button>",
        page,
    )
    assert len(headings) == len(labels) == len(drills) >= 12
    assert labels == [f"Start: {h}" for h in headings]
    assert len(set(labels)) == len(labels)  # twelve buttons a screen reader tells apart
    assert "Embedding plus positional encoding: X&#39; = X + PE" in headings
    skills = re.findall(r'<span class="skill">(.*?)</span>', page)
    assert "Skill: Positional encoding" in skills and "Skill: Add &amp; Norm" in skills
    assert not any("_" in s for s in skills)  # no tag such as positional_encoding

    alice.post("/lang/zh")
    page = alice.get("/drills").text
    assert '<h3 id="drill-drill-greedy-next-token">贪心解码：下一个 token</h3>' in page
    assert (
        'aria-label="开始：贪心解码：下一个 token" '
        'aria-describedby="status-drill-greedy-next-token">开始</button>'
    ) in page
    assert '<span class="skill">技能：位置编码</span>' in page


def test_unfinished_variants_are_listed_and_start_resumes_them(browser_for, sessions):
    alice = browser_for("alice")
    assert 'id="unfinished"' not in alice.get("/drills").text

    first_id = start(alice, "drill-score-row", "start")
    assert start(alice, "drill-score-row", "start") == first_id  # resumed, not abandoned
    page = alice.get("/drills").text
    listed = re.findall(r'<li data-variant="(\d+)"><a href="([^"]+)">([^<]+)</a>', page)
    assert listed == [
        (
            str(first_id),
            f"/variants/{first_id}",
            f"One row of scaled attention scores (exercise {first_id})",
        )
    ]
    assert "Attempts left: 3" in first(
        r'<section class="unfinished" id="unfinished">(.*?)</section>', page
    )
    assert (
        'aria-label="Continue: One row of scaled attention scores" '
        'aria-describedby="status-drill-score-row">Continue</button>'
    ) in page

    # "New variant" still starts afresh; Start then resumes the newest
    second_id = start(alice, "drill-score-row")
    assert second_id != first_id
    page = alice.get("/drills").text
    assert re.findall(r'<li data-variant="(\d+)">', page) == [str(second_id), str(first_id)]
    # two of one drill: told apart by their numbers
    links = re.findall(r'<li data-variant="\d+"><a href="[^"]+">([^<]+)</a>', page)
    assert links == [
        f"One row of scaled attention scores (exercise {second_id})",
        f"One row of scaled attention scores (exercise {first_id})",
    ]
    assert start(alice, "drill-score-row", "start") == second_id

    # a solved variant, or one out of attempts, is finished: no longer listed or resumed
    solve(alice, sessions, "alice", second_id)
    assert re.findall(r'<li data-variant="(\d+)">', alice.get("/drills").text) == [str(first_id)]
    assert start(alice, "drill-score-row", "start") == first_id
    solve(alice, sessions, "alice", first_id)
    greedy = start(alice, "drill-greedy-next-token", "start")  # one attempt
    form = {"cell-0-0": "-1"}
    assert alice.post(f"/variants/{greedy}/submissions", form).status_code == 302
    assert 'id="unfinished"' not in alice.get("/drills").text
    third_id = start(alice, "drill-score-row", "start")
    assert third_id not in (first_id, second_id)

    # the recommended drill resumes too; another learner's variants are not theirs to list
    recommended = alice.post("/drills/recommended")
    resumed = int(recommended.headers["Location"].rsplit("/", 1)[1])
    assert alice.post("/drills/recommended").headers["Location"] == f"/variants/{resumed}"
    assert 'id="unfinished"' not in browser_for("bob").get("/drills").text


def drill_status(page: str, question_id: str) -> str:
    return text_of(first(rf'<p class="drill-status" id="status-{question_id}">(.*?)</p>', page))


def test_each_drill_says_what_the_learner_has_done_with_it(app, browser_for, sessions):
    alice = browser_for("alice")
    alice.post("/lang/en")
    page = alice.get("/drills").text
    drills = [q.id for q in app.extensions["quizsvc"].bank.questions.values() if q.type == "drill"]
    # the first drill (its skill not practised yet) is the one suggested
    assert [drill_status(page, d) for d in drills] == [
        "Not tried Suggested next",
        *["Not tried"] * (len(drills) - 1),
    ]

    first_id = start(alice, "drill-score-row", "start")
    page = alice.get("/drills").text
    assert drill_status(page, "drill-score-row") == (
        "In progress · 1 unfinished variant, Continue opens it"
    )
    assert re.findall(r'<li data-kind="(\w+)" data-state="in-progress"', page) == ["score_row"]
    # all three cells wrong (score 0), then right at the second attempt: 100% - 10% = 90%
    wrong = drill_state(sessions, "alice", first_id).variant.answer.values + 5
    form = {f"cell-0-{c}": repr(float(v)) for c, v in enumerate(wrong[0])}
    assert alice.post(f"/variants/{first_id}/submissions", form).status_code == 302
    solve(alice, sessions, "alice", first_id)
    page = alice.get("/drills").text
    # 90% is mastered: right at the first attempt, or at the second
    assert drill_status(page, "drill-score-row") == (
        "Mastered · 1 variant finished · best score 90% (each variant at its best attempt)"
    )
    assert 'aria-describedby="status-drill-score-row">Start</button>' in page

    # a new variant, one cell of three wrong (67%): the best stays the finished one's 90%
    second_id = start(alice, "drill-score-row")
    answer = drill_state(sessions, "alice", second_id).variant.answer.values.copy()
    answer[0, 0] += 1
    form = {f"cell-0-{c}": repr(float(v)) for c, v in enumerate(answer[0])}
    assert alice.post(f"/variants/{second_id}/submissions", form).status_code == 302
    third_id = start(alice, "drill-score-row")
    page = alice.get("/drills").text
    assert drill_status(page, "drill-score-row") == (
        "Mastered · 2 unfinished variants, Continue opens the newest · 1 variant finished · "
        "best score 90% (each variant at its best attempt)"
    )
    assert 'aria-describedby="status-drill-score-row">Continue</button>' in page
    assert start(alice, "drill-score-row", "start") == third_id  # what Continue does

    alice.post("/lang/zh")
    assert drill_status(alice.get("/drills").text, "drill-score-row") == (
        "已掌握 · 2 组未完成，“继续”打开最新的一组 · 已完成 1 组 · "
        "最好成绩 90%（每组按最好的一次计）"
    )
    assert drill_status(browser_for("bob").get("/drills").text, "drill-score-row") == "Not tried"


def test_the_drills_list_reads_every_drills_standing_in_one_query(app, browser_for):
    engine = app.extensions["quizsvc"].sessions.kw["bind"]
    statements: list[str] = []

    def remember(conn, cursor, statement, parameters, context, executemany):
        statements.append(statement)

    alice = browser_for("alice")

    def variant_reads() -> list[str]:
        statements.clear()
        event.listen(engine, "before_cursor_execute", remember)
        try:
            assert alice.get("/drills").status_code == 200
        finally:
            event.remove(engine, "before_cursor_execute", remember)
        return [s for s in statements if "drill_variants" in s]

    # the unfinished variants, and every drill's standing: two reads, however many drills
    # the learner has started
    assert len(variant_reads()) == 2
    for question_id in ("drill-score-row", "drill-softmax-row", "drill-add-norm"):
        start(alice, question_id)
    assert len(variant_reads()) == 2


def test_the_recommended_drill_is_named_with_why(app, browser_for, sessions):
    alice = browser_for("alice")
    alice.post("/lang/en")

    def recommended() -> tuple[str, str, str, str]:
        section = first(
            r'<section class="recommended"[^>]*>(.*?)</section>', alice.get("/drills").text
        )
        return (
            text_of(first(r"<h2>(.*?)</h2>", section)),
            text_of(first(r'<p id="recommended-why">(.*?)</p>', section)),
            first(r'<form method="post" action="([^"]+)"', section),
            text_of(
                first(r'<button type="submit" id="next-recommended"[^>]*>(.*?)</button>', section)
            ),
        )

    # nothing practised: the bank's first drill, whose skill is new
    title = "Embedding plus positional encoding: X' = X + PE"
    assert recommended() == (
        f"Next recommended: {title}",
        "It practises a skill you have not practised yet: Positional encoding.",
        "/drills/drill-embedding-positional/start",
        f"Start: {title}",
    )
    # started but not answered: still not practised, and the button resumes the variant
    waiting = start(alice, "drill-embedding-positional", "start")
    assert recommended()[1:] == (
        "It practises a skill you have not practised yet: Positional encoding.",
        "/drills/drill-embedding-positional/start",
        f"Continue: {title}",
    )
    assert start(alice, "drill-embedding-positional", "start") == waiting

    # every skill practised, each right at once (mastery 0.5) but the FFN's, two of its
    # four cells wrong (score 0.5, mastery 0.25): the FFN is the weakest
    learner = user_id(sessions, "alice")
    bank = app.extensions["quizsvc"].bank
    for question in bank.questions.values():
        if question.type != "drill":
            continue
        with sessions() as session:
            issued = practice.start_drill(session, bank, learner, question.id, seed=7)
            values = practice.drill_state(session, learner, issued.id).variant.answer.values
            if question.id == "drill-ffn-row":
                values = values + np.array([[5.0, 5.0, 0.0, 0.0]])
            answer = "\n".join(" ".join(repr(float(v)) for v in row) for row in values)
            practice.submit_drill(session, learner, issued.id, answer, f"k-{question.id}")
    # ... and its variant, two attempts left, is the one the button continues
    title = "The feed-forward network for one token"
    assert recommended() == (
        f"Next recommended: {title}",
        "It practises your weakest skill so far: Feed-forward network (mastery 25%).",
        "/drills/drill-ffn-row/start",
        f"Continue: {title}",
    )
    alice.post("/lang/zh")
    assert recommended()[1] == "它练的是你目前最弱的技能：前馈网络（FFN），掌握度 25%。"


# --- progress ---------------------------------------------------------------------------


def test_the_progress_page_explains_mastery_and_names_skills_and_questions(browser_for, sessions):
    alice = browser_for("alice")
    variant_id = start(alice, "drill-add-norm")
    solve(alice, sessions, "alice", variant_id)
    solve(alice, sessions, "alice", start(alice, "drill-projection"))
    assert alice.post(f"{CHAPTER_URL}/questions/{QKV}", {"choice": "B"}).status_code == 302
    page = alice.get("/progress").text

    # one perfect answer: best 100 %, mastery 50 %, and the page says why
    # in the order of the bank's drills (projection's qkv before add_norm), not by skill id;
    # qkv counts its drill, not the chapter's question tagged qkv, which is the quiz's line
    assert re.findall(r'<tr data-skill="([^"]+)">', page) == ["qkv", "add_norm"]
    assert (
        re.findall(r"<td[^>]*>(.*?)</td>", first(r'<tr data-skill="qkv">(.*?)</tr>', page))[1]
        == "1"
    )
    quiz = text_of(first(r'<ul class="quiz-lines" id="quiz"[^>]*>(.*?)</ul>', page))
    # the chapter's title, then its line: 1 of 4 x 1 + 2 x 2 points of its 6 questions
    title, line = quiz.split(" : ")
    assert title.startswith("Transformer by Hand")
    assert line == "1 of 6 questions answered; score so far 1 of 8 points."
    row = re.findall(r"<td[^>]*>(.*?)</td>", first(r'<tr data-skill="add_norm">(.*?)</tr>', page))
    assert row[:5] == ["Add &amp; Norm", "1", "100%", "100%", "50%"]
    assert re.fullmatch(rf'<time datetime="[^"]+">{ENGLISH_WHEN} UTC</time>', row[5])
    assert "Last activity (UTC)" in page
    explanation = text_of(first(r'<p class="help" id="mastery-help">(.*?)</p>', page))
    assert "moves it 50% of the way to that answer's score" in explanation
    assert "50% → 75% → 88% → 94%" in explanation
    assert "Each exercise of a drill counts once, at your best attempt at it" in explanation

    history = first(r'<ul class="history" id="history">(.*?)</ul>', page)
    entries = [text_of(li) for li in re.findall(r"<li[^>]*>(.*?)</li>", history, re.S)]
    assert [e.split(" — ", 1)[1] for e in entries] == [
        "Where are Q, K and V computed from? (Chapter quiz) — 100%",
        "Projecting to Q, K or V (Drill) — 100%",
        "Add & Norm (residual + LayerNorm) (Drill) — 100%",
    ]
    assert f'<a href="{CHAPTER_URL}#q-{QKV}">' in history
    assert f'<a href="/variants/{variant_id}">' in history
    assert "(quiz)" not in history and QKV + " " not in history

    titles = ["Mastery per skill (0 to 100 %)", "Your recent scores, oldest first (0 to 100 %)"]
    # what a screen reader announces for each chart: its title and then what it draws (the
    # table's mastery per skill, the history's two scores, oldest first)
    charts = re.findall(r"<svg class='chart'[^>]*aria-label='([^']*)'", page)
    assert charts == [
        f"{titles[0]}: Q, K and V projections 50%; Add &amp; Norm 50%",
        f"{titles[1]}: 100%, 100%, 100%",
    ]
    # and the same titles shown, as each chart's caption above it
    captions = r"<figure class='chart'><figcaption>([^<]*)</figcaption><svg"
    assert re.findall(captions, page) == titles
    assert re.search(r"<text [^>]*>Add &amp; Norm</text>", page)  # the bar's label

    alice.post("/lang/zh")
    page = alice.get("/progress").text
    assert "每道评过分的题都让它向这道题的得分移动差距的 50%" in page
    assert "改正错误永远不会拉低掌握度" in page
    assert "<td>残差与归一化（Add &amp; Norm）</td>" in page
    assert "Q、K、V 是从哪里算出来的？ (章节测试)" in text_of(page)
    titles = ["各技能掌握度（0–100%）", "最近得分（从早到晚，0–100%）"]
    charts = re.findall(r"<svg class='chart'[^>]*aria-label='([^']*)'", page)
    assert charts == [
        f"{titles[0]}: Q、K、V 投影 50%; 残差与归一化（Add &amp; Norm） 50%",
        f"{titles[1]}: 100%, 100%, 100%",
    ]
    assert re.findall(captions, page) == titles


# --- the chapter quiz -------------------------------------------------------------------


def test_the_chapter_page_labels_its_questions_and_answers(browser_for):
    alice = browser_for("alice")
    page = alice.get(CHAPTER_URL).text
    assert re.findall(r'<h2 id="h-[^"]+">(.*?)</h2>', page) == [
        f"Question {n}" for n in range(1, 7)
    ]
    legends = re.findall(r"<legend>(.*?)</legend>", page)
    assert legends == ["Choose one answer"] * 4
    textareas = re.findall(r'<textarea id="([^"]+)"', page)
    assert len(textareas) == 2
    for textarea in textareas:
        assert f'<label class="block" for="{textarea}">Your answer</label>' in page

    alice.post("/lang/zh")
    page = alice.get(CHAPTER_URL).text
    assert re.findall(r'<h2 id="h-[^"]+">(.*?)</h2>', page)[:2] == ["第 1 题", "第 2 题"]
    assert "<legend>选择一个答案</legend>" in page


SECOND_CHAPTER = {
    "chapter.yaml": """\
id: attention-review
order: 2
title: {zh: 注意力复习, en: Attention review}
intro:
  zh: 复习 **缩放** 点积
  en: Reviews the **scaled** dot product
""",
    "questions.yaml": """\
questions:
  - id: review-scale
    type: single_choice
    tags: [scores]
    prompt: {zh: 为什么缩放？, en: "Why scale?"}
    choices:
      - {id: A, text: {zh: 方差, en: Variance}}
      - {id: B, text: {zh: 速度, en: Speed}}
    correct: A
    explanation: {zh: 方差, en: Variance}
""",
}


def test_a_learner_finds_every_chapter_and_its_intro(app, browser_for, content_dir):
    chapter_dir = content_dir / "attention-review"
    chapter_dir.mkdir()
    for name, text in SECOND_CHAPTER.items():
        (chapter_dir / name).write_text(text, encoding="utf-8")
    app.extensions["quizsvc"].install(load_content(content_dir))

    alice = browser_for("alice")
    alice.post("/lang/en")
    start_page = alice.get("/")
    assert start_page.status_code == 200  # a list to choose from, not the first chapter
    chapters = re.findall(
        r'<li data-chapter="([^"]+)"><h2><a href="([^"]+)">([^<]+)</a></h2>\s*<p>([^<]+)</p>',
        start_page.text,
    )
    assert chapters == [
        (
            "transformer-by-hand",
            CHAPTER_URL,
            "Transformer by Hand: The Complete Data Flow from Attention to Encoder-Decoder",
            "6 questions",
        ),
        ("attention-review", "/chapters/attention-review", "Attention review", "1 question"),
    ]
    assert "Reviews the <strong>scaled</strong> dot product" in start_page.text

    # the chapter's intro, as Markdown, above its questions in the page's language
    alice.post("/lang/zh")
    page = alice.get("/chapters/attention-review").text
    assert first(r'<div class="intro" id="chapter-intro">(.*?)</div>', page).strip() == (
        "<p>复习 <strong>缩放</strong> 点积</p>"
    )
    assert (
        "<li>用具体数字走完一次完整的 Self-Attention 前向传播</li>" in alice.get(CHAPTER_URL).text
    )


def test_an_answered_choice_shows_every_option_with_the_choice_and_the_key(app, browser_for):
    bob = browser_for("bob")
    assert bob.post(f"{CHAPTER_URL}/questions/{QKV}", {"choice": "A"}).status_code == 302
    section = first(
        rf'(<section class="question" id="q-{QKV}".*?</section>)', bob.get(CHAPTER_URL).text
    )
    question = app.extensions["quizsvc"].bank.questions[QKV]
    options = re.findall(r'<li data-choice="(\w+)"([^>]*)>(.*?)</li>', section, re.S)
    assert [choice for choice, _, _ in options] == [c.id for c in question.choices]
    # a choice's text as rendered (B's formulas are MathML)
    shown = [text_of(render_markdown(c.text.en, inline=True)) for c in question.choices]
    for (choice, attributes, body), text in zip(options, shown, strict=True):
        assert text_of(body).startswith(f"{choice}. {text}"), choice
        assert ('data-chosen="true"' in attributes) == (choice == "A")
        assert ('data-key="true"' in attributes) == (choice == "B")
    marked = {
        choice: text_of(body).rsplit(text, 1)[1].strip()
        for (choice, _, body), text in zip(options, shown, strict=True)
    }
    assert marked == {"A": "Your answer", "B": "Correct answer", "C": "", "D": ""}


# --- pictures and small things -----------------------------------------------------------


def test_a_heatmap_says_what_its_rows_and_columns_are_in_the_page_language(browser_for, sessions):
    alice = browser_for("alice")
    variant_id = start(alice, "drill-softmax-row")
    solve(alice, sessions, "alice", variant_id)
    page = alice.get(f"/variants/{variant_id}").text
    # the picture is hidden from screen readers; the table after it says what it shows
    assert first(r"<svg class='heatmap'[^>]*?( aria-hidden='true')", page)
    table = first(r"<div class='hm-table'><table>(.*?)</table></div>", page)
    caption = first(r"<caption>([^<]*)</caption>", table)
    title = first(r"<svg class='heatmap'.*?<title>([^<]*)</title>", page)
    assert caption == title
    assert title.startswith("Attention weights A: one row per query, one column per key")
    # its one row of softmax weights, each key with its weight to two decimals (the three add
    # up to 1, less their rounding)
    assert re.findall(r"<th scope='col'[^>]*>([^<]*)</th>", table) == ["我", "爱", "你"]
    values = re.search(
        r"<tr><th scope='row'>weight</th><td>(0\.\d+)</td><td>(0\.\d+)</td><td>(0\.\d+)</td></tr>",
        table,
    )
    assert values, table
    assert abs(sum(map(float, values.groups())) - 1) <= 0.015
    alice.post("/lang/zh")
    page = alice.get(f"/variants/{variant_id}").text
    caption = first(r"<div class='hm-table'><table><caption>([^<]*)</caption>", page)
    assert caption.startswith("注意力权重 A：每行是一个查询（query），每列是一个键（key）")


def test_the_language_toggle_says_which_language_it_is_in(browser_for):
    alice = browser_for("alice")
    english = alice.get(CHAPTER_URL, headers={"Accept-Language": "en"}).text
    assert re.search(r'<button id="lang-toggle" [^>]*lang="zh-CN">中文</button>', english)
    alice.post("/lang/zh")
    chinese = alice.get(CHAPTER_URL).text
    assert re.search(r'<button id="lang-toggle" [^>]*lang="en">English</button>', chinese)


def test_a_wrong_password_keeps_the_user_name(browser_for):
    anonymous = browser_for()
    anonymous.get("/login")
    response = anonymous.post("/login", {"name": "alice", "password": PASSWORD + "x"})
    assert response.status_code == 401
    name = re.search(r'<input name="name"[^>]*>', response.text).group(0)
    assert 'value="alice"' in name and "autofocus" not in name
    assert "autofocus" in re.search(r'<input name="password"[^>]*>', response.text).group(0)


def test_a_drills_tables_are_labelled_in_the_page_language(browser_for):
    alice = browser_for("alice")
    alice.post("/lang/zh")
    page = alice.get(f"/variants/{start(alice, 'drill-softmax-row')}").text
    # the given row of scores, and the answer's row: weights, not scores
    # named in the page's language, its shape after the name
    assert re.search(r"<caption>分数 <span class='shape'>\(1 × \d\)</span></caption>", page)
    assert "<th scope='row' lang='zh-CN'>分数</th>" in page
    assert re.search(r'<th scope="row"[^>]*>权重</th>', page), "the grid's row header"
    assert "权重, 我" in page  # a cell's name
    alice.post("/lang/en")
    page = alice.get(f"/variants/{start(alice, 'drill-softmax-row')}").text
    assert re.search(r"<caption>scores <span class='shape'>", page) and "weight, 我" in page
    # on the English page the chapter's tokens say they are Chinese, in the given tensor's
    # table and in the answer grid alike; an English label does not
    grid = first(r'<table class="matrix grid">(.*?)</table>', page)
    assert re.findall(r"<th scope=\"col\"([^>]*)>([^<]*)</th>", grid) == [
        (" lang='zh-CN'", "我"),
        (" lang='zh-CN'", "爱"),
        (" lang='zh-CN'", "你"),
    ]
    assert re.search(r'<th scope="row">weight</th>', grid)
    assert "<th scope='col' lang='zh-CN'>我</th>" in page
