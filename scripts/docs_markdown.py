"""Markdown text for the generated reference pages (``scripts/docs_reference.py``)."""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Mapping

_CODE_SPAN = re.compile(r"(``[^`]+``|`[^`]+`)")
_MARKDOWN_SPECIAL = re.compile(r"([\\*_\[\]<>|#])")


def escape(text: str) -> str:
    """``text`` as Markdown text: code spans kept, other Markdown and HTML characters escaped,
    one line (table cells)."""
    pieces = _CODE_SPAN.split(" ".join(text.split()))
    return "".join(
        piece if index % 2 else _MARKDOWN_SPECIAL.sub(r"\\\1", piece)
        for index, piece in enumerate(pieces)
    )


def paragraphs(text: str) -> str:
    """A help text or docstring as Markdown paragraphs (click's ``\\b`` and ``\\f`` obeyed)."""
    text = inspect.cleandoc(text).split("\f")[0]
    blocks = [block for block in text.split("\n\n") if block.strip()]
    out: list[str] = []
    for block in blocks:
        if block.startswith("\b\n"):
            lines = block.removeprefix("\b\n").splitlines()
            out.append("\n".join(f"    {line}" for line in lines))
        elif block.strip() == "::":
            continue
        elif block.rstrip().endswith("::"):
            out.append(escape(block.rstrip().removesuffix("::") + ":"))
        elif block.startswith("    "):
            out.append(block)
        else:
            out.append(escape(block))
    return "\n\n".join(out)


def schema_type(schema: Mapping[str, object]) -> str:
    """A JSON Schema as a short type text (``string``, ``integer | null``, ``AddEntry``...)."""
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list):
            return " | ".join(schema_type(option) for option in options)
    kind = schema.get("type")
    if kind == "array":
        items = schema.get("items")
        return f"array of {schema_type(items)}" if isinstance(items, Mapping) else "array"
    if "enum" in schema and isinstance(schema["enum"], list):
        return " | ".join(json.dumps(value) for value in schema["enum"])
    return str(kind) if kind is not None else "any"
