"""Write the player stream's payload schemas as a small OpenAPI document for the TypeScript SDK.

The player stream (``GET /v1/me/events``) is specified in the AsyncAPI document
(:mod:`gateway.asyncapi_player`), not in the OpenAPI one, so ``openapi-typescript`` never sees
its payloads.  ``make sdk`` runs this after ``make docs-openapi``: it wraps the player payload
schemas, and every OpenAPI component they reference (a finished game's ``GameResult``), in an
otherwise empty OpenAPI 3.1 document, which ``openapi-typescript`` turns into
``sdk/typescript/src/generated/player.ts``.  The SDK's player event types are therefore the
contract's own, as its game event types are.

Usage: ``PYTHONPATH=.:gen .venv/bin/python tools/gen_sdk_player.py OUT.json`` (reads
``docs/reference/openapi.json``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def player_document(openapi: dict[str, Any]) -> dict[str, Any]:
    """An OpenAPI document whose only content is the player payloads and what they reference."""
    from gateway.asyncapi_player import PLAYER_SCHEMAS
    from gateway.openapi_exact import closure

    known = openapi["components"]["schemas"]
    referenced = closure(["chaiwala.v1.GameResult"], known)
    schemas = {name: known[name] for name in sorted(referenced)} | PLAYER_SCHEMAS
    info = {"title": "Chaiwala player stream payloads", "version": openapi.get("info", {}).get("version", "0")}
    return {"openapi": "3.1.0", "info": info, "paths": {}, "components": {"schemas": schemas}}


def main() -> None:
    """Write the document to the path given."""
    openapi = json.loads((ROOT / "docs" / "reference" / "openapi.json").read_text())
    Path(sys.argv[1]).write_text(json.dumps(player_document(openapi), indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
