"""Bad input to the JSON API is a clear 4xx JSON error, never a 500, records nothing and uses
no attempt: odd digits in numbers, bodies that are not JSON or nested too deeply, text no
database can hold, ids beyond the id columns, numbers that overflow, matrices too big.

The tests marked "on each database" run on SQLite, and on PostgreSQL as well when
TEST_DATABASE_URL is set (`bash .ci/run` starts one): PostgreSQL is the stricter of the two.
"""

from __future__ import annotations

import re

import pytest
from test_web_api import assert_error, token_for
from web_helpers import PASSWORD, count
from werkzeug.exceptions import NotFound

from quizsvc import store
from quizsvc.web import DatabaseIdConverter, create_app, decimal_at_most

SUBMISSION_RULE = "/api/variants/{}/submissions"


class TokenClient:
    """A client authenticated by a Bearer token: no CSRF token to carry."""

    def __init__(self, app, token: str) -> None:
        self.client = app.test_client()
        self.headers = {"Authorization": f"Bearer {token}"}

    def get(self, path: str):
        return self.client.get(path, headers=self.headers)

    def post(self, path: str, body: object = None):
        return self.client.post(path, json=body, headers=self.headers)

    def post_raw(self, path: str, data: str | bytes):
        return self.client.post(
            path, data=data, content_type="application/json", headers=self.headers
        )


@pytest.fixture
def alice(app, sessions) -> TokenClient:
    return TokenClient(app, token_for(sessions, "alice"))


@pytest.fixture
def each_database(migrated_db_url):
    """(app, sessions) on a migrated database of each backend, with the student alice."""
    sessions = store.make_session_factory(store.make_engine(migrated_db_url))
    with sessions() as session:
        store.create_user(session, name="alice", role="student", password=PASSWORD)
    app = create_app({"SECRET_KEY": "test secret", "DATABASE_URL": migrated_db_url})
    return app, sessions


def new_variant(client: TokenClient) -> int:
    started = client.post("/api/drills/drill-score-row/variants")
    assert started.status_code == 201, started.text
    return started.json["id"]


def assert_unanswered(client: TokenClient, variant_id: int) -> None:
    variant = client.get(f"/api/variants/{variant_id}").json
    assert (variant["attempts_left"], variant["submissions"]) == (3, [])


# --- whole numbers in queries and paths ----------------------------------------------------


@pytest.mark.parametrize(
    "limit",
    [
        "%C2%B2",  # '²': str.isdigit() says yes, int() refuses it
        "%E2%91%A0",  # '①': the same
        "%D9%A3",  # Arabic-Indic 3: int() reads it as 3
        "%EF%BC%95",  # full-width 5: int() reads it as 5
        "+5",
        "%205",
        "5.0",
        "",
        "1" * 5000,  # int() refuses more than 4300 digits
    ],
)
def test_a_limit_in_anything_but_ascii_digits_is_400(alice, limit):
    message = assert_error(alice.get(f"/api/progress?limit={limit}"), 400, "bad_request")
    assert message == "limit must be a whole number from 1 to 100"


def test_a_variant_id_in_anything_but_ascii_digits_is_404(alice):
    variant_id = new_variant(alice)
    assert variant_id == 1
    assert alice.get("/api/variants/1").status_code == 200
    for other_digits in ("%D9%A1", "%EF%BC%91", "%F0%9D%9F%8F"):  # Arabic-Indic, full-width, bold 1
        assert_error(alice.get(f"/api/variants/{other_digits}"), 404, "not_found")
        response = alice.post(SUBMISSION_RULE.format(other_digits), {"answer": "1, 2, 3"})
        assert_error(response, 404, "not_found")
    assert_unanswered(alice, variant_id)


def test_ids_beyond_a_32_bit_integer_are_404_on_each_database(each_database):
    """The id columns are INTEGER: PostgreSQL refuses 2**31 with an error (a 500 before)."""
    app, sessions = each_database
    alice = TokenClient(app, token_for(sessions, "alice"))
    for variant_id in (2**31 - 1, 2**31, 2**63 - 1, 2**63, 10**30):
        assert_error(alice.get(f"/api/variants/{variant_id}"), 404, "not_found")
        response = alice.post(SUBMISSION_RULE.format(variant_id), {"answer": "1"})
        assert_error(response, 404, "not_found")
    # the largest id is a variant nobody has; the next one is no variant URL at all
    adapter = app.url_map.bind("localhost")
    assert adapter.match(f"/api/variants/{2**31 - 1}") == ("api.variant", {"variant_id": 2**31 - 1})
    with pytest.raises(NotFound):
        adapter.match(f"/api/variants/{2**31}")


