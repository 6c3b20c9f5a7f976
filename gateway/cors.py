"""Cross-origin access for browser apps, with Starlette's ``CORSMiddleware``.

Allowed origins come from ``CHAIWALA_CORS_ORIGINS`` (comma-separated; ``*`` allows any
origin, as ``make run`` does locally; empty, the production default, allows none).  No
cookies are involved (credentials are bearer tokens in a header), so
``Access-Control-Allow-Credentials`` is never sent and ``*`` is safe for local use.

The allowed methods are derived from the application's own routes, so a route added later
is covered without touching this module.  A refused preflight is problem+json like every
other refusal (``code`` ``cors_refused``) rather than Starlette's plain text.
"""

from __future__ import annotations

from fastapi import FastAPI
from starlette.datastructures import Headers
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import Response
from starlette.types import Message, Receive, Scope, Send

from gateway.edge import add_vary
from gateway.problems import Problem, problem_response
from gateway.route_table import flat_routes

# Request headers a browser app sends besides the CORS-safelisted ones.
# If-None-Match: an app that keeps answers itself revalidates them (gateway.conditional).
ALLOWED_HEADERS = (
    "Authorization", "Content-Type", "Idempotency-Key", "Last-Event-ID", "Accept-Language", "If-None-Match",
)  # fmt: skip
# Response headers a client reads (rate-limit headers in both the IETF draft and the X- form).
EXPOSED_HEADERS = (
    "ETag",
    "Location",
    "Retry-After",
    "RateLimit",
    "RateLimit-Policy",
    "RateLimit-Limit",
    "RateLimit-Remaining",
    "RateLimit-Reset",
    "X-RateLimit-Limit",
    "X-RateLimit-Remaining",
    "X-RateLimit-Reset",
)
PREFLIGHT_MAX_AGE_SECONDS = 600


def parse_origins(setting: str) -> list[str]:
    """``CHAIWALA_CORS_ORIGINS`` as a list (blank entries and trailing slashes dropped)."""
    return [origin.strip().rstrip("/") for origin in setting.split(",") if origin.strip()]


def route_methods(app: FastAPI) -> list[str]:
    """Every HTTP method some route of the app answers (OPTIONS itself is the preflight)."""
    methods = {method for route in flat_routes(app.routes) for method in route.methods}
    return sorted(methods | {"HEAD"} if "GET" in methods else methods)


class ProblemCORSMiddleware(CORSMiddleware):
    """Starlette's CORS middleware whose refused preflights are problem+json.

    An answer to a request without ``Origin`` (every request but a browser's cross-origin one) only
    gets ``Origin`` added to its ``Vary``; that is done on the raw header list here, exactly as
    Starlette's ``MutableHeaders`` does it (the ``vary`` values joined into the first, the others
    dropped), without building it for each answer, nor the request's ``Headers`` (Starlette's
    ``Headers.get`` compares the raw names as they are, as the scan here does).
    """

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Starlette's CORS; a request without ``Origin`` (it can be no preflight) straight to the ``Vary`` step."""
        if scope["type"] != "http" or any(name == b"origin" for name, _value in scope["headers"]):
            await super().__call__(scope, receive, send)
            return

        async def varying(message: Message) -> None:
            if message["type"] == "http.response.start":
                _vary_origin(message)
            await send(message)

        await self.app(scope, receive, varying)

    def preflight_response(self, request_headers: Headers) -> Response:
        """Starlette's preflight answer; a refusal (400) rendered as problem+json."""
        response = super().preflight_response(request_headers)
        if response.status_code == 200:
            return response
        refused = bytes(response.body).decode().removeprefix("Disallowed CORS ")
        problem = Problem(400, "cors_refused", f"CORS preflight refused: {refused} not allowed")
        return problem_response(problem)


def _vary_origin(start: Message) -> None:
    """What Starlette's CORS does to the answer of a request without ``Origin``, on the raw list."""
    headers = list(start.get("headers", ()))
    varies = [index for index, (name, _value) in enumerate(headers) if name == b"vary"]
    add_vary(headers, varies, b"Origin")
    start["headers"] = headers


def install_cors(app: FastAPI, origins: list[str]) -> None:
    """Add the CORS middleware for ``origins`` to ``app`` (call after every route is added)."""
    app.add_middleware(
        ProblemCORSMiddleware,
        allow_origins=origins,
        allow_methods=route_methods(app),
        allow_headers=ALLOWED_HEADERS,
        expose_headers=EXPOSED_HEADERS,
        allow_credentials=False,
        max_age=PREFLIGHT_MAX_AGE_SECONDS,
    )
