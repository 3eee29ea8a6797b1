"""Moving a store: ``export``, ``import`` and ``copy`` (``factdiff.store.transfer``)."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from factdiff.cli.options import db_option, json_option, not_blank, open_store, open_store_to_read
from factdiff.cli.render import echo, echo_json
from factdiff.errors import InputError
from factdiff.present.wording import plural
from factdiff.store.transfer import ImportSummary, copy_store, export_lines, import_lines


@click.command("export")
@click.option("--agent", callback=not_blank, help="Only this agent's records.")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the export to FILE (default: standard output).",
)
@db_option
def export_command(agent: str | None, out: Path | None, db: str) -> None:
    """Write the store as JSON Lines: every entry in every tier, with its history.

    Entries (hot, warm with their cold archives, in review) with their attempts and model
    calls, events, schema versions, tombstones of erased entries and API keys' metadata
    (never key secrets); with --agent, that agent's records and the schemas they need."""
    with open_store_to_read(db) as store:
        location = store.location
        if out is None:
            records, entries = _write(export_lines(store, agent), sys.stdout)
            sys.stdout.flush()
        else:
            with _replaced(out) as stream:
                records, entries = _write(export_lines(store, agent), stream)
    where = "standard output" if out is None else str(out)
    echo(
        f"exported {plural(records, 'record')} ({plural(entries, 'entry', 'entries')}) "
        f"from {location} to {where}",
        err=True,
    )


def _write(lines: Iterator[str], stream: IO[str]) -> tuple[int, int]:
    """Write ``lines``; how many records and entries the header counted."""
    header = next(lines)
    stream.write(header)
    for line in lines:
        stream.write(line)
    counts: dict[str, int] = json.loads(header)["counts"]
    return sum(counts.values()), counts["entry"]


@contextmanager
def _replaced(path: Path) -> Iterator[IO[str]]:
    """A stream that becomes ``path`` once written whole (a failure leaves no partial file)."""
    directory = path.resolve().parent
    if not directory.is_dir():
        raise InputError(f"--out {path}: no such directory: create it first")
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=directory)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            yield stream
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


@click.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@db_option
@json_option
def import_command(file: Path, db: str, as_json: bool) -> None:
    """Load an export FILE into an empty store, all or nothing.

    The store (--db) is a new SQLite file or an empty PostgreSQL database; one that holds
    records is refused, as is a truncated or damaged file or another format version."""
    with open_store(db) as store, _progress("importing", as_json) as (on_header, on_records):
        summary = import_lines(
            store, lambda: file.open("rb"), on_header=on_header, on_records=on_records
        )
        location = store.location
    _report(summary, f"imported {file} into {location}", as_json)


@click.command("copy")
@click.option("--from", "source", required=True, help="The store to copy (path or DSN).")
@click.option("--to", "target", required=True, help="An empty store to copy it into.")
@json_option
def copy_command(source: str, target: str, as_json: bool) -> None:
    """Copy store --from into the empty store --to, with a progress bar.

    Export piped into import in process (all or nothing), e.g. from a SQLite file to
    PostgreSQL."""
    with open_store_to_read(source) as origin, open_store(target) as destination:
        with _progress("copying", as_json) as (on_header, on_records):
            summary = copy_store(origin, destination, on_header=on_header, on_records=on_records)
        where = f"copied {origin.location} into {destination.location}"
    _report(summary, where, as_json)


@contextmanager
def _progress(
    label: str, quiet: bool
) -> Iterator[tuple[Callable[[int], None], Callable[[int], None]]]:
    """A progress bar of records written on standard error (none when it is not a terminal,
    or with --json), and the two callbacks that drive it."""
    with Progress(
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True, highlight=False, emoji=False),
        disable=quiet or not sys.stderr.isatty(),
        transient=True,
    ) as progress:
        task = progress.add_task(label, total=None)
        yield (
            lambda total: progress.update(task, total=total, completed=0),
            lambda count: progress.advance(task, count),
        )


def _report(summary: ImportSummary, done: str, as_json: bool) -> None:
    if as_json:
        echo_json(summary.to_json())
        return
    entries = summary.counts["entry"]
    echo(
        f"{done}: {plural(summary.records, 'record')} "
        f"({plural(entries, 'entry', 'entries')}); "
        f"search index built for {plural(summary.indexed, 'entry', 'entries')}"
    )
