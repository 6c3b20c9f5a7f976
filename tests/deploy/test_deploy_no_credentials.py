"""No credential is committed under deploy/ (issue #44): no Secret manifest with data, and no API
key, password or token given a literal value in any deployment file."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
# Keys whose value is a credential wherever they appear in a manifest or a configuration.
CREDENTIAL_KEYS = re.compile(r"(api[-_]?keys?|password|passwd|secret|token|private[-_]?key)$", re.IGNORECASE)


def _documents() -> list[tuple[Path, object]]:
    found = []
    for path in sorted(DEPLOY.rglob("*.y*ml")):
        found += [(path, document) for document in yaml.safe_load_all(path.read_text()) if document]
    return found


def _literal_credentials(node: object, where: str) -> list[str]:
    """Keys that name a credential and hold a literal (non-empty, non-reference) string."""
    found = []
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(value, str) and CREDENTIAL_KEYS.search(str(key)) and value and "${" not in value:
                found.append(f"{where}.{key}")
            found += _literal_credentials(value, f"{where}.{key}")
    elif isinstance(node, list):
        for index, item in enumerate(node):
            found += _literal_credentials(item, f"{where}[{index}]")
    return found


def test_no_secret_manifest_is_committed() -> None:
    secrets = [path for path, doc in _documents() if isinstance(doc, dict) and doc.get("kind") == "Secret"]
    assert not secrets, f"Secrets are created out of band, never committed: {secrets}"


def test_no_credential_has_a_literal_value() -> None:
    found = []
    for path, document in _documents():
        found += _literal_credentials(document, str(path.relative_to(ROOT)))
    assert not found, found


def test_the_check_finds_a_committed_key() -> None:
    committed = {"kind": "Secret", "stringData": {"api-keys": "dev-operator-key"}}
    assert _literal_credentials(committed, "x") == ["x.stringData.api-keys"]
