"""A request still running when the gateway's shutdown grace runs out gets a 503, not a 500.

On SIGTERM (a stop, or its parent process dying: :mod:`services.common.workers`) uvicorn stops
accepting, lets requests in flight finish for ``CHAIWALA_SHUTDOWN_GRACE_SECONDS``, then cancels
the rest; for a request that had not started its response, uvicorn would answer 500.  Such a
request is typically waiting for a rules service that is itself restarting.  Nothing is wrong
with it, so it gets what any other call to an unavailable backend gets: 503 ``shutting_down``
with ``Retry-After`` (a pinned or keyed submission is safe to retry: 409 or its first answer).
"""

from __future__ import annotations

import asyncio
import contextlib

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway.problems import RETRY_AFTER_UNAVAILABLE, Problem, problem_response


class CutShort:
    """ASGI layer: a cancelled HTTP request without a response yet is answered 503 ``shutting_down``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on; answer for it if it is cancelled before its response started."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def noting(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, noting)
        except asyncio.CancelledError:
            if not started:
                with contextlib.suppress(Exception):  # the client may be gone too
                    await _answer(scope, receive, send)
            raise  # still cancelled: uvicorn sees a response was sent and sends no 500


async def _answer(scope: Scope, receive: Receive, send: Send) -> None:
    problem = Problem(503, "shutting_down", "the gateway is stopping; retry the request",
                      headers={"Retry-After": str(RETRY_AFTER_UNAVAILABLE)})  # fmt: skip
    await problem_response(problem, scope.get("path", ""), scope)(scope, receive, send)
