"""The tool's RSA key pairs: made with cryptography, kept in the store, published as a JWKS
(RFC 7517) with each key named by its RFC 7638 thumbprint."""

from __future__ import annotations

import json
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwcrypto.jwk import JWK
from sqlalchemy.orm import Session

from quizsvc import store

KEY_SIZE = 2048


def public_jwk(public_pem: str, kid: str | None = None) -> dict[str, Any]:
    """The public key as a JWK for RS256 signatures, with its `kid` (the thumbprint when not
    given)."""
    key = JWK.from_pem(public_pem.encode())
    jwk = json.loads(key.export_public())
    jwk.update(kid=kid or key.thumbprint(), alg="RS256", use="sig")
    return jwk


def generate_key(session: Session) -> store.LtiToolKey:
    """A new RSA key pair kept in the store; from now on it signs the tool's messages."""
    private = rsa.generate_private_key(public_exponent=65537, key_size=KEY_SIZE)
    private_pem = private.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    public_pem = (
        private.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    kid = JWK.from_pem(public_pem.encode()).thumbprint()
    return store.lti.add_tool_key(session, kid=kid, private_pem=private_pem, public_pem=public_pem)


def jwks(session: Session) -> dict[str, list[dict[str, Any]]]:
    """Every key of the tool's, newest first: a platform checks a signature made with an
    older key against the same set."""
    return {"keys": [public_jwk(key.public_pem, key.kid) for key in store.lti.tool_keys(session)]}
