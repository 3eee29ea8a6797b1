"""Moving a store: export it as JSON Lines, import that into an empty store of either backend.

``export_lines(store, agent=None)`` streams the file (``factdiff.store.transfer_format``: a
header with every record type's count, then the records) from one read snapshot, a page of
rows at a time; ``import_lines(store, open_lines)`` writes such a file into ``store`` in one
write transaction: all of it, its search indexes rebuilt, or nothing. ``copy_store`` pipes
one into the other in process. The search indexes are rebuilt from the stored fact records the
file holds (hot entries' ``hot_record``s, warm entries' source records), not extracted again.
What a file holds, and what it leaves out (leases, search indexes, UI sessions, erasures in
progress), is in ``docs/export-format.md``.

Reading and writing go through the store's ``Database``; the statements are
``sql/*/transfer.sql``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from factdiff.store.database import Database, Row
from factdiff.store.model import IntegrityError
from factdiff.store.transfer_format import (
    BY_NAME,
    FAMILIES,
    ORDER,
    BadExportFile,
    Family,
    Scope,
    StoreNotEmpty,
    decode_record,
    encode_record,
    header_record,
    read_header,
    render,
)

if TYPE_CHECKING:
    from factdiff.store.base import MemoryStore

__all__ = ["ImportSummary", "copy_store", "export_lines", "import_lines"]

PAGE = 500
"""Rows read per page and records written per batch: memory stays bounded by a page."""


@dataclass(frozen=True)
class ImportSummary:
    """What an import wrote: records per type (as the header counted them), entries indexed."""

    counts: dict[str, int]
    indexed: int

    @property
    def records(self) -> int:
        """Records in all."""
        return sum(self.counts.values())

    def to_json(self) -> dict[str, object]:
        """``{"records", "counts", "indexed"}``."""
        return {"records": self.records, "counts": dict(self.counts), "indexed": self.indexed}


def _exported(family: Family, agent: str | None) -> bool:
    return agent is None or family.scope is not Scope.WHOLE_STORE


def _filter(family: Family, agent: str | None) -> str | None:
    return agent if family.scope is Scope.AGENT else None


def export_lines(store: MemoryStore, agent: str | None = None) -> Iterator[str]:
    """The export of ``store`` (only ``agent``'s records and the store-wide ones they need,
    when given), line by line, read in one snapshot."""
    db = store.database
    with db.read():
        schema_version = int(db.one("schema_version"))
        counts = {
            family.name: (
                int(db.one(f"transfer_{family.name}_count", agent=_filter(family, agent)))
                if _exported(family, agent)
                else 0
            )
            for family in FAMILIES
        }
        yield render(header_record(db.dialect.name, schema_version, agent, counts))
        for family in FAMILIES:
            if _exported(family, agent):
                for row in _rows(db, family, _filter(family, agent)):
                    yield render(encode_record(family, row))


def _rows(db: Database, family: Family, agent: str | None) -> Iterator[Row]:
    """Every row of ``family`` in page-key order, a keyset page at a time."""
    sql = db.sql(f"transfer_{family.name}_page")
    after = {f"after_{column}": start for column, start in family.key}
    while True:
        rows = db.rows(sql, {**after, "agent": agent, "limit": PAGE})
        yield from rows
        if len(rows) < PAGE:
            return
        last = rows[-1]
        after = {f"after_{column}": last[column] for column, _ in family.key}


def import_lines(
    store: MemoryStore,
    open_lines: Callable[[], Iterable[bytes]],
    *,
    on_header: Callable[[int], None] | None = None,
    on_records: Callable[[int], None] | None = None,
) -> ImportSummary:
    """Write the export that ``open_lines()`` reads into ``store``, which must be empty, in one
    write transaction with its search indexes (all or nothing).

    ``open_lines`` is called again if the transaction is retried. ``on_header`` is told how
    many records the file holds, ``on_records`` how many more were written after each batch.
    ``StoreNotEmpty`` if the store holds records; ``BadExportFile`` for a file that is not
    whole (truncated, damaged, records out of order, counts that do not add up), of another
    format or version, or of another store schema version.
    """
    db = store.database

    def work() -> ImportSummary:
        lines = iter(open_lines())
        try:
            counts = read_header(_first(lines), int(db.one("schema_version")))
            if on_header is not None:
                on_header(sum(counts.values()))
            if db.one("transfer_target_rows"):
                raise StoreNotEmpty(
                    f"store {store.location} is not empty: import into a new SQLite file or "
                    "an empty PostgreSQL database (or schema)"
                )
            with db.joined_writes():
                seen = _write_records(db, lines, on_records)
                _check_counts(counts, seen)
                db.exec("transfer_finish_import")
                indexed = _build_index(store)
        finally:
            if isinstance(lines, Generator):
                lines.close()  # an export read in process ends its read snapshot
        return ImportSummary(counts, indexed)

    return db.write(work)


def _build_index(store: MemoryStore) -> int:
    """The imported store's search indexes, from its stored fact records (a hot entry's
    ``hot_record``, a warm entry's source record): nothing is extracted again but the facts
    of entries the source store had not indexed yet. An archive or stored record that does
    not check out is a damaged file."""
    try:
        return store.build_search_index()
    except IntegrityError as exc:
        raise BadExportFile(
            f"entry {exc.entry_id}: its archive or stored fact record does not check out: "
            "the file is damaged; export the store again"
        ) from None


def _first(lines: Iterator[bytes]) -> object:
    line = next(lines, None)
    if line is None:
        raise BadExportFile("the file is empty: give a file `factdiff export` wrote")
    return _parse(line, 1)


def _parse(line: bytes, number: int) -> object:
    if not line.endswith(b"\n"):
        raise BadExportFile(
            f"line {number} is cut short: the file is truncated; export the store again"
        )
    try:
        return json.loads(line)
    except ValueError:
        raise BadExportFile(
            f"line {number} is not JSON: the file is damaged; export the store again"
        ) from None


def _write_records(
    db: Database, lines: Iterator[bytes], on_records: Callable[[int], None] | None
) -> dict[str, int]:
    """Insert every record after the header, a batch of one family at a time; the count of
    each family read."""
    seen = dict.fromkeys(BY_NAME, 0)
    family: Family | None = None
    batch: list[dict[str, object]] = []

    def flush() -> None:
        if family is not None and batch:
            _insert(db, family, batch)
            if on_records is not None:
                on_records(len(batch))
        batch.clear()

    for number, line in enumerate(lines, start=2):
        record = _parse(line, number)
        kind = record.get("type") if isinstance(record, dict) else None
        found = BY_NAME.get(kind) if isinstance(kind, str) else None
        if found is None or not isinstance(record, dict):
            raise BadExportFile(
                f"line {number} is no record of a known type: the file is damaged or from "
                "another format; export the store again"
            )
        if family is None or found is not family:
            if family is not None and ORDER[found.name] < ORDER[family.name]:
                raise BadExportFile(
                    f"line {number}: a {found.name} record after the {family.name} records: "
                    "the file is damaged or spliced; export the store again"
                )
            flush()
            family = found
        batch.append(decode_record(found, record, number))
        seen[found.name] += 1
        if len(batch) >= PAGE:
            flush()
    flush()
    return seen


def _insert(db: Database, family: Family, batch: list[dict[str, object]]) -> None:
    rows = batch
    if family.repeat is not None:
        rows = [row for row in batch for _ in range(_times(family, row, family.repeat))]
    for statement, needed in family.insert_statements:
        chosen = rows if needed is None else [row for row in rows if row[needed] is not None]
        if chosen:
            db.exec_many(statement, chosen)


def _times(family: Family, row: dict[str, object], column: str) -> int:
    """How many rows one record of ``family`` stands for (its ``column``)."""
    times = row[column]
    if not isinstance(times, int):
        raise BadExportFile(
            f"a {family.name} record has no {column}: the file is damaged; export the store again"
        )
    return times


def _check_counts(counts: dict[str, int], seen: dict[str, int]) -> None:
    for name, expected in counts.items():
        if seen[name] != expected:
            raise BadExportFile(
                f"the file holds {seen[name]} {name} records where its header counts "
                f"{expected}: it is truncated or damaged; export the store again"
            )


def copy_store(
    source: MemoryStore,
    target: MemoryStore,
    *,
    on_header: Callable[[int], None] | None = None,
    on_records: Callable[[int], None] | None = None,
) -> ImportSummary:
    """Export ``source`` into ``target`` (empty) in process: ``import_lines`` of
    ``export_lines``, with the same guarantees."""

    def open_lines() -> Iterator[bytes]:
        return (line.encode("utf-8") for line in export_lines(source))

    return import_lines(target, open_lines, on_header=on_header, on_records=on_records)
