"""Reviewing open answers: a suggestion beside a form with nothing filled in, rubric points
ticked or a score typed, the list by question and state with its previous and next answers,
and a regrade that keeps the history the student's page follows.

Expected scores are computed here from the rubric in content/transformer-by-hand/questions.yaml,
read with YAML, not through the bank."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
import yaml
from sqlalchemy import select
from web_helpers import PASSWORD, count, user_id

from quizsvc import store

ROOT = Path(__file__).resolve().parents[2]
CHAPTER_URL = "/chapters/transformer-by-hand"
QUESTION = "why-multi-head"
OTHER_QUESTION = "teacher-forcing-vs-autoregressive"
# the phrases of 3 of why-multi-head's 4 points ("one pattern", "different angles",
# "concatenat"), not those of independent-projections
ANSWER = "A head learns one pattern; heads look from different angles and are concatenated."


def rubric(question_id: str) -> dict[str, float]:
    """Key -> weight of the question's rubric, in the YAML file's order."""
    questions = yaml.safe_load((ROOT / "content/transformer-by-hand/questions.yaml").read_text())
    [question] = [q for q in questions["questions"] if q["id"] == question_id]
    return {point["key"]: point["weight"] for point in question["rubric"]}


def answer(browser, text: str = ANSWER, question: str = QUESTION) -> None:
    browser.get(CHAPTER_URL)
    assert browser.post(f"{CHAPTER_URL}/questions/{question}", {"text": text}).status_code == 302


def open_answer_ids(sessions) -> list[int]:
    with sessions() as session:
        return list(
            session.scalars(
                select(store.QuizAnswer.id)
                .where(store.QuizAnswer.text.is_not(None))
                .order_by(store.QuizAnswer.answered_at, store.QuizAnswer.id)
            )
        )


def stored(sessions, answer_id: int) -> tuple[float | None, list[float]]:
    """The answer's score and its reviews' scores, oldest first."""
    with sessions() as session:
        score = session.get(store.QuizAnswer, answer_id).score
        reviews = session.scalars(
            select(store.OpenAnswerReview.confirmed_score)
            .where(store.OpenAnswerReview.answer_id == answer_id)
            .order_by(store.OpenAnswerReview.id)
        ).all()
    return score, list(reviews)


def section_of(page: str, answer_id: int) -> str:
    start = page.index(f'<section class="review question" id="answer-{answer_id}"')
    return page[start : page.index("</section>", start)]


@pytest.fixture
def ines_and_answer(app, browser_for, sessions):
    alice = browser_for("alice")
    alice.post("/lang/en")
    answer(alice)
    [answer_id] = open_answer_ids(sessions)
    ines = browser_for("ines")
    ines.post("/lang/en")
    return ines, answer_id, alice


def test_nothing_is_filled_in_and_the_suggestion_shows_the_points_it_matched(ines_and_answer):
    ines, answer_id, _ = ines_and_answer
    for page in (
        ines.get(f"/instructor/reviews/{answer_id}").text,
        ines.get("/instructor/reviews").text,
    ):
        item = section_of(page, answer_id)
        form = item[item.index("<form") :]
        assert re.search(r'<input name="score"[^>]*value=""', form)
        assert len(re.findall(r'<input type="checkbox" name="point"', form)) == 4
        assert " checked" not in form
        assert "<textarea" in form and "></textarea>" in form
        weights = rubric(QUESTION)
        # 0.3 + 0.35 + 0.15 of 1.0
        matched = ["one-pattern-per-head", "several-perspectives", "concatenate-outputs"]
        suggested = round(100 * sum(weights[key] for key in matched) / sum(weights.values()))
        assert f"Suggested score: <b>{suggested}%</b>" in item
        assert "Phrases found for 3 of 4 key points" in item
        found = re.findall(r'<li data-key="([^"]+)" data-found="true">.*?phrase found', item, re.S)
        assert found == matched
        assert 'data-key="independent-projections" data-found="false"' in item
        # the live sum starts at nothing ticked
        assert re.search(r'<output id="points-sum-\d+"[^>]*>0%</output>', item)


@pytest.mark.parametrize(
    "ticked",
    [
        ["one-pattern-per-head"],
        ["several-perspectives", "concatenate-outputs"],
        ["one-pattern-per-head", "independent-projections", "concatenate-outputs"],
        ["one-pattern-per-head", "several-perspectives", "independent-projections",
         "concatenate-outputs"],
    ],
)  # fmt: skip
def test_the_ticked_points_weights_share_is_the_stored_score(ines_and_answer, sessions, ticked):
    ines, answer_id, _ = ines_and_answer
    weights = rubric(QUESTION)
    expected = sum(weights[key] for key in ticked) / sum(weights.values())
    ines.get(f"/instructor/reviews/{answer_id}")
    response = ines.post(
        f"/instructor/reviews/{answer_id}",
        {"point": ticked, "comment": "Good", "return_to": "answer", "seen_review": "0"},
    )
    assert response.status_code == 302, response.text
    score, reviews = stored(sessions, answer_id)
    assert score == pytest.approx(expected, abs=1e-12)
    assert reviews == [score]


def test_a_typed_score_is_taken_and_is_taken_over_ticked_points(ines_and_answer, sessions):
    ines, answer_id, _ = ines_and_answer
    ines.get(f"/instructor/reviews/{answer_id}")
    response = ines.post(f"/instructor/reviews/{answer_id}", {"score": "1.5/2"})
    assert response.status_code == 302
    assert stored(sessions, answer_id) == (0.75, [0.75])
    page = ines.get(f"/instructor/reviews/{answer_id}").text
    [seen] = re.findall(r'name="seen_review" value="(\d+)"', page)
    response = ines.post(
        f"/instructor/reviews/{answer_id}",
        {"score": "40", "point": ["one-pattern-per-head"], "seen_review": seen},
    )
    assert response.status_code == 302
    assert stored(sessions, answer_id) == (0.4, [0.75, 0.4])


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({}, "Tick the key points the answer makes, or enter a score: nothing was saved."),
        ({"score": "  ", "comment": "Fine"}, "Tick the key points the answer makes"),
        ({"score": "-5"}, "Cannot read the score &#39;-5&#39;"),
        ({"score": "101"}, "out of range: a percentage is at most 100"),
        ({"score": "3/2"}, "out of range: points must be from 0"),
        ({"score": "good"}, "Cannot read the score &#39;good&#39;"),
        ({"point": ["no-such-point"]}, "The question has no key point &#39;no-such-point&#39;"),
        ({"point": ["one-pattern-per-head"], "score": "x"}, "Cannot read the score"),
    ],
)
def test_a_bad_or_missing_score_is_refused_and_nothing_is_stored(
    ines_and_answer, sessions, form, message
):
    ines, answer_id, alice = ines_and_answer
    ines.get(f"/instructor/reviews/{answer_id}")
    response = ines.post(
        f"/instructor/reviews/{answer_id}", form | {"return_to": "answer", "seen_review": "0"}
    )
    assert response.status_code == 422
    item = section_of(response.text, answer_id)
    error = re.search(r'<p class="inline-error" role="alert">([^<]*)</p>', item).group(1)
    assert message in error
    # what was typed and ticked is kept for the reviewer to fix
    for key in form.get("point", []):
        if key in rubric(QUESTION):
            assert re.search(rf'value="{key}"[^>]*checked', item)
    assert stored(sessions, answer_id) == (None, [])
    assert "Waiting for an instructor&#39;s review." in alice.get(CHAPTER_URL).text


def test_a_message_is_in_the_pages_language(ines_and_answer, sessions):
    ines, answer_id, _ = ines_and_answer
    ines.post("/lang/zh")
    ines.get(f"/instructor/reviews/{answer_id}")
    response = ines.post(f"/instructor/reviews/{answer_id}", {"return_to": "answer"})
    assert response.status_code == 422
    assert "请勾选" in response.text
    assert count(sessions, store.OpenAnswerReview) == 0


def test_a_regrade_keeps_the_history_and_the_student_sees_the_latest(
    ines_and_answer, sessions, browser_for
):
    ines, answer_id, alice = ines_and_answer
    with sessions() as session:
        store.create_user(
            session, name="tara", role="instructor", password=PASSWORD, display_name="Tara"
        )
    weights = rubric(QUESTION)
    first = weights["one-pattern-per-head"] / sum(weights.values())
    ines.get(f"/instructor/reviews/{answer_id}")
    ines.post(
        f"/instructor/reviews/{answer_id}",
        {"point": ["one-pattern-per-head"], "comment": "Say why heads differ."},
    )
    tara = browser_for("tara")
    tara.post("/lang/en")
    page = tara.get(f"/instructor/reviews/{answer_id}").text
    [seen] = re.findall(r'name="seen_review" value="(\d+)"', page)
    tara.post(
        f"/instructor/reviews/{answer_id}",
        {"score": "90", "comment": "Regraded: the angles are there.", "seen_review": seen},
    )
    assert stored(sessions, answer_id) == (0.9, [pytest.approx(first), 0.9])

    page = ines.get(f"/instructor/reviews/{answer_id}").text
    history = page[page.index('<section class="review-history"') :]
    items = re.findall(r'<li data-review="\d+">(.*?)</li>', history, re.S)
    assert len(items) == 2
    old = f"{100 * first:g}%"
    assert re.search(r"UTC, ines: " + re.escape(old), items[0])
    assert "Say why heads differ." in html.unescape(items[0])
    assert re.search(r"UTC, Tara: " + re.escape(f"{old} → 90%"), items[1])
    assert "Regraded: the angles are there." in items[1]
    with sessions() as session:
        reviewers = session.scalars(
            select(store.OpenAnswerReview.reviewer_id).order_by(store.OpenAnswerReview.id)
        ).all()
    assert reviewers == [user_id(sessions, "ines"), user_id(sessions, "tara")]

    chapter = alice.get(CHAPTER_URL).text
    assert "Instructor&#39;s score: 90%" in chapter
    assert "Comment: Regraded: the angles are there." in chapter
    assert "Say why heads differ." not in chapter


@pytest.fixture
def three_answers(app, browser_for, sessions):
    """alice and bob answer why-multi-head, then alice the other open question; ines reads
    English. Returns ines and the three answers' ids, oldest first."""
    alice, bob = browser_for("alice"), browser_for("bob")
    answer(alice)
    answer(bob, "因为每个头从不同角度看，最后拼接。")
    answer(alice, "训练时用正确答案，并行计算。", OTHER_QUESTION)
    ids = open_answer_ids(sessions)
    ines = browser_for("ines")
    ines.post("/lang/en")
    return ines, ids


