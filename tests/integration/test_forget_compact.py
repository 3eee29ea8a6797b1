"""Erasure of the compact tiers (schema version 9) on both stores: the every-table scan
decodes zstd frames (with the store's dictionaries) and packed attempts and events, and sees
the text there before an erasure; after it, packed attempts and events hold no content, no
dictionary trained on the entry is left, and every other entry still reads back."""

from __future__ import annotations

from pathlib import Path

import pytest

from factdiff.store import MemoryStore, Tier, compact_storage, frames, open_store
from factdiff.store.dictionaries import MIN_SAMPLES, train, unpack_ids
from tests.integration.conftest import raw
from tests.integration.erasure_scan import (
    UnreadableFrame,
    dictionaries,
    find,
    table_rows,
    unzstd,
    windows,
)
from tests.integration.test_forget import ERASED_AT, build
from tests.integration.test_store_compact import demote_all, load, sources

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def raw_places(store: MemoryStore, needles: set[str]) -> set[tuple[str, str]]:
    """(table, column) where a needle is in a value as stored, nothing decoded."""
    found: set[tuple[str, str]] = set()
    for table, column, value in table_rows(store):
        if value is None:
            continue
        if isinstance(value, bytes | bytearray | memoryview):
            text = bytes(value).decode("latin-1").lower()
        else:
            text = str(value).lower()
        if any(n in text for n in needles):
            found.add((table, column))
    return found


def assert_no_user_left(store: MemoryStore, old_id: int, sources: dict[str, str]) -> None:
    """No warm row uses dictionary ``old_id`` any more, the store verifies, and every warm
    entry of ``sources`` still reads back its source."""
    assert raw(
        store,
        "SELECT count(*) FROM warm_entries WHERE dictionary_id = ? OR source_dictionary_id = ?",
        old_id,
        old_id,
    ) == [(0,)]
    assert store.verify() == []
    for entry_id, text in sources.items():
        if store.get(entry_id).tier is Tier.WARM:
            assert store.read_cold(entry_id) == text


def test_scan_sees_zstd_and_packed_content_before_erasure_and_none_after(
    store: MemoryStore,
) -> None:
    scene = build(store)
    before = {(table, column) for table, column, _ in find(store, scene.needles)}
    # positive control: the text is found inside zstd frames and packed rows...
    compact = {
        ("warm_entries", "narrative"),
        ("warm_entries", "record"),
        ("warm_entries", "source"),
        ("attempts", "packed"),
        ("events", "packed"),
    }
    assert compact <= before
    # ...where it is not readable as stored (the scan decodes them)
    assert not compact & raw_places(store, scene.needles)
    (cold,) = raw(
        store, "SELECT source_codec, source FROM warm_entries WHERE entry_id = ?", scene.secret
    )
    assert cold[0] == "zstd"
    assert bytes(cold[1]).startswith(ZSTD_MAGIC)
    packed = raw(store, "SELECT packed FROM attempts WHERE entry_id = ?", scene.secret)
    assert packed
    assert all(bytes(p[0]).startswith(frames.TAG) for p in packed)

    (done,) = store.forget([scene.secret], now=ERASED_AT, reason="customer request 43")

    assert done.redacted_attempts == len(packed)
    assert find(store, scene.needles) == set()
    # redacted rows are JSON text: nothing packed is left of the entry's attempts and events
    assert raw(
        store,
        "SELECT count(*) FROM attempts WHERE entry_id = ? AND packed IS NOT NULL",
        scene.secret,
    ) == [(0,)]
    assert raw(
        store,
        "SELECT count(*) FROM events WHERE entry_id = ? AND packed IS NOT NULL"
        " AND type <> 'erased'",
        scene.secret,
    ) == [(0,)]
    history = store.attempts(scene.secret)
    assert len(history) == len(packed)
    assert all(a.summary == "[erased]" for a in history)
    *redacted, last = store.events(entry_id=scene.secret)
    assert redacted
    assert all(e.payload.get("redacted") is True for e in redacted)
    assert last.type.value == "erased"
    assert store.verify() == []


