"""Reading user inputs for the CLI: texts and schemas, with one-line errors."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from factdiff.errors import InputError

if TYPE_CHECKING:
    from factdiff.schema.model import FactSchema

MAX_TEXT_BYTES = 16 * 1024 * 1024


def read_text(path: str) -> str:
    """Read a UTF-8 text file (``-`` for standard input); ``InputError`` says what is wrong."""
    name = "<stdin>" if path == "-" else path
    try:
        if path == "-":
            raw = sys.stdin.buffer.read(MAX_TEXT_BYTES + 1)
        else:
            with Path(path).open("rb") as handle:
                raw = handle.read(MAX_TEXT_BYTES + 1)
    except OSError as exc:
        raise InputError(f"{name}: cannot read: {exc.strerror or exc}") from None
    if len(raw) > MAX_TEXT_BYTES:
        raise InputError(f"{name}: larger than {MAX_TEXT_BYTES} bytes; split it into entries")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{name}: not valid UTF-8 at byte {exc.start}; convert it first (e.g. iconv -t UTF-8)"
        ) from None


def _is_schema_file(option: str) -> bool:
    return Path(option).suffix in (".yaml", ".yml") or Path(option).is_file()


def resolve_schema(option: str | None) -> FactSchema:
    """A schema from a YAML file, a built-in name (from any directory), or the generic
    schema when omitted. A file of that name in the current directory wins over a built-in."""
    from factdiff.schema.builtin import builtin_schema, generic_schema
    from factdiff.schema.loader import load_schema

    if option is None:
        return generic_schema()
    if _is_schema_file(option):
        return load_schema(option)
    try:
        return builtin_schema(option)
    except KeyError as exc:
        raise InputError(f"{exc.args[0]} (or give a path to a .yaml schema)") from None


def schema_source_text(option: str) -> str | None:
    """The YAML text behind ``resolve_schema(option)`` (``None`` for ``generic``)."""
    if _is_schema_file(option):
        try:
            return Path(option).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"{option}: cannot read: {exc}") from None
    from factdiff.schema.builtin import builtin_schema_source

    return builtin_schema_source(option)
