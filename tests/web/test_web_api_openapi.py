"""docs/openapi.yaml describes the API as it is: a whole API session, every request and
response validated against it with openapi-core, error responses included."""

from __future__ import annotations

import functools
import io
import json
import re
import shlex

import pytest
import yaml
from openapi_core import OpenAPI
from openapi_core.contrib.werkzeug import WerkzeugOpenAPIRequest, WerkzeugOpenAPIResponse
from openapi_core.exceptions import OpenAPIError
from werkzeug.wrappers import Request, Response

from quizsvc import store
from quizsvc.web import REPO_ROOT

SPEC_PATH = (REPO_ROOT / "docs" / "openapi.yaml").resolve()


@functools.cache
def spec() -> OpenAPI:
    """The spec, read and checked against OpenAPI's schema (seconds: once, when used)."""
    return OpenAPI.from_path(SPEC_PATH)


API_MD = (REPO_ROOT / "docs" / "api.md").read_text(encoding="utf-8")
AUTHORING_MD = (REPO_ROOT / "docs" / "authoring.md").read_text(encoding="utf-8")
CHAPTER = "transformer-by-hand"


@pytest.fixture
def content_dir(content_dir):
    """content/ with docs/authoring.md's numeric and multiple-choice examples, the types it
    has none of."""
    examples = [
        question
        for block in re.findall(r"```yaml\n(.*?)```", AUTHORING_MD, re.DOTALL)
        if block.startswith("questions:")
        for question in yaml.safe_load(block)["questions"]
        if question["type"] in {"numeric", "multiple_choice"}
    ]
    path = content_dir / CHAPTER / "zz-authoring-examples.yaml"
    path.write_text(yaml.safe_dump({"questions": examples}, allow_unicode=True), encoding="utf-8")
    return content_dir


def spec_operations() -> set[tuple[str, str]]:
    paths = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))["paths"]
    return {
        (method.upper(), path)
        for path, operations in paths.items()
        for method in operations
        if method in {"get", "post", "put", "patch", "delete"}
    }


def app_operations(app) -> set[tuple[str, str]]:
    return {
        (method, re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule))
        for rule in app.url_map.iter_rules()
        if rule.rule.startswith("/api/")
        for method in rule.methods - {"HEAD", "OPTIONS"}
    }


class Session:
    """A client whose every exchange is checked against the spec, and remembered."""

    def __init__(self, app, headers: dict[str, str], client=None) -> None:
        self.app = app
        self.client = client or app.test_client()
        self.headers = headers
        self.seen: list[tuple[str, str, int]] = []

    def call(self, method: str, path: str, body: object = None, *, valid_request: bool = True):
        data = b"" if body is None else json.dumps(body).encode()
        response = self.client.open(
            path,
            method=method,
            data=data,
            headers=self.headers,
            content_type="application/json" if body is not None else None,
        )
        # the app has read the body from the request's stream: give the validator its own
        environ = dict(response.request.environ)
        environ["wsgi.input"] = io.BytesIO(data)
        request = WerkzeugOpenAPIRequest(Request(environ))
        if valid_request:
            spec().validate_request(request)
        else:
            with pytest.raises(OpenAPIError):
                spec().validate_request(request)
        spec().validate_response(request, WerkzeugOpenAPIResponse(response))
        rule, _ = self.app.url_map.bind("localhost").match(
            path.split("?")[0], method=method, return_rule=True
        )
        template = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule)
        self.seen.append((method, template, response.status_code))
        return response

    def get(self, path: str, **kwargs):
        return self.call("GET", path, **kwargs)

    def post(self, path: str, body: object = None, **kwargs):
        return self.call("POST", path, body, **kwargs)


def test_the_spec_documents_exactly_the_apps_api_routes(app):
    assert spec_operations() == app_operations(app)


