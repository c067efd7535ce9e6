"""The instructor's pages: access, content reload, preview, self-test, review queue, students.

Every test runs on its own copy of content/ (conftest's `content_dir`), so a test may edit the
content on disk and reload it.
"""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

import pytest
from flask import url_for
from sqlalchemy import func, select
from web_helpers import PASSWORD, count, english_day, english_when, user_id

from quizsvc import practice, store
from quizsvc.web.instructor import review as review_pages
from quizsvc.web.instructor.review import ReviewInputError, highlight, parse_score
from quizsvc.web.render import format_percent

CHAPTER = "transformer-by-hand"
CHAPTER_URL = f"/chapters/{CHAPTER}"
QUESTIONS_FILE = "transformer-by-hand/questions.yaml"
FIRST_PROMPT_EN = "Where are Q, K and V computed from?"


def live_bank(app):
    return app.extensions["quizsvc"].bank


def text_of(response) -> str:
    """The page's text, tags removed and entities decoded, whitespace collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", response.text)).split())


# --- access ------------------------------------------------------------------------------


def instructor_routes(app) -> list[tuple[str, str, str]]:
    """(endpoint, method, url) for every instructor route, with 1 for every URL variable."""
    routes = []
    with app.test_request_context():
        for rule in app.url_map.iter_rules():
            if not rule.endpoint.startswith("instructor."):
                continue
            url = url_for(rule.endpoint, **{name: 1 for name in rule.arguments})
            for method in sorted({"GET", "POST"} & rule.methods):
                routes.append((rule.endpoint, method, url))
    return routes


def test_every_instructor_route_is_for_instructors_only(app, browser_for):
    routes = instructor_routes(app)
    endpoints = {endpoint for endpoint, _, _ in routes}
    # the routes this test must cover (a new one is covered as soon as it exists)
    assert {
        "instructor.index",
        "instructor.content",
        "instructor.reload_content",
        "instructor.preview",
        "instructor.selftest",
        "instructor.run_selftest_view",
        "instructor.reviews",
        "instructor.review",
        "instructor.students",
        "instructor.student",
        "instructor.student_report",
        "instructor.reports_page",
        "instructor.gradebook_csv",
        "instructor.events_csv",
        "instructor.events_jsonl",
    } <= endpoints
    assert {method for _, method, _ in routes} == {"GET", "POST"}
    assert all(url.startswith("/instructor/") for _, _, url in routes)

    alice = browser_for("alice")
    anonymous = browser_for()
    ines = browser_for("ines")
    for endpoint, method, url in routes:
        where = (endpoint, method, url)
        if method == "GET":
            assert alice.get(url).status_code == 403, where
            response = anonymous.get(url)
        else:
            assert alice.post(url, {"score": "1", "comment": "x"}).status_code == 403, where
            response = anonymous.post(url, {"score": "1", "comment": "x"})
        assert response.status_code == 302, where
        assert response.headers["Location"].startswith("/login?next="), where
        if method == "GET":
            # and the instructor is let in (404 only where the dummy id names nobody; the
            # reload confirmation's address sends a GET back to the content page)
            assert ines.get(url).status_code in (200, 302, 404), where
    # a student's POST changed nothing
    assert count_reviews(app) == 0


def count_reviews(app) -> int:
    with app.extensions["quizsvc"].sessions() as session:
        return session.scalar(select(func.count()).select_from(store.OpenAnswerReview))


def test_the_instructor_link_is_in_the_instructors_navigation_only(browser_for):
    ines_page = browser_for("ines").get(CHAPTER_URL)
    assert 'id="nav-instructor"' in ines_page.text
    assert 'href="/instructor/"' in ines_page.text
    alice_page = browser_for("alice").get(CHAPTER_URL)
    assert 'id="nav-instructor"' not in alice_page.text
    assert "/instructor/" not in alice_page.text


def test_a_student_post_without_csrf_token_is_refused_before_anything_else(app, browser_for):
    ines = browser_for("ines")
    response = ines.client.post("/instructor/content/reload", data={})
    assert response.status_code == 400
    assert "CSRF" in response.text


# --- content and reload --------------------------------------------------------------------


def test_the_content_page_lists_chapters_and_questions_with_their_source(app, browser_for):
    ines = browser_for("ines")
    ines.post("/lang/en")
    page = ines.get("/instructor/content")
    assert page.status_code == 200
    bank = live_bank(app)
    assert bank.version in page.text
    assert "The content on disk is valid" in page.text
    assert "same as the live bank" in page.text
    rows = re.findall(r'<tr data-question="([^"]+)">', page.text)
    assert rows == list(bank.questions)
    assert len(rows) == 20
    # file:line of questions, checked by hand against the YAML
    assert "<code>transformer-by-hand/questions.yaml:4</code>" in page.text  # qkv-origin
    assert "<code>transformer-by-hand/drills.yaml:8</code>" in page.text  # first drill
    assert FIRST_PROMPT_EN in page.text
    assert "every worker process of the service switches" in page.text
    assert "worker-versions" not in page.text  # one process, serving the live version


def edit(content_dir: Path, old: str, new: str, file: str = QUESTIONS_FILE) -> None:
    path = content_dir / file
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_reloading_valid_content_serves_it_without_a_restart(app, browser_for, content_dir):
    old_bank = live_bank(app)
    alice = browser_for("alice")
    alice.post("/lang/en")
    assert FIRST_PROMPT_EN in alice.get(CHAPTER_URL).text

    new_prompt = "Where do Q, K and V come from (revised)?"
    edit(content_dir, f"en: {FIRST_PROMPT_EN}", f"en: {new_prompt}")
    ines = browser_for("ines")
    ines.post("/lang/en")
    before = ines.get("/instructor/content")
    assert "differs from the live bank" in before.text
    assert new_prompt not in before.text  # only on disk so far

    response = ines.post("/instructor/content/reload")
    assert response.status_code == 302
    assert response.headers["Location"] == "/instructor/content"
    page = ines.get("/instructor/content")
    assert new_prompt in page.text
    assert "Reloaded: version" in page.text
    assert live_bank(app) is not old_bank
    assert live_bank(app).version != old_bank.version
    assert live_bank(app).version in page.text
    # and the learners see it at once
    chapter = alice.get(CHAPTER_URL).text
    assert new_prompt in chapter
    assert FIRST_PROMPT_EN not in chapter

    # reloading unchanged content keeps the same version and says so
    ines.post("/instructor/content/reload")
    assert "the content has not changed" in ines.get("/instructor/content").text


def test_invalid_content_is_rejected_whole_and_the_old_bank_stays_live(
    app, browser_for, content_dir
):
    old_bank = live_bank(app)
    alice = browser_for("alice")
    alice.post("/lang/en")
    # a valid change and an invalid one in the same reload: neither may be served
    edit(content_dir, f"en: {FIRST_PROMPT_EN}", "en: A prompt that must never be served")
    edit(
        content_dir,
        "  - id: scaling-by-sqrt-dk\n    type: single_choice\n",
        "  - id: scaling-by-sqrt-dk\n    type: single_choise\n",
    )
    lines = (content_dir / QUESTIONS_FILE).read_text(encoding="utf-8").splitlines()
    bad_line = lines.index("    type: single_choise") + 1
    assert bad_line == 36  # by hand: the question starts on line 35, its type is line 36

    ines = browser_for("ines")
    ines.post("/lang/en")
    response = ines.post("/instructor/content/reload")
    assert response.status_code == 422
    assert "was rejected as a whole" in response.text
    errors = re.findall(
        r'<tr class="content-error"><td class="file">([^<]*)</td><td class="line">([^<]*)</td>'
        r'<td class="path"><code>([^<]*)</code></td>',
        response.text,
    )
    assert (QUESTIONS_FILE, str(bad_line), "questions[1].type") in errors, errors
    assert "single_choise" in response.text  # the message quotes the bad value
    # the old bank is still the live one, object for object
    assert live_bank(app) is old_bank
    assert old_bank.version in response.text
    assert "A prompt that must never be served" not in response.text

    # learners are still served the old content
    chapter = alice.get(CHAPTER_URL)
    assert chapter.status_code == 200
    assert FIRST_PROMPT_EN in chapter.text
    assert "never be served" not in chapter.text
    # and the content page keeps reporting what is wrong on disk
    page = ines.get("/instructor/content")
    assert "The content on disk has errors (1; the live bank is not affected)" in page.text
    assert f'<td class="line">{bad_line}</td>' in page.text
    # the live questions of the broken file say so; the others are simply live
    status = dict(
        re.findall(
            r'<tr data-question="([^"]+)">.*?<td class="[a-z]+ status">([^<]*)</td>',
            page.text,
            re.S,
        )
    )
    assert status["qkv-origin"] == "live; its file on disk has errors"
    assert status["drill-softmax-row"] == "live"


def test_a_reload_names_what_an_editor_or_input_method_got_wrong(app, browser_for, content_dir):
    """A file saved as GBK by a Chinese Windows editor and a full-width colon typed as YAML:
    each error says which file, which line and what to do; the live bank stays."""
    old_bank = live_bank(app)
    chapter = content_dir / CHAPTER
    drills = (chapter / "drills.yaml").read_text(encoding="utf-8")
    (chapter / "drills.yaml").write_bytes(drills.encode("gb18030"))
    first_chinese_line = next(
        number
        for number, line in enumerate(drills.splitlines(), start=1)
        if any(ord(character) > 127 for character in line)
    )
    edit(
        content_dir,
        "  - id: scaling-by-sqrt-dk\n    type: single_choice\n",
        "  - id: scaling-by-sqrt-dk\n    type\uff1asingle_choice\n",
    )
    questions = (chapter / "questions.yaml").read_text(encoding="utf-8").splitlines()
    colon_line = questions.index("    type\uff1asingle_choice") + 1

    ines = browser_for("ines")
    ines.post("/lang/en")
    response = ines.post("/instructor/content/reload")
    assert response.status_code == 422
    rows = re.findall(
        r'<tr class="content-error"><td class="file">([^<]*)</td><td class="line">([^<]*)</td>'
        r'<td class="path"><code>([^<]*)</code></td><td class="message">([^<]*)</td>',
        response.text,
    )
    messages = {(file, line): html.unescape(message) for file, line, _, message in rows}
    assert len(rows) == 2, rows
    assert messages[(f"{CHAPTER}/drills.yaml", str(first_chinese_line))].startswith(
        "file is not UTF-8 but most likely GBK/GB18030, as Chinese Windows editors save by"
        " default: save it as UTF-8"
    )
    assert messages[(QUESTIONS_FILE, str(colon_line))].startswith(
        "a full-width colon '\uff1a' after 'type': write an ASCII colon and a space, 'type: '"
    )
    assert live_bank(app) is old_bank


def test_a_reload_with_a_corrupt_trained_model_keeps_the_served_weights(
    app, browser_for, content_dir
):
    old_bank = live_bank(app)
    weights = content_dir / CHAPTER / "model" / "model.npz"
    weights.write_bytes(weights.read_bytes()[:4096])  # cut off, as by a failed copy
    ines = browser_for("ines")
    ines.post("/lang/zh")
    response = ines.post("/instructor/content/reload")
    assert response.status_code == 422
    assert f"{CHAPTER}/model/model.npz" in response.text
    assert "训练好的模型无法使用" in html.unescape(response.text)
    assert live_bank(app) is old_bank
    assert live_bank(app).models[CHAPTER] is old_bank.models[CHAPTER]


def test_a_missing_content_directory_is_an_error_not_a_crash(app, browser_for, content_dir):
    old_bank = live_bank(app)
    shutil.rmtree(content_dir)
    ines = browser_for("ines")
    ines.post("/lang/en")
    response = ines.post("/instructor/content/reload")
    assert response.status_code == 422
    assert "not found" in response.text
    assert live_bank(app) is old_bank
    assert browser_for("alice").get(CHAPTER_URL).status_code == 200


# --- preview -----------------------------------------------------------------------------


def section(page: str, start: str, end: str = "</article>") -> str:
    begin = page.index(start)
    return page[begin : page.index(end, begin)]


def test_preview_of_a_drill_shows_the_variant_answer_and_solution_for_a_seed(
    app, browser_for, sessions
):
    ines = browser_for("ines")
    ines.post("/lang/en")
    page = ines.get("/instructor/preview?question=drill-softmax-row&seed=7")
    assert page.status_code == 200
    variant = section(page.text, '<section class="variant"')
    assert 'data-seed="7"' in variant
    # seed 7 gives the row [2.8, 1.5, 1.8]; softmax by hand: e^2.8 = 16.445,
    # e^1.5 = 4.482, e^1.8 = 6.050, sum 26.976 -> 0.610, 0.166, 0.224
    given = section(variant, '<div class="given">', "</div>")
    assert [c for c in re.findall(r"<td>([^<]+)</td>", given)] == ["2.8", "1.5", "1.8"]
    expected = section(variant, '<section class="expected">', "</section>")
    assert re.findall(r"<td>([^<]+)</td>", expected) == ["0.61", "0.166", "0.224"]
    assert "Worked solution" in variant
    assert "class='heatmap'" in variant  # the attention weights as a heatmap
    assert "Exponentials" in variant and "Normalize" in variant  # the solution's steps

    # the same seed gives the same variant; another seed another one
    again = ines.get("/instructor/preview?question=drill-softmax-row&seed=7")
    assert section(again.text, '<section class="variant"') == variant
    other = ines.get("/instructor/preview?question=drill-softmax-row&seed=8")
    assert section(other.text, '<section class="variant"') != variant
    # a preview stores nothing
    assert count(sessions, store.DrillVariant) == 0
    assert count(sessions, store.ContentVersion) == 0


def test_preview_of_the_score_row_drill_matches_a_hand_computation(browser_for):
    ines = browser_for("ines")
    ines.post("/lang/en")
    page = ines.get("/instructor/preview?question=drill-score-row&seed=7")
    variant = section(page.text, '<section class="variant"')
    # q0 = [1.4, 0.6, 0.7, 1.3]; K rows [0.5, 1, 1.1, -0.5], [-0.9, -0.3, -0.3, 1.2],
    # [1.3, -1, 0.2, 1.1]; q0·k / √4 = 1.42/2, -0.09/2, 2.79/2
    expected = section(variant, '<section class="expected">', "</section>")
    assert re.findall(r"<td>([^<]+)</td>", expected) == ["0.71", "−0.045", "1.395"]


def test_preview_of_a_drill_states_its_rules_params_and_grid_as_the_learner_gets_them(
    browser_for,
):
    ines = browser_for("ines")
    ines.post("/lang/en")
    page = ines.get("/instructor/preview?question=drill-softmax-row&seed=7").text
    variant = section(page, '<section class="variant"')
    # above the learner's grid, as on the drill page: its own words (3 attempts, penalty
    # 0.1, atol 0.005), not "0.1"
    rules = section(variant, '<ul class="rules" id="rules">', "</ul>")
    assert re.findall(r"<li>(.*?)</li>", rules) == [
        "Keep 3 decimals in each intermediate result and give the answer to 3.",
        "Answers within ±0.005 of the exact value count as correct.",
        "Each further attempt takes 10% off the score.",
    ]
    assert variant.index('id="rules"') > variant.index('<section class="learner-grid"')
    assert variant.index('id="rules"') < variant.index('<table class="matrix grid">')
    assert '<p class="attempts-left">Attempts left: 3</p>' in variant
    assert "penalty per retry" not in page and "atol" not in page
    params = section(variant, '<dl class="params" id="params">', "</dl>")
    assert re.findall(r"<dt><code>(.*?)</code></dt><dd><code>(.*?)</code></dd>", params) == [
        ("n", "3")
    ]
    # the answer's grid, empty and disabled, headed as on the drill page: one row of
    # weights over the three words of the given scores
    grid = section(variant, '<section class="learner-grid" id="learner-grid">', "</section>")
    assert re.findall(r'<th scope="col" lang=\'zh-CN\'>(.*?)</th>', grid) == ["我", "爱", "你"]
    assert re.findall(r'<th scope="row">(.*?)</th>', grid) == ["weight"]
    assert re.findall(r'<input class="cell" size="7" disabled aria-label="([^"]+)">', grid) == [
        "weight, 我",
        "weight, 爱",
        "weight, 你",
    ]
    assert "<form" not in grid

    # one attempt, exact: no penalty to state, but that there is no retry; one number in one
    # labelled input; a parameter the kind leaves unset shows as null
    page = ines.get("/instructor/preview?question=drill-greedy-next-token&seed=7").text
    variant = section(page, '<section class="variant"')
    rules = section(variant, '<ul class="rules" id="rules">', "</ul>")
    assert re.findall(r"<li>(.*?)</li>", rules) == [
        "Answer with a whole number: the token&#39;s id.",
        "Only the exact value counts as correct.",
        "One attempt: this drill cannot be retried.",
    ]
    assert '<p class="attempts-left">Attempts left: 1</p>' in variant
    # on the chapter's trained model (the kind's default), the seed's sentence recorded
    assert re.findall(r"<dt><code>(.*?)</code></dt><dd><code>(.*?)</code></dd>", variant) == [
        ("weights", "trained"),
        ("vocab_size", "6"),
        ("generated", "2"),
        ("sentence", "37"),
    ]
    assert (
        '<p class="scalar-answer"><label for="preview-cell-0-0">next token id</label> '
        '<input id="preview-cell-0-0" class="cell" size="7" disabled></p>'
    ) in variant
    page = ines.get("/instructor/preview?question=drill-multi-head&seed=7").text
    assert "<dt><code>head</code></dt><dd><code>null</code></dd>" in page

    ines.post("/lang/zh")
    page = ines.get("/instructor/preview?question=drill-softmax-row&seed=7").text
    assert re.findall(
        r"<li>(.*?)</li>", section(page, '<ul class="rules" id="rules">', "</ul>")
    ) == [
        "中间结果保留 3 位小数，答案保留 3 位小数。",
        "与精确值相差不超过 ±0.005 的答案算对。",
        "每多尝试一次，得分扣 10%。",
    ]


def test_a_drills_preview_states_the_rules_its_learners_page_does(browser_for):
    alice, ines = browser_for("alice"), browser_for("ines")
    for who in (alice, ines):
        who.post("/lang/en")
    rules = r'<ul class="rules" id="rules">(.*?)</ul>'
    for question_id in ("drill-softmax-row", "drill-add-norm", "drill-greedy-next-token"):
        response = alice.post(f"/drills/{question_id}/variants")
        learner = alice.get(response.headers["Location"]).text
        preview = ines.get(f"/instructor/preview?question={question_id}").text
        assert re.search(rules, learner).group(1) == re.search(rules, preview).group(1)


def test_preview_of_a_choice_question_shows_its_public_and_solution_views(app, browser_for):
    ines = browser_for("ines")
    ines.post("/lang/en")
    page = ines.get("/instructor/preview?question=qkv-origin")
    assert page.status_code == 200
    question = live_bank(app).questions["qkv-origin"]
    public = section(page.text, '<section class="public-view">', "</section>")
    assert FIRST_PROMPT_EN in public
    assert "correct-choice" not in public
    # what the chapter page's form says above the options (its fieldset's legend)
    assert '<p class="choice-legend">Choose one answer</p>' in public
    solution = section(page.text, '<section class="solution-view">', "</section>")
    assert f'<b class="correct-choice">{question.correct}</b>' in solution
    assert "Explanation" in solution


MULTIPLE_CHOICE_QUESTION = """
  - id: decoder-extras
    type: multiple_choice
    tags: [masking]
    prompt: {zh: Decoder 多了什么？, en: "What does the decoder add?"}
    choices:
      - {id: A, text: {zh: 掩码, en: A mask}, score: 1}
      - {id: B, text: {zh: 没有 FFN, en: No FFN}, score: 0}
    explanation: {zh: 掩码。, en: A mask.}
