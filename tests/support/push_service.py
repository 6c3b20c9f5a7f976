"""A real local HTTP server playing a Web Push service (RFC 8030) for notification tests.

Each path is one browser's endpoint.  The test makes the browser's keys (a P-256 key pair and a
16-byte auth secret, with ``cryptography``) and decrypts what arrives with ``http_ece`` — the
sender never sees the private key, exactly as with a real browser.  ``gone(path)`` answers 410 for
that endpoint (an unsubscribed browser).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

import http_ece
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from tests.support.local_http import answer, serve, shut
from tests.support.stoppable import Stoppable
from tests.support.webhook_receiver import Arrived


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


@dataclass
class Browser:
    """One browser's push keys: what ``PushSubscription.toJSON()`` shows, and the private half."""

    endpoint: str
    key: ec.EllipticCurvePrivateKey
    auth: bytes

    @staticmethod
    def new(endpoint: str) -> Browser:
        """A fresh key pair and auth secret."""
        return Browser(endpoint, ec.generate_private_key(ec.SECP256R1()), os.urandom(16))

    def to_json(self) -> dict[str, Any]:
        """The body a browser's ``subscription.toJSON()`` gives."""
        point = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        keys = {"p256dh": _b64(point), "auth": _b64(self.auth)}
        return {"endpoint": self.endpoint, "expirationTime": None, "keys": keys}

    def decrypt(self, body: bytes) -> dict[str, Any]:
        """A push's payload, decrypted as the browser would (RFC 8291, aes128gcm)."""
        plain = http_ece.decrypt(body, private_key=self.key, auth_secret=self.auth, version="aes128gcm")
        payload: dict[str, Any] = json.loads(plain)
        return payload


# One push as it arrived and how it was answered.
Push = Arrived


class PushService(Stoppable):
    """The server: records every push; 201 unless the endpoint is gone (410)."""

    def __init__(self) -> None:
        self.received: list[Push] = []
        self.lock = threading.Lock()
        self._gone: set[str] = set()
        self._fail: dict[str, int] = {}
        self._hold_after: int | None = None
        self._released = threading.Event()
        self.count = 0
        self.server = serve({"POST": self._handle})
        self.port = self.server.server_address[1]

    def url(self, path: str) -> str:
        """An endpoint URL."""
        return f"http://127.0.0.1:{self.port}{path}"

    def gone(self, path: str) -> None:
        """Answer 410 Gone on ``path`` from now on."""
        with self.lock:
            self._gone.add(path)

    def fail_next(self, path: str, count: int) -> None:
        """Answer 500 to the next ``count`` pushes on ``path`` (a push service having a bad moment)."""
        with self.lock:
            self._fail[path] = count

    def hold_after(self, count: int) -> None:
        """Answer the next ``count`` pushes at once, then hold each one until :meth:`release`."""
        with self.lock:
            self._hold_after = self.count + count
            self._released.clear()

    def release(self) -> None:
        """Answer held pushes (a sender that died meanwhile never reads the answer) and stop holding."""
        with self.lock:
            self._hold_after = None
        self._released.set()

    def held(self) -> bool:
        """Whether a push is being held now."""
        with self.lock:
            return self._hold_after is not None and self.count > self._hold_after

    def _handle(self, request: BaseHTTPRequestHandler) -> None:
        body = request.rfile.read(int(request.headers.get("content-length", "0")))
        headers = {k.lower(): v for k, v in request.headers.items()}
        with self.lock:
            self.count += 1
            holding = self._hold_after is not None and self.count > self._hold_after
        if holding:
            self._released.wait(60)
        with self.lock:
            status = 410 if request.path in self._gone else 201
            if status == 201 and self._fail.get(request.path, 0) > 0:
                self._fail[request.path] -= 1
                status = 500
            self.received.append(Push(request.path, headers, body, status))
        with contextlib.suppress(OSError):  # the sender is gone (killed while it waited)
            answer(request, status)

    def accepted(self, path: str) -> list[Push]:
        """Pushes on ``path`` answered 201, in arrival order."""
        with self.lock:
            return [push for push in self.received if push.path == path and push.answered == 201]

    def seen(self, path: str) -> list[Push]:
        """Every push on ``path``."""
        with self.lock:
            return [push for push in self.received if push.path == path]

    def stop(self) -> None:
        """Shut down."""
        shut(self.server)
