"""The instructor's reports: streamed downloads, item statistics, a printable student report."""

from __future__ import annotations

import csv
import io
import json
import re

from web_helpers import ENGLISH_WHEN, user_id
from xlsx_cells import read_sheet

from quizsvc import practice, store
from quizsvc.reports import EVENT_COLUMNS
from quizsvc.web.instructor import students as student_pages

CHAPTER_URL = "/chapters/transformer-by-hand"
BOM = b"\xef\xbb\xbf"
REVIEW_COMMENT = "Say why each head has its own W_q."


def alice_works(app, browser_for, sessions) -> None:
    """Alice: qkv-origin right (1 point), why-multi-head reviewed at 0.75 (2 points), and
    one drill solved at the first attempt. Bob does nothing."""
    alice = browser_for("alice")
    alice.get(CHAPTER_URL)
    assert alice.post(f"{CHAPTER_URL}/questions/qkv-origin", {"choice": "B"}).status_code == 302
    text = "One pattern per head; different angles; outputs concatenated."
    assert alice.post(f"{CHAPTER_URL}/questions/why-multi-head", {"text": text}).status_code == 302
    learner = user_id(sessions, "alice")
    bank = app.extensions["quizsvc"].bank
    with sessions() as session:
        issued = practice.start_drill(session, bank, learner, "drill-softmax-row", seed=7)
        practice.submit_drill(session, learner, issued.id, "0.6096 0.1661 0.2243", "key-1")
        [open_answer] = store.answers_awaiting_review(session)
    ines = browser_for("ines")
    ines.get("/instructor/reviews")
    response = ines.post(
        f"/instructor/reviews/{open_answer.answer_id}",
        {"score": "75%", "comment": REVIEW_COMMENT},
    )
    assert response.status_code == 302


def download(browser, url: str):
    response = browser.get(url)
    assert response.status_code == 200, response.text
    assert response.is_streamed, url
    assert response.headers["Cache-Control"] == "no-store"
    return response


def test_the_gradebook_downloads_as_a_streamed_csv_with_a_bom(app, browser_for, sessions):
    alice_works(app, browser_for, sessions)
    ines = browser_for("ines")
    response = download(ines, "/instructor/reports/gradebook.csv")
    assert response.content_type == "text/csv; charset=utf-8"
    disposition = response.headers["Content-Disposition"]
    assert re.fullmatch(r'attachment; filename="gradebook-\d{4}-\d{2}-\d{2}\.csv"', disposition)
    data = response.get_data()
    assert data.startswith(BOM)
    assert not data[len(BOM) :].startswith(BOM)  # one BOM, however many chunks
    rows = {row["name"]: row for row in csv.DictReader(io.StringIO(data[3:].decode("utf-8")))}
    assert set(rows) == {"alice", "bob"}  # students only
    alice = rows["alice"]
    # percentages to one decimal (the default)
    assert alice["qkv-origin"] == "100.0"
    assert alice["why-multi-head"] == "75.0"
    assert alice["scaling-by-sqrt-dk"] == ""
    assert alice["best:softmax_row"] == "100.0"
    assert alice["mastery:softmax_row"] == "50.0"  # one right first attempt: 0 -> 0.5
    # by hand: points 1 (x4 choice questions) and 2 (x2 open), 8 in all;
    # (1 x 1.0 + 2 x 0.75) / 8 = 2.5 / 8 = 31.25 %, a half rounded up as the pages do
    assert alice["total"] == "31.3"
    # bob answered nothing: not started, an empty cell rather than a 0
    assert rows["bob"]["total"] == "" and rows["bob"]["last_activity"] == ""

    exact = download(ines, "/instructor/reports/gradebook.csv?exact=1")
    assert re.fullmatch(
        r'attachment; filename="gradebook-exact-\d{4}-\d{2}-\d{2}\.csv"',
        exact.headers["Content-Disposition"],
    )
    data = exact.get_data()
    assert data.startswith(BOM)
    rows = {row["name"]: row for row in csv.DictReader(io.StringIO(data[3:].decode("utf-8")))}
    assert (rows["alice"]["total"], rows["alice"]["why-multi-head"]) == ("0.3125", "0.75")
    two = download(ines, "/instructor/reports/gradebook.csv?decimals=2").get_data()
    rows = {row["name"]: row for row in csv.DictReader(io.StringIO(two[3:].decode("utf-8")))}
    assert rows["alice"]["total"] == "31.25"