"""


def test_preview_of_a_multiple_choice_question_says_to_choose_every_answer_that_applies(
    browser_for, content_dir
):
    path = content_dir / QUESTIONS_FILE
    path.write_text(path.read_text(encoding="utf-8") + MULTIPLE_CHOICE_QUESTION, encoding="utf-8")
    ines = browser_for("ines")
    assert ines.post("/instructor/content/reload").status_code == 302
    ines.post("/lang/zh")
    page = ines.get("/instructor/preview?question=decoder-extras")
    public = section(page.text, '<section class="public-view">', "</section>")
    assert '<p class="choice-legend">选择所有符合的答案</p>' in public
    # the learner's chapter page, for comparison
    alice = browser_for("alice")
    alice.post("/lang/zh")
    assert "<legend>选择所有符合的答案</legend>" in alice.get(f"/chapters/{CHAPTER}").text


def test_preview_of_an_open_question_shows_reference_answer_and_rubric(browser_for):
    ines = browser_for("ines")
    ines.post("/lang/en")
    page = ines.get("/instructor/preview?question=why-multi-head")
    solution = section(page.text, '<section class="solution-view">', "</section>")
    assert "Reference answer" in solution
    assert "One head can capture only one kind of relationship pattern" in solution
    assert "different angles" in solution  # the phrases the grader looks for


def test_preview_rejects_a_bad_seed_and_an_unknown_question(browser_for):
    ines = browser_for("ines")
    ines.post("/lang/en")
    for seed in ("abc", "-1", "1.5", str(2**63)):
        response = ines.get(f"/instructor/preview?question=drill-softmax-row&seed={seed}")
        assert response.status_code == 400, seed
        assert "The seed must be a whole number" in response.text
    response = ines.get("/instructor/preview?question=no-such-question")
    assert response.status_code == 404
    assert "There is no question" in response.text
    # no question chosen: just the form
    page = ines.get("/instructor/preview")
    assert page.status_code == 200
    assert 'id="preview-question"' in page.text
    assert 'id="preview"' not in page.text


# --- self-test ---------------------------------------------------------------------------


def test_the_self_test_runs_on_the_live_bank_and_shows_per_question_results(
    app, browser_for, content_dir
):
    ines = browser_for("ines")
    ines.post("/lang/en")
    page = ines.get("/instructor/selftest")
    assert page.status_code == 200
    assert 'id="selftest-results"' not in page.text  # runs only on request
    result = ines.post("/instructor/selftest")
    assert result.status_code == 200
    assert "16 questions tested (424 checks): 16 passed, 0 failed; 4 skipped" in result.text
    rows = dict(re.findall(r'<tr data-question="([^"]+)" data-passed="(true|false)">', result.text))
    assert len(rows) == 16 and set(rows.values()) == {"true"}
    assert "30/30" in result.text  # a drill: 6 checks for each of 5 seeds

    # a tolerance so loose that mistakes pass: the self-test of the reloaded bank says so
    edit(
        content_dir,
        "    params: {}\n    tolerance: {atol: 0.005, rtol: 0}\n\n  - id: drill-masked-row",
        "    params: {}\n    tolerance: {atol: 0.5, rtol: 0}\n\n  - id: drill-masked-row",
        file="transformer-by-hand/drills.yaml",
    )
    assert ines.post("/instructor/content/reload").status_code == 302
    result = ines.post("/instructor/selftest")
    rows = dict(re.findall(r'<tr data-question="([^"]+)" data-passed="(true|false)">', result.text))
    assert rows["drill-softmax-row"] == "false"
    assert [q for q, passed in rows.items() if passed == "false"] == ["drill-softmax-row"]
    assert "16 questions tested (424 checks): 15 passed, 1 failed" in result.text
    assert "is too loose" in result.text
    assert "<code>transformer-by-hand/drills.yaml:60</code>" in result.text


# --- review queue ------------------------------------------------------------------------

OPEN_ANSWER = (
    "A head learns <b>one pattern</b>; heads look from different angles "
    "and are concatenated. <script>alert(1)</script>"
)


def answer_open_question(browser, text: str = OPEN_ANSWER, question: str = "why-multi-head"):
    browser.get(CHAPTER_URL)
    response = browser.post(f"{CHAPTER_URL}/questions/{question}", {"text": text})
    assert response.status_code == 302, response.text
    return response


def queue_section(page: str, answer_id: int) -> str:
    return section(page, f'<section class="review question" id="answer-{answer_id}"', "</section>")


def awaiting_ids(sessions) -> list[int]:
    with sessions() as session:
        return [a.answer_id for a in store.answers_awaiting_review(session)]


def an_answer_in_ines_queue(browser_for, sessions):
    """alice answers the open question; returns ines (reading English) and that answer's id."""
    answer_open_question(browser_for("alice"))
    [answer_id] = awaiting_ids(sessions)
    ines = browser_for("ines")
    ines.post("/lang/en")
    return ines, answer_id


