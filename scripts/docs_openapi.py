"""The HTTP API reference page of the docs site, from the OpenAPI document of the FastAPI app
of ``factdiff serve`` (``scripts/docs_hooks.py`` adds it, and the document, to the build)."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping
from pathlib import Path

from docs_markdown import escape, paragraphs, schema_type


def openapi_document() -> dict[str, object]:
    """The OpenAPI document of ``factdiff serve`` (the app is built on a store never opened)."""
    from factdiff.service.app import create_app

    with tempfile.TemporaryDirectory() as folder:
        app = create_app(str(Path(folder) / "unopened.db"), create=False)
        return app.openapi()


def _model_table(name: str, components: Mapping[str, object]) -> list[str]:
    """The fields of the component schema ``name``: type, required, default, description."""
    schema = components.get(name)
    if not isinstance(schema, Mapping):
        return []
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return []
    required = schema.get("required")
    needed = set(required) if isinstance(required, list) else set()
    rows = ["| field | type | required | default | what |", "|---|---|---|---|---|"]
    for field, spec in properties.items():
        if not isinstance(spec, Mapping):
            continue
        default = f"`{json.dumps(spec['default'])}`" if "default" in spec else ""
        rows.append(
            f"| `{field}` | {escape(schema_type(spec))} | {'yes' if field in needed else ''} "
            f"| {default} | {escape(str(spec.get('description', '')))} |"
        )
    return rows


def _responses(op: Mapping[str, object]) -> dict[str, str]:
    """An operation's responses: status code -> description."""
    responses = op.get("responses")
    if not isinstance(responses, Mapping):
        return {}
    return {
        str(code): str(answer.get("description", ""))
        for code, answer in responses.items()
        if isinstance(answer, Mapping)
    }


def _operation(
    method: str,
    path: str,
    op: Mapping[str, object],
    components: Mapping[str, object],
    common: Mapping[str, str],
) -> list[str]:
    lines = [f"### {method.upper()} {path}", ""]
    description = op.get("description") or op.get("summary") or ""
    lines += [paragraphs(str(description)), ""]
    parameters = op.get("parameters")
    if isinstance(parameters, list) and parameters:
        lines += [
            "| parameter | in | type | required | default | what |",
            "|---|---|---|---|---|---|",
        ]
        for param in parameters:
            schema = param.get("schema", {})
            default = f"`{json.dumps(schema['default'])}`" if "default" in schema else ""
            lines.append(
                f"| `{param['name']}` | {param['in']} | {escape(schema_type(schema))} "
                f"| {'yes' if param.get('required') else ''} | {default} "
                f"| {escape(str(param.get('description', '')))} |"
            )
        lines.append("")
    body = op.get("requestBody")
    if isinstance(body, Mapping):
        content = body.get("content", {})
        for media, spec in content.items():
            schema = spec.get("schema", {})
            kind = schema_type(schema)
            lines += [f"Request body (`{media}`): `{kind}`", ""]
            model = next((part for part in kind.split(" | ") if part in components), "")
            table = _model_table(model, components)
            if table:
                lines += [*table, ""]
    own = {c: d for c, d in _responses(op).items() if common.get(c) != d}
    if own:
        listed = ", ".join(f"`{code}` {escape(text)}" for code, text in own.items())
        lines += [f"Responses: {listed}.", ""]
    return lines


def http_reference(document: Mapping[str, object] | None = None) -> str:
    """The HTTP API reference page, from the app's OpenAPI document."""
    spec = openapi_document() if document is None else document
    paths = spec.get("paths")
    schemas = spec.get("components", {})
    components = schemas.get("schemas", {}) if isinstance(schemas, Mapping) else {}
    lines = [
        "# HTTP API",
        "",
        "Generated from the OpenAPI document of `factdiff serve` (served at `/openapi.json`, "
        "with offline `/docs` and `/redoc`; the same document is [openapi.json](openapi.json) "
        "here). Every route but `/healthz` and `/readyz` takes `Authorization: Bearer KEY` "
        "(`factdiff keys create`); an agent key sees only its agent's entries, an operator "
        "key everything. Keys, error codes, metrics and MCP: "
        "[Schemas, diff and store](../reference.md#service-http-api-keys-metrics-mcp).",
        "",
    ]
    by_tag: dict[str, list[tuple[str, str, Mapping[str, object]]]] = {}
    if isinstance(paths, Mapping):
        for path, operations in paths.items():
            for method, op in operations.items():
                tags = op.get("tags") or ["other"]
                by_tag.setdefault(str(tags[0]), []).append((method, path, op))
    every = [_responses(op) for ops in by_tag.values() for _, _, op in ops]
    common = {
        code: text
        for code, text in (every[0] if every else {}).items()
        if not code.startswith("2") and all(answer.get(code) == text for answer in every)
    }
    if common:
        lines += ["Every route may answer:", "", "| status | when |", "|---|---|"]
        lines += [f"| `{code}` | {escape(text)} |" for code, text in common.items()]
        lines.append("")
    for tag, operations in by_tag.items():
        lines += [f"## {tag.capitalize()}", ""]
        for method, path, op in operations:
            lines += _operation(method, path, op, components, common)
    return "\n".join(lines).rstrip() + "\n"
