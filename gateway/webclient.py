"""The reference web client (``web/``) served under ``/play/`` on the gateway's own origin.

The files are plain ES modules, served as they are in the repository, with no bundler; the one
built part is ``web/sdk/``, the TypeScript SDK (``sdk/typescript``) compiled by ``make sdk`` to
ES modules that ``web/js/api.js`` imports (git-ignored, so a checkout needs ``make sdk``).  They
change with every deploy but not in between, so each answer says ``Cache-Control: no-cache``:
browsers keep a copy and revalidate it (``ETag`` / ``Last-Modified`` from Starlette's
``StaticFiles``) instead of running a stale module against a newer API.  The mount is not an
API route: it is not listed in ``/openapi.json`` and rate limits (``/v1/`` only) do not apply.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import RedirectResponse, Response
from starlette.staticfiles import StaticFiles

WEB_DIR = Path(__file__).resolve().parents[1] / "web"
MOUNT = "/play"
CACHE_CONTROL = "no-cache"


class WebClientFiles(StaticFiles):
    """``StaticFiles`` with the client's cache policy and ``nosniff`` on every file."""

    def file_response(self, *args: object, **kwargs: object) -> Response:  # type: ignore[override]
        """A file (or a 304), marked for revalidation."""
        response = super().file_response(*args, **kwargs)  # type: ignore[arg-type]
        response.headers["Cache-Control"] = CACHE_CONTROL
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response


def install_web_client(app: FastAPI, directory: Path = WEB_DIR) -> None:
    """Serve ``directory`` at ``/play/`` (``index.html`` for the folder) and redirect ``/play`` there."""
    if not directory.is_dir():
        return  # an image built without the client still serves the API

    @app.get(MOUNT, include_in_schema=False)
    async def play() -> Response:
        """``/play`` → ``/play/`` so relative module paths resolve under the mount."""
        return RedirectResponse(f"{MOUNT}/", status_code=308)

    app.mount(f"{MOUNT}/", WebClientFiles(directory=directory, html=True), name="play")