def listed(page: str) -> list[int]:
    return [int(i) for i in re.findall(r'<section class="review question" id="answer-(\d+)"', page)]


def test_the_list_is_filtered_by_question_and_state(three_answers):
    ines, (first, second, third) = three_answers
    ines.get("/instructor/reviews")
    assert ines.post(f"/instructor/reviews/{second}", {"score": "60"}).status_code == 302
    assert listed(ines.get("/instructor/reviews").text) == [first, third]
    assert listed(ines.get("/instructor/reviews?state=awaiting").text) == [first, third]
    reviewed = ines.get("/instructor/reviews?state=reviewed").text
    assert listed(reviewed) == [second]
    assert "Reviewed: 60% by ines" in section_of(reviewed, second)
    assert listed(ines.get("/instructor/reviews?state=all").text) == [first, second, third]
    assert listed(ines.get(f"/instructor/reviews?question={QUESTION}").text) == [first]
    everything = ines.get(f"/instructor/reviews?question={QUESTION}&state=all").text
    assert listed(everything) == [first, second]
    assert f'<option value="{QUESTION}" selected>' in everything
    assert '<option value="all" selected>' in everything
    assert (
        listed(ines.get(f"/instructor/reviews?question={OTHER_QUESTION}&state=reviewed").text) == []
    )
    # a filter that cannot be read is refused with its reason
    response = ines.get("/instructor/reviews?state=done")
    assert response.status_code == 400
    assert "Unknown review state &#39;done&#39;" in response.text
    response = ines.get("/instructor/reviews?question=qkv-origin")  # a choice question
    assert response.status_code == 400
    assert "There is no open question &#39;qkv-origin&#39; to review." in response.text