@pytest.mark.parametrize("limit", [0, 1, 9, 10, 99, 100, 101, 253, 1000, 2030, 10203])
def test_the_id_regex_matches_exactly_the_numbers_up_to_its_limit(limit):
    pattern = re.compile(decimal_at_most(limit))
    for number in range(max(0, limit - 1200), limit + 1200):
        for written in (str(number), f"00{number}"):
            assert bool(pattern.fullmatch(written)) == (number <= limit), written
    assert not pattern.fullmatch("")
    assert not pattern.fullmatch("-1")


def test_the_id_converter_stops_at_the_largest_32_bit_integer():
    pattern = re.compile(DatabaseIdConverter.regex)
    assert pattern.fullmatch("2147483647")
    assert pattern.fullmatch("0")
    for beyond in ("2147483648", "2147483650", "2200000000", "9999999999", "10000000000"):
        assert not pattern.fullmatch(beyond), beyond
    assert not pattern.fullmatch("\u0663")  # '٣', which \d would take and int() reads as 3


# --- bodies that are not JSON --------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"answer": ' + "[" * 100_000 + "]" * 100_000 + "}",
        '{"a":' * 40_000 + "1" + "}" * 40_000,
    ],
    ids=["arrays", "arrays in the answer", "objects"],
)
@pytest.mark.parametrize("route", ["submission", "quiz answer"])
def test_json_nested_too_deeply_is_400(alice, body, route):
    assert len(body) < 256 * 1024  # under the body size limit
    variant_id = new_variant(alice)
    path = {
        "submission": SUBMISSION_RULE.format(variant_id),
        "quiz answer": "/api/questions/why-multi-head/answers",
    }[route]
    message = assert_error(alice.post_raw(path, body), 400, "bad_request")
    assert message == "the body is not valid JSON: arrays or objects are nested too deeply"
    assert_unanswered(alice, variant_id)


def test_a_deeply_nested_cell_is_refused_in_a_short_message(alice):
    variant_id = new_variant(alice)
    deep = "[" * 500 + "]" * 500  # parses, but is no number
    response = alice.post_raw(SUBMISSION_RULE.format(variant_id), f'{{"answer": [[{deep}]]}}')
    message = assert_error(response, 422, "invalid_answer")
    assert message == 'row 1, column 1: expected a number or "inf"/"-inf", got [[[[[[[...]]]]]]]'


@pytest.mark.parametrize("constant", ["Infinity", "-Infinity", "NaN"])
def test_the_non_json_constants_are_400_and_use_no_attempt(alice, constant):
    variant_id = new_variant(alice)
    body = f'{{"answer": [[{constant}, 1, 2]]}}'
    message = assert_error(
        alice.post_raw(SUBMISSION_RULE.format(variant_id), body), 400, "bad_request"
    )
    assert message == (
        f'the body is not valid JSON: {constant} is not JSON (send infinities as the strings "inf" '
        f'and "-inf")'
    )
    assert_unanswered(alice, variant_id)


def test_a_body_that_is_not_utf8_is_400(alice):
    variant_id = new_variant(alice)
    response = alice.post_raw(SUBMISSION_RULE.format(variant_id), b'{"answer": "\xff"}')
    assert assert_error(response, 400, "bad_request").startswith("the body is not valid JSON: ")


# --- numbers that overflow, matrices too big ----------------------------------------------


@pytest.mark.parametrize("number", ["1e999", "-1e999", "1.8e308"])
def test_a_json_number_that_overflows_to_infinity_is_422_and_uses_no_attempt(alice, number):
    variant_id = new_variant(alice)
    body = f'{{"answer": [[{number}, 1, 2]], "idempotency_key": "overflow"}}'
    message = assert_error(
        alice.post_raw(SUBMISSION_RULE.format(variant_id), body), 422, "invalid_answer"
    )
    assert message == (
        'row 1, column 1: the number is too large to be finite; send "inf" or "-inf" for an '
        "infinity"
    )
    assert_unanswered(alice, variant_id)
    # the infinity the docs name is taken
    infinite = alice.post(SUBMISSION_RULE.format(variant_id), {"answer": [["inf", 1, 2]]})
    assert infinite.status_code == 201, infinite.text