def test_review_flow_from_answer_to_the_students_chapter_page(app, browser_for, sessions):
    alice = browser_for("alice")
    alice.post("/lang/en")
    answer_open_question(alice)
    chapter = alice.get(CHAPTER_URL).text
    assert "Waiting for an instructor&#39;s review.</p>" in chapter
    assert "80%" not in chapter  # the suggestion below is the instructor's alone
    [answer_id] = awaiting_ids(sessions)

    ines = browser_for("ines")
    ines.post("/lang/en")
    queue = ines.get("/instructor/reviews")
    assert queue.status_code == 200
    item = queue_section(queue.text, answer_id)
    assert 'data-question="why-multi-head"' in item
    assert "Alice" in item or "alice" in item
    # the rubric's phrases are marked, everything else is escaped
    assert (
        "A head learns &lt;b&gt;<mark>one pattern</mark>&lt;/b&gt;; heads look from "
        "<mark>different angles</mark> and are <mark>concatenat</mark>ed. "
        "&lt;script&gt;alert(1)&lt;/script&gt;"
    ) in item
    assert "<script>alert" not in queue.text
    assert "<b>one pattern</b>" not in queue.text
    found = dict(re.findall(r'data-key="([^"]+)" data-found="(true|false)"', item))
    assert found == {
        "one-pattern-per-head": "true",
        "several-perspectives": "true",
        "independent-projections": "false",
        "concatenate-outputs": "true",
    }
    assert "Reference answer" in item
    assert "Each head has its own Wq/Wk/Wv and computes attention independently" in item
    # suggested by hand: one-pattern (0.3) + different angles (0.35) + concatenat (0.15)
    # found, independent projections (0.2) not: 0.8 of 1.0
    assert "Suggested score: <b>80%</b>" in item
    # a suggestion beside the form, nothing in it (tests/web/test_web_review_flow.py)
    assert 'name="score" size="8" autocomplete="off" value=""' in item

    response = ines.post(
        f"/instructor/reviews/{answer_id}",
        {"score": "75", "comment": "Good, but say why each head has its own W_q."},
    )
    assert response.status_code == 302
    assert response.headers["Location"] == "/instructor/reviews"
    queue = ines.get("/instructor/reviews")
    assert f'id="answer-{answer_id}"' not in queue.text
    assert 'id="queue-empty"' in queue.text
    # whose answer to what, and the score as typed (no "75.0%")
    assert (
        "Reviewed alice&#39;s answer (1) to “Why does multi-head attention need more than one "
        "head?”: 75%."
    ) in queue.text
    assert awaiting_ids(sessions) == []

    chapter = alice.get(CHAPTER_URL).text
    assert "Instructor&#39;s score: 75%" in chapter
    assert "Comment: Good, but say why each head has its own W_q." in chapter
    assert "Waiting for an instructor" not in chapter
    # the review scores the chapter's quiz, not a skill (a skill counts drills only):
    # 0.75 x the question's 2 points of the chapter's 8
    with sessions() as session:
        assert store.progress_for(session, user_id(sessions, "alice")) == []
        [review] = session.scalars(select(store.OpenAnswerReview)).all()
    assert quiz_line(alice) == "1 of 6 questions answered; score so far 1.5 of 8 points."
    assert (review.reviewer_id, review.confirmed_score) == (user_id(sessions, "ines"), 0.75)
    assert review.suggested_score == pytest.approx(0.8)  # 0.3 + 0.35 + 0.15, in floats
    # the score as typed on the instructor's pages too, not "75.0%"
    student_page = ines.get(f"/instructor/students/{user_id(sessions, 'alice')}").text
    row = section(student_page, f'<tr data-answer="{review.answer_id}">', "</tr>")
    assert "<td>75%</td>" in row
    history = ines.get(f"/instructor/reviews/{review.answer_id}").text
    assert re.search(r"<li data-review=\"\d+\">[^<]*ines[^<]*: 75%", history)


