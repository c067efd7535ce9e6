"""A chapter's schedule on the pages and the API: stated before starting, answers refused
out of time with 403/409 and the moments in the learner's language, a late answer's score
with the penalty taken off, a timed quiz started by a POST, an instructor's extension
letting one student answer after the close while another is refused."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import update
from web_helpers import english_when, start, user_id

from quizsvc import store
from quizsvc.store.models import QuizStart

CHAPTER = "transformer-by-hand"
CHAPTER_URL = f"/chapters/{CHAPTER}"
QKV = "qkv-origin"  # single choice, B is right, one try
NOW = datetime.now(UTC).replace(second=0, microsecond=0)
OPENS, CLOSES = NOW - timedelta(days=2), NOW - timedelta(hours=1)


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def quiz(opens=OPENS, closes=CLOSES, extra: str = "") -> str:
    return f"quiz:\n  opens: {iso(opens)}\n  closes: {iso(closes)}\n{extra}"


def zh_when(moment: datetime) -> str:
    """How a Chinese page writes a moment (CLDR's medium date, a 24-hour minute)."""
    return f"{moment.year}年{moment.month}月{moment.day}日 {moment:%H:%M}"


@pytest.fixture
def schedule() -> str:
    return ""


@pytest.fixture
def content_dir(content_dir, schedule):
    """The chapter with ``schedule`` (YAML) added to its chapter.yaml."""
    path = content_dir / CHAPTER / "chapter.yaml"
    path.write_text(path.read_text(encoding="utf-8") + "\n" + schedule, encoding="utf-8")
    return content_dir


def text_of(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def schedule_section(page: str) -> str:
    match = re.search(r'<section class="schedule" id="schedule".*?</section>', page, re.S)
    assert match, "no schedule section"
    return text_of(match.group(0))


def notice(page: str) -> str:
    match = re.search(r'<p class="schedule-notice" id="schedule-notice"[^>]*>(.*?)</p>', page)
    assert match, "no notice"
    return html.unescape(match.group(1))


def answer_error(page: str) -> str:
    match = re.search(r'<p class="inline-error" id="error-[^"]+" role="alert">(.*?)</p>', page)
    assert match, "no error"
    return html.unescape(match.group(1))


def api_answer(browser, lang: str, question: str = QKV, choice: str = "B"):
    return browser.client.post(
        f"/api/questions/{question}/answers?lang={lang}",
        json={"choices": [choice]},
        headers={"X-CSRFToken": browser.token},
    )


def stored_answer(sessions, name: str, question: str = QKV):
    with sessions() as session:
        return store.latest_quiz_answers(session, user_id(sessions, name)).get(question)


LATER = NOW + timedelta(days=2)


@pytest.mark.parametrize("schedule", [quiz(opens=LATER, closes=LATER + timedelta(days=7))])
def test_a_quiz_not_open_yet_states_when_it_opens_and_refuses_answers(browser_for, sessions):
    alice = browser_for("alice")
    alice.post("/lang/en")
    page = alice.get(CHAPTER_URL).text
    facts = schedule_section(page)
    assert f"Opens: {english_when(LATER)} UTC." in facts
    assert f"Closes: {english_when(LATER + timedelta(days=7))} UTC." in facts
    assert "Late answers are not accepted." in facts
    assert 'class="question"' not in page  # the questions come once it opens
    # the form sent anyway (kept from an earlier visit, say)
    response = alice.post(f"{CHAPTER_URL}/questions/{QKV}", {"choice": "B"})
    assert response.status_code == 403
    # the page without its questions, saying why
    assert notice(response.text) == f"This is not open yet: it opens on {english_when(LATER)} UTC."
    alice.post("/lang/zh")
    response = alice.post(f"{CHAPTER_URL}/questions/{QKV}", {"choice": "B"})
    assert response.status_code == 403
    assert notice(response.text) == f"尚未开放：开放时间为 {zh_when(LATER)}（UTC）。"
    for lang, message in (
        ("en", f"This is not open yet: it opens on {english_when(LATER)} UTC."),
        ("zh", f"尚未开放：开放时间为 {zh_when(LATER)}（UTC）。"),
    ):
        response = api_answer(alice, lang)
        assert response.status_code == 403
        assert response.json == {"error": {"status": 403, "code": "not_open", "message": message}}
    assert stored_answer(sessions, "alice") is None  # nothing recorded
    # the API lists no questions before the opening either, as the page shows none
    response = alice.client.get(f"/api/chapters/{CHAPTER}/questions?lang=en")
    assert response.status_code == 403
    assert response.json["error"]["code"] == "not_open"


@pytest.mark.parametrize("schedule", [quiz()])
def test_an_extension_lets_one_student_answer_after_the_close_while_another_is_refused(
    browser_for, sessions
):
    ines = browser_for("ines")
    ines.post("/lang/en")
    alice_id = user_id(sessions, "alice")
    later = NOW + timedelta(days=1)
    response = ines.post(
        f"/instructor/students/{alice_id}/extensions",
        {"chapter": f"{CHAPTER}/quiz", "closes": later.strftime("%Y-%m-%dT%H:%M")},
    )
    assert response.status_code == 302
    student_page = ines.get(f"/instructor/students/{alice_id}").text
    listed = re.search(
        r'<table class="progress" id="extension-list">.*?</table>', student_page, re.S
    )
    assert f"{english_when(later)} UTC" in text_of(listed.group(0))

    alice, bob = browser_for("alice"), browser_for("bob")
    for browser in (alice, bob):
        browser.post("/lang/en")
    assert f"For you it closes: {english_when(later)} UTC." in schedule_section(
        alice.get(CHAPTER_URL).text
    )
    assert alice.post(f"{CHAPTER_URL}/questions/{QKV}", {"choice": "B"}).status_code == 302
    assert stored_answer(sessions, "alice").score == 1.0  # in time for her: no penalty

    refused = bob.post(f"{CHAPTER_URL}/questions/{QKV}", {"choice": "B"})
    assert refused.status_code == 403
    assert answer_error(refused.text) == f"This is closed: it closed on {english_when(CLOSES)} UTC."
    response = api_answer(bob, "zh")
    assert response.status_code == 403
    assert response.json["error"]["code"] == "closed"
    assert response.json["error"]["message"] == f"已截止：截止时间为 {zh_when(CLOSES)}（UTC）。"
    assert stored_answer(sessions, "bob") is None


@pytest.mark.parametrize(
    "schedule", [quiz(extra="  late:\n    policy: penalty\n    penalty: 0.2\n")]
)
def test_a_late_answer_is_taken_with_the_penalty_off_its_score(browser_for, sessions):
    alice = browser_for("alice")
    alice.post("/lang/en")
    facts = schedule_section(alice.get(CHAPTER_URL).text)
    assert "Late answers are accepted, with 20% taken off their score." in facts
    assert "The deadline has passed: an answer now loses 20% of its score." in facts
    assert alice.post(f"{CHAPTER_URL}/questions/{QKV}", {"choice": "B"}).status_code == 302
    answer = stored_answer(sessions, "alice")
    assert (answer.raw_score, answer.score) == (1.0, pytest.approx(0.8))  # 1 x (1 - 0.2)
    # the API takes a late answer the same way
    response = api_answer(alice, "en", "scaling-by-sqrt-dk", "B")
    assert response.status_code == 201
    assert response.json["score"] == pytest.approx(0.8)
    assert stored_answer(sessions, "alice", "scaling-by-sqrt-dk").raw_score == 1.0


@pytest.mark.parametrize(
    "schedule", [quiz(closes=NOW + timedelta(days=1), extra="  time_limit: 30\n")]
)
def test_a_timed_quiz_starts_with_a_post_and_refuses_answers_once_its_time_is_up(
    browser_for, sessions
):
    alice = browser_for("alice")
    alice.post("/lang/en")
    page = alice.get(CHAPTER_URL).text
    facts = schedule_section(page)
    assert "Time limit: 30 minutes, counted from when you start the quiz." in facts
    assert 'id="start-quiz"' in page and 'class="question"' not in page
    response = alice.post(f"{CHAPTER_URL}/questions/{QKV}", {"choice": "B"})
    assert response.status_code == 409
    assert notice(response.text) == "Start the quiz first: its time limit counts from the start."
    assert api_answer(alice, "en").json["error"]["code"] == "not_started"
    listed = alice.client.get(f"/api/chapters/{CHAPTER}/questions?lang=en")
    assert (listed.status_code, listed.json["error"]["code"]) == (409, "not_started")

    before = datetime.now(UTC)
    assert alice.post(f"{CHAPTER_URL}/start").status_code == 302
    with sessions() as session:
        started = store.quiz_started_at(session, user_id(sessions, "alice"), CHAPTER)
    assert before <= started <= datetime.now(UTC)
    page = alice.get(CHAPTER_URL).text
    assert 'id="start-quiz"' not in page and f'id="q-{QKV}"' in page
    clock = re.search(r'<b class="clock" data-ends="([^"]+)" role="timer">(\d+):(\d\d)</b>', page)
    assert datetime.fromisoformat(clock.group(1)) == started + timedelta(minutes=30)
    assert 29 <= int(clock.group(2)) <= 30

    # the clock moved back 31 minutes: the time is up
    with sessions() as session:
        session.execute(update(QuizStart).values(started_at=started - timedelta(minutes=31)))
        session.commit()
    ends = started - timedelta(minutes=1)
    response = alice.post(f"{CHAPTER_URL}/questions/{QKV}", {"choice": "B"})
    assert response.status_code == 409
    assert answer_error(response.text) == (
        f"Time is up: your time for the quiz ended on {english_when(ends)} UTC."
    )
    response = api_answer(alice, "zh")
    assert response.status_code == 409
    assert response.json["error"] == {
        "status": 409,
        "code": "time_up",
        "message": f"时间已到：你的测验时间已于 {zh_when(ends)}（UTC）结束。",
    }
    # extra minutes from the instructor give the time back
    with sessions() as session:
        store.set_extension(
            session,
            learner_id=user_id(sessions, "alice"),
            chapter_id=CHAPTER,
            part="quiz",
            closes_at=None,
            extra_minutes=10,
            set_by=None,
        )
    assert alice.post(f"{CHAPTER_URL}/questions/{QKV}", {"choice": "B"}).status_code == 302

    # through the API: started, its end 30 minutes on
    bob = browser_for("bob")
    response = bob.client.post(
        f"/api/chapters/{CHAPTER}/quiz/start", headers={"X-CSRFToken": bob.token}
    )
    assert response.status_code == 201
    started = datetime.fromisoformat(response.json["started_at"])
    assert datetime.fromisoformat(response.json["ends"]) == started + timedelta(minutes=30)
    assert api_answer(bob, "en").status_code == 201


DRILLS_CLOSED = f"drills:\n  opens: {iso(OPENS)}\n  closes: {iso(CLOSES)}\n"


@pytest.mark.parametrize("schedule", [DRILLS_CLOSED])
def test_closed_drills_are_refused_on_their_pages_and_the_api(browser_for, sessions):
    alice = browser_for("alice")
    alice.post("/lang/en")
    drills = alice.get("/drills").text
    section = re.search(
        r'<section class="schedule" id="drills-schedule-1".*?</section>', drills, re.S
    )
    assert f"Closes: {english_when(CLOSES)} UTC." in text_of(section.group(0))
    assert f"This is closed: it closed on {english_when(CLOSES)} UTC." in text_of(section.group(0))
    response = alice.post("/drills/drill-projection/variants")
    assert response.status_code == 403
    assert f"This is closed: it closed on {english_when(CLOSES)} UTC." in html.unescape(
        response.text
    )
    response = alice.client.post(
        "/api/drills/drill-projection/variants?lang=en", headers={"X-CSRFToken": alice.token}
    )
    assert response.status_code == 403
    assert response.json["error"]["code"] == "closed"

    # a variant started under an extension, answered once the extension is gone
    learner = user_id(sessions, "alice")

    def extend(closes):
        with sessions() as session:
            store.set_extension(
                session,
                learner_id=learner,
                chapter_id=CHAPTER,
                part="drills",
                closes_at=closes,
                extra_minutes=0,
                set_by=None,
            )

    extend(NOW + timedelta(days=1))
    variant_id = start(alice, "drill-projection")
    extend(None)
    grid = {f"cell-{r}-{c}": "1" for r in range(3) for c in range(4)}  # its 3 x 4 grid
    response = alice.post(f"/variants/{variant_id}/submissions", grid)
    assert response.status_code == 403
    assert f"This is closed: it closed on {english_when(CLOSES)} UTC." in html.unescape(
        response.text
    )
    response = alice.client.post(
        f"/api/variants/{variant_id}/submissions?lang=zh",
        json={"answer": "1 1 1 1; 1 1 1 1; 1 1 1 1"},
        headers={"X-CSRFToken": alice.token},
    )
    assert response.status_code == 403
    assert response.json["error"]["message"] == f"已截止：截止时间为 {zh_when(CLOSES)}（UTC）。"


@pytest.mark.parametrize("schedule", [quiz()])
def test_an_extension_that_cannot_be_read_is_refused_with_a_message(browser_for, sessions):
    ines = browser_for("ines")
    ines.post("/lang/en")
    alice_id = user_id(sessions, "alice")
    url = f"/instructor/students/{alice_id}/extensions"
    response = ines.post(url, {"chapter": f"{CHAPTER}/quiz", "closes": "next friday"})
    assert response.status_code == 422
    assert (
        "Write the new close as a date and time, like 2026-09-15T18:00 (UTC), not 'next friday'."
        in html.unescape(response.text)
    )
    response = ines.post(url, {"chapter": f"{CHAPTER}/drills", "extra_minutes": "5"})
    assert response.status_code == 422  # the chapter's drills have no schedule
    assert "Choose a chapter&#39;s quiz or drills that has a schedule." in response.text
    ines.post("/lang/zh")
    response = ines.post(url, {"chapter": f"{CHAPTER}/quiz", "extra_minutes": "-3"})
    assert response.status_code == 422
    assert "额外时间必须是 0 到 10000 之间的整数分钟，而不是 &#39;-3&#39;。" in response.text
    with sessions() as session:
        assert store.extensions_of(session, alice_id) == []


def test_the_shipped_chapter_has_no_schedule(browser_for):
    page = browser_for("alice").get(CHAPTER_URL).text
    assert 'class="schedule"' not in page and f'id="q-{QKV}"' in page
