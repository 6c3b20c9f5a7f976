"""Write the gateway's served contract documents, built in-process, into a folder.

``python tools/contract/write_documents.py OUT`` writes ``OUT/openapi.json`` and ``OUT/asyncapi.json``
exactly as ``GET /openapi.json`` and ``GET /asyncapi.json`` answer them (the app runs in-process
with its lifespan, so every configured game type is documented; no service needs to be up).
``make contract`` lints and validates what this writes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from fastapi.testclient import TestClient

from gateway.app import create_app


def main(out: Path) -> None:
    """Fetch both documents from the in-process app and write them under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    with TestClient(create_app()) as client:
        for name in ("openapi.json", "asyncapi.json"):
            answer = client.get(f"/{name}")
            answer.raise_for_status()
            (out / name).write_text(json.dumps(answer.json(), indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "var/contract"))