@pytest.mark.parametrize(
    ("typed", "score"),
    [
        ("75%", 0.75),
        ("75 %", 0.75),
        ("75", 0.75),
        ("12,5", 0.125),
        ("1%", 0.01),
        ("1.5", 0.015),
        ("100%", 1.0),
        ("100", 1.0),
        ("0", 0.0),
        ("0%", 0.0),
        ("12.5%", 0.125),
        ("1.5/2", 0.75),
        ("1,5 / 2", 0.75),
        ("2/2", 1.0),
        ("0/2", 0.0),
        ("3/4", 0.75),
        ("1/1", 1.0),  # a question worth one point
        ("0.5/1", 0.5),
        # typed with a Chinese input method in full-width mode, or with "。" for "."
        ("７５％", 0.75),
        ("75％", 0.75),
        ("１．５／２", 0.75),
        ("1。5/2", 0.75),
    ],
)
def test_scores_are_read_as_percentages_or_points(app, typed, score):
    with app.test_request_context():
        assert parse_score(typed) == pytest.approx(score, abs=1e-12)


@pytest.mark.parametrize(
    ("score", "shown"),
    [
        (0.75, "75%"),
        (0.125, "12.5%"),
        (0.3125, "31.3%"),  # 31.25 %: a half rounds up, as learners round (四舍五入)
        (1 / 3, "33.3%"),
        (0.0, "0%"),
        (1.0, "100%"),
        (0.9996, "100%"),
    ],
)
def test_a_reviewed_score_is_shown_with_a_decimal_only_where_it_has_one(score, shown):
    assert format_percent(score) == shown


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("", "Enter a score"),
        ("  ", "Enter a score"),
        ("abc", "Cannot read"),
        ("-0.5", "Cannot read"),
        ("-10%", "Cannot read"),
        ("1e2", "Cannot read"),
        ("nan", "Cannot read"),
        ("inf", "Cannot read"),
        ("0.5.5", "Cannot read"),
        ("%", "Cannot read"),
        ("101", "at most 100"),
        ("150%", "at most 100"),
        ("0.75", "write 75 for a percentage"),
        (".5", "write 50 for a percentage"),
        ("1", "write 100 for a percentage"),
        ("1.0", "write 100 for a percentage"),
        ("3/2", "points must be from 0"),
        ("1/0", "points must be from 0"),
        ("0/0", "points must be from 0"),
        ("/2", "Cannot read"),
    ],
)
def test_unreadable_out_of_range_or_ambiguous_scores_are_refused(app, typed, message):
    with app.test_request_context(), pytest.raises(ReviewInputError, match=message):
        parse_score(typed)


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"score": "abc"}, "Cannot read the score &#39;abc&#39;"),
        ({"score": "150"}, "a percentage is at most 100"),
        ({"score": "-1"}, "Cannot read the score"),
        ({"score": ""}, "Tick the key points the answer makes, or enter a score"),
        ({"score": "50", "comment": "x" * 5001}, "at most 5000 characters"),
    ],
)
def test_a_bad_review_is_refused_with_a_message_and_nothing_is_stored(
    app, browser_for, sessions, form, message
):
    ines, answer_id = an_answer_in_ines_queue(browser_for, sessions)
    ines.get("/instructor/reviews")
    response = ines.post(f"/instructor/reviews/{answer_id}", form)
    assert response.status_code == 422
    item = queue_section(response.text, answer_id)
    assert 'class="inline-error"' in item
    assert message in item
    assert awaiting_ids(sessions) == [answer_id]
    assert count(sessions, store.OpenAnswerReview) == 0
    with sessions() as session:
        assert store.progress_for(session, user_id(sessions, "alice")) == []