def test_a_whole_api_session_matches_the_spec(app, browser_for, sessions):
    browser = browser_for("alice")
    alice = Session(app, {"X-CSRFToken": browser.token}, browser.client)
    with sessions() as session:
        token = store.issue_api_token(session, "bob")
    bob = Session(app, {"Authorization": f"Bearer {token}"})
    anonymous = Session(app, {})
    wrong_token = Session(app, {"Authorization": "Bearer wrong"})
    no_csrf = Session(app, {}, browser.client)

    assert alice.get("/api/chapters").status_code == 200
    assert alice.get("/api/chapters?lang=zh").status_code == 200
    assert alice.get("/api/chapters?lang=xx", valid_request=False).status_code == 400
    questions = f"/api/chapters/{CHAPTER}/questions"
    assert alice.get(questions + "?lang=en").status_code == 200
    assert alice.get("/api/chapters/nope/questions").status_code == 404

    answer = "/api/questions/qkv-origin/answers"
    assert alice.post(answer, {"choices": ["A", "B"]}).status_code == 422
    assert alice.post(answer, {"choices": ["B"], "idempotency_key": "q1"}).status_code == 201
    assert alice.post(answer, {"choices": ["B"], "idempotency_key": "q1"}).status_code == 200
    assert alice.post(answer, {"choices": ["B"], "idempotency_key": "q2"}).status_code == 409
    assert alice.post("/api/questions/nope/answers", {"choices": ["B"]}).status_code == 404
    open_answer = {"text": "Each head has its own projections; outputs are concatenated."}
    assert alice.post("/api/questions/why-multi-head/answers", open_answer).status_code == 201
    numeric = "/api/questions/masked-weights-row-1/answers"
    assert alice.post(numeric, {"text": "0.47, 0.53"}).status_code == 422  # one cell short
    answered = alice.post(numeric, {"text": "0.471, 0.529, 0"})
    assert (answered.status_code, answered.json["score"]) == (201, 1.0)
    matrix = alice.post("/api/questions/masked-scores/answers", {"text": "2, -inf; 2.7, 2.89"})
    assert (matrix.status_code, matrix.json["score"]) == (201, 1.0)
    ticked = alice.post("/api/questions/decoder-differences/answers", {"choices": ["A", "C"]})
    assert (ticked.status_code, ticked.json["score"]) == (201, 0.0)  # 0.5 - 0.5
    assert alice.get(questions).status_code == 200  # answered and unanswered items

    drills = alice.get("/api/drills").json["drills"]
    variants = {}
    for drill in drills:  # every drill kind's variant against the schema
        started = alice.post(f"/api/drills/{drill['id']}/variants")
        assert started.status_code == 201
        variants[drill["id"]] = started.json
    assert alice.post("/api/drills/nope/variants").status_code == 404
    assert bob.post("/api/drills/recommended/variants").status_code == 201

    # wrong, retried, invalid, right, refused: drill-softmax-row has a heatmap
    variant = variants["drill-softmax-row"]
    submit = f"/api/variants/{variant['id']}/submissions"
    assert alice.post(submit, {"answer": "1, 2"}).status_code == 422
    assert alice.post(submit, {"answer": {"not": "a matrix"}}, valid_request=False).status_code == (
        422
    )
    assert alice.post(submit, {"answer": [[0, 0, 0]], "idempotency_key": "s1"}).status_code == 201
    assert alice.post(submit, {"answer": [[0, 0, 0]], "idempotency_key": "s1"}).status_code == 200
    expected = alice_expected_answer(sessions, variant["id"])
    right = alice.post(submit, {"answer": expected, "idempotency_key": "s2"})
    assert right.status_code == 201
    assert right.json["variant"]["heatmap"] is not None
    assert alice.post(submit, {"answer": expected, "idempotency_key": "s3"}).status_code == 409
    assert alice.get(f"/api/variants/{variant['id']}").json["finished"] is True
    # infinities as strings, in a request and in the response
    masked = variants["drill-masked-row"]
    inf_answer = {"answer": [["-inf", "inf", 0]]}
    assert alice.post(f"/api/variants/{masked['id']}/submissions", inf_answer).status_code == 201
    out_of_attempts = variants["drill-greedy-next-token"]
    finished = alice.post(f"/api/variants/{out_of_attempts['id']}/submissions", {"answer": "99"})
    assert finished.json["variant"]["finished"] is True

    assert bob.get(f"/api/variants/{variant['id']}").status_code == 404
    assert bob.post(submit, {"answer": [[0, 0, 0]]}).status_code == 404
    assert alice.get("/api/variants/999999").status_code == 404

    # the shipped chapter's quiz has no time limit: started, with no end
    started = alice.post("/api/chapters/transformer-by-hand/quiz/start")
    assert (started.status_code, started.json["ends"]) == (201, None)

    assert alice.get("/api/progress").status_code == 200
    assert alice.get("/api/progress?limit=5&lang=zh").status_code == 200
    assert alice.get("/api/progress?limit=0", valid_request=False).status_code == 400
    assert alice.get("/api/progress?lang=fr", valid_request=False).status_code == 400
    too_large = {"answer": "1" * (256 * 1024)}
    assert alice.post(submit, too_large, valid_request=False).status_code == 413
    assert bob.get("/api/progress").status_code == 200

    assert anonymous.get("/api/progress", valid_request=False).status_code == 401
    assert anonymous.get("/api/drills", valid_request=False).status_code == 401
    assert wrong_token.post(submit, {"answer": "1"}).status_code == 401
    assert no_csrf.post(submit, {"answer": "1"}, valid_request=False).status_code == 400

    seen = alice.seen + bob.seen + anonymous.seen + wrong_token.seen + no_csrf.seen
    assert {(method, path) for method, path, _ in seen} == spec_operations()
    assert {status for *_, status in seen} == {200, 201, 400, 401, 404, 409, 413, 422}