def _baseline(tmp_path: Path) -> str:
    """The text of a store holding only what loading the corpus registers (the schema)."""
    with open_store(str(tmp_path / "baseline.db")) as empty:
        load(empty, 1)
        parts = []
        for table, _, value in table_rows(empty):
            if table in {"entries", "hot_content", "events", "search_docs"} or value is None:
                continue
            if isinstance(value, bytes | bytearray | memoryview):
                parts.append(bytes(value).decode("latin-1"))
            else:
                parts.append(str(value))
        return "\n".join(parts).lower()


def test_forget_retires_the_dictionaries_trained_on_the_entry(
    store: MemoryStore, tmp_path: Path
) -> None:
    ids = load(store, MIN_SAMPLES + 6)
    before = sources(store, ids)
    demote_all(store)
    ((old_id, trained_on),) = raw(store, "SELECT id, trained_on FROM zstd_dictionaries")
    trained = unpack_ids(bytes(trained_on))
    warm = [i for i in sorted(trained) if store.get(i).tier is Tier.WARM]
    erased = warm[0]
    others = set().union(*(windows(text) for i, text in before.items() if i != erased))
    baseline = _baseline(tmp_path)
    needles = {n for n in windows(before[erased]) - others if n not in baseline}
    assert len(needles) > 20

    rows = list(table_rows(store))
    places = {(table, column) for table, column, _ in find(store, needles)}
    assert ("warm_entries", "source") in places  # decoded with the agent's dictionary
    (cold,) = raw(
        store, "SELECT source, source_dictionary_id FROM warm_entries WHERE entry_id = ?", erased
    )
    assert cold[1] == old_id
    with pytest.raises(UnreadableFrame):  # without the dictionary the scan would be blind
        unzstd(bytes(cold[0]), {}, "warm_entries.source")
    assert unzstd(bytes(cold[0]), dictionaries(rows)) == before[erased].encode("utf-8")

    store.forget([erased], now=ERASED_AT, reason="customer request 44")

    assert find(store, needles) == set()  # every frame decodes with a dictionary still held
    left = raw(store, "SELECT id, trained_on FROM zstd_dictionaries")
    assert old_id not in [r[0] for r in left]
    assert all(erased not in unpack_ids(bytes(r[1])) for r in left)
    assert_no_user_left(store, old_id, {i: t for i, t in before.items() if i != erased})


def test_correct_retires_the_dictionaries_trained_on_the_entry(store: MemoryStore) -> None:
    ids = load(store, MIN_SAMPLES + 6)
    before = sources(store, ids)
    demote_all(store)
    ((old_id, trained_on),) = raw(store, "SELECT id, trained_on FROM zstd_dictionaries")
    corrected = next(i for i in sorted(unpack_ids(bytes(trained_on))) if i in before)

    store.correct(corrected, before[corrected] + " (corrected)", now=ERASED_AT, reason="typo")

    left = raw(store, "SELECT id, trained_on FROM zstd_dictionaries")
    assert old_id not in [r[0] for r in left]
    assert all(corrected not in unpack_ids(bytes(r[1])) for r in left)
    assert_no_user_left(store, old_id, {i: t for i, t in before.items() if i != corrected})


def test_forget_agent_retires_the_agents_dictionaries_once(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = load(store, MIN_SAMPLES + 6)
    demote_all(store)
    agent = store.get(ids[0]).agent_id
    assert raw(store, "SELECT count(*) FROM zstd_dictionaries") == [(1,)]
    trainings: list[int] = []

    def counting_train(samples: list[bytes]) -> bytes | None:
        trainings.append(len(samples))
        return train(samples)

    monkeypatch.setattr(compact_storage, "train", counting_train)

    done = store.forget_agent(agent, now=ERASED_AT, reason="agent retired")

    assert len(done) == len(ids)
    assert trainings == []  # one retirement for the agent, no dictionary per erased entry
    assert raw(store, "SELECT count(*) FROM zstd_dictionaries") == [(0,)]
    assert store.verify() == []