def test_reviewing_an_unknown_or_a_choice_answer_is_refused(app, browser_for, sessions):
    alice = browser_for("alice")
    alice.get(CHAPTER_URL)
    alice.post(f"{CHAPTER_URL}/questions/qkv-origin", {"choice": "A"})
    ines = browser_for("ines")
    ines.post("/lang/en")
    ines.get("/instructor/reviews")
    assert ines.post("/instructor/reviews/999", {"score": "100"}).status_code == 404
    with sessions() as session:
        [choice_answer] = session.scalars(select(store.QuizAnswer.id)).all()
    response = ines.post(f"/instructor/reviews/{choice_answer}", {"score": "100"})
    assert response.status_code == 409
    assert "not an open answer" in response.text
    assert count(sessions, store.OpenAnswerReview) == 0


@pytest.mark.parametrize(
    ("text", "language"),
    [
        # 10 Han characters against 8 Latin words (W, q, W, k, W, v, softmax, attention)
        ("每个头有自己的 W_q W_k W_v，用 softmax 计算 attention", "zh"),
        ("A head learns one pattern; heads look from different angles.", "en"),
        ("The token 我 attends to 爱", "en"),  # 2 characters, 4 words
        ("头 head", None),  # as many of each
        ("0.5, 0.25 → 0.75", None),  # neither
    ],
)
def test_an_answers_language_is_read_from_its_han_characters_and_latin_words(text, language):
    assert review_pages.answer_language(text) == language


def test_the_reference_answer_is_shown_in_the_language_of_the_answer(app, browser_for, sessions):
    alice = browser_for("alice")
    answer_open_question(alice, "一个头只能学到一种关系模式，多个头从不同角度看，最后拼接输出。")
    [chinese] = awaiting_ids(sessions)
    ines = browser_for("ines")
    ines.post("/lang/en")
    item = queue_section(ines.get("/instructor/reviews").text, chinese)
    reference = section(item, '<div class="reference">', '<div class="suggestion"')
    assert (
        '<p class="help reference-language">Shown in Chinese, the language the answer is '
        "written in, to read beside it.</p>"
    ) in reference
    assert '<div lang="zh-CN"><p>一个 Attention 头只能学到一种' in reference
    assert "One attention head" not in reference
    assert "Why does multi-head attention need more than one head?" in item  # the page's
    # the key points too, to look for in the answer
    points = section(item, '<ul class="key-points" lang="zh-CN">', "</ul>")
    assert '一个头只能捕获一种"关系模式"' in html.unescape(points)
    assert "One head can capture only one kind" not in points
    # the answer's own page says the same
    page = ines.get(f"/instructor/reviews/{chinese}").text
    assert '<div lang="zh-CN"><p>一个 Attention 头只能学到一种' in page

    # an English answer read in Chinese: the English reference, so noted; in the page's
    # own language, no note
    bob = browser_for("bob")
    answer_open_question(bob)
    [english] = [a for a in awaiting_ids(sessions) if a != chinese]
    ines.post("/lang/zh")
    item = queue_section(ines.get("/instructor/reviews").text, english)
    assert "以学生作答的语言（英文）显示，便于对照。" in item
    assert '<div lang="en"><p>One attention head can learn only one kind' in item
    ines.post("/lang/en")
    item = queue_section(ines.get("/instructor/reviews").text, english)
    assert "reference-language" not in item and 'lang="' not in item
    assert "One attention head can learn only one kind" in item


def test_the_queue_lists_answers_oldest_first_with_each_learner(app, browser_for, sessions):
    alice, bob = browser_for("alice"), browser_for("bob")
    answer_open_question(alice, "Each head has its own projection, independently.")
    answer_open_question(bob, "因为每个头从不同角度看，最后拼接。", "why-multi-head")
    answer_open_question(alice, "训练时用正确答案，并行计算。", "teacher-forcing-vs-autoregressive")
    ids = awaiting_ids(sessions)
    assert len(ids) == 3
    ines = browser_for("ines")
    ines.post("/lang/zh")
    queue = ines.get("/instructor/reviews").text
    assert re.findall(r'<section class="review question" id="answer-(\d+)"', queue) == [
        str(i) for i in ids
    ]
    assert "<mark>不同角度</mark>" in queue_section(queue, ids[1])
    assert "<mark>拼接</mark>" in queue_section(queue, ids[1])
    assert "(<code>bob</code>)" in queue_section(queue, ids[1])
    third = queue_section(queue, ids[2])
    assert "<mark>正确答案</mark>" in third and "<mark>并行</mark>" in third
    assert "参考答案" in third  # the page follows the instructor's language


# --- students ----------------------------------------------------------------------------


def solve_a_drill(sessions, app, name: str, question_id: str = "drill-softmax-row") -> None:
    learner = user_id(sessions, name)
    with sessions() as session:
        issued = practice.start_drill(session, live_bank(app), learner, question_id, seed=7)
        variant = practice.drill_state(session, learner, issued.id).variant
        answer = "; ".join(" ".join(repr(float(v)) for v in row) for row in variant.answer.values)
        practice.submit_drill(session, learner, issued.id, answer, "key-1")


def test_the_roster_lists_every_student_with_activity_and_skills(app, browser_for, sessions):
    solve_a_drill(sessions, app, "alice", "drill-add-norm")
    ines = browser_for("ines")
    ines.post("/lang/en")
    page = ines.get("/instructor/students")
    assert page.status_code == 200
    rows = dict(re.findall(r'<tr data-student="([^"]+)">(.*?)</tr>', page.text, flags=re.DOTALL))
    assert set(rows) == {"alice", "bob"}  # students only, not the instructor
    with sessions() as session:
        alice = store.user_by_id(session, user_id(sessions, "alice"))
        [progress] = store.progress_for(session, alice.id)
    assert alice.display_name in rows["alice"]
    assert f"<td>{english_day(alice.created_at)}</td>" in rows["alice"]
    assert english_when(progress.last_activity) in rows["alice"]
    # the skill by its name in the page's language; its id only as data
    assert progress.skill == "add_norm"
    assert '<span class="skill" data-skill="add_norm">Add &amp; Norm</span>' in rows["alice"]
    assert '<td class="last-activity">—</td>' in rows["bob"]
    assert f'href="/instructor/students/{alice.id}"' in rows["alice"]
    ines.post("/lang/zh")
    page = ines.get("/instructor/students").text
    assert '<span class="skill" data-skill="add_norm">残差与归一化（Add &amp; Norm）</span>' in page


def add_students(sessions, names: list[str]) -> None:
    with sessions() as session:
        for name in names:
            store.create_user(session, name=name, role="student", password=PASSWORD)


def test_the_roster_is_shown_fifty_students_a_page_by_name(app, browser_for, sessions):
    # alice and bob, and 60 more: by name, alice, bob, s-00 ... s-47 on page 1, then s-48 ...
    # s-59 on page 2
    add_students(sessions, [f"s-{number:02d}" for number in range(60)])
    solve_a_drill(sessions, app, "s-55", "drill-add-norm")  # activity on the second page
    ines = browser_for("ines")
    ines.post("/lang/en")

    def roster(path: str) -> tuple[str, dict[str, str]]:
        page = ines.get(path)
        assert page.status_code == 200, page.text
        rows = re.findall(r'<tr data-student="([^"]+)">(.*?)</tr>', page.text, flags=re.DOTALL)
        return page.text, dict(rows) | {"": [name for name, _ in rows]}

    first, rows = roster("/instructor/students")
    assert rows[""] == ["alice", "bob"] + [f"s-{number:02d}" for number in range(48)]
    assert "Students 1–50 of 62, by user name." in first
    assert '<a rel="next" href="/instructor/students?page=2">' in first
    assert 'rel="prev"' not in first and "Page 1 of 2" in first
    assert roster("/instructor/students?page=1")[1][""] == rows[""]

    second, rows = roster("/instructor/students?page=2")
    assert rows[""] == [f"s-{number:02d}" for number in range(48, 60)]
    assert "Students 51–62 of 62, by user name." in second
    assert '<a rel="prev" href="/instructor/students?page=1">' in second
    assert 'rel="next"' not in second and "Page 2 of 2" in second
    # the page's learners get their own activity and skills, the others none
    with sessions() as session:
        [progress] = store.progress_for(session, user_id(sessions, "s-55"))
    assert english_when(progress.last_activity) in rows["s-55"]
    assert 'data-skill="add_norm"' in rows["s-55"]
    assert '<td class="last-activity">—</td>' in rows["s-54"]
    assert "data-skill" not in rows["s-54"]
    # the instructors are listed on every page
    assert '<li data-instructor="ines">' in second

    ines.post("/lang/zh")
    assert "第 51–62 名学生，共 62 名" in ines.get("/instructor/students?page=2").text


