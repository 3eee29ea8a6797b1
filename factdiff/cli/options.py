"""Options shared by the commands: the database, JSON, times, durations and their checks.

Bad values are refused before anything runs, as one-line usage errors (exit 2).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

import click
from click.core import ParameterSource

from factdiff.cli.main import ROOT_DB_KEY
from factdiff.errors import InputError
from factdiff.inputs.bounds import COUNT_MAX
from factdiff.inputs.times import check_time

if TYPE_CHECKING:
    from factdiff.store import MemoryStore

F = TypeVar("F", bound=Callable[..., object])
DEFAULT_DB = "factdiff.db"


class DbOption(click.Option):
    """``--db``: a value given before the command (``factdiff --db X cmd``) wins over
    ``FACTDIFF_DB`` and the default; given in both places, it must be the same store."""

    def consume_value(
        self, ctx: click.Context, opts: Mapping[str, Any]
    ) -> tuple[Any, ParameterSource]:
        value, source = super().consume_value(ctx, opts)
        root = ctx.meta.get(ROOT_DB_KEY)
        if root is None:
            return value, source
        if source is ParameterSource.COMMANDLINE and value != root:
            raise click.UsageError("--db is given twice with different stores; give it once", ctx)
        return root, ParameterSource.COMMANDLINE


def db_option(function: F) -> F:
    """``--db PATH|DSN`` (or ``FACTDIFF_DB``, or ``factdiff --db ...``), default ``factdiff.db``."""
    return click.option(
        "--db",
        cls=DbOption,
        envvar="FACTDIFF_DB",
        default=DEFAULT_DB,
        show_default=True,
        help="SQLite store file or postgresql:// DSN (or FACTDIFF_DB).",
    )(function)


def json_option(function: F) -> F:
    """``--json``: print JSON instead of a table."""
    return click.option("--json", "as_json", is_flag=True, help="Print JSON.")(function)


def open_store(
    db: str, *, create: bool = True, check_version: bool = True, read_only: bool = False
) -> MemoryStore:
    """Open the store at ``db``: a SQLite path (a new file is created and migrated) or a
    ``postgresql://`` DSN (an empty schema is migrated)."""
    from factdiff.store import open_store as _open_store

    return _open_store(db, create=create, check_version=check_version, read_only=read_only)


def open_store_to_read(db: str) -> MemoryStore:
    """Open an existing store for a command that only reads it: a SQLite file may be
    read-only (mode 0444, or in a read-only directory)."""
    return open_store(db, create=False, read_only=True)


def parse_time(value: str | None, option: str) -> datetime:
    """An ISO time (UTC if no zone) in the range factdiff stores (``factdiff.inputs.times``);
    now when omitted (``None``), never for ``''``."""
    if value is None:
        return datetime.now(UTC)
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        raise InputError(f"{option} {value!r} is not an ISO time like 2026-03-14T14:32Z") from None
    return check_time(parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC), option)


def not_blank(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Option callback: a value that is given must not be empty or blank."""
    if value is not None and not value.strip():
        raise click.BadParameter("must not be empty (leave the option out for the default)")
    return value


def limit_option(default: int | None, help: str = "At most this many.") -> Callable[[F], F]:
    """``--limit N`` with 0 <= N <= ``COUNT_MAX``."""

    def decorate(function: F) -> F:
        return click.option(
            "--limit",
            type=click.IntRange(0, COUNT_MAX),
            default=default,
            show_default=default is not None,
            help=help,
        )(function)

    return decorate
