"""``factdiff add``: one hot entry from a file, or many from JSON Lines (``--jsonl``)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

import click

from factdiff.cli.inputs import read_text
from factdiff.cli.options import db_option, json_option, not_blank, open_store, parse_time
from factdiff.cli.render import echo, echo_json
from factdiff.errors import InputError, UsageError
from factdiff.inputs import json_toml
from factdiff.schema.names import check_reference

if TYPE_CHECKING:
    from factdiff.cli.jsonl_entries import LoadedEntry
    from factdiff.store import MemoryStore
    from factdiff.values.base import JSON


@click.command("add")
@click.argument("file", required=False)
@click.option(
    "--jsonl",
    "jsonl",
    metavar="FILE",
    callback=not_blank,
    help="Add one entry per line of this JSON Lines file (- for stdin); all or none.",
)
@click.option("--agent", callback=not_blank, help="The agent (with --jsonl: the default).")
@click.option(
    "--occurred-at",
    help="When it happened (ISO): resolves relative dates and starts the dormancy clock.",
)
@click.option("--schema", "schema_name", callback=not_blank, help="Fact schema name.")
@click.option("--tag", "tags", multiple=True, help="Capability tag (repeatable).")
@click.option("--metadata", help="JSON object of metadata.")
@click.option(
    "--defer-index",
    is_flag=True,
    help="With --jsonl: index the entries' words now and their facts later (`factdiff index`, "
    "or the next search), for fast bulk loads.",
)
@db_option
@json_option
def add_command(
    file: str | None,
    jsonl: str | None,
    agent: str | None,
    occurred_at: str | None,
    schema_name: str | None,
    tags: tuple[str, ...],
    metadata: str | None,
    defer_index: bool,
    db: str,
    as_json: bool,
) -> None:
    """Add FILE (or - for stdin) as a hot entry and print its id.

    With --jsonl FILE, every line is one entry (keys: text, agent, occurred_at, tags, schema,
    metadata); the file is checked in full first and stored in one transaction, so a bad
    line (named by its number) stores nothing. Prints the new ids in file order. Every entry
    is indexed for search as it is stored; --defer-index leaves its facts for `factdiff index`.
    """
    now = datetime.now(UTC)
    if jsonl is not None:
        if file is not None:
            raise InputError("give FILE or --jsonl FILE, not both")
        if occurred_at is not None or schema_name is not None or tags or metadata is not None:
            raise InputError(
                "with --jsonl, give occurred_at, schema, tags and metadata on each line"
            )
        _add_jsonl(jsonl, agent, db, now, as_json, defer_index)
        return
    if defer_index:
        raise InputError("--defer-index goes with --jsonl FILE")
    if file is None:
        raise InputError("give the FILE to add (- for stdin), or --jsonl FILE")
    if agent is None:
        raise InputError("--agent is required: the agent this memory belongs to")
    meta = _metadata(metadata)
    content = read_text(file)
    from factdiff.store.model import BlankEntry

    BlankEntry.refuse(content, "<stdin>" if file == "-" else file)  # before opening the store
    occurred = parse_time(occurred_at, "--occurred-at") if occurred_at is not None else None
    if schema_name is not None:
        check_reference(schema_name)
    with open_store(db) as store:
        if schema_name is not None:
            _check_schemas(store, [schema_name], now)
        entry_id = store.add(
            agent,
            content,
            now=now,
            occurred_at=occurred,
            last_used_at=min(occurred, now) if occurred else None,
            metadata=meta,
            schema=schema_name,
            tags=tags,
        )
    if as_json:
        echo_json({"id": entry_id})
    else:
        echo(entry_id)


def _metadata(metadata: str | None) -> dict[str, JSON]:
    if metadata is None:
        return {}
    try:
        meta = json_toml.loads(metadata)
    except json_toml.UnreadableText as exc:
        raise InputError(f"--metadata is not JSON: {exc}") from None
    if not isinstance(meta, dict):
        raise InputError("--metadata must be a JSON object")
    return meta


def _check_schemas(store: MemoryStore, names: list[str], now: datetime) -> None:
    from factdiff.store.catalog import SchemaCatalog

    catalog = SchemaCatalog(store)
    for name in names:
        catalog.get(name, now)


def _add_jsonl(
    path: str, agent: str | None, db: str, now: datetime, as_json: bool, defer_index: bool
) -> None:
    from factdiff.cli.jsonl_entries import read_jsonl_entries
    from factdiff.store import BadEntry

    loaded = read_jsonl_entries(path, agent, now)
    with open_store(db) as store:
        _check_line_schemas(store, loaded, now)
        try:
            entries = [item.entry for item in loaded]
            ids = store.add_many(entries, now=now, index_facts=not defer_index)
        except BadEntry as exc:
            raise InputError(f"line {loaded[exc.position - 1].line}: {exc.detail}") from None
    if as_json:
        echo_json({"count": len(ids), "ids": ids})
    else:
        for entry_id in ids:
            echo(entry_id)


def _check_line_schemas(store: MemoryStore, loaded: list[LoadedEntry], now: datetime) -> None:
    first_line: dict[str, int] = {}
    for item in loaded:
        if item.entry.schema is not None:
            first_line.setdefault(item.entry.schema, item.line)
    for name, line in first_line.items():
        try:
            _check_schemas(store, [name], now)
        except UsageError as exc:
            raise InputError(f"line {line}: {exc}") from None