@pytest.mark.parametrize(
    ("page", "status", "message"),
    [
        ("3", 404, "There is no page 3: the last page is 2."),
        ("0", 400, "The page must be a whole number from 1, not &#39;0&#39;."),
        ("two", 400, "The page must be a whole number from 1, not &#39;two&#39;."),
        ("-1", 400, "The page must be a whole number from 1, not &#39;-1&#39;."),
    ],
)
def test_a_roster_page_that_does_not_exist_is_refused_with_its_reason(
    app, browser_for, sessions, page, status, message
):
    add_students(sessions, [f"s-{number:02d}" for number in range(60)])
    ines = browser_for("ines")
    ines.post("/lang/en")
    response = ines.get(f"/instructor/students?page={page}")
    assert response.status_code == status
    assert message in response.text


def test_a_class_on_one_page_has_no_page_links(app, browser_for):
    ines = browser_for("ines")
    ines.post("/lang/en")
    page = ines.get("/instructor/students").text
    assert "Students 1–2 of 2, by user name." in page
    assert 'id="roster-pages"' not in page
    assert ines.get("/instructor/students?page=2").status_code == 404


def test_a_students_page_shows_mastery_per_skill_and_recent_history(app, browser_for, sessions):
    solve_a_drill(sessions, app, "alice")
    alice_browser = browser_for("alice")
    answer_open_question(alice_browser)
    alice = user_id(sessions, "alice")
    ines = browser_for("ines")
    ines.post("/lang/en")
    page = ines.get(f"/instructor/students/{alice}")
    assert page.status_code == 200
    with sessions() as session:
        [progress] = store.progress_for(session, alice)
    # one fully right first attempt: mastery 0 -> 0.5
    row = section(page.text, f'<tr data-skill="{progress.skill}">', "</tr>")
    assert '<td class="mastery">50%</td>' in row
    assert "<td>1</td>" in row  # attempts
    # mastery bar chart and score line chart, each titled, not as the student's own ("Your")
    assert re.findall(r"<figure class='chart'><figcaption>([^<]*)</figcaption>", page.text) == [
        "Mastery per skill (0 to 100 %)",
        "Recent scores, oldest first (0 to 100 %)",
    ]
    history = section(page.text, '<ul class="history" id="history">', "</ul>")
    # the bank's ids, and what kind of question each is in the page's language
    assert "why-multi-head (Chapter quiz) — awaiting review" in history
    assert "drill-softmax-row (Drill) — 100%" in history
    ines.post("/lang/zh")
    history = section(
        ines.get(f"/instructor/students/{alice}").text, '<ul class="history" id="history">', "</ul>"
    )
    assert "why-multi-head (章节测试) — 待评阅" in history
    assert "drill-softmax-row (练习) — 100%" in history
    ines.post("/lang/en")
    # bob has done nothing yet
    bob = ines.get(f"/instructor/students/{user_id(sessions, 'bob')}")
    assert bob.status_code == 200
    assert "Nothing recorded yet." in bob.text
    # an instructor, or nobody, is not a student
    assert ines.get(f"/instructor/students/{user_id(sessions, 'ines')}").status_code == 404
    assert ines.get("/instructor/students/999").status_code == 404


def test_the_overview_counts_the_queue_and_the_students(app, browser_for, sessions):
    answer_open_question(browser_for("alice"))
    ines = browser_for("ines")
    page = ines.get("/instructor/")
    assert page.status_code == 200
    assert '<strong id="waiting-count">1</strong>' in page.text
    assert live_bank(app).version[:12] in page.text


NUMERIC_QUESTION = """
  - id: scaled-dot-products
    type: numeric
    tags: [scores]
    prompt:
      zh: 计算 q·K^T / √4，其中 q = [1, 2]，K = [[1, 0], [0.5, -3]]。
      en: Compute q·K^T / √4 for q = [1, 2] and K = [[1, 0], [0.5, -3]].
    answer: [[0.5, -2.75]]
    explanation:
      zh: (1×1 + 2×0) / 2 = 0.5；(1×0.5 + 2×(−3)) / 2 = −2.75。
      en: (1×1 + 2×0) / 2 = 0.5 and (1×0.5 + 2×(−3)) / 2 = −2.75.
"""


def test_a_numeric_question_added_on_disk_can_be_previewed_after_a_reload(
    app, browser_for, content_dir
):
    path = content_dir / QUESTIONS_FILE
    path.write_text(path.read_text(encoding="utf-8") + NUMERIC_QUESTION, encoding="utf-8")
    ines = browser_for("ines")
    ines.post("/lang/en")
    assert ines.get("/instructor/preview?question=scaled-dot-products").status_code == 404
    assert ines.post("/instructor/content/reload").status_code == 302
    page = ines.get("/instructor/preview?question=scaled-dot-products")
    assert page.status_code == 200
    public = section(page.text, '<section class="public-view">', "</section>")
    # what the chapter page tells learners (tests/web/test_web_numeric_and_multiple_choice.py)
    assert "The answer is a row of 2 numbers" in public  # [[0.5, -2.75]]: one row
    assert "Answers within ±0.01 of the exact value count as correct." in public
    assert "−2.75" not in public
    solution = section(page.text, '<section class="solution-view">', "</section>")
    # by hand: (1·1 + 2·0)/2 = 0.5, (1·0.5 + 2·(−3))/2 = −2.75
    assert re.findall(r"<td>([^<]+)</td>", solution) == ["0.5", "−2.75"]
    # the new question is listed with its place in the file
    lines = path.read_text(encoding="utf-8").splitlines()
    line = lines.index("  - id: scaled-dot-products") + 1
    content = ines.get("/instructor/content").text
    assert f"<code>{QUESTIONS_FILE}:{line}</code>" in content
    # and the self-test now tests it too
    result = ines.post("/instructor/selftest")
    assert '<tr data-question="scaled-dot-products" data-passed="true">' in result.text
    assert "17 questions tested" in result.text  # 14 drills, 2 open questions and this one


# --- corrections, conflicts, accounts, preview seeds, reload confirmation ------------------


def quiz_line(browser) -> str:
    """The chapter's line on the learner's progress page, after the chapter's title."""
    line = re.search(r'<ul class="quiz-lines" id="quiz"[^>]*>\s*<li[^>]*>(.*?)</li>',
                     browser.get("/progress").text, re.S)  # fmt: skip
    return re.sub(r"^<a [^>]*>[^<]*</a>: ", "", line.group(1).strip())


def test_a_review_is_corrected_from_the_students_page_and_progress_follows(
    app, browser_for, sessions
):
    alice = browser_for("alice")
    answer_open_question(alice)
    [answer_id] = awaiting_ids(sessions)
    ines = browser_for("ines")
    ines.post("/lang/en")
    ines.get("/instructor/reviews")
    assert ines.post(f"/instructor/reviews/{answer_id}", {"score": "1.5"}).status_code == 302
    # 0.015 x 2 points
    assert quiz_line(alice) == "1 of 6 questions answered; score so far 0.03 of 8 points."

    student_page = ines.get(f"/instructor/students/{user_id(sessions, 'alice')}").text
    row = section(student_page, f'<tr data-answer="{answer_id}">', "</tr>")
    assert "1.5%" in row and f'href="/instructor/reviews/{answer_id}"' in row
    page = ines.get(f"/instructor/reviews/{answer_id}")
    assert page.status_code == 200
    history = section(page.text, '<section class="review-history"', "</section>")
    assert ": 1.5%" in history
    [seen] = re.findall(r'name="seen_review" value="(\d+)"', page.text)
    response = ines.post(
        f"/instructor/reviews/{answer_id}",
        {"score": "1.5/2", "seen_review": seen, "return_to": "answer"},
    )
    assert response.status_code == 302
    assert response.headers["Location"] == f"/instructor/reviews/{answer_id}"
    assert quiz_line(alice) == "1 of 6 questions answered; score so far 1.5 of 8 points."
    assert "Instructor&#39;s score: 75%" in alice.get(CHAPTER_URL).text