def test_a_matrix_with_too_many_cells_is_refused_in_cells(alice):
    variant_id = new_variant(alice)
    submit = SUBMISSION_RULE.format(variant_id)
    message = assert_error(alice.post(submit, {"answer": [[1] * 50_000]}), 422, "invalid_answer")
    assert message == "the answer matrix has 50000 cells; at most 256 are read"
    rows = [[1.0] * 16 for _ in range(17)]  # 272 cells
    message = assert_error(alice.post(submit, {"answer": rows}), 422, "invalid_answer")
    assert message == "the answer matrix has 272 cells; at most 256 are read"
    # 256 cells of long floats are read, and graded against the grid's shape
    widest = [[-2.2250738585072014e-308] * 256]
    message = assert_error(alice.post(submit, {"answer": widest}), 422, "invalid_answer")
    assert message == "expected 1 × 3 values (rows × columns), got 1 × 256"
    # whole numbers of 300 digits are finite, but too long to write out
    long_numbers = [[10**299] * 40]
    message = assert_error(alice.post(submit, {"answer": long_numbers}), 422, "invalid_answer")
    assert message == (
        "the answer matrix's numbers take 12078 characters written out; at most 10000 are "
        "read: send fewer digits"
    )
    assert_unanswered(alice, variant_id)
    # typed text is still measured in characters, as the client sent it
    message = assert_error(alice.post(submit, {"answer": "1, " * 4000}), 422, "invalid_answer")
    assert message == "answer is longer than 10000 characters"


# --- text no database can hold -----------------------------------------------------------


LONE_SURROGATE = "lone surrogate (\\ud800-\\udfff), which is not text"


def test_lone_surrogates_and_nul_are_422_naming_the_field_on_each_database(each_database):
    app, sessions = each_database
    alice = TokenClient(app, token_for(sessions, "alice"))
    variant_id = new_variant(alice)
    submit = SUBMISSION_RULE.format(variant_id)
    open_answer = "/api/questions/why-multi-head/answers"
    # raw bodies: \ud800 is a JSON escape that decodes to half of a UTF-16 pair
    cases = [
        (open_answer, r'{"text": "multi \ud800 heads"}', "invalid_answer", "text"),
        (open_answer, r'{"text": "multi \udc00 heads"}', "invalid_answer", "text"),
        (open_answer, r'{"text": "multi \u0000 heads"}', "invalid_answer", "text"),
        (
            open_answer,
            r'{"text": "multi heads", "idempotency_key": "k\ud800"}',
            "invalid_request",
            "idempotency_key",
        ),
        (
            open_answer,
            r'{"text": "multi heads", "idempotency_key": "k\u0000"}',
            "invalid_request",
            "idempotency_key",
        ),
        (submit, r'{"answer": "1, 2, 3", "idempotency_key": "k\ud800"}', "invalid_request", None),
        (submit, r'{"answer": "1, 2, 3", "idempotency_key": "k\u0000"}', "invalid_request", None),
        (submit, r'{"answer": "1, 2\ud800, 3"}', "invalid_answer", "answer"),
        (submit, r'{"answer": "1, 2, 3\u0000"}', "invalid_answer", "answer"),
    ]
    for path, body, code, field in cases:
        message = assert_error(alice.post_raw(path, body), 422, code)
        field = field or "idempotency_key"
        if "\\u0000" in body:
            assert message == f"{field} contains a NUL character (\\u0000)", body
        else:
            assert message == f"{field} contains a {LONE_SURROGATE}", body
    assert count(sessions, store.QuizAnswer) == 0
    assert count(sessions, store.Submission) == 0
    # the same answers without the bad characters are taken
    assert (
        alice.post(open_answer, {"text": "multi heads", "idempotency_key": "k"}).status_code == 201
    )
    assert alice.post(submit, {"answer": "1, 2, 3", "idempotency_key": "k2"}).status_code == 201


# --- what a body must say ----------------------------------------------------------------


def test_a_body_without_the_json_content_type_is_400_even_if_it_is_json(alice):
    variant_id = new_variant(alice)
    for path in (SUBMISSION_RULE.format(variant_id), "/api/questions/why-multi-head/answers"):
        response = alice.client.post(
            path,
            data='{"answer": "1, 2, 3", "text": "heads"}',
            headers=alice.headers,
            content_type="text/plain",
        )
        message = assert_error(response, 400, "bad_request")
        assert message == "send a JSON object with the header Content-Type: application/json"
    assert_unanswered(alice, variant_id)
    chapter = alice.get("/api/chapters/transformer-by-hand/questions").json
    assert [item["learner_answer"] for item in chapter["questions"]] == [None] * 6