def test_the_gradebook_downloads_as_a_streamed_xlsx(app, browser_for, sessions):
    alice_works(app, browser_for, sessions)
    ines = browser_for("ines")
    response = download(ines, "/instructor/reports/gradebook.xlsx?decimals=2")
    assert response.mimetype == (
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    )
    assert re.fullmatch(
        r'attachment; filename="gradebook-\d{4}-\d{2}-\d{2}\.xlsx"',
        response.headers["Content-Disposition"],
    )
    cells = read_sheet(response.get_data())
    header = [cells[(0, col)].value for col in range(len(cells)) if (0, col) in cells]
    alice = next(r for r in (1, 2) if cells[(r, 1)].value == "alice")
    total = cells[(alice, header.index("total"))]
    assert (total.kind, total.value, total.number_format) == ("n", "31.25", "0.00")
    exact = read_sheet(download(ines, "/instructor/reports/gradebook.xlsx?exact=1").get_data())
    assert exact[(alice, header.index("total"))].value == "0.3125"


def test_bad_gradebook_options_are_refused_in_the_page_language(browser_for):
    ines = browser_for("ines")
    ines.post("/lang/en")
    for query, message in (
        ("decimals=7", "The decimals must be a whole number from 0 to 6, not &#39;7&#39;."),
        ("decimals=-1", "not &#39;-1&#39;"),
        ("decimals=1.5", "not &#39;1.5&#39;"),
        ("exact=yes", "The exact option is 1 or 0, not &#39;yes&#39;."),
    ):
        for suffix in ("csv", "xlsx"):
            response = ines.get(f"/instructor/reports/gradebook.{suffix}?{query}")
            assert response.status_code == 400, query
            assert message in response.text, (query, response.text)
    assert ines.get("/instructor/reports?decimals=x").status_code == 400
    ines.post("/lang/zh")
    response = ines.get("/instructor/reports/gradebook.csv?decimals=9")
    assert response.status_code == 400
    assert re.search(r"[\u4e00-\u9fff]", response.text.split("<main", 1)[1])


def test_the_events_download_as_streamed_csv_and_json_lines(app, browser_for, sessions):
    alice_works(app, browser_for, sessions)
    ines = browser_for("ines")

    response = download(ines, "/instructor/reports/events.csv")
    assert response.content_type == "text/csv; charset=utf-8"
    assert re.fullmatch(
        r'attachment; filename="events-\d{4}-\d{2}-\d{2}\.csv"',
        response.headers["Content-Disposition"],
    )
    data = response.get_data()
    assert data.startswith(BOM)
    table = list(csv.reader(io.StringIO(data[3:].decode("utf-8"))))
    assert tuple(table[0]) == EVENT_COLUMNS
    events = [dict(zip(table[0], row, strict=True)) for row in table[1:]]
    assert sorted((e["event"], e["question_id"], e["score"]) for e in events) == [
        ("drill", "drill-softmax-row", "1.0"),
        ("quiz", "qkv-origin", "1.0"),
        ("quiz", "why-multi-head", "0.75"),
    ]

    response = download(ines, "/instructor/reports/events.jsonl")
    assert response.mimetype == "application/x-ndjson"
    assert re.fullmatch(
        r'attachment; filename="events-\d{4}-\d{2}-\d{2}\.jsonl"',
        response.headers["Content-Disposition"],
    )
    data = response.get_data()
    assert not data.startswith(BOM)
    lines = data.decode("utf-8").splitlines()
    objects = [json.loads(line) for line in lines]
    assert len(objects) == 3
    drill = next(o for o in objects if o["event"] == "drill")
    assert (drill["seed"], drill["student_name"], drill["score"]) == (7, "alice", 1.0)
    assert drill["answer"] == "0.6096 0.1661 0.2243"


def test_empty_reports_still_download(browser_for):
    ines = browser_for("ines")
    data = download(ines, "/instructor/reports/events.csv").get_data()
    assert data.decode("utf-8-sig").splitlines() == [",".join(EVENT_COLUMNS)]
    assert download(ines, "/instructor/reports/events.jsonl").get_data() == b""
    gradebook = download(ines, "/instructor/reports/gradebook.csv").get_data()
    assert len(gradebook.decode("utf-8-sig").splitlines()) == 3  # header, alice, bob