def test_a_review_from_a_stale_page_is_refused_and_keeps_the_colleagues_review(
    app, browser_for, sessions
):
    with sessions() as session:
        store.create_user(
            session, name="tara", role="instructor", password=PASSWORD, display_name="Tara"
        )
    alice = browser_for("alice")
    answer_open_question(alice)
    [answer_id] = awaiting_ids(sessions)
    ines, tara = browser_for("ines"), browser_for("tara")
    ines.post("/lang/en")
    opened_earlier = ines.get(f"/instructor/reviews/{answer_id}").text
    [seen] = re.findall(r'name="seen_review" value="(\d+)"', opened_earlier)
    assert seen == "0"
    tara.get("/instructor/reviews")
    tara.post(f"/instructor/reviews/{answer_id}", {"score": "80", "comment": "TA: good"})

    response = ines.post(
        f"/instructor/reviews/{answer_id}",
        {"score": "20", "seen_review": seen, "return_to": "answer"},
    )
    assert response.status_code == 409
    assert "Tara reviewed this answer after you opened this page (it is now 80%)" in text_of(
        response
    )
    assert "TA: good" in response.text
    with sessions() as session:
        assert session.get(store.QuizAnswer, answer_id).score == 0.8
    assert count(sessions, store.OpenAnswerReview) == 1


def test_instructors_are_listed_and_a_refused_account_keeps_the_chosen_role(
    app, browser_for, sessions
):
    ines = browser_for("ines")
    ines.post("/lang/en")
    page = ines.get("/instructor/students").text
    assert section(page, '<ul id="instructors">', "</ul>").count("data-instructor=") == 1
    response = ines.post(
        "/instructor/students",
        {
            "name": "alice",
            "role": "instructor",
            "password": "long enough 1",
            "password_again": "long enough 1",
        },
    )
    assert response.status_code == 422
    assert '<option value="instructor" selected>' in response.text
    assert '<option value="student" selected>' not in response.text


@pytest.mark.parametrize("seed", ["abc", "-1", "1.5", str(2**63), "9" * 5000])
def test_a_bad_preview_seed_is_an_inline_error_on_the_preview_page(app, browser_for, seed):
    ines = browser_for("ines")
    ines.post("/lang/en")
    response = ines.get(
        "/instructor/preview", query_string={"question": "drill-softmax-row", "seed": seed}
    )
    assert response.status_code == 400
    assert 'id="seed-error"' in response.text and "The seed must be a whole number" in response.text
    assert '<option value="drill-softmax-row" selected>' in response.text
    assert 'id="preview"' not in response.text


def test_a_reload_that_drops_answered_questions_asks_first(app, browser_for, content_dir, sessions):
    alice = browser_for("alice")
    answer_open_question(alice)
    edit(content_dir, "id: why-multi-head", "id: why-multi-heads")
    ines = browser_for("ines")
    ines.post("/lang/en")
    ines.get("/instructor/content")
    old_version = live_bank(app).version

    response = ines.post("/instructor/content/reload")
    assert response.status_code == 409
    dropped = section(response.text, '<ul id="dropped-questions">', "</ul>")
    assert "why-multi-head: 1 recorded answers or drill variants" in html.unescape(dropped)
    assert live_bank(app).version == old_version  # nothing swapped yet
    assert "why-multi-head" in live_bank(app).questions
    [shown_version] = re.findall(r'name="confirmed_version" value="([0-9a-f]+)"', response.text)
    assert shown_version != old_version  # the version of the content it asks about
    # its address, reloaded, goes back to the content page
    assert ines.get("/instructor/content/reload").headers["Location"] == "/instructor/content"

    # the files change again before the confirmation arrives: it is asked again
    edit(content_dir, f"en: {FIRST_PROMPT_EN}", "en: Where do Q, K and V come from?")
    response = ines.post("/instructor/content/reload", {"confirmed_version": shown_version})
    assert response.status_code == 409
    assert "changed while you were confirming" in response.text
    assert live_bank(app).version == old_version
    [current_version] = re.findall(r'name="confirmed_version" value="([0-9a-f]+)"', response.text)

    response = ines.post("/instructor/content/reload", {"confirmed_version": current_version})
    assert response.status_code == 302
    assert live_bank(app).version == current_version
    assert "why-multi-heads" in live_bank(app).questions
    assert "why-multi-head" not in live_bank(app).questions


def test_a_review_form_naming_a_review_that_never_was_is_asked_again_not_a_crash(
    app, browser_for, sessions
):
    ines, answer_id = an_answer_in_ines_queue(browser_for, sessions)
    ines.get(f"/instructor/reviews/{answer_id}")
    response = ines.post(
        f"/instructor/reviews/{answer_id}",
        {"score": "50", "seen_review": "7", "return_to": "answer"},
    )
    assert response.status_code == 409
    assert "reviews changed after you opened this page" in response.text
    assert awaiting_ids(sessions) == [answer_id]
    # a number int() would refuse is no review id either: the form is taken as not saying
    response = ines.post(
        f"/instructor/reviews/{answer_id}",
        {"score": "50", "seen_review": "9" * 5000, "return_to": "answer"},
    )
    assert response.status_code == 302


def test_a_refused_score_in_the_queue_brings_the_reviewer_to_its_field(app, browser_for, sessions):
    ines, answer_id = an_answer_in_ines_queue(browser_for, sessions)
    queue = ines.get("/instructor/reviews").text
    assert f'action="/instructor/reviews/{answer_id}#answer-{answer_id}"' in queue
    response = ines.post(f"/instructor/reviews/{answer_id}", {"score": "0.6"})
    assert response.status_code == 422
    assert "<h1>Review queue</h1>" in response.text  # back in the queue, not the answer's page
    item = queue_section(response.text, answer_id)
    assert re.search(r'<input name="score"[^>]* autofocus aria-invalid="true"', item)
    assert "focus.js" in response.text


def test_the_seed_is_ignored_for_a_question_that_has_none(app, browser_for):
    ines = browser_for("ines")
    ines.post("/lang/en")
    response = ines.get(
        "/instructor/preview", query_string={"question": "qkv-origin", "seed": "abc"}
    )
    assert response.status_code == 200
    assert 'id="preview"' in response.text and 'id="seed-error"' not in response.text


def test_the_report_says_how_many_answers_await_review(app, browser_for, sessions):
    alice = browser_for("alice")
    answer_open_question(alice)
    ines = browser_for("ines")
    ines.post("/lang/en")
    report = ines.get(f"/instructor/students/{user_id(sessions, 'alice')}/report").text
    assert "(1 awaiting review, counted as 0 until reviewed)" in report
    [answer_id] = awaiting_ids(sessions)
    ines.get("/instructor/reviews")
    ines.post(f"/instructor/reviews/{answer_id}", {"score": "80"})
    report = ines.get(f"/instructor/students/{user_id(sessions, 'alice')}/report").text
    assert 'id="awaiting-count"' not in report


def test_the_overview_counts_students_only_and_the_whole_queue(app, browser_for, sessions):
    ines = browser_for("ines")
    ines.post("/lang/en")
    students = re.compile(r'<strong id="student-count">([^<]*)</strong> ([^<]*)</a>')
    assert students.search(ines.get("/instructor/").text).groups() == ("2", "students")
    # the shipped bank: one chapter, six questions and fourteen drills
    assert "1 chapter, 20 questions" in ines.get("/instructor/").text
    waiting = re.compile(r'<strong id="waiting-count">([^<]*)</strong> ([^<]*)</a>')
    assert waiting.search(ines.get("/instructor/").text).groups() == (
        "0",
        "open answers awaiting review",
    )
    answer_open_question(browser_for("alice"))
    assert waiting.search(ines.get("/instructor/").text).groups() == (
        "1",
        "open answer awaiting review",
    )
    answer_open_question(browser_for("bob"))
    assert waiting.search(ines.get("/instructor/").text).groups() == (
        "2",
        "open answers awaiting review",
    )
    ines.post("/lang/zh")
    page = ines.get("/instructor/").text
    assert "1 个章节，20 道题" in page
    assert waiting.search(page).groups() == ("2", "份开放题答案待评阅")


