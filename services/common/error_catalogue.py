"""The catalogue of refusal codes (``seeds/platform/errors.yaml``), declared once, read everywhere.

Every ``code`` a problem+json answer or a gRPC ``ErrorDetail`` can carry has one entry there:
its HTTP status, its gRPC status, what it means (English and Spanish) and what a client should
do.  Readers:

- ``gateway.problems``: the HTTP status of a code whose status differs from its gRPC status's
  default, and the Spanish ``detail`` of an answer to a Spanish-speaking client;
- ``gateway.openapi``: the enum of the Problem schema's ``code``;
- ``tools/gen_openapi.py``: the docs page ``docs/reference/generated/errors.md``;
- ``tests/api_contract/test_error_catalogue.py``: every code raised in the source is listed.

A data file rather than Python: the entries are text (two languages), and a reader in another
language (the SDK, a docs build) can load it too.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

CATALOGUE_PATH = Path(__file__).resolve().parents[2] / "seeds" / "platform" / "errors.yaml"


@dataclass(frozen=True)
class ErrorCode:
    """One code: its statuses, its meaning per language, and what a client should do."""

    code: str
    http: tuple[int, ...]
    grpc: tuple[str, ...]
    meaning: dict[str, str]
    action: str

    def sentence(self, language: str) -> str | None:
        """The meaning in ``language``, if the catalogue has it."""
        return self.meaning.get(language)


def _tuple(value: Any) -> tuple[Any, ...]:
    if value is None:
        return ()
    return tuple(value) if isinstance(value, list) else (value,)


def _entry(code: str, raw: dict[str, Any], actions: dict[int, str]) -> ErrorCode:
    http = tuple(int(status) for status in _tuple(raw["http"]))
    meaning = {language: str(raw[language]) for language in ("en", "es") if raw.get(language)}
    action = str(raw.get("do") or actions.get(http[0], ""))
    return ErrorCode(code, http, tuple(str(name) for name in _tuple(raw.get("grpc"))), meaning, action)


@cache
def catalogue(path: Path = CATALOGUE_PATH) -> dict[str, ErrorCode]:
    """Every code of the catalogue, by name (read once per process)."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    actions = {int(status): str(text) for status, text in data.get("actions", {}).items()}
    return {str(code): _entry(str(code), raw, actions) for code, raw in data["codes"].items()}


def sentence(code: str, language: str) -> str | None:
    """The catalogue's sentence for ``code`` in ``language`` (None when it has none)."""
    entry = catalogue().get(code)
    return entry.sentence(language) if entry else None