def spec_operation_objects() -> list[tuple[str, str, dict]]:
    paths = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))["paths"]
    return [
        (method, path, operation)
        for path, ops in paths.items()
        for method, operation in ops.items()
    ]


def test_every_operation_takes_lang_and_documents_405_and_for_a_body_413():
    """docs/api.md: ?lang on any route; any path answers 405 for a method it does not take,
    any POST 413 for a body over MAX_CONTENT_LENGTH."""
    lang = {"$ref": "#/components/parameters/Lang"}
    for method, path, operation in spec_operation_objects():
        assert lang in operation["parameters"], (method, path)
        assert operation["responses"]["405"] == {"$ref": "#/components/responses/MethodNotAllowed"}
        if method == "post":
            assert operation["responses"]["413"] == {
                "$ref": "#/components/responses/PayloadTooLarge"
            }


def test_a_405_matches_the_spec_with_its_allow_header(app, browser_for):
    """The 405 of a method a path does not take, checked against an operation of that path
    (the spec has no operation for the method itself)."""
    browser = browser_for("alice")
    client = browser.client
    refused = client.post("/api/chapters", headers={"X-CSRFToken": browser.token})
    assert refused.status_code == 405
    documented = client.get("/api/chapters")
    spec().validate_response(
        WerkzeugOpenAPIRequest(documented.request), WerkzeugOpenAPIResponse(refused)
    )
    without_allow = Response(refused.get_data(), status=405, mimetype="application/json")
    with pytest.raises(OpenAPIError):
        spec().validate_response(
            WerkzeugOpenAPIRequest(documented.request), WerkzeugOpenAPIResponse(without_allow)
        )


def alice_expected_answer(sessions, variant_id: int) -> list[list[float]]:
    from quizsvc.drills import Variant

    with sessions() as session:
        stored = store.load_variant(session, variant_id)
    return Variant.from_json(stored.variant_json).answer.to_json()["values"]


def test_the_spec_rejects_an_answer_shown_too_early(app, browser_for):
    """The check above can fail: a variant that is not finished yet but holds its
    expected answer does not match the spec."""
    browser = browser_for("alice")
    started = browser.client.post(
        "/api/drills/drill-score-row/variants", headers={"X-CSRFToken": browser.token}
    )
    request = WerkzeugOpenAPIRequest(started.request)
    spec().validate_response(request, WerkzeugOpenAPIResponse(started))
    leaky = dict(started.json, expected_answer={"name": "scores", "values": [[1, 2, 3]]})
    leaky["expected_answer"].update(row_labels=["a"], col_labels=["a", "b", "c"])
    tampered = Response(json.dumps(leaky), status=201, mimetype="application/json")
    tampered.headers["Location"] = started.headers["Location"]
    with pytest.raises(OpenAPIError):
        spec().validate_response(request, WerkzeugOpenAPIResponse(tampered))
    extra = Response(
        json.dumps(dict(started.json, seed=7)), status=201, mimetype="application/json"
    )
    extra.headers["Location"] = started.headers["Location"]
    with pytest.raises(OpenAPIError):
        spec().validate_response(request, WerkzeugOpenAPIResponse(extra))


# --- docs/api.md's examples, run ------------------------------------------------------------

