"""Re-evaluation on both stores: the v1 -> v2 scenario (call_time added as critical), a rerun
that changes nothing, a crash at every step followed by a rerun, and recompression."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from factdiff.demotion.demoter import Demoter
from factdiff.demotion.reevaluation import Reevaluator
from factdiff.errors import UsageError
from factdiff.store import EventType, MemoryStore, Tier, open_store
from tests.integration.conftest import raw
from tests.integration.evolution_helpers import (
    LATER,
    NAME,
    V2,
    call_text,
    drops_email,
    drops_time,
    register,
    schema,
    seed,
    state,
)

ROOT = Path(__file__).resolve().parents[2]


def reevaluate(store: MemoryStore) -> dict[str, Any]:
    reevaluator = Reevaluator(store)
    enqueued = reevaluator.enqueue(reevaluator.plan(NAME, LATER), LATER)
    report = reevaluator.run(LATER, schema_name=NAME)
    return {**report.to_json(), "enqueued": enqueued}


def test_v2_promotes_exactly_the_entries_that_lost_the_call_time(
    store: MemoryStore, tmp_path: Path
) -> None:
    ids = seed(store, tmp_path)
    register(store, schema(2, tmp_path), V2)
    plan = Reevaluator(store).plan(NAME, LATER)
    assert plan.due == 200
    assert plan.due_versions == (1,)

    report = reevaluate(store)
    assert (report["enqueued"], report["checked"]) == (200, 200)
    assert (report["promoted"], report["annotated"], report["clean"]) == (50, 30, 120)
    assert report["fields"]["call_time"] == {"promoted": 50, "annotated": 0}
    assert report["fields"]["contact_email"]["annotated"] == 30
    for number, entry_id in enumerate(ids):
        entry = store.get(entry_id)
        if drops_time(number):
            assert entry.tier is Tier.HOT
            assert entry.content == call_text(number)
            assert entry.last_used_at.year == 2026
            assert entry.next_attempt_at is None
            kinds = [e.type for e in store.events(entry_id)]
            assert kinds[-2:] == [EventType.REEVALUATION_FAILED, EventType.PROMOTED]
            continue
        assert entry.warm is not None
        assert entry.warm.meta.schema.version == 2
        gaps = [gap.field for gap in entry.warm.meta.known_gaps]
        assert gaps == (["contact_email"] if drops_email(number) else [])
        assert "call_time" in entry.warm.record["fields"]
        assert store.events(entry_id, type=EventType.REEVALUATED)
    assert store.verify() == []
    search = store.search("c5@example.com", k=3)
    assert search
    assert search[0].entry_id == ids[5]

    before = state(store)
    again = reevaluate(store)
    assert (again["enqueued"], again["checked"], again["skipped"]) == (0, 0, 0)
    assert state(store) == before

    recompressed = Demoter(store).run(LATER)
    assert recompressed.processed == 50
    for number, entry_id in enumerate(ids):
        entry = store.get(entry_id)
        assert entry.tier is Tier.WARM, (number, recompressed.counts)
        assert entry.warm is not None
        assert entry.warm.meta.schema.version == 2
    assert store.verify() == []
    assert Reevaluator(store).plan(NAME, LATER).due == 0


def test_register_without_material_change_makes_nothing_due(
    store: MemoryStore, tmp_path: Path
) -> None:
    seed(store, tmp_path, count=8)
    lowered = (
        V2.replace("version: 2", "version: 3")
        .replace(
            "call_time: {type: time, criticality: critical",
            "call_time: {type: time, criticality: contextual",
        )
        .replace("contact_email: {type: email, criticality: important}", "")
    )
    from factdiff.schema.loader import schema_from_yaml

    loaded = schema_from_yaml(lowered, "v3.yaml")
    register(store, loaded, lowered)
    reevaluator = Reevaluator(store)
    assert reevaluator.plan(NAME, LATER).due == 0
    assert reevaluator.plan(NAME, LATER, include_all=True).due == 8
    dry = reevaluator.dry_run(reevaluator.plan(NAME, LATER, include_all=True), LATER)
    assert dry.to_json()["clean"] == 8
    assert store.pending_reevaluations() == 0


def test_a_worker_elsewhere_cannot_finish_an_item_it_lost(
    store: MemoryStore, tmp_path: Path
) -> None:
    seed(store, tmp_path, count=4)
    register(store, schema(2, tmp_path), V2)
    first = Reevaluator(store, worker_id="a")
    first.enqueue(first.plan(NAME, LATER), LATER)
    items = store.claim_reevaluations("a", limit=4)
    assert len(items) == 4
    assert store.claim_reevaluations("b", limit=4) == []
    decision = first.decide(items[0], LATER)
    assert store.release_reevaluation(items[0].token)
    assert not store.finish_reevaluation(items[0], decision.finish, now=LATER)
    assert store.heartbeat_reevaluation(items[1].token) is not None
    raw(store, "UPDATE reevaluations SET lease_expires_at = 0")
    assert store.heartbeat_reevaluation(items[1].token) is None
    assert not store.finish_reevaluation(items[1], first.decide(items[1], LATER).finish, now=LATER)
    report = Reevaluator(store, worker_id="b").run(LATER)
    assert report.checked == 4
    assert store.pending_reevaluations() == 0


CRASH = textwrap.dedent(
    """
    import os, sys
    from factdiff.demotion.reevaluation import Reevaluator
    from factdiff.store import open_store
    from tests.integration.evolution_helpers import LATER, NAME
    store = open_store(sys.argv[1], create=False)
    seen = {"n": 0}
    def dying(real):
        def run(key, **params):
            result = real(key, **params)
            if key == sys.argv[2]:
                seen["n"] += 1
                if seen["n"] == int(sys.argv[3]):
                    os._exit(3)
            return result
        return run
    db = store.database
    db.exec, db.row = dying(db.exec), dying(db.row)
    reevaluator = Reevaluator(store)
    reevaluator.enqueue(reevaluator.plan(NAME, LATER), LATER)
    reevaluator.run(LATER, schema_name=NAME)
    """
)
STEPS = [
    ("enqueue_reevaluations", 1),
    ("claim_reevaluations", 1),
    ("select_warm_state", 3),
    ("finish_reevaluation", 2),
    ("insert_hot", 2),
    ("set_rehydrated_due", 2),
    ("update_warm_encoding", 3),
    ("insert_event", 4),
    ("claim_reevaluations", 2),
]


def by_content(store: MemoryStore) -> dict[str, Any]:
    """``state`` keyed by source content hash (entry ids differ between stores)."""
    hashes = {e.id: e.content_hash for e in store.entries(with_content=False)}
    found = state(store)
    return {
        "entries": {hashes[k]: v for k, v in found["entries"].items()},
        "events": found["events"],
        "items": sorted((hashes[i[0]], *i[1:]) for i in found["items"]),
        "verify": found["verify"],
    }


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The end state of an uninterrupted run on 24 calls."""
    folder = tmp_path_factory.mktemp("reference")
    with open_store(folder / "ref.db") as store:
        seed(store, folder, count=24)
        register(store, schema(2, folder), V2)
        reevaluate(store)
        return by_content(store)


