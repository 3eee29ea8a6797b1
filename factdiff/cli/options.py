"""Options shared by the store commands: the database and times (durations and every other
setting: ``factdiff.cli.settings_options``)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

import click

from factdiff.errors import InputError
from factdiff.store import MemoryStore
from factdiff.store import open_store as _open_store

F = TypeVar("F", bound=Callable[..., Any])
DEFAULT_DB = "factdiff.db"


def db_option(function: F) -> F:
    """``--db PATH|DSN`` (or ``FACTDIFF_DB``), default ``factdiff.db``."""
    return click.option(
        "--db",
        envvar="FACTDIFF_DB",
        default=DEFAULT_DB,
        show_default=True,
        help="SQLite store file or postgresql:// DSN (or FACTDIFF_DB).",
    )(function)


def json_option(function: F) -> F:
    """``--json``: print JSON instead of a table."""
    return click.option("--json", "as_json", is_flag=True, help="Print JSON.")(function)


def open_store(db: str, *, create: bool = True, **options: Any) -> MemoryStore:
    """Open the store at ``db``: a SQLite path (a new file is created and migrated) or a
    ``postgresql://`` DSN (an empty schema is migrated)."""
    return _open_store(db, create=create, **options)


def parse_time(value: str | None, option: str) -> datetime:
    """An ISO time (UTC if no zone); now when omitted."""
    if value is None:
        return datetime.now(UTC)
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise InputError(f"{option} {value!r} is not an ISO time like 2026-03-14T14:32Z") from None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)
