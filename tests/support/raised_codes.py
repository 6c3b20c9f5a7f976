"""Every refusal code the platform's source raises, found by reading the source (``ast``).

Used by the catalogue test (``tests/api_contract/test_error_catalogue.py``): a code raised here
and missing from ``seeds/platform/errors.yaml`` fails it, naming the file and line.

What counts as raising a code (a string literal in each):

- ``Problem(status, "code", ...)`` or ``Problem(status, code="code", ...)`` (the gateway);
- ``ServiceError(grpc.StatusCode.X, "code", ...)`` and the helpers of
  ``services.common.errors`` (``invalid``, ``forbidden``, ``illegal``, ``unavailable`` ...) whose
  first argument is the code;
- any call with a keyword ``code="..."`` (the engines' ``IllegalMove(..., code=...)``);
- a class attribute ``code = "..."`` on an exception class (``RulesError`` and its kin).

An f-string code (``f"bad_{name}"``) is reported as its template; the catalogue test lists what
each template expands to.  A code passed through a variable is not seen here: the schemathesis
run (tests/gateway/test_rest_fuzz.py) checks every answer's ``code`` against the served enum.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("services", "gateway")
# Helpers whose first positional argument is the code (services.common.errors and their kin).
FIRST_ARG_HELPERS = {"invalid", "forbidden", "illegal", "_invalid", "_forbidden", "_illegal", "TargetRefused"}


@dataclass(frozen=True)
class Raised:
    """One place in the source that raises ``code``."""

    code: str
    path: str
    line: int
    call: str


def _name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _literal(node: ast.expr | None) -> str | None:
    """A string literal's value; an f-string as its template (``bad_{name}``), which the test expands."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = [str(v.value) if isinstance(v, ast.Constant) else "{" + ast.unparse(v.value) + "}"
                 for v in node.values if isinstance(v, ast.Constant | ast.FormattedValue)]
        return "".join(parts)
    return None


def _from_call(node: ast.Call) -> Iterator[tuple[str, str]]:
    name = _name(node.func)
    for keyword in node.keywords:
        if keyword.arg == "code" and (value := _literal(keyword.value)) is not None:
            yield value, name
    second = _literal(node.args[1]) if len(node.args) >= 2 else None
    if name in ("Problem", "ServiceError") and second is not None:
        yield second, name
    if name in FIRST_ARG_HELPERS and node.args and (value := _literal(node.args[0])) is not None:
        yield value, name


def _from_class(node: ast.ClassDef) -> Iterator[tuple[str, str]]:
    for statement in node.body:
        targets = statement.targets if isinstance(statement, ast.Assign) else []
        if isinstance(statement, ast.AnnAssign):
            targets = [statement.target]
        value = _literal(statement.value) if isinstance(statement, ast.Assign | ast.AnnAssign) else None
        if value and any(isinstance(t, ast.Name) and t.id == "code" for t in targets):
            yield value, node.name


def raised_codes(root: Path = ROOT) -> list[Raised]:
    """Every (code, file, line) raised under ``services/`` and ``gateway/``."""
    found: list[Raised] = []
    for top in SCANNED:
        for path in sorted((root / top).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
            relative = str(path.relative_to(root))
            for node in ast.walk(tree):
                pairs = _from_call(node) if isinstance(node, ast.Call) else iter(())
                if isinstance(node, ast.ClassDef):
                    pairs = _from_class(node)
                for code, call in pairs:
                    found.append(Raised(code, relative, node.lineno, call))
    return found