def test_a_submission_to_an_unknown_variant_is_404_whatever_its_body(alice):
    response = alice.post_raw(SUBMISSION_RULE.format(999), "not JSON at all")
    assert assert_error(response, 404, "not_found") == "no drill variant 999"


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ([[1, 2, 3], []], "row 2 is empty"),
        ([["1", 2, 3]], 'row 1, column 1: the only strings allowed are "inf" and "-inf"'),
        ([[1, 2, "Infinity"]], 'row 1, column 3: the only strings allowed are "inf" and "-inf"'),
        ([1, 2, 3], "answer must be a string or a list of rows of numbers"),
        ([], "answer must be a string or a list of rows of numbers"),
    ],
)
def test_a_matrix_answer_is_refused_naming_the_row_and_column(alice, answer, message):
    variant_id = new_variant(alice)
    response = alice.post(SUBMISSION_RULE.format(variant_id), {"answer": answer})
    assert assert_error(response, 422, "invalid_answer").startswith(message)
    assert_unanswered(alice, variant_id)


def test_a_matrix_written_out_in_exactly_the_characters_read_is_read(alice):
    variant_id = new_variant(alice)
    submit = SUBMISSION_RULE.format(variant_id)
    # three 3332-digit numbers and two ", ": 3 * 3332 + 4 = 10000 characters
    at_limit = [[10**3331] * 3]
    message = assert_error(alice.post(submit, {"answer": at_limit}), 422, "invalid_answer")
    # read, and refused by the grader for what the number is
    assert message.endswith(
        "is too large to be a finite number (row 1, value 1); write inf if you mean infinity"
    )
    over = [[10**3331, 10**3331, 10**3332]]
    message = assert_error(alice.post(submit, {"answer": over}), 422, "invalid_answer")
    assert message.startswith("the answer matrix's numbers take 10001 characters written out")


def test_an_idempotency_key_of_128_characters_is_taken_and_129_refused(alice):
    variant_id = new_variant(alice)
    submit = SUBMISSION_RULE.format(variant_id)
    refused = alice.post(submit, {"answer": "1, 2, 3", "idempotency_key": "k" * 129})
    assert assert_error(refused, 422, "invalid_request") == (
        "idempotency_key must be a non-blank string of at most 128 characters"
    )
    for key in ("  ", 7, ""):
        refused = alice.post(submit, {"answer": "1, 2, 3", "idempotency_key": key})
        assert_error(refused, 422, "invalid_request")
    assert_unanswered(alice, variant_id)
    taken = alice.post(submit, {"answer": "1, 2, 3", "idempotency_key": "k" * 128})
    assert taken.status_code == 201, taken.text
    again = alice.post(submit, {"answer": "1, 2, 3", "idempotency_key": "k" * 128})
    assert (again.status_code, again.json["replayed"]) == (200, True)


OPEN_TAKES_TEXT = (
    """question 'why-multi-head' takes its answer in "text", e.g. {"text": "..."}, not in"""
    ' "choices"'
)


def test_an_open_answer_is_text_of_at_most_10000_characters(alice, sessions):
    path = "/api/questions/why-multi-head/answers"
    for body, message in [
        ({"text": 5}, "text must be a string"),
        ({"text": ["heads"]}, "text must be a string"),
        ({"choices": "A"}, OPEN_TAKES_TEXT),
        ({"choices": ["A"]}, OPEN_TAKES_TEXT),
        ({"text": "h" * 10_001}, "the answer is longer than 10000 characters"),
    ]:
        assert assert_error(alice.post(path, body), 422, "invalid_answer") == message, body
    assert count(sessions, store.QuizAnswer) == 0
    response = alice.post(path, {"text": "h" * 10_000})
    assert response.status_code == 201, response.text
    assert response.json["learner_answer"]["text"] == "h" * 10_000


def test_the_history_limit_takes_1_to_100(alice):
    for limit in ("1", "100", "007"):
        assert alice.get(f"/api/progress?limit={limit}").status_code == 200, limit
    for limit in ("0", "101"):
        message = assert_error(alice.get(f"/api/progress?limit={limit}"), 400, "bad_request")
        assert message == "limit must be a whole number from 1 to 100"
