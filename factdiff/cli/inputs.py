"""Reading user inputs for the CLI: texts and schemas, with one-line errors."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from factdiff.errors import InputError
from factdiff.schema.names import BadSchemaName, split_version

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


def resolve_schema(option: str | None, db: str | None = None) -> FactSchema:
    """A schema from a YAML file, a built-in name (from any directory), a schema registered
    in the store (``NAME`` or ``NAME@VERSION``), or the generic schema when omitted.

    A file of that name in the current directory wins over a built-in, a built-in over a
    registered schema of the same plain name; ``NAME@VERSION`` reads the store first. The
    store is ``db`` (else ``FACTDIFF_DB``, else ``factdiff.db``), opened read-only and only
    when it exists."""
    from factdiff.schema.builtin import builtin_schema, generic_schema
    from factdiff.schema.loader import load_schema

    if option is None:
        return generic_schema()
    if _is_schema_file(option):
        return load_schema(option)
    try:
        name, version = split_version(option)
    except BadSchemaName as exc:
        raise BadSchemaName(f"{exc} (or give the path of a .yaml schema file)") from None
    if version is None:
        try:
            return builtin_schema(name)
        except KeyError as exc:
            builtin_error = str(exc.args[0])
    else:
        builtin_error = f"no built-in schema {name!r} at version {version}"
    registered = _registered_schema(name, version, db)
    if registered is not None:
        return registered
    if version is not None:
        try:
            shipped = builtin_schema(name)
        except KeyError:
            shipped = None
        if shipped is not None and shipped.version == version:
            return shipped
    raise InputError(
        f"{builtin_error} and none is registered in the store (or give a path to a .yaml "
        "schema, or register it with `factdiff schema register FILE`)"
    )


def _registered_schema(name: str, version: int | None, db: str | None) -> FactSchema | None:
    """The schema ``name`` (at ``version``, else its latest) registered in the store, if
    the store exists and holds it."""
    import os

    from factdiff.store import SchemaNotRegistered, is_postgres, open_store
    from factdiff.store.catalog import rebuild_schema

    target = db or os.environ.get("FACTDIFF_DB") or "factdiff.db"
    if not is_postgres(target) and not Path(target).is_file():
        return None
    with open_store(target, create=False, read_only=True) as store:
        try:
            stored = store.get_schema_definition(name, version)
        except SchemaNotRegistered:
            return None
    return rebuild_schema(name, stored.definition, stored.source_text, stored.hash)


def schema_source_text(option: str) -> str | None:
    """The YAML text behind ``resolve_schema(option)`` (``None`` for ``generic`` and for a
    schema read from the store, which keeps its own)."""
    if _is_schema_file(option):
        try:
            return Path(option).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"{option}: cannot read: {exc}") from None
    from factdiff.schema.builtin import builtin_schema_source

    name, version = split_version(option)
    return builtin_schema_source(name) if version is None else None