DOCUMENTED_VARIANT_ID = "12"  # the id api.md's examples give the variant they started


def curl_examples() -> list[list[str]]:
    """Each `curl` of api.md's shell blocks, its lines joined, as argv."""
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", API_MD, re.DOTALL):
        for command in block.replace("\\\n", " ").splitlines():
            if command.startswith("curl "):
                commands.append(shlex.split(command.split(" #")[0]))
    return commands


def as_request(argv: list[str], token: str) -> tuple[str, str, dict[str, str], object]:
    """(method, path, headers, JSON body) of a curl command line as api.md writes it."""
    words = [
        word.replace("$API", "http://127.0.0.1:8000/api")
        .replace("$AUTH", "Authorization: Bearer $TOKEN")
        .replace("$TOKEN", token)
        for word in argv[1:]
    ]
    method, headers, body, url = "GET", {}, None, None
    options = iter(words)
    for word in options:
        if word == "-H":
            name, _, value = next(options).partition(": ")
            headers[name] = value
        elif word == "-d":
            body = json.loads(next(options))
            method = "POST"
        elif word == "-X":
            method = next(options)
        else:
            assert url is None and word.startswith("http://127.0.0.1:8000/api/"), word
            url = word
    return method, url.removeprefix("http://127.0.0.1:8000"), headers, body


def test_the_curl_examples_of_api_md_answer_as_documented(app, sessions):
    """Every example, in order, with alice's token: 200 for a GET, 201 for a POST. The
    examples' variant 12 is the one the drill-score-row example started."""
    with sessions() as session:
        token = store.issue_api_token(session, "alice")
    commands = curl_examples()
    assert len(commands) >= 9
    started: dict[str, int] = {}
    for argv in commands:
        method, path, headers, body = as_request(argv, token)
        if f"/variants/{DOCUMENTED_VARIANT_ID}" in path:
            path = path.replace(DOCUMENTED_VARIANT_ID, str(started["drill-score-row"]), 1)
        if body is not None:
            assert headers.pop("Content-Type") == "application/json", argv
        response = Session(app, headers).call(method, path, body)
        assert response.status_code == (201 if method == "POST" else 200), (argv, response.json)
        if path.startswith("/api/drills/drill-score-row/variants"):
            started["drill-score-row"] = response.json["id"]
    assert started, "an example starts the drill-score-row variant the later examples use"


def json_examples() -> list[dict]:
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)```", API_MD, re.DOTALL)]


def schema(name: str) -> dict:
    return yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))["components"]["schemas"][name]


def test_the_json_examples_of_api_md_have_the_specs_fields():
    """The error, the grader's refusal with its reason, the variant (not finished), the
    submission result and a wrong cell with its diagnosis, each with exactly the fields the
    spec requires ("..." stands for what the example leaves out)."""
    error, refusal, variant, result, wrong_cell = json_examples()
    assert set(error) == set(schema("Error")["required"])
    assert set(error["error"]) == set(schema("Error")["properties"]["error"]["required"])
    assert set(refusal["error"]) == set(schema("Error")["properties"]["error"]["properties"])
    assert refusal["error"]["reason"] == "wrong_shape"
    assert set(variant) == set(schema("Variant")["required"])
    assert set(variant["given"][0]) == set(schema("Tensor")["required"])
    assert set(variant["answer"]) == set(schema("Variant")["properties"]["answer"]["required"])
    assert set(result) == set(schema("SubmissionResult")["required"])
    assert set(result["submission"]) == set(schema("Submission")["required"])
    assert set(result["submission"]["cells"][0]) == set(schema("Cell")["properties"]) - {
        "diagnosis"
    }
    assert set(wrong_cell) == set(schema("Cell")["required"]) | {"diagnosis"}
    diagnosis = schema("CellDiagnosis")
    assert set(wrong_cell["diagnosis"]) == set(diagnosis["required"])
    (mistake,) = wrong_cell["diagnosis"]["mistakes"]
    assert set(mistake) == set(diagnosis["properties"]["mistakes"]["items"]["required"])
    assert set(wrong_cell["diagnosis"]["distance"]) == set(
        diagnosis["properties"]["distance"]["required"]
    )
    submitted = re.search(r'"answer": (\[\[.*?\]\])', API_MD).group(1)  # the curl example's
    assert result["submission"]["answer"] == json.loads(submitted)
