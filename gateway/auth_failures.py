"""Failed authentications, counted per client address and per presented credential.

A failed authentication is a 401, or a 403 ``api_key_required`` (a wrong operator key: a guess as
much as a 401).  Each is charged to two buckets of ``auth_failure_limit``: its client address's
(the real client's, see ``CHAIWALA_TRUSTED_PROXIES``) and its credential's (the SHA-256 of the
bearer, never in clear).  Then:

* the failure that passes either bucket, and every later failure while it is full, is answered
  429 ``rate_limited`` (``auth_failures ...``) instead of its 401 or 403;
* a credential past its own bucket is refused 429 before it reaches a service until its window
  frees one (a client retrying a dead token stops costing a call).  The block is kept by each
  gateway process (no round trip on the hot path), learnt on its own next failure;
* an address past its bucket blocks **no valid credential**: requests from it still reach the
  services, and only those that fail are answered 429.  So a few clients behind one NAT or proxy
  failing on purpose lock no logged-in player there out.  Guessing gains nothing from that: a
  256-bit token is beyond any search, and the guesses themselves are bounded by the address's
  request rate (``rate_limit_per_address``).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import limits
from limits.aio.strategies import SlidingWindowCounterRateLimiter
from starlette.types import Message, Receive, Scope, Send

from gateway.problems import problem_response

if TYPE_CHECKING:
    from gateway.limit_parts import Refusal

# A 403 that means "that key is not an operator key": a guess as much as a 401.
WRONG_KEY = b'"code":"api_key_required"'
# Credentials blocked for failed authentications one process remembers before it sweeps expired ones.
MAX_BLOCKS = 10_000
BUCKET = "auth_failures"


class AuthFailures:
    """The auth-failure buckets of one gateway process and the credentials it has blocked."""

    def __init__(self, strategy: SlidingWindowCounterRateLimiter, items: list[limits.RateLimitItem],
                 refused: Callable[[str, str, limits.RateLimitItem], Awaitable[Refusal]],
                 on_error: Callable[[Exception], Refusal | None]) -> None:  # fmt: skip
        self.strategy = strategy
        self.items = items
        self.refused = refused  # the limiter's: a Refusal with its reset time, counted in metrics
        self.on_error = on_error  # the limiter's: counts a store failure, answers its 503 (fail closed)
        self.blocks: dict[str, Refusal] = {}  # credential id -> the refusal that blocked it

    def blocked(self, credential: str, now: float | None = None) -> Refusal | None:
        """The refusal of a credential that failed too often, while its window lasts."""
        refusal = self.blocks.get(credential) if credential else None
        if refusal is None:
            return None
        if refusal.reset_at <= (time.time() if now is None else now):
            del self.blocks[credential]
            return None
        return refusal

    async def failed(self, address: str, credential: str) -> Refusal | None:
        """Charge one failure to the address and to the credential; the refusal once either is full."""
        keys = [f"addr:{address}"] + ([f"cred:{credential}"] if credential else [])
        found: Refusal | None = None
        try:
            for key in keys:
                for item in self.items:
                    if not await self.strategy.hit(item, BUCKET, key):
                        refusal = await self.refused(BUCKET, key, item)
                        found = found or refusal
                        if key.startswith("cred:"):
                            self._block(credential, refusal)
                        break
        except Exception as error:  # the limit store failed: fail closed (503), never an uncounted guess
            return self.on_error(error)
        return found

    def _block(self, credential: str, refusal: Refusal) -> None:
        if len(self.blocks) >= MAX_BLOCKS:
            now = time.time()
            self.blocks = {key: old for key, old in self.blocks.items() if old.reset_at > now}
        self.blocks[credential] = refusal


class AuthFailureWatch:
    """The ``send`` of a request that charges a failed authentication of it (``charge``: the limiter's
    :meth:`~gateway.limits.Limiter.auth_failed`), and answers 429 instead of a failure past either bucket.

    The address and the credential are worked out by ``charge`` only when a failure comes (the SHA-256
    of the bearer, a scan of the headers): almost every request is answered without one."""

    def __init__(self, charge: Callable[[Scope], Awaitable[Refusal | None]], scope: Scope, receive: Receive,
                 send: Send) -> None:  # fmt: skip
        self.charge = charge
        self.scope, self.receive, self.send = scope, receive, send
        self.held: Message | None = None  # a 401/403 start, until its body says what it is
        self.replaced = False

    async def __call__(self, message: Message) -> None:
        """Pass ``message`` on, holding a 401/403 start back until its body is known."""
        if self.replaced:
            return  # the original answer's remaining messages: a 429 went out instead
        if message["type"] == "http.response.start" and message["status"] in (401, 403):
            self.held = message
            return
        if self.held is not None and message["type"] == "http.response.body":
            held, self.held = self.held, None
            if held["status"] == 401 or WRONG_KEY in message.get("body", b""):
                refusal = await self.charge(self.scope)
                if refusal is not None:
                    self.replaced = True
                    answer = problem_response(refusal.problem(), self.scope["path"], self.scope)
                    await answer(self.scope, self.receive, self.send)
                    return
            await self.send(held)
        await self.send(message)