def nav(page: str) -> dict[str, str]:
    block = page[
        page.index('<nav class="review-nav') : page.index(
            "</nav>", page.index('<nav class="review-nav')
        )
    ]
    links = dict(re.findall(r'<a rel="(prev|next)" accesskey="[pn]"[^>]* href="([^"]+)"', block))
    links["place"] = " ".join(
        re.sub(
            r"<[^>]+>", "", re.search(r'<span class="place">(.*?)</span>', block, re.S).group(1)
        ).split()
    )
    return {key: html.unescape(value) for key, value in links.items()}


def test_previous_and_next_follow_the_list_oldest_first(three_answers):
    ines, (first, second, third) = three_answers
    assert nav(ines.get(f"/instructor/reviews/{first}").text) == {
        "next": f"/instructor/reviews/{second}",
        "place": "Answer 1 of 3: Awaiting review, all open questions",
    }
    assert nav(ines.get(f"/instructor/reviews/{second}").text) == {
        "prev": f"/instructor/reviews/{first}",
        "next": f"/instructor/reviews/{third}",
        "place": "Answer 2 of 3: Awaiting review, all open questions",
    }
    assert nav(ines.get(f"/instructor/reviews/{third}").text) == {
        "prev": f"/instructor/reviews/{second}",
        "place": "Answer 3 of 3: Awaiting review, all open questions",
    }
    # one question's list skips the other's answers and keeps its filter in the links
    one = nav(ines.get(f"/instructor/reviews/{first}?question={QUESTION}").text)
    assert one["next"] == f"/instructor/reviews/{second}?question={QUESTION}"
    assert "prev" not in one
    assert "prev" not in nav(
        ines.get(f"/instructor/reviews/{third}?question={OTHER_QUESTION}").text
    )


