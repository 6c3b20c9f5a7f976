"""``/docs`` (Swagger UI), ``/redoc`` (ReDoc), ``/openapi.json`` and ``/asyncapi.json``, working with no internet.

The JavaScript and CSS come from the pinned ``fastapi-offline`` package (Swagger UI 5,
which renders OpenAPI 3.1, and ReDoc 2) and are served by the gateway itself under
``/docs/assets/{name}``; no page refers to a CDN or to web fonts (ReDoc's one reference to
its vendor's CDN, a logo, is rewritten to a packaged image; Swagger UI's validator badge is off).  All of these are
ordinary routes, so the gateway's metrics count each under its own route label.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import fastapi_offline
from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse, Response

from gateway.asyncapi import build_asyncapi
from gateway.problems import Problem

ASSETS = "/docs/assets"
ASSET_DIR = Path(fastapi_offline.__file__).parent / "static"
ASSET_TYPES = {
    "swagger-ui-bundle.js": "text/javascript",
    "swagger-ui.css": "text/css",
    "redoc.standalone.js": "text/javascript",
    "favicon.png": "image/png",
}
# ReDoc's sidebar shows Redocly's logo from their CDN: point it at a packaged image instead.
REWRITES = {"redoc.standalone.js": (b"https://cdn.redoc.ly/redoc/logo-mini.svg", f"{ASSETS}/favicon.png".encode())}


@cache
def _asset_bytes(name: str) -> bytes:
    """A packaged asset, with its references to other hosts rewritten (see :data:`REWRITES`)."""
    data = (ASSET_DIR / name).read_bytes()
    if name in REWRITES:
        old, new = REWRITES[name]
        data = data.replace(old, new)
    return data


def _root(request: Request) -> str:
    return str(request.scope.get("root_path", "")).rstrip("/")


def install_docs(app: FastAPI, title: str) -> None:
    """Serve ``/openapi.json``, Swagger UI at ``/docs`` and ReDoc at ``/redoc`` from packaged assets."""

    @app.get("/openapi.json", include_in_schema=False)
    async def openapi(request: Request) -> Response:
        """The OpenAPI document (see :mod:`gateway.openapi`)."""
        return JSONResponse(request.app.openapi())

    @app.get("/asyncapi.json", include_in_schema=False)
    async def asyncapi(request: Request) -> Response:
        """The AsyncAPI document of the live event streams (see :mod:`gateway.asyncapi`)."""
        if getattr(request.app.state, "asyncapi", None) is None:
            request.app.state.asyncapi = build_asyncapi(request.app.openapi())
        return JSONResponse(request.app.state.asyncapi)

    @app.get(f"{ASSETS}/{{name}}", include_in_schema=False)
    async def asset(name: str) -> Response:
        """One of the packaged Swagger UI / ReDoc files."""
        media_type = ASSET_TYPES.get(name)
        if media_type is None:
            raise Problem(404, "not_found", "no such documentation asset")
        return Response(_asset_bytes(name), media_type=media_type, headers={"Cache-Control": "public, max-age=3600"})

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        """Swagger UI over /openapi.json."""
        root = _root(request)
        return get_swagger_ui_html(
            openapi_url=f"{root}/openapi.json",
            title=f"{title} — API",
            swagger_js_url=f"{root}{ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{root}{ASSETS}/favicon.png",
            # No validator badge: it would be fetched from swagger.io.
            swagger_ui_parameters={"displayOperationId": True, "validatorUrl": None},
        )

    @app.get("/redoc", include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        """ReDoc over /openapi.json."""
        root = _root(request)
        return get_redoc_html(
            openapi_url=f"{root}/openapi.json",
            title=f"{title} — API reference",
            redoc_js_url=f"{root}{ASSETS}/redoc.standalone.js",
            redoc_favicon_url=f"{root}{ASSETS}/favicon.png",
            with_google_fonts=False,
        )