def test_the_reports_page_links_the_downloads_and_shows_item_statistics(app, browser_for, sessions):
    alice_works(app, browser_for, sessions)
    ines = browser_for("ines")
    ines.post("/lang/en")
    page = ines.get("/instructor/reports")
    assert page.status_code == 200
    for url in (
        "/instructor/reports/gradebook.csv?decimals=1",
        "/instructor/reports/gradebook.xlsx?decimals=1",
        "/instructor/reports/gradebook.csv?exact=1",
        "/instructor/reports/gradebook.xlsx?exact=1",
        "/instructor/reports/items.csv",
        "/instructor/reports/events.csv",
        "/instructor/reports/events.jsonl",
    ):
        assert f'href="{url}"' in page.text
    page_two = ines.get("/instructor/reports?decimals=2").text
    assert 'href="/instructor/reports/gradebook.xlsx?decimals=2"' in page_two
    rows = dict(re.findall(r'<tr data-question="([^"]+)">(.*?)</tr>', page.text, re.DOTALL))
    assert len(rows) == 20  # every question of the bank
    # alice's drill: its answer grid's cells, each right (0 % wrong)
    softmax = re.search(
        r'<tr class="item-details" data-details="drill-softmax-row">(.*?)</tr>', page.text, re.S
    ).group(1)
    assert re.findall(r'<span data-cell="(\d+,\d+)"[^>]*>([^<]*)</span>', softmax) == [
        ("1,1", "0%"), ("1,2", "0%"), ("1,3", "0%"),
    ]  # fmt: skip
    assert "(percentages with 1 decimal)" in page.text
    qkv = rows["qkv-origin"]
    assert '<td class="students">1</td>' in qkv and '<td class="facility">100.0%</td>' in qkv
    assert '<td class="mean">0.750</td>' in rows["why-multi-head"]
    assert '<td class="students">0</td>' in rows["scaling-by-sqrt-dk"]
    assert '<td class="facility">—</td>' in rows["scaling-by-sqrt-dk"]
    # one student: no correlation to compute
    assert '<td class="discrimination">—</td>' in qkv
    # alice chose B: 1 of 1; the correct choice is marked
    details = re.search(
        r'<tr class="item-details" data-details="qkv-origin">(.*?)</tr>', page.text, re.S
    )
    counts = re.search(r'<ul class="choice-counts">(.*?)</ul>', details.group(1), re.S).group(1)
    choices = dict(re.findall(r'<li data-choice="([^"]+)">(.*?)</li>', counts))
    assert '<span class="count">1</span> (100.0%)' in choices["B"] and "✓" in choices["B"]
    assert '<span class="count">0</span> (0.0%)' in choices["A"] and "✓" not in choices["A"]
    # the page says which discrimination index it is
    help_text = re.search(r'<div class="help" id="item-help">(.*?)</div>', page.text, re.S)
    assert "rest of the test" in help_text.group(1) and "27 %" in help_text.group(1)


def column_notes(page: str, list_id: str) -> dict[str, str]:
    """A definition list of the reports page: each header it names -> what it says."""
    block = re.search(rf'<dl id="{list_id}">(.*?)</dl>', page, re.DOTALL).group(1)
    notes = {}
    for headers, meaning in re.findall(
        r"<dt><code>([^<]*)</code></dt><dd>([^<]*)</dd>", block, re.DOTALL
    ):
        for header in headers.split(", "):
            notes[header] = meaning
    return notes


def test_the_reports_page_says_what_every_column_of_the_downloads_holds(browser_for):
    """A spreadsheet shows only the headers, and the files write 0.75 where the pages show
    75 %: the page that offers the files says what each of their columns holds."""
    ines = browser_for("ines")
    gradebook = download(ines, "/instructor/reports/gradebook.csv").get_data()[3:].decode()
    gradebook_header = next(csv.reader(io.StringIO(gradebook)))
    events = download(ines, "/instructor/reports/events.csv").get_data()[3:].decode()
    events_header = next(csv.reader(io.StringIO(events)))
    assert events_header == list(EVENT_COLUMNS)
    meanings = {}
    items = download(ines, "/instructor/reports/items.csv").get_data()[3:].decode()
    items_header = next(csv.reader(io.StringIO(items)))
    for lang, fraction_note in (("zh", "0.75 即 75%"), ("en", "0.75 is 75%")):
        ines.post(f"/lang/{lang}")
        page = ines.get("/instructor/reports").text
        help_text = re.search(r'<details[^>]*id="export-columns">(.*?)</details>', page, re.DOTALL)
        assert fraction_note in help_text.group(1) and "UTC" in help_text.group(1)
        gradebook_notes = column_notes(page, "gradebook-columns")
        event_notes = column_notes(page, "event-columns")
        item_notes = column_notes(page, "item-columns")
        assert list(item_notes) == items_header
        assert sorted(gradebook_notes) == sorted(gradebook_header)
        assert list(event_notes) == events_header
        meanings[lang] = {**gradebook_notes, **event_notes}
        assert all(meaning.strip() for meaning in item_notes.values())
        assert all(meaning.strip() for meaning in meanings[lang].values())
    # each column's note is written in the page's language
    assert all(re.search(r"[\u4e00-\u9fff]", note) for note in meanings["zh"].values())
    assert not any(re.search(r"[\u4e00-\u9fff]", note) for note in meanings["en"].values())
    assert "Σ(points × score)" in meanings["en"]["total"] and "UTC" in meanings["en"]["at"]