def test_save_and_next_opens_the_next_answer_of_the_list(three_answers, sessions):
    ines, (first, second, third) = three_answers
    page = ines.get(f"/instructor/reviews/{first}").text
    assert '<button type="submit" name="then" value="next" accesskey="s"' in page
    response = ines.post(
        f"/instructor/reviews/{first}",
        {"score": "70", "then": "next", "return_to": "answer", "seen_review": "0"},
    )
    assert response.status_code == 302
    assert response.headers["Location"] == f"/instructor/reviews/{second}#main"
    # the one just reviewed left the awaiting list: the next is now its first
    assert nav(ines.get(f"/instructor/reviews/{second}").text) == {
        "next": f"/instructor/reviews/{third}",
        "place": "Answer 1 of 2: Awaiting review, all open questions",
    }
    # within one question, after its last answer: back to the list, which says so
    response = ines.post(
        f"/instructor/reviews/{second}?question={QUESTION}",
        {"score": "80", "then": "next", "return_to": "answer", "seen_review": "0"},
    )
    assert response.headers["Location"] == f"/instructor/reviews?question={QUESTION}#main"
    page = ines.get(response.headers["Location"]).text
    assert "That was the last answer of the list." in page
    assert 'id="queue-empty"' in page
    assert stored(sessions, first) == (0.7, [0.7])
    assert stored(sessions, second) == (0.8, [0.8])
    assert stored(sessions, third) == (None, [])


def test_the_state_all_list_goes_on_past_a_reviewed_answer(three_answers):
    ines, (first, second, third) = three_answers
    ines.get("/instructor/reviews")
    ines.post(f"/instructor/reviews/{second}", {"score": "50"})
    page = ines.get(f"/instructor/reviews/{second}?state=all").text
    assert nav(page) == {
        "prev": f"/instructor/reviews/{first}?state=all",
        "next": f"/instructor/reviews/{third}?state=all",
        "place": "Answer 2 of 3: All, all open questions",
    }
    # a reviewed answer in the awaiting list's view: not in it, and its neighbours are
    assert nav(ines.get(f"/instructor/reviews/{second}").text) == {
        "prev": f"/instructor/reviews/{first}",
        "next": f"/instructor/reviews/{third}",
        "place": "Not in this list (2 answers): Awaiting review, all open questions",
    }
