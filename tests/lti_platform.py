"""An LMS simulated for the LTI tests, on loopback only: its own RSA key, its key set, an OAuth2
token endpoint and an AGS line item taking scores, served by a small HTTP server thread on
127.0.0.1; and the id_tokens it signs, with the claims of the IMS LTI 1.3 specification. For a
browser it also plays the LMS's pages: `/start` posts the login initiation to the tool,
`/auth` (its OIDC endpoint) answers the tool's redirect with a form posting the signed
id_token back, `/deep-link-return` takes a Deep Linking response."""

from __future__ import annotations

import html
import json
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

CLIENT_ID = "quizsvc-client-1"
DEPLOYMENT_ID = "deployment-1"
KID = "platform-key-1"
ACCESS_TOKEN = "platform-access-token-1"
LTI = "https://purl.imsglobal.org/spec/lti/claim/"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
LINEITEM_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
ADMINISTRATOR = "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Administrator"


def new_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@dataclass
class Platform:
    """The simulated LMS; `url` is its base address on loopback (the issuer too)."""

    url: str = ""
    key: rsa.RSAPrivateKey = field(default_factory=new_key)
    token_requests: list[dict[str, str]] = field(default_factory=list)
    scores: list[dict[str, Any]] = field(default_factory=list)  # each: headers and body
    tool_url: str = ""  # where the tool is served, for the browser's pages
    next_claims: dict[str, Any] = field(default_factory=dict)  # claims of the next /auth
    deep_links: list[str] = field(default_factory=list)  # the JWTs posted to /deep-link-return

    @property
    def issuer(self) -> str:
        return self.url

    @property
    def lineitem(self) -> str:
        return f"{self.url}/courses/7/lineitems/1/lineitem"

    def key_set(self) -> dict[str, Any]:
        public = json.loads(RSAAlgorithm.to_jwk(self.key.public_key()))
        return {"keys": [{**public, "kid": KID, "alg": "RS256", "use": "sig"}]}

    def claims(self, nonce: str, *, sub: str = "lms-user-1", roles=(LEARNER,), **extra) -> dict:
        """A resource link launch's claims (LtiResourceLinkRequest), as the spec names them."""
        now = int(time.time())
        claims = {
            "iss": self.issuer,
            "aud": CLIENT_ID,
            "azp": CLIENT_ID,
            "sub": sub,
            "iat": now,
            "exp": now + 300,
            "nonce": nonce,
            "name": "Li Lei",
            LTI + "message_type": "LtiResourceLinkRequest",
            LTI + "version": "1.3.0",
            LTI + "deployment_id": DEPLOYMENT_ID,
            LTI + "target_link_uri": "http://localhost/lti/launch",
            LTI + "resource_link": {"id": "resource-link-1", "title": "Quiz"},
            LTI + "roles": list(roles),
            LTI + "context": {"id": "course-7", "title": "Transformers"},
            LTI + "custom": {"quiz": "transformer-by-hand"},
            LTI + "launch_presentation": {"locale": "en-US"},
        }
        claims.update(extra)
        return claims

    def sign(self, claims: dict, key: rsa.RSAPrivateKey | None = None) -> str:
        return jwt.encode(claims, key or self.key, algorithm="RS256", headers={"kid": KID})


class _Handler(BaseHTTPRequestHandler):
    platform: Platform

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def _reply(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _page(self, action: str, fields: dict[str, str]) -> None:
        """An LMS page that posts `fields` to `action` at once (a form and its script)."""
        inputs = "".join(
            f'<input type="hidden" name="{k}" value="{html.escape(v)}">' for k, v in fields.items()
        )
        body = (
            f'<!doctype html><form id="f" method="post" action="{html.escape(action)}">{inputs}'
            "</form><script>document.getElementById('f').submit()</script>"
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        platform = self.platform
        path, _, query = self.path.partition("?")
        if path == "/jwks":
            self._reply(200, platform.key_set())
        elif path == "/start":
            self._page(
                f"{platform.tool_url}/lti/login",
                {
                    "iss": platform.issuer,
                    "login_hint": "hint-1",
                    "target_link_uri": f"{platform.tool_url}/lti/launch",
                    "client_id": CLIENT_ID,
                    "lti_deployment_id": DEPLOYMENT_ID,
                },
            )
        elif path == "/auth":
            asked = {k: v[0] for k, v in parse_qs(query).items()}
            claims = platform.claims(asked["nonce"], **platform.next_claims)
            claims[LTI + "target_link_uri"] = asked["redirect_uri"]
            token = platform.sign(claims)
            self._page(asked["redirect_uri"], {"id_token": token, "state": asked["state"]})
        else:
            self._reply(404, {})

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
        if self.path == "/deep-link-return":
            self.platform.deep_links.append(parse_qs(body)["JWT"][0])
            self._reply(200, {"received": True})
        elif self.path == "/token":
            form = {k: v[0] for k, v in parse_qs(body).items()}
            self.platform.token_requests.append(form)
            self._reply(200, {"access_token": ACCESS_TOKEN, "token_type": "Bearer"})
        elif self.path == "/courses/7/lineitems/1/lineitem/scores":
            self.platform.scores.append(
                {
                    "authorization": self.headers.get("Authorization"),
                    "content_type": self.headers.get("Content-Type"),
                    "body": json.loads(body),
                }
            )
            self._reply(200, {})
        else:
            self._reply(404, {})


def serve(platform: Platform) -> tuple[ThreadingHTTPServer, threading.Thread]:
    handler = type("Handler", (_Handler,), {"platform": platform})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    platform.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server, thread


def new_sub() -> str:
    return f"lms-user-{uuid.uuid4().hex[:8]}"