def test_the_printable_student_report(app, browser_for, sessions):
    alice_works(app, browser_for, sessions)
    ines = browser_for("ines")
    ines.post("/lang/en")
    alice = user_id(sessions, "alice")
    roster = ines.get("/instructor/students").text
    assert f'href="/instructor/students/{alice}/report"' in roster
    page = ines.get(f"/instructor/students/{alice}/report")
    assert page.status_code == 200
    # 2.5 / 8 points = 31.25 %, to one decimal as every page shows a chapter score (a half
    # rounds up, as learners round)
    assert '<span id="chapter-total">31.3%</span>' in page.text
    answers = dict(re.findall(r'<tr data-question="([^"]+)">(.*?)</tr>', page.text, re.DOTALL))
    assert '<td class="score">100%</td>' in answers["qkv-origin"]
    assert '<td class="score">75%</td>' in answers["why-multi-head"]
    assert f'<td class="comment">{REVIEW_COMMENT}</td>' in answers["why-multi-head"]
    assert '<td class="score">—</td>' in answers["scaling-by-sqrt-dk"]
    skill = re.search(r'<tr data-skill="softmax">(.*?)</tr>', page.text, re.DOTALL).group(1)
    assert '<td class="mastery">50%</td>' in skill
    assert page.text.count("<svg class='chart'") == 2  # mastery bars, drill scores
    assert re.findall(r"<figure class='chart'><figcaption>([^<]*)</figcaption>", page.text) == [
        "Mastery per skill (0 to 100 %)",
        "Drill scores, oldest first (0 to 100 %)",
    ]
    assert "<script" not in page.text  # nothing to run: prints as served
    assert 'class="no-print help"' in page.text
    assert 'id="history-cut"' not in page.text  # one submission, all of it shown
    # every time on the report says its zone, once
    meta = re.search(r'<p class="meta">(.*?)</p>', page.text, re.DOTALL).group(1)
    assert re.search(rf"Last activity \(UTC\): {ENGLISH_WHEN}$", meta.strip())
    history = re.search(
        r'<table class="progress" id="drill-history">(.*?)</table>', page.text, re.S
    )
    assert "<th>When (UTC)</th>" in history.group(1)

    css = ines.get("/static/style.css").text
    print_css = css[css.index("@media print") :]
    assert "nav.instructor-nav" in print_css and ".no-print" in print_css
    assert "header.site" in print_css

    assert ines.get(f"/instructor/students/{user_id(sessions, 'ines')}/report").status_code == 404


def test_a_report_whose_drill_history_is_cut_short_says_so(app, browser_for, sessions, monkeypatch):
    alice_works(app, browser_for, sessions)  # one drill submission
    learner = user_id(sessions, "alice")
    with sessions() as session:
        issued = practice.start_drill(
            session, app.extensions["quizsvc"].bank, learner, "drill-softmax-row", seed=8
        )
        practice.submit_drill(session, learner, issued.id, "0 0 0", "key-2")
    monkeypatch.setattr(student_pages, "HISTORY_LIMIT", 1)
    ines = browser_for("ines")
    ines.post("/lang/en")
    page = ines.get(f"/instructor/students/{learner}/report").text
    assert (
        '<p class="history-cut" id="history-cut">The latest 1 of 2 drill submissions (the '
        "events export has them all).</p>"
    ) in page
    assert len(re.findall(rf"<tr><td>{ENGLISH_WHEN}</td>", page)) == 1  # the one shown


