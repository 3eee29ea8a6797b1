"""Entries from JSON Lines for ``factdiff add --jsonl``: one object per line, checked whole.

Each non-blank line is one object with ``text`` (required, not blank), ``agent`` (else the
``--agent`` default), ``occurred_at`` (ISO time), ``tags`` (list of strings), ``schema``
(name) and ``metadata`` (object); any other key is an error. The first bad line stops the
load with ``InputError("line N: ...")`` before anything is stored: a load stores every entry
of the file or none.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO

from factdiff.cli.options import parse_time
from factdiff.errors import InputError
from factdiff.inputs import json_toml
from factdiff.inputs.json_toml import JSON
from factdiff.schema.names import check_reference
from factdiff.store import BlankEntry, NewEntry

KEYS = ("text", "agent", "occurred_at", "tags", "schema", "metadata")


@dataclass(frozen=True)
class LoadedEntry:
    """An entry read from one line of the file."""

    line: int
    entry: NewEntry


def read_jsonl_entries(path: str, default_agent: str | None, now: datetime) -> list[LoadedEntry]:
    """Every entry of the JSON Lines file ``path`` (``-``: standard input), in file order."""
    name = "<stdin>" if path == "-" else path
    try:
        if path == "-":
            return list(_entries(sys.stdin.buffer, default_agent, now))
        with Path(path).open("rb") as handle:
            return list(_entries(handle, default_agent, now))
    except OSError as exc:
        raise InputError(f"{name}: cannot read: {exc.strerror or exc}") from None


def _entries(handle: IO[bytes], default_agent: str | None, now: datetime) -> Iterator[LoadedEntry]:
    for number, raw in enumerate(handle, start=1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"line {number}: not valid UTF-8 at byte {exc.start}") from None
        if not line.strip():
            continue
        try:
            data = json_toml.loads(line)
        except json_toml.UnreadableText as exc:
            raise InputError(f"line {number}: not JSON ({exc})") from None
        try:
            entry = _entry(data, default_agent, now)
        except InputError as exc:
            raise InputError(f"line {number}: {exc}") from None
        yield LoadedEntry(number, entry)


def _entry(data: JSON, default_agent: str | None, now: datetime) -> NewEntry:
    if not isinstance(data, dict):
        raise InputError(f"expected a JSON object with a text key, got {type(data).__name__}")
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise InputError(f"unknown key {unknown[0]!r} (keys: {', '.join(KEYS)})")
    text = data.get("text")
    if not isinstance(text, str):
        raise InputError('"text" must be a string')
    BlankEntry.refuse(text)
    agent = data.get("agent", default_agent)
    if agent is None:
        raise InputError('no "agent": give one on the line or --agent for every line')
    if not isinstance(agent, str) or not agent.strip():
        raise InputError('"agent" must be a non-empty string')
    occurred = data.get("occurred_at")
    if occurred is not None and not isinstance(occurred, str):
        raise InputError('"occurred_at" must be an ISO time string')
    occurred_at = None if occurred is None else parse_time(occurred, '"occurred_at"')
    tags = data.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise InputError('"tags" must be a list of strings')
    schema = data.get("schema")
    if schema is not None and not isinstance(schema, str):
        raise InputError('"schema" must be a schema name (a string)')
    if schema is not None:
        check_reference(schema)
    metadata = data.get("metadata", {})
    if not isinstance(metadata, dict):
        raise InputError('"metadata" must be a JSON object')
    return NewEntry(
        agent_id=agent,
        content=text,
        occurred_at=occurred_at,
        metadata=metadata,
        schema=schema,
        tags=tuple(tags),
        last_used_at=min(occurred_at, now) if occurred_at else None,
    )