def test_the_content_page_shows_each_prompt_on_one_line_cut_after_160_characters(
    app, browser_for, content_dir
):
    fits = "x" * 79 + " " + "y" * 80  # 160 characters
    edit(content_dir, f"en: {FIRST_PROMPT_EN}", f'en: "{"x" * 79}\\n\\n   {"y" * 80}"')
    edit(content_dir, "en: Why does multi-head", f"en: {'z' * 161} Why does multi-head")
    ines = browser_for("ines")
    ines.post("/lang/en")
    assert ines.post("/instructor/content/reload").status_code == 302
    excerpts = re.findall(
        r'<td class="prompt-excerpt">([^<]*)</td>', ines.get("/instructor/content").text
    )
    assert fits in excerpts
    assert "z" * 159 + "…" in excerpts


def test_the_content_page_shows_prompts_as_plain_text_not_markdown(app, browser_for, content_dir):
    edit(
        content_dir,
        f"en: {FIRST_PROMPT_EN}",
        'en: "Where are **Q**, `K` and *V* computed from? <b>x</b> & y"',
    )
    ines = browser_for("ines")
    ines.post("/lang/en")
    assert ines.post("/instructor/content/reload").status_code == 302
    page = ines.get("/instructor/content").text
    excerpt = r'<tr data-question="{}">.*?<td class="prompt-excerpt">([^<]*)</td>'

    def prompt(question_id: str) -> str:
        return re.search(excerpt.format(question_id), page, re.S).group(1)

    # the emphasis and code marks are gone, a formula shows as its LaTeX; the text's own "<b>"
    # and "&" stay text
    assert prompt("qkv-origin") == (
        "Where are Q, K and V computed from? &lt;b&gt;x&lt;/b&gt; &amp; y"
    )
    assert prompt("drill-softmax-row") == (  # cut after 160 characters
        r"Apply the softmax (\operatorname{softmax}(x)_j = e^{x_j} / \sum_k e^{x_k}) to the given "
        "row of scaled scores and write down the row of attention weights. Keep …"
    )


def test_a_blank_seed_previews_seed_0_and_the_largest_seed_is_accepted(browser_for):
    ines = browser_for("ines")
    ines.post("/lang/en")

    def variant(seed: str) -> str:
        page = ines.get(
            "/instructor/preview", query_string={"question": "drill-softmax-row", "seed": seed}
        )
        assert page.status_code == 200, seed
        return section(page.text, '<section class="variant"')

    assert 'data-seed="0"' in variant("  ")
    assert variant("  ") == variant("0")
    assert f'data-seed="{2**63 - 1}"' in variant(str(2**63 - 1))


def test_highlighting_escapes_the_text_and_never_repeats_or_empties_a_span():
    text = "a<b>cdef"
    # overlapping spans are cut where the previous one ended; empty ones are skipped
    assert str(highlight(text, ((0, 3), (1, 5), (5, 5), (7, 8)))) == (
        "<mark>a&lt;b</mark><mark>&gt;c</mark>de<mark>f</mark>"
    )
    assert str(highlight(text, ())) == "a&lt;b&gt;cdef"


def test_a_refused_score_on_the_answers_own_page_stays_on_that_page(app, browser_for, sessions):
    ines, answer_id = an_answer_in_ines_queue(browser_for, sessions)
    ines.get(f"/instructor/reviews/{answer_id}")
    response = ines.post(
        f"/instructor/reviews/{answer_id}",
        {"score": "abc", "comment": "kept", "return_to": "answer"},
    )
    assert response.status_code == 422
    assert f"<h1>Review answer {answer_id}</h1>" in response.text
    assert "Cannot read the score &#39;abc&#39;" in response.text
    assert ">kept</textarea>" in response.text
    assert awaiting_ids(sessions) == [answer_id]


def test_a_comment_of_exactly_the_limit_is_stored(app, browser_for, sessions):
    ines, answer_id = an_answer_in_ines_queue(browser_for, sessions)
    ines.get("/instructor/reviews")
    comment = "c" * review_pages.MAX_COMMENT_LENGTH
    response = ines.post(f"/instructor/reviews/{answer_id}", {"score": "50", "comment": comment})
    assert response.status_code == 302
    with sessions() as session:
        [review] = session.scalars(select(store.OpenAnswerReview)).all()
        assert (review.comment, review.confirmed_score) == (comment, 0.5)


def test_an_instructor_creates_an_account_and_an_unknown_role_is_refused(
    app, browser_for, sessions
):
    ines = browser_for("ines")
    ines.post("/lang/en")
    ines.get("/instructor/students")
    form = {"name": "carol", "password": "long enough 1", "password_again": "long enough 1"}
    response = ines.post("/instructor/students", {**form, "role": "admin"})
    assert response.status_code == 400
    assert "Unknown role &#39;admin&#39;." in response.text
    assert user_id(sessions, "carol") is None

    response = ines.post("/instructor/students", {**form, "role": "student"})
    assert response.status_code == 302
    assert "Account carol (student) created." in ines.get("/instructor/students").text
    assert browser_for().login("carol", "long enough 1").status_code == 302


def test_answers_to_a_question_dropped_from_the_bank_can_still_be_reviewed(
    app, browser_for, content_dir, sessions
):
    answer_open_question(browser_for("alice"), "Each head looks from different angles.")
    [answer_id] = awaiting_ids(sessions)
    edit(content_dir, "id: why-multi-head", "id: why-multi-heads")
    ines = browser_for("ines")
    ines.post("/lang/en")
    ines.get("/instructor/content")
    asked = ines.post("/instructor/content/reload")
    [version] = re.findall(r'name="confirmed_version" value="([0-9a-f]+)"', asked.text)
    assert (
        ines.post("/instructor/content/reload", {"confirmed_version": version}).status_code == 302
    )

    item = queue_section(ines.get("/instructor/reviews").text, answer_id)
    assert "This question is no longer in the live bank." in item
    assert "Each head looks from different angles." in item  # no rubric: nothing marked
    assert "<mark>" not in item
    student = ines.get(f"/instructor/students/{user_id(sessions, 'alice')}").text
    assert "<td><code>why-multi-head</code></td>" in student  # its id, no prompt
    assert ines.post(f"/instructor/reviews/{answer_id}", {"score": "70"}).status_code == 302
    assert awaiting_ids(sessions) == []
    # the learner's history still lists it, by its id and without a link to where it was
    alice = browser_for("alice")
    alice.post("/lang/en")
    history = re.search(
        r'<li data-question="why-multi-head">(.*?)</li>', alice.get("/progress").text, re.S
    )
    assert "<a " not in history.group(1)
    assert " ".join(history.group(1).split()).endswith("— why-multi-head (Chapter quiz) — 70%")


def test_the_history_names_a_question_by_its_prompt_cut_after_60_characters(
    app, browser_for, content_dir
):
    edit(content_dir, f"en: {FIRST_PROMPT_EN}", f"en: {'q' * 60}")
    edit(content_dir, "en: Why does multi-head", f"en: {'w' * 58} Why does multi-head")
    ines = browser_for("ines")
    assert ines.post("/instructor/content/reload").status_code == 302
    alice = browser_for("alice")
    alice.post("/lang/en")
    alice.get(CHAPTER_URL)
    alice.post(f"{CHAPTER_URL}/questions/qkv-origin", {"choice": "B"})
    answer_open_question(alice)
    page = alice.get("/progress").text
    titles = dict(
        re.findall(r'<li data-question="([^"]+)">.*?<a href="[^"]+">([^<]*)</a>', page, re.S)
    )
    assert titles == {"qkv-origin": "q" * 60, "why-multi-head": "w" * 58 + "…"}