def test_the_report_of_a_student_who_answered_nothing_says_not_started(app, browser_for, sessions):
    alice_works(app, browser_for, sessions)
    ines = browser_for("ines")
    ines.post("/lang/en")
    bob = user_id(sessions, "bob")
    page = ines.get(f"/instructor/students/{bob}/report").text
    total = re.search(r"<h2>Chapter total: (.*?)</h2>", page, re.DOTALL).group(1)
    assert (
        total
        == '<span id="chapter-total">—</span> <small class="not-started">(not started)</small>'
    )
    ines.post("/lang/zh")
    page = ines.get(f"/instructor/students/{bob}/report").text
    assert '<span id="chapter-total">—</span> <small class="not-started">(未开始)</small>' in page
    # alice, who answered, has her total and no such note
    alice = ines.get(f"/instructor/students/{user_id(sessions, 'alice')}/report").text
    assert '<span id="chapter-total">31.3%</span></h2>' in alice


def test_a_review_score_reads_the_same_on_every_page(app, browser_for, sessions):
    """An instructor gives 1.25 of 2 points (62.5 %): the review page, the student's page,
    the printed report and the learner's own pages all say 62.5 %, not 62 % on some of them
    (a whole percent, rounded half to even, turned 62.5 into 62 and 37.5 into 38)."""
    alice = browser_for("alice")
    alice.post("/lang/en")
    alice.get(CHAPTER_URL)
    text = "Each head learns its own pattern."
    assert alice.post(f"{CHAPTER_URL}/questions/why-multi-head", {"text": text}).status_code == 302
    with sessions() as session:
        [waiting] = store.answers_awaiting_review(session)
    ines = browser_for("ines")
    ines.post("/lang/en")
    ines.get("/instructor/reviews")
    saved = ines.post(f"/instructor/reviews/{waiting.answer_id}", {"score": "1.25/2"})
    assert saved.status_code == 302
    learner = user_id(sessions, "alice")

    review = ines.get(f"/instructor/reviews/{waiting.answer_id}").text
    assert re.search(r"<li data-review=\"\d+\">[^<]*: 62.5%</li>", review)
    student = ines.get(f"/instructor/students/{learner}").text
    open_answer = re.search(r'<tr data-answer="\d+">(.*?)</tr>', student, re.DOTALL).group(1)
    assert "<td>62.5%</td>" in open_answer
    assert re.search(r"why-multi-head \(Chapter quiz\) — 62.5%</li>", student)
    report = ines.get(f"/instructor/students/{learner}/report").text
    answers = dict(re.findall(r'<tr data-question="([^"]+)">(.*?)</tr>', report, re.DOTALL))
    assert '<td class="score">62.5%</td>' in answers["why-multi-head"]
    # 1.25 of the chapter's 8 points: 15.625 %, to one decimal
    assert '<span id="chapter-total">15.6%</span>' in report

    chapter = alice.get(CHAPTER_URL).text
    assert re.search(r'<p class="reviewed">Instructor[^<]*score: 62.5%</p>', chapter)
    progress = alice.get("/progress").text
    assert re.search(r"\(Chapter quiz\) — 62.5%</li>", progress)


def bar_labels(page_html: str) -> list[str]:
    """The mastery chart's bar labels (bar_chart_svg writes them right-aligned)."""
    return re.findall(r"<text [^>]*text-anchor='end' font-size='12'>([^<]*)</text>", page_html)


def test_the_mastery_charts_and_the_report_name_skills_in_the_page_language(
    app, browser_for, sessions
):
    """Alice's skills: softmax (her drill) and, here, qkv and multi_head, drills tried once
    each (her chapter answers tagged qkv and multi_head are the chapter's, not the skills')."""
    alice_works(app, browser_for, sessions)
    learner = user_id(sessions, "alice")
    bank = app.extensions["quizsvc"].bank
    # answered last, multi_head first: the page's order is the bank's, not the answers'
    for question_id in ("drill-multi-head", "drill-projection"):
        with sessions() as session:
            issued = practice.start_drill(session, bank, learner, question_id, seed=7)
            rows, cols = practice.drill_state(session, learner, issued.id).variant.answer.shape
            zeros = "\n".join(" ".join(["0"] * cols) for _ in range(rows))
            practice.submit_drill(session, learner, issued.id, zeros, f"k-{question_id}")
    ines = browser_for("ines")
    ines.post("/lang/zh")
    alice = user_id(sessions, "alice")
    # the student's page and the report alike: in the order of the bank's drills
    # (projection, softmax_row, multi_head), not by skill id (multi_head, qkv, softmax)
    page = ines.get(f"/instructor/students/{alice}").text
    assert bar_labels(page) == ["Q、K、V 投影", "Softmax", "多头注意力"]
    report = ines.get(f"/instructor/students/{alice}/report").text
    assert bar_labels(report) == ["Q、K、V 投影", "Softmax", "多头注意力"]
    skills = dict(re.findall(r'<tr data-skill="([^"]+)">\s*<td>([^<]*)</td>', report))
    assert (skills["qkv"], skills["multi_head"], skills["add_norm"]) == (
        "Q、K、V 投影",
        "多头注意力",
        "残差与归一化（Add &amp; Norm）",
    )
    drills = re.findall(r'<td data-skill="([^"]+)">([^<]*)</td>', report)
    # the drill history, newest first
    assert drills == [("qkv", "Q、K、V 投影"), ("multi_head", "多头注意力"), ("softmax", "Softmax")]
    ines.post("/lang/en")
    report = ines.get(f"/instructor/students/{alice}/report").text
    assert bar_labels(report) == ["Q, K and V projections", "Softmax", "Multi-head attention"]


