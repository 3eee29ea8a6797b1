"""Moving a store (``factdiff.store.transfer``): SQLite -> PostgreSQL and back keeps every
record, every archive byte, every search and every event id; a bad file or a store that is
not empty is refused and leaves the target as it was."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from factdiff.retrieve.services import RulesIndexer, RulesRetrieval
from factdiff.store import MemoryStore, NewEntry, Tier, open_store
from factdiff.store.indexing import IndexDoc, StoreServices
from factdiff.store.model import Entry
from factdiff.store.schema_resolver import SchemaResolver
from factdiff.store.transfer import copy_store, export_lines, import_lines
from factdiff.store.transfer_format import BadExportFile, StoreNotEmpty
from tests.integration.conftest import BACKENDS
from tests.integration.transfer_helpers import (
    NOW,
    body,
    cold_sources,
    export_text,
    fact_searches,
    fill,
    searches,
)


def _location(backend: str, tmp_path: Path, request: pytest.FixtureRequest, name: str) -> str:
    if backend == "sqlite":
        return str(tmp_path / f"{name}.db")
    if "pg_dsn" in request.fixturenames:
        # a second PostgreSQL store: a schema of its own
        from tests.integration.conftest import admin_dsn, create_schema, drop_schema

        base = admin_dsn()
        schema, second = create_schema(base)
        request.addfinalizer(lambda: drop_schema(base, schema))
        return second
    dsn: str = request.getfixturevalue("pg_dsn")
    return dsn


@pytest.fixture(
    params=[
        pytest.param(("sqlite", "postgres"), id="sqlite-to-postgres", marks=pytest.mark.postgres),
        pytest.param(("postgres", "sqlite"), id="postgres-to-sqlite", marks=pytest.mark.postgres),
    ]
)
def direction(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str]:
    source, target = request.param
    return (
        _location(source, tmp_path, request, "source"),
        _location(target, tmp_path, request, "target"),
    )


def test_a_copy_keeps_archives_searches_events_and_re_exports_alike(
    direction: tuple[str, str], tmp_path: Path
) -> None:
    source_at, target_at = direction
    with open_store(source_at) as source, open_store(target_at) as target:
        kept = fill(source, tmp_path)
        before = export_text(source)
        seen: list[int] = []
        summary = copy_store(source, target, on_header=seen.append)
        after = export_text(target)
        assert target.verify() == []
        assert source.dialect.name != target.dialect.name
        # byte-identical apart from the header's source backend (no store ids are exported)
        assert body(after) == body(before)
        header_before, header_after = (
            json.loads(before.splitlines()[0]),
            json.loads(after.splitlines()[0]),
        )
        assert header_before.pop("backend") != header_after.pop("backend")
        assert header_before == header_after
        assert seen == [summary.records]
        assert summary.records == len(body(before))

        assert all(
            header_before["counts"][name] > 0
            for name in header_before["counts"]
            if name != "model_call"
        ), header_before["counts"]
        assert searches(target) == searches(source)
        assert any(searches(source).values())
        # found by the same facts: the target's fact keys come from the records it imported
        by_facts = fact_searches(source)
        assert fact_searches(target) == by_facts
        assert {tier for hits in by_facts.values() for _, tier, _ in hits} == {"hot", "warm"}
        assert target.get(kept["failing"]).status.value == "review"
        assert target.kept_hot(kept["failing"]) is not None
        assert target.tombstone(kept["erased"]) == source.tombstone(kept["erased"])
        key = target.api_key_for(kept["secret"])
        assert key is not None
        assert key.name == "ops"
        assert target.check_attestation("decision-1").status == "ok"
        assert target.pending_reevaluations() == source.pending_reevaluations()
        imported_events = [e.id for e in source.events()]
        assert [e.id for e in target.events()] == imported_events
        archives = dict(cold_sources(source))
        assert archives
        assert dict(cold_sources(target)) == archives
        for entry_id, text in archives.items():
            target.restore(entry_id, NOW)
            restored = target.get(entry_id)
            assert restored.tier is Tier.HOT
            assert restored.content == text
            assert restored.content_hash == source.get(entry_id).content_hash
        # the store goes on: the restores' events follow the imported ones
        new_events = [e.id for e in target.events()][len(imported_events) :]
        assert len(new_events) == len(archives)
        assert min(new_events) > max(imported_events)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_agent_export_holds_only_that_agent(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    with open_store(_location(backend, tmp_path, request, "source")) as source:
        fill(source, tmp_path)
        text = export_text(source, "ops-agent")
        (tmp_path / "ops.jsonl").write_text(text, encoding="utf-8")
    records = [json.loads(line) for line in body(text)]
    assert {r["agent_id"] for r in records if r["type"] in ("entry", "event", "tombstone")} == {
        "ops-agent"
    }
    assert not [r for r in records if r["type"] == "extraction"]
    with open_store(tmp_path / "ops.db") as target:
        summary = import_lines(target, _reader(tmp_path / "ops.jsonl"))
        assert summary.counts["entry"] == len(list(target.entries(with_content=False)))
        assert {e.agent_id for e in target.entries(with_content=False)} == {"ops-agent"}
        assert target.verify() == []


@pytest.fixture
def exported(tmp_path: Path) -> Path:
    with open_store(tmp_path / "source.db") as source:
        fill(source, tmp_path)
        path = tmp_path / "store.jsonl"
        with path.open("w", encoding="utf-8") as out:
            out.writelines(export_lines(source))
    return path


def _reader(path: Path) -> Callable[[], Iterator[bytes]]:
    """Open ``path`` for an import (again, if the import's transaction is retried)."""

    def lines() -> Iterator[bytes]:
        with path.open("rb") as stream:
            yield from stream

    return lines


def _lines(path: Path, text: bytes) -> Path:
    path.write_bytes(text)
    return path


def _damaged_hot_record(line: bytes) -> bytes:
    """``line``, or a hot entry's record that is not a packed fact record (its JSON valid)."""
    record = json.loads(line)
    if record.get("type") != "hot_record":
        return line
    record["record"] = "bm90IGEgcmVjb3Jk"  # base64 of "not a record"
    return json.dumps(record, sort_keys=True, separators=(",", ":")).encode() + b"\n"


def _empty(store: MemoryStore) -> bool:
    return not store.database.one("transfer_target_rows")


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_bad_file_is_refused_and_leaves_the_target_empty(
    backend: str, exported: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    whole = exported.read_bytes()
    lines = whole.splitlines(keepends=True)
    header = json.loads(lines[0])
    bad = {
        "cut mid-line": (whole[: len(whole) // 2], "cut short"),
        "cut at a line": (b"".join(lines[: len(lines) // 2]), "header counts"),
        "damaged line": (b"".join([*lines[:5], b"{not json\n", *lines[6:]]), "line 6 is not JSON"),
        "unknown version": (
            json.dumps({**header, "version": 99}).encode() + b"\n" + b"".join(lines[1:]),
            "version 99",
        ),
        "unknown type": (b"".join([*lines[:3], b'{"type":"mystery"}\n', *lines[3:]]), "line 4"),
        "out of order": (b"".join([lines[0], *reversed(lines[1:])]), "after the"),
        "empty": (b"", "empty"),
        "damaged record": (
            b"".join(_damaged_hot_record(line) for line in lines),
            "its archive or stored fact record does not check out: the file is damaged",
        ),
    }
    with open_store(_location(backend, tmp_path, request, "target")) as target:
        for name, (text, message) in bad.items():
            path = _lines(tmp_path / f"{name}.jsonl", text)
            with pytest.raises(BadExportFile, match=message):
                import_lines(target, _reader(path))
            assert _empty(target), name
        assert import_lines(target, _reader(exported)).records == len(lines) - 1
        with pytest.raises(StoreNotEmpty, match="is not empty: import into a new SQLite file"):
            import_lines(target, _reader(exported))
        assert target.verify() == []


class CountingIndexer(RulesIndexer):
    """The rules indexer, counting the entries it extracts."""

    def __init__(self) -> None:
        self.extracted: list[str] = []

    def entry_hot_doc(self, schemas: SchemaResolver, entry: Entry, text: str) -> IndexDoc:
        self.extracted.append(entry.id)
        return super().entry_hot_doc(schemas, entry, text)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_import_extracts_only_the_entries_whose_facts_were_never_indexed(
    backend: str, exported: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    with open_store(tmp_path / "copied.db") as source:
        copied = import_lines(source, _reader(exported))
        (pending,) = source.add_many(
            [NewEntry("ops-agent", "Invoice INV-7731 for $4,410 is due April 2, 2026.")],
            now=NOW,
            index_facts=False,
        )
        text = export_text(source)
    (tmp_path / "pending.jsonl").write_text(text, encoding="utf-8")
    indexer = CountingIndexer()
    services = StoreServices(indexer, RulesRetrieval())
    target_at = _location(backend, tmp_path, request, "target")
    with MemoryStore.open(target_at, services=services) as target:
        summary = import_lines(target, _reader(tmp_path / "pending.jsonl"))
        assert summary.indexed == copied.counts["entry"] + 1
        # every other hot entry is keyed by the record it carried, extracted in no store here
        assert indexer.extracted == [pending]
        (hit,) = target.search("INV-7731", touch=False, now=NOW)
        assert hit.entry_id == pending
        assert [m.kind for m in hit.matched] == ["fact"]
        assert target.verify() == []