@pytest.mark.parametrize(("step", "occurrence"), STEPS)
def test_a_crash_at_any_step_and_a_rerun_end_in_the_same_state(
    target: str, tmp_path: Path, reference: dict[str, Any], step: str, occurrence: int
) -> None:
    with open_store(target) as store:
        seed(store, tmp_path, count=24)
        register(store, schema(2, tmp_path), V2)
    run = subprocess.run(
        [sys.executable, "-c", CRASH, target, step, str(occurrence)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 3, run.stderr
    with open_store(target) as store:
        assert store.verify() == []
        raw(store, "UPDATE reevaluations SET lease_expires_at = 0 WHERE status = 'pending'")
        reevaluate(store)
        assert by_content(store) == reference


def test_listing_losses_and_memory_score_agree_on_both_stores(
    store: MemoryStore, tmp_path: Path
) -> None:
    from factdiff.ops.health import agent_health, reevaluation_by_schema
    from factdiff.ops.losses import loss_patterns
    from factdiff.present.schema_listing import schema_listing

    seed(store, tmp_path, count=20)
    # what the listing, the loss report and the score read is compact: warm rows in the
    # compact encoding (schema by identity reference, gaps in the short meta), packed diffs
    assert raw(store, "SELECT count(*) FROM warm_entries WHERE encoding <> 1") == [(0,)]
    assert raw(store, "SELECT count(*) FROM attempts WHERE packed IS NULL") == [(0,)]
    register(store, schema(2, tmp_path), V2)
    reevaluate(store)
    assert raw(store, "SELECT count(*) FROM warm_entries WHERE encoding <> 1") == [(0,)]
    listed = [row for row in schema_listing(store) if row["name"] == NAME]
    assert [(r["version"], r["latest"], r["warm_entries"]) for r in listed] == [
        (1, False, 0),
        (2, True, 15),
    ]
    [group] = loss_patterns(store, schema=NAME).groups
    assert group.attempts == 20
    assert {f.field: f.missing for f in group.fields}["inventory.time"] == 5
    assert loss_patterns(store, since=LATER + timedelta(days=1)).groups == ()
    assert reevaluation_by_schema(store)[0]["rate"] == 0.25
    [score] = agent_health(store)
    assert (score["warm"], score["warm_with_gaps"], score["failure_rate"]) == (15, 3, 0.0)
    coverage = score["coverage"]
    assert isinstance(coverage, dict)
    assert coverage["entries"] == 15
    share = coverage["verified"] / coverage["sentences"]
    assert coverage["share"] == round(share, 4)
    # 67.5 before coverage counted: times (1 - u / 4), u the share of unverified sentences
    assert score["health"] == round(67.5 * (1 - (1 - share) / 4), 1)


def test_a_worker_drains_reevaluation_work(target: str, tmp_path: Path) -> None:
    import threading

    from factdiff.demotion.worker import Worker, WorkerSettings

    with open_store(target) as store:
        seed(store, tmp_path, count=12)
        register(store, schema(2, tmp_path), V2)
        reevaluator = Reevaluator(store)
        assert reevaluator.enqueue(reevaluator.plan(NAME, LATER), LATER) == 12
    worker = Worker(target, WorkerSettings(concurrency=1, lease_seconds=5, poll_seconds=0.05))
    running = threading.Thread(target=worker.run)
    running.start()
    try:
        with open_store(target) as store:
            for _ in range(600):
                if store.pending_reevaluations() == 0:
                    break
                threading.Event().wait(0.05)
            assert store.pending_reevaluations() == 0
    finally:
        worker.stop()
        running.join(30)
    assert not running.is_alive()
    assert worker.report.reevaluated == {"promoted": 3, "annotated": 2, "clean": 7}
    assert worker.report.failure is None
    with open_store(target) as store:
        assert store.verify() == []


def test_an_entry_or_agent_may_pin_a_registered_version(store: MemoryStore, tmp_path: Path) -> None:
    from factdiff.retrieve.schemas import SchemaResolver
    from factdiff.store.catalog import SchemaCatalog

    register(store, schema(1, tmp_path), "")
    register(store, schema(2, tmp_path), V2)
    catalog = SchemaCatalog(store)
    assert catalog.get(f"{NAME}@1", LATER).version == 1
    assert catalog.get(NAME, LATER).version == 2
    assert SchemaResolver(store).get(f"{NAME}@1") == catalog.get(f"{NAME}@1", LATER)
    assert SchemaResolver(store).get(f"{NAME}@x") is None
    store.set_agent_schema("pinned", f"{NAME}@1")
    entry_id = store.add("pinned", call_text(3), now=LATER)
    assert catalog.for_entry(store.get(entry_id), LATER).version == 1
    with pytest.raises(UsageError, match="version 9 is not registered"):
        catalog.get(NAME, LATER, 9)


def test_a_run_gives_up_on_items_that_keep_coming_back_stale(
    store: MemoryStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from factdiff.demotion.reevaluation import STALE_ROUNDS

    seed(store, tmp_path, count=4)
    register(store, schema(2, tmp_path), V2)
    reevaluator = Reevaluator(store)
    reevaluator.enqueue(reevaluator.plan(NAME, LATER), LATER)

    def always_changed(done: list[Any], *, now: Any) -> list[bool]:
        for item, _ in done:  # as when every entry changed between decision and commit
            store.release_reevaluation(item.token)
        return [False] * len(done)

    monkeypatch.setattr(store, "finish_reevaluations", always_changed)
    report = reevaluator.run(LATER, schema_name=NAME)
    assert report.stale == 4 * STALE_ROUNDS
    assert report.checked == 0
    assert store.pending_reevaluations(NAME) == 4


def test_forget_erases_an_entrys_reevaluation_items(store: MemoryStore, tmp_path: Path) -> None:
    """Re-evaluation items quote the entry's facts in their diffs: erasure removes them."""
    from factdiff.store.model import EntryErased
    from tests.integration.erasure_scan import find, windows

    ids = seed(store, tmp_path, count=8)
    register(store, schema(2, tmp_path), V2)
    reevaluate(store)
    items = "SELECT count(*) FROM reevaluations WHERE entry_id = ?"
    for number, entry_id in enumerate(ids[:4]):
        assert raw(store, items, entry_id) == [(1,)]
        store.forget([entry_id], now=LATER + timedelta(days=1), reason="erasure request")
        assert raw(store, items, entry_id) == [(0,)]
        with pytest.raises(EntryErased):
            store.get(entry_id)
        kept = set().union(*(windows(call_text(n)) for n in range(number + 1, len(ids))))
        assert find(store, windows(call_text(number)) - kept) == set()
    assert all(raw(store, items, i) == [(1,)] for i in ids[4:])