def test_a_download_leaves_no_transaction_open_even_if_abandoned(app, browser_for, sessions):
    """The stream reads through its own read-only session, closed when the stream ends or
    is closed early: learners can write right after (SQLite allows one writer)."""
    alice_works(app, browser_for, sessions)
    ines = browser_for("ines")
    for url in (
        "/instructor/reports/gradebook.csv",
        "/instructor/reports/events.csv",
        "/instructor/reports/events.jsonl",
    ):
        assert download(ines, url).get_data()
        abandoned = ines.client.get(url)
        assert abandoned.is_streamed
        assert next(iter(abandoned.response))  # the first chunk only, then the client leaves
        abandoned.close()
    # writes go through at once: an answer, a drill submission and a review
    bob = browser_for("bob")
    bob.get(CHAPTER_URL)
    response = bob.post(f"{CHAPTER_URL}/questions/why-multi-head", {"text": "semantic"})
    assert response.status_code == 302
    with sessions() as session:
        [waiting] = store.answers_awaiting_review(session)
    assert (
        ines.post(f"/instructor/reviews/{waiting.answer_id}", {"score": "100"}).status_code == 302
    )
    assert len(download(ines, "/instructor/reports/events.jsonl").get_data().splitlines()) == 4


def test_the_printable_report_is_in_the_student_s_language(app, browser_for, sessions):
    """Alice chose Chinese: her report is in Chinese for an instructor reading English, while
    the page's navigation stays in the instructor's language."""
    alice_works(app, browser_for, sessions)
    alice = user_id(sessions, "alice")
    with sessions() as session:
        store.set_language(session, alice, "zh")
        session.commit()
    ines = browser_for("ines")
    ines.post("/lang/en")
    page = ines.get(f"/instructor/students/{alice}/report").text
    assert '<html lang="en">' in page
    article = re.search(r"<article (.*?)</article>", page, re.DOTALL).group(0)
    assert 'lang="zh-CN"' in article.split(">", 1)[0]
    assert "<h2>章节总分：" in article  # "Chapter total: "
    assert "Chapter total" not in article
    assert re.findall(r"<figure class='chart'><figcaption>([^<]*)</figcaption>", article) == [
        "各技能掌握度（0–100%）",
        "练习得分（从早到晚，0–100%）",
    ]
    # the prompts in the student's language too (qkv-origin's Chinese prompt)
    prompt = re.search(
        r'<tr data-question="qkv-origin">.*?<td class="prompt-excerpt">([^<]*)</td>', article, re.S
    ).group(1)
    assert re.search(r"[\u4e00-\u9fff]", prompt)
    note = re.search(r'<p class="no-print help" id="report-language">(.*?)</p>', page, re.S)
    assert "The report is in the language the student chose: 中文." in note.group(1)
    nav = page.split("<article", 1)[0]
    assert "Reports" in nav and "报告" not in nav

    # bob chose nothing: his report is in the instructor's language, and says so
    bob = user_id(sessions, "bob")
    page = ines.get(f"/instructor/students/{bob}/report").text
    assert "<h2>Chapter total: " in page
    assert "The student has not chosen a language: the report is in yours, English." in page


def test_the_print_stylesheet_gives_each_report_its_own_sheet(browser_for):
    css = browser_for("ines").get("/static/style.css").text
    assert css.count("@media print") == 1  # the one stylesheet, one print section
    print_css = css[css.index("@media print") :]
    print_css = print_css[: print_css.index("\n}\n")]
    assert re.search(r"article\.student-report \{ break-after: page;", print_css)
    assert "nav.instructor-nav" in print_css and ".no-print" in print_css
