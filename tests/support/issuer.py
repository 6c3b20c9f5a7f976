"""A real platform issuer for tests: signing keys made with ``cryptography``, a JWKS published by
a threaded ``http.server`` on 127.0.0.1, and tokens minted with PyJWT.

The published set can be changed while the server runs (key rotation), and the server counts
the JWKS requests it answered (so tests can see the verifier's refetches).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

from tests.support import secrets
from tests.support.local_http import answer, serve, shut
from tests.support.stoppable import Stoppable

ISSUER = "https://id.acme.test"
AUDIENCE = "chaiwala-test"


@dataclass
class SigningKey:
    """One key pair of the issuer and the algorithm it signs with."""

    kid: str
    algorithm: str
    private: Any

    @classmethod
    def rsa(cls, kid: str) -> SigningKey:
        """A fresh RS256 key."""
        return cls(kid, "RS256", rsa.generate_private_key(public_exponent=65537, key_size=2048))

    @classmethod
    def ec(cls, kid: str) -> SigningKey:
        """A fresh ES256 key."""
        return cls(kid, "ES256", ec.generate_private_key(ec.SECP256R1()))

    def public_jwk(self) -> dict[str, Any]:
        """The public half as a JWK."""
        family = RSAAlgorithm if self.algorithm.startswith("RS") else ECAlgorithm
        jwk: dict[str, Any] = family.to_jwk(self.private.public_key(), as_dict=True)
        return {**jwk, "kid": self.kid, "use": "sig", "alg": self.algorithm}


@dataclass
class Issuer(Stoppable):
    """The platform: its keys, its JWKS server and its tokens."""

    keys: list[SigningKey]
    requests: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.server = serve({"GET": self._jwks})

    def _jwks(self, request: BaseHTTPRequestHandler) -> None:
        with self.lock:
            self.requests += 1
            body = json.dumps({"keys": [key.public_jwk() for key in self.keys]}).encode()
        answer(request, 200, body, "application/json")

    @property
    def jwks_url(self) -> str:
        """Where the JWKS is published."""
        return f"http://127.0.0.1:{self.server.server_address[1]}/jwks.json"

    def config(self, alias: str = "acme", **overrides: Any) -> dict[str, Any]:
        """This issuer as an entry of ``CHAIWALA_TRUSTED_ISSUERS``."""
        entry = {
            "alias": alias,
            "issuer": ISSUER,
            "audience": AUDIENCE,
            "jwks_url": self.jwks_url,
            "algorithms": ["RS256", "ES256"],
        }
        return {**entry, **overrides}

    def publish(self, keys: list[SigningKey]) -> None:
        """Replace the published key set (a rotation)."""
        with self.lock:
            self.keys = list(keys)

    def token(self, key: SigningKey, sub: str = "42", **claims: Any) -> str:
        """A token signed with ``key``: valid for an hour unless ``claims`` say otherwise."""
        now = int(time.time())
        body = {"iss": ISSUER, "aud": AUDIENCE, "sub": sub, "iat": now, "exp": now + 3600, **claims}
        body = {name: value for name, value in body.items() if value is not None}
        token = jwt.encode(body, key.private, algorithm=key.algorithm, headers={"kid": key.kid})
        secrets.remember(token)
        return token

    def close(self) -> None:
        """Stop the JWKS server."""
        shut(self.server)

    stop = close  # what leaving a with-block calls
