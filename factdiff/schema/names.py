"""Schema names and references: the one naming rule, and ``NAME`` (the latest registered
version) or ``NAME@VERSION``.

A schema name is a letter or ``_`` then letters, digits or ``_`` (at most 100 characters): the
rule a schema file's ``schema:`` must follow, and the rule every way in (the CLI, the HTTP
API, MCP, ``Store.add``, agent assignments) applies to a name it is given, before anything is
stored or looked up. A name such as ``../..`` or ``/etc/passwd`` is ``BadSchemaName``.
"""

from __future__ import annotations

import re

from factdiff.errors import InputError

__all__ = [
    "NAME_RULE",
    "SCHEMA_NAME",
    "BadSchemaName",
    "check_name",
    "check_reference",
    "split_version",
]

SCHEMA_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")
NAME_RULE = "a letter or _ then letters, digits or _ (at most 100)"


class BadSchemaName(InputError):
    """A schema name that breaks the naming rule (``NAME_RULE``)."""


def check_name(name: str) -> str:
    """``name`` when it follows the naming rule, else ``BadSchemaName``."""
    if not isinstance(name, str) or not SCHEMA_NAME.fullmatch(name):
        raise BadSchemaName(f"schema name {name!r} must be {NAME_RULE}")
    return name


def split_version(option: str) -> tuple[str, int | None]:
    """``NAME@VERSION`` as ``(NAME, VERSION)``; a plain name as ``(name, None)``; the name
    checked (``BadSchemaName``)."""
    name, at, version = option.rpartition("@")
    if not at:
        return check_name(option), None
    digits = version.isascii() and version.isdigit() and len(version) <= 9
    if not name or not digits or int(version) < 1:
        raise InputError(f"{option!r} is not NAME@VERSION with a version number from 1")
    return check_name(name), int(version)


def check_reference(option: str) -> str:
    """``option`` (``NAME`` or ``NAME@VERSION``) as given, once it is well formed."""
    split_version(option)
    return option
