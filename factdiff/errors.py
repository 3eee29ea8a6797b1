"""One exception tree: a misuse branch (fix your input) and a runtime branch (retry or repair).

Every message is one line that says what went wrong and what to do next.
"""

from __future__ import annotations


class FactdiffError(Exception):
    """Base of every error factdiff raises on purpose."""


class UsageError(FactdiffError):
    """The caller gave something invalid: a bad schema, file, option or configuration."""


class SchemaError(UsageError):
    """A fact schema is malformed. The message names the file, line and field."""

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.source = source
        self.line = line
        self.field = field
        where = source or "<schema>"
        if line is not None:
            where = f"{where}:{line}"
        if field is not None:
            where = f"{where}: field {field!r}"
        super().__init__(f"{where}: {message}")


class InvalidValue(UsageError, ValueError):
    """A typed fact value cannot be built from what was given: a bad amount, date, time, unit,
    currency, or stored JSON. Also a ``ValueError``, so callers that parse may catch either."""


class InputError(UsageError):
    """An input text cannot be used: unreadable, not UTF-8, or too large."""


class RuntimeFailure(FactdiffError):
    """Something outside the caller's input failed: a store, a provider, the disk."""


class StoreError(RuntimeFailure):
    """The memory store is unavailable, outdated or inconsistent."""


class MigrationRequired(StoreError):
    """The store's schema is older than this version of factdiff."""
