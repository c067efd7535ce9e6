"""The chapter quiz page: choices in each learner's own order, tries and penalty from the YAML
stated and enforced (page and API alike), the navigator and the total; and the language a
user chooses following their account to another browser."""

from __future__ import annotations

import html
import re

import pytest
from web_helpers import PASSWORD, letters_on_page, user_id

from quizsvc import store

CHAPTER_URL = "/chapters/transformer-by-hand"
QKV = "qkv-origin"
OPEN = ("teacher-forcing-vs-autoregressive", "why-multi-head")  # 2 points each
SINGLE = ("qkv-origin", "scaling-by-sqrt-dk", "masked-self-attention", "cross-attention-sources")


def section(page_html: str, question_id: str) -> str:
    match = re.search(
        rf'<section class="question" id="q-{question_id}".*?</section>', page_html, re.S
    )
    assert match, question_id
    return match.group(0)


def text_of(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def form_order(page_html: str, question_id: str) -> list[str]:
    """The choice ids in the order the question's form offers them."""
    return re.findall(r'name="choice" value="([^"]+)"', section(page_html, question_id))


def answered_order(page_html: str, question_id: str) -> list[str]:
    return re.findall(r'<li data-choice="([^"]+)"', section(page_html, question_id))


def rules(page_html: str, question_id: str) -> list[str]:
    own = section(page_html, question_id)
    found = re.search(r'<ul class="rules answer-rules"[^>]*>(.*?)</ul>', own, re.S)
    if not found:
        return []
    return [text_of(li) for li in re.findall(r"<li>(.*?)</li>", found.group(1), re.S)]


def navigator(page_html: str) -> list[tuple[str, str]]:
    """(question id, state) of each link of the navigator, in order."""
    nav = re.search(r'<nav class="quiz-nav" id="quiz-nav".*?</nav>', page_html, re.S).group(0)
    return re.findall(r'<a href="#q-([\w-]+)" class="[^"]*" data-status="(\w+)">', nav)


def total(page_html: str) -> str:
    return text_of(re.search(r'<p class="quiz-total".*?</p>', page_html, re.S).group(0))


@pytest.fixture
def students(sessions):
    """Five more students, each a name to log in with."""
    names = [f"learner{n}" for n in range(1, 6)]
    with sessions() as session:
        for name in names:
            store.create_user(session, name=name, role="student", password=PASSWORD)
    return names


# --- choices in each learner's own order -----------------------------------------------


def test_each_learner_sees_the_choices_in_an_order_of_their_own_and_is_graded_by_id(
    browser_for, sessions, students
):
    orders = {}
    for name in students:
        browser = browser_for(name)
        browser.post("/lang/en")
        first = form_order(browser.get(CHAPTER_URL).text, QKV)
        assert sorted(first) == ["A", "B", "C", "D"]  # every choice, once
        # the same order on every visit
        assert form_order(browser.get(CHAPTER_URL).text, QKV) == first
        orders[name] = first
        # B is the key wherever it stands: the answer names the choice, not its position
        assert browser.post(f"{CHAPTER_URL}/questions/{QKV}", {"choice": "B"}).status_code == 302
        answered = section(browser.get(CHAPTER_URL).text, QKV)
        b = letters_on_page(answered, ["B"])
        assert re.search(
            rf"Your answer: <b>{b}</b>\s*— <span class=\"right\">Correct</span>", answered
        )
        assert f'Correct answer: <b class="correct-choice">{b}</b>' in answered
        assert answered_order(browser.get(CHAPTER_URL).text, QKV) == first  # as it was asked
        with sessions() as session:
            answer = store.latest_quiz_answers(session, user_id(sessions, name))[QKV]
        assert (answer.choices, answer.score) == (["B"], 1.0)
    # five learners, 24 orders of four choices: not everyone sees the same one
    assert len({tuple(order) for order in orders.values()}) >= 2, orders


def test_the_api_lists_the_choices_in_the_order_of_the_learner_s_page(browser_for, students):
    for name in students[:3]:
        browser = browser_for(name)
        page_order = form_order(browser.get(CHAPTER_URL).text, QKV)
        listed = browser.client.get("/api/chapters/transformer-by-hand/questions?lang=en").json
        [item] = [i for i in listed["questions"] if i["question"]["id"] == QKV]
        assert [c["id"] for c in item["question"]["choices"]] == page_order
        # the letters the page gives them: A, B, C, D down the page
        assert [c["label"] for c in item["question"]["choices"]] == ["A", "B", "C", "D"]


def test_the_letters_run_a_b_c_d_down_each_learner_s_page_whatever_the_ids(browser_for, students):
    orders = set()
    for name in students:
        own = section(browser_for(name).get(CHAPTER_URL).text, QKV)
        shown = re.findall(r'name="choice" value="([^"]+)"> <span><b>([^<]+)\.</b>', own)
        assert [letter for _, letter in shown] == ["A", "B", "C", "D"], shown
        orders.add(tuple(choice_id for choice_id, _ in shown))
    assert len(orders) >= 2  # the ids under the letters differ between learners


# --- tries and penalty authored in the YAML ----------------------------------------------


@pytest.fixture
def content_dir(content_dir):
    """qkv-origin with two tries, a second one losing a quarter of the points."""
    path = content_dir / "transformer-by-hand" / "questions.yaml"
    text = path.read_text(encoding="utf-8")
    first_key = "    correct: B\n"
    assert text.count(first_key) == 4
    path.write_text(
        text.replace(first_key, first_key + "    attempts: 2\n    penalty: 0.25\n", 1),
        encoding="utf-8",
    )
    return content_dir


def test_tries_and_penalty_from_the_yaml_are_stated_before_answering(browser_for):
    alice = browser_for("alice")
    alice.post("/lang/en")
    page = alice.get(CHAPTER_URL).text
    assert rules(page, QKV) == [
        "Worth 1 point.",
        "2 tries left of 2.",
        "The answer is shown once a try is right or none is left.",
        "Each further attempt takes 25% off the score.",
        "Your latest try's score counts.",
    ]
    # a question without tries of its own: one
    assert rules(page, "scaling-by-sqrt-dk") == [
        "Worth 1 point.",
        "One try: your answer is final once you submit it.",
    ]
    assert rules(page, "why-multi-head") == [
        "Worth 2 points.",
        "One try: your answer is final once you submit it.",
    ]
    alice.post("/lang/zh")
    assert rules(alice.get(CHAPTER_URL).text, QKV) == [
        "本题 1 分。",
        "共 2 次机会，还剩 2 次。",
        "答对或次数用完后才显示答案。",
        "每多尝试一次，得分扣 25%。",
        "以最后一次作答的得分为准。",
    ]


def test_a_wrong_try_shows_no_key_and_a_right_second_try_scores_after_the_penalty(
    browser_for, sessions
):
    alice = browser_for("alice")
    alice.post("/lang/en")
    assert alice.post(f"{CHAPTER_URL}/questions/{QKV}", {"choice": "A"}).status_code == 302
    page = alice.get(CHAPTER_URL).text
    wrong = section(page, QKV)
    a = letters_on_page(wrong, ["A"])
    assert re.search(rf"Your try 1: <b>{a}</b>\s*— <span class=\"wrong\">Wrong</span>", wrong)
    assert "Try again: a right answer now scores 75%." in text_of(wrong)
    assert 'name="choice"' in wrong  # the form again
    for key in ("correct-choice", "data-key", "Correct answer", "Explanation", "core parameters"):
        assert key not in wrong, key
    assert "1 try left of 2." in rules(page, QKV)
    assert dict(navigator(page))[QKV] == "try_again"

    assert alice.post(f"{CHAPTER_URL}/questions/{QKV}", {"choice": "B"}).status_code == 302
    right = section(alice.get(CHAPTER_URL).text, QKV)
    assert 'name="choice"' not in right
    b = letters_on_page(right, ["B"])
    assert re.search(rf"Your answer: <b>{b}</b>\s*— <span class=\"right\">Correct</span>", right)
    # max(0, 1 - 0.25 x (2 - 1))
    assert "Scored on try 2 of 2: 75% counts." in text_of(right)
    assert f'Correct answer: <b class="correct-choice">{b}</b>' in right
    with sessions() as session:
        answer = store.latest_quiz_answers(session, user_id(sessions, "alice"))[QKV]
    assert (answer.attempt, answer.raw_score, answer.score) == (2, 1.0, 0.75)


def test_the_store_refuses_a_try_beyond_the_yaml_s_from_the_page_and_the_api(browser_for, sessions):
    bob = browser_for("bob")
    for choice in ("A", "C"):
        assert bob.post(f"{CHAPTER_URL}/questions/{QKV}", {"choice": choice}).status_code == 302
    out_of_tries = section(bob.get(CHAPTER_URL).text, QKV)
    assert 'name="choice"' not in out_of_tries
    b = letters_on_page(out_of_tries, ["B"])
    assert f'Correct answer: <b class="correct-choice">{b}</b>' in out_of_tries  # now shown
    # a third try, from an old form and from the API: nothing recorded
    assert bob.post(f"{CHAPTER_URL}/questions/{QKV}", {"choice": "B"}).status_code == 302
    api = {"X-CSRFToken": bob.token}
    refused = bob.client.post(f"/api/questions/{QKV}/answers", json={"choices": ["B"]}, headers=api)
    assert (refused.status_code, refused.json["error"]["code"]) == (409, "already_answered")
    with sessions() as session:
        stored = session.query(store.QuizAnswer).filter_by(question_id=QKV).all()
    assert sorted((a.attempt, a.choices, a.score) for a in stored) == [
        (1, ["A"], 0.0),
        (2, ["C"], 0.0),
    ]


def test_the_api_shows_the_key_only_once_the_question_is_finished(browser_for):
    alice = browser_for("alice")
    api = {"X-CSRFToken": alice.token}
    answer = f"/api/questions/{QKV}/answers?lang=en"
    first = alice.client.post(answer, json={"choices": ["D"]}, headers=api).json
    assert (first["score"], first["attempts_left"], first["finished"]) == (0.0, 1, False)
    assert "correct" not in first["question"] and "explanation" not in first["question"]
    assert (first["question"]["attempts"], first["question"]["penalty"]) == (2, 0.25)
    listed = alice.client.get("/api/chapters/transformer-by-hand/questions?lang=en").json
    [item] = [i for i in listed["questions"] if i["question"]["id"] == QKV]
    assert (item["attempts_left"], item["finished"], item["learner_answer"]["attempt"]) == (
        1,
        False,
        1,
    )
    assert "correct" not in item["question"]
    second = alice.client.post(answer, json={"choices": ["B"]}, headers=api).json
    assert (second["score"], second["attempts_left"], second["finished"]) == (0.75, 0, True)
    assert second["learner_answer"]["raw_score"] == 1.0
    assert second["question"]["correct"] == ["B"]


# --- the navigator and the total -------------------------------------------------------


def test_the_navigator_and_the_total_follow_the_answers_to_a_final_score(browser_for, sessions):
    alice = browser_for("alice")
    alice.post("/lang/en")
    page = alice.get(CHAPTER_URL).text
    assert navigator(page) == [(q, "not_answered") for q in (*SINGLE[:4], *OPEN)]
    # 4 questions of 1 point, 2 of 2
    assert total(page) == "Score so far: 0 of 8 points. 6 questions still to answer."

    for question_id in SINGLE[1:]:
        alice.post(f"{CHAPTER_URL}/questions/{question_id}", {"choice": "B"})
    alice.post(f"{CHAPTER_URL}/questions/{QKV}", {"choice": "A"})  # wrong, a try left
    for question_id in OPEN:
        alice.post(f"{CHAPTER_URL}/questions/{question_id}", {"text": "Because of the mask."})
    page = alice.get(CHAPTER_URL).text
    assert dict(navigator(page)) == {
        QKV: "try_again",
        **dict.fromkeys(SINGLE[1:], "answered"),
        **dict.fromkeys(OPEN, "awaiting_review"),
    }
    assert total(page) == (
        "Score so far: 3 of 8 points. 1 question still to answer. "
        "2 answers await an instructor's review."
    )
    assert 'href="#q-why-multi-head"' in page  # each question linked

    alice.post(f"{CHAPTER_URL}/questions/{QKV}", {"choice": "B"})  # 0.75 after the penalty
    ines = user_id(sessions, "ines")
    with sessions() as session:
        waiting = {a.question_id: a.answer_id for a in store.answers_awaiting_review(session)}
    with sessions() as session:
        store.record_review(
            session, answer_id=waiting[OPEN[0]], reviewer_id=ines, confirmed_score=0.5
        )
    page = alice.get(CHAPTER_URL).text
    assert total(page).startswith("Score so far: 4.75 of 8 points.")  # 3 + 0.75 + 2 x 0.5
    assert 'data-final="false"' in page
    with sessions() as session:
        store.record_review(
            session, answer_id=waiting[OPEN[1]], reviewer_id=ines, confirmed_score=1.0
        )
    page = alice.get(CHAPTER_URL).text
    # every question graded: 3 + 0.75 + 1 + 2 = 6.75 of 8, 84.4 %
    assert total(page) == "Final score: 6.75 of 8 points (84.4%)."
    assert all(state == "answered" for _, state in navigator(page))
    progress = alice.get("/progress").text
    assert "Final score: 6.75 of 8 points (84.4%)." in text_of(progress)
    final = alice.client.get("/api/progress").json["quiz"][0]
    assert (final["earned"], final["possible"], final["final"]) == (6.75, 8.0, True)


# --- the language follows the account ---------------------------------------------------


def html_lang(page_html: str) -> str:
    return re.search(r'<html lang="([^"]+)">', page_html).group(1)


def test_the_language_chosen_follows_the_user_to_another_browser(browser_for, sessions):
    laptop = browser_for("alice")
    assert html_lang(laptop.get(CHAPTER_URL).text) == "en"  # no choice: Accept-Language
    assert laptop.post("/lang/zh").status_code == 302
    with sessions() as session:
        assert store.user_by_id(session, user_id(sessions, "alice")).language == "zh"

    phone = browser_for("alice")  # a fresh client: no session, English Accept-Language
    page = phone.get(CHAPTER_URL, headers={"Accept-Language": "en-US,en;q=0.9"}).text
    assert html_lang(page) == "zh-CN"
    assert "Q、K、V 是从哪里算出来的？" in page

    # this browser's own choice goes before the account's, and becomes the account's
    phone.post("/lang/en")
    assert html_lang(phone.get(CHAPTER_URL).text) == "en"
    assert html_lang(laptop.get(CHAPTER_URL).text) == "zh-CN"  # its session chose zh
    with sessions() as session:
        assert store.user_by_id(session, user_id(sessions, "alice")).language == "en"

    # a visitor's choice changes no account; bob never chose: Accept-Language
    visitor = browser_for()
    visitor.post("/lang/zh")
    with sessions() as session:
        assert store.user_by_id(session, user_id(sessions, "bob")).language is None
    bob = browser_for("bob")
    assert html_lang(bob.get(CHAPTER_URL, headers={"Accept-Language": "zh"}).text) == "zh-CN"


def test_the_api_takes_lang_then_accept_language_then_the_account_s_choice(browser_for, sessions):
    browser_for("alice").post("/lang/zh")  # alice's account: zh
    with sessions() as session:
        token = store.issue_api_token(session, "alice")
    client = browser_for().client
    bearer = {"Authorization": f"Bearer {token}"}

    def title(headers: dict, query: str = "") -> str:
        response = client.get(
            f"/api/chapters/transformer-by-hand/questions{query}", headers=headers
        )
        return response.json["questions"][0]["question"]["prompt"]["markdown"]

    chinese, english = "Q、K、V 是从哪里算出来的？", "Where are Q, K and V computed from?"
    assert title(bearer) == chinese  # no header, no parameter: the account's
    assert title(bearer | {"Accept-Language": "en"}) == english
    assert title(bearer | {"Accept-Language": "en"}, "?lang=zh") == chinese
    assert title(bearer | {"Accept-Language": "fr"}) == chinese  # none it has: the account's
