"""Write the gateway's OpenAPI document and a Markdown rendering of it for the docs site.

The document is built in-process exactly as the gateway serves ``/openapi.json``
(``gateway.app.create_app`` with default settings; no server, Redis or rules service is
contacted: gRPC channels connect lazily).  Two files are written, both git-ignored and
rebuilt by ``make docs`` / ``make docs-check``:

- ``docs/reference/openapi.json``: the document itself, downloadable from the site;
- ``docs/reference/generated/operations.md``: every operation as Markdown (method, path,
  summary, parameters, request body, responses), included by ``docs/reference/api.md``;
- ``docs/reference/generated/errors.md``: every refusal code of the catalogue
  (``seeds/platform/errors.yaml``, read by ``services.common.error_catalogue``) with its HTTP
  and gRPC statuses, meaning and what a client should do, included by ``docs/reference/errors.md``.

Markdown rather than a Swagger/ReDoc plugin: the site must build and read with no network,
needs no JavaScript, and stays searchable by the site's own search.

Run with the generated protos on the path, as the Makefile does:
``PYTHONPATH=.:gen .venv/bin/python tools/gen_openapi.py``.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
METHODS = ("get", "put", "post", "delete", "patch", "head", "options")


async def build_document() -> dict[str, Any]:
    """The OpenAPI document the gateway serves, built without serving anything."""
    from gateway.app import create_app
    from gateway.backends import Backends

    app = create_app()
    backends = Backends(app.state.settings)
    app.state.backends = backends
    try:
        return app.openapi()
    finally:
        await backends.close()


def _cell(text: Any) -> str:
    """One Markdown table cell: no line breaks, no bare pipes."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _schema_name(schema: dict[str, Any] | None) -> str:
    """A short readable name for a schema: its $ref target, or its type."""
    if not schema:
        return ""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[`{name}`](#schema-{_anchor(name)})"
    for union in ("oneOf", "anyOf", "allOf"):
        if union in schema:
            return " or ".join(_schema_name(part) for part in schema[union])
    kind = schema.get("type", "object")
    if kind == "array":
        return f"array of {_schema_name(schema.get('items'))}"
    if isinstance(kind, list):
        kind = " or ".join(kind)
    extra = []
    if "enum" in schema:
        extra.append(", ".join(f"`{value}`" if value != "" else '`""`' for value in schema["enum"]))
    if "minimum" in schema or "maximum" in schema:
        extra.append(f"{schema.get('minimum', '')}–{schema.get('maximum', '')}")
    return f"{kind} ({'; '.join(extra)})" if extra else str(kind)


def _anchor(name: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in name.lower())


def _operation(method: str, path: str, op: dict[str, Any]) -> list[str]:
    lines = [f"### `{method.upper()} {path}`", ""]
    if op.get("operationId"):
        lines += [f"`operationId`: `{op['operationId']}`", ""]
    for text in (op.get("summary"), op.get("description")):
        if text:
            lines += [str(text).strip(), ""]
    params = op.get("parameters", [])
    if params:
        lines += ["| parameter | in | required | type | description |", "|---|---|---|---|---|"]
        for param in params:
            lines.append(
                f"| `{param.get('name')}` | {param.get('in')} | {'yes' if param.get('required') else 'no'} "
                f"| {_cell(_schema_name(param.get('schema')))} | {_cell(param.get('description', ''))} |"
            )
        lines.append("")
    body = op.get("requestBody")
    if body:
        for media, content in body.get("content", {}).items():
            lines += [f"Request body (`{media}`): {_schema_name(content.get('schema'))}", ""]
    responses = op.get("responses", {})
    if responses:
        lines += ["| status | description | body |", "|---|---|---|"]
        for status, response in responses.items():
            bodies = [
                f"`{media}` {_schema_name(content.get('schema'))}"
                for media, content in response.get("content", {}).items()
            ]
            lines.append(f"| {status} | {_cell(response.get('description', ''))} | {_cell('; '.join(bodies))} |")
        lines.append("")
    return lines


def _schemas(document: dict[str, Any]) -> list[str]:
    schemas = document.get("components", {}).get("schemas", {})
    lines = ["## Schemas", "", f"{len(schemas)} schemas; each with its fields.", ""]
    for name in sorted(schemas):
        schema = schemas[name]
        lines += [f'<a id="schema-{_anchor(name)}"></a>', "", f"### `{name}`", ""]
        if schema.get("description"):
            lines += [_cell(schema["description"]), ""]
        properties = schema.get("properties", {})
        if properties:
            required = set(schema.get("required", []))
            lines += ["| field | type | required | description |", "|---|---|---|---|"]
            for field, spec in properties.items():
                lines.append(
                    f"| `{field}` | {_cell(_schema_name(spec))} | {'yes' if field in required else ''} "
                    f"| {_cell(spec.get('description', ''))} |"
                )
            lines.append("")
        else:
            lines += [f"Type: {_schema_name(schema)}", ""]
    return lines


def render_markdown(document: dict[str, Any]) -> str:
    """The operations grouped by tag, then the schemas."""
    info = document.get("info", {})
    lines = [
        f"OpenAPI {document.get('openapi', '')}, *{info.get('title', '')}* version {info.get('version', '')}.",
        "",
    ]
    by_tag: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
    for path, item in document.get("paths", {}).items():
        for method in METHODS:
            if method in item:
                op = item[method]
                by_tag.setdefault((op.get("tags") or ["other"])[0], []).append((method, path, op))
    tag_text = {tag["name"]: tag.get("description", "") for tag in document.get("tags", [])}
    order = [tag["name"] for tag in document.get("tags", [])] + sorted(set(by_tag) - set(tag_text))
    for tag in order:
        if tag not in by_tag:
            continue
        lines += [f"## {tag}", ""]
        if tag_text.get(tag):
            lines += [tag_text[tag].strip(), ""]
        for method, path, op in by_tag[tag]:
            lines += _operation(method, path, op)
    lines += _schemas(document)
    return "\n".join(lines) + "\n"


def render_errors() -> str:
    """The catalogue of refusal codes as one Markdown table, in code order."""
    from services.common.error_catalogue import catalogue

    codes = catalogue()
    lines = [
        f"{len(codes)} codes. HTTP status, gRPC status (— for the gateway's own refusals, never sent over"
        " gRPC), meaning (the `detail` of a Spanish answer is the *es* sentence) and what a client should do.",
        "",
        "| code | HTTP | gRPC | meaning | *es* | what to do |",
        "|---|---|---|---|---|---|",
    ]
    for name in sorted(codes):
        entry = codes[name]
        http = ", ".join(str(status) for status in entry.http)
        grpc = ", ".join(f"`{status}`" for status in entry.grpc) or "—"
        lines.append(
            f'| <a id="{name}"></a>`{name}` | {http} | {grpc} | {_cell(entry.meaning.get("en", ""))} '
            f'| {_cell(entry.meaning.get("es", ""))} | {_cell(entry.action)} |'
        )
    return "\n".join(lines) + "\n"


def main() -> int:
    document = asyncio.run(build_document())
    reference = ROOT / "docs" / "reference"
    (reference / "generated").mkdir(parents=True, exist_ok=True)
    (reference / "openapi.json").write_text(json.dumps(document, indent=1, sort_keys=False) + "\n")
    (reference / "generated" / "operations.md").write_text(render_markdown(document))
    (reference / "generated" / "errors.md").write_text(render_errors())
    paths = sum(1 for item in document["paths"].values() for method in METHODS if method in item)
    print(f"docs/reference: openapi.json, generated/operations.md and errors.md ({paths} operations)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
