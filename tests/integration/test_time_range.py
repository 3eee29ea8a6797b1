"""Times at the edges of what the store holds, on both backends.

Every entry point (the store API, ``POST /v1/entries`` and ``/batch``, MCP ``remember``, the
CLI's ``add`` and ``add --jsonl``) either refuses an ``occurred_at`` outside
``factdiff.inputs.times`` with one clear error or stores it and reads it back equal, in its own
offset; and a store that already holds a time it cannot read in UTC (written before times were
checked) still lists, shows, renders, demotes and forgets.
"""

from __future__ import annotations

import json
import threading
import time
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import start_blocking_portal
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client

from factdiff.cli.main import main as cli
from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.demotion.worker import Worker, WorkerSettings
from factdiff.errors import InputError
from factdiff.inputs.times import TIME_MAX, TIME_MIN
from factdiff.service.mcp import build_mcp
from factdiff.service.stores import StoreProvider
from factdiff.store import EntryErased, MemoryStore, NewEntry, Tier, open_store
from tests.integration.conftest import raw
from tests.integration.service_helpers import client, make_keys, running_api

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
SECOND = timedelta(seconds=1)
REFUSED = "outside the times factdiff stores"
OFFSETS = st.integers(-1439, 1439).map(lambda minutes: timezone(timedelta(minutes=minutes)))
TIMES = st.datetimes(
    min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59, 999999)
).flatmap(lambda naive: OFFSETS.map(lambda zone: naive.replace(tzinfo=zone)))
"""Any wall time of years 1-9999 in any whole-minute offset (-23:59..+23:59), microseconds
included: many of them are beyond ``datetime`` in UTC."""


def _zone(hours: int, minutes: int = 0) -> timezone:
    return timezone(timedelta(hours=hours, minutes=minutes))


EDGES = [
    datetime(1, 1, 1, tzinfo=_zone(14)),  # the report's two values
    datetime(9999, 12, 31, 23, 59, tzinfo=_zone(-14)),
    datetime.min.replace(tzinfo=_zone(-23, -59)),
    datetime.max.replace(tzinfo=_zone(23, 59)),
    TIME_MIN,
    TIME_MAX,
    TIME_MIN - timedelta(microseconds=1),
    TIME_MAX + timedelta(microseconds=1),
    TIME_MIN.astimezone(_zone(23, 59)),
    TIME_MAX.astimezone(_zone(-23, -59)),
]
FEW = settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
SOME = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))


def in_range(moment: datetime) -> bool:
    return TIME_MIN <= moment <= TIME_MAX


def same(got: datetime | None, moment: datetime) -> bool:
    """Equal as an instant and in the offset it was given with."""
    return got == moment and got is not None and got.utcoffset() == moment.utcoffset()


def demote_all(store: MemoryStore) -> None:
    """Every entry can still be listed, and is demoted by a pass at the last time in range
    (when every entry is dormant): nothing raises."""
    listed = list(store.entries(with_content=False))
    assert listed
    Demoter(store, DemotionSettings(older_than=timedelta(0))).run(TIME_MAX)
    assert {e.tier for e in store.entries(with_content=False)} == {Tier.WARM}


# -- the store API ----------------------------------------------------------------------------


def test_store_api_refuses_or_keeps_every_time(store: MemoryStore) -> None:
    def check(moment: datetime) -> None:
        entries = [
            NewEntry("a", "Invoice INV-7 of $40 is due tomorrow.", moment, {}, None, (), moment)
        ]
        if not in_range(moment):
            with pytest.raises(InputError, match=REFUSED):
                store.add("a", "note", now=NOW, occurred_at=moment)
            with pytest.raises(InputError, match=REFUSED):
                store.add_many(entries, now=NOW)
            with pytest.raises(InputError, match=REFUSED):
                store.add("a", "note", now=moment)
            return
        (entry_id,) = store.add_many(entries, now=moment)
        entry = store.get(entry_id)
        assert same(entry.occurred_at, moment)
        assert entry.last_used_at == moment
        assert entry.created_at == moment

    for edge in EDGES:
        check(edge)
    given(TIMES)(SOME(check))()
    demote_all(store)


def test_an_offset_with_seconds_is_refused(store: MemoryStore) -> None:
    odd = datetime(2026, 1, 1, tzinfo=timezone(timedelta(hours=5, minutes=30, seconds=15)))
    with pytest.raises(InputError, match="whole minutes"):
        store.add("a", "note", now=NOW, occurred_at=odd)


# -- HTTP ---------------------------------------------------------------------------------------


def test_http_refuses_or_keeps_every_time(target: str) -> None:
    keys = make_keys(target)
    with running_api(target) as base, client(base, keys.alice) as http:

        def check(moments: list[datetime]) -> None:
            bodies = [
                {"text": "Invoice INV-7 is due.", "occurred_at": m.isoformat()} for m in moments
            ]
            one = http.post("/v1/entries", json=bodies[0])
            batch = http.post("/v1/entries/batch", json={"entries": bodies})
            if not in_range(moments[0]):
                assert one.status_code == 422, one.text
                assert one.json()["error"]["code"] == "invalid_request"
                assert REFUSED in one.json()["error"]["message"]
            else:
                assert one.status_code == 201, one.text
                shown = http.get(f"/v1/entries/{one.json()['id']}").json()["entry"]
                assert same(datetime.fromisoformat(shown["occurred_at"]), moments[0])
            if all(in_range(m) for m in moments):
                assert batch.status_code == 201, batch.text
                for entry_id, moment in zip(batch.json()["ids"], moments, strict=True):
                    shown = http.get(f"/v1/entries/{entry_id}").json()["entry"]
                    assert same(datetime.fromisoformat(shown["occurred_at"]), moment)
            else:
                assert batch.status_code == 422, batch.text
                assert REFUSED in batch.json()["error"]["message"]

        check(EDGES)
        for edge in EDGES:
            check([edge])
        given(st.lists(TIMES, min_size=1, max_size=4))(FEW(check))()
        listed = http.get("/v1/entries", params={"limit": 1000})
        assert listed.status_code == 200
        assert listed.json()["total"] > 0
    with open_store(target) as store:
        demote_all(store)


# -- MCP ----------------------------------------------------------------------------------------


def test_mcp_remember_refuses_or_keeps_every_time(target: str) -> None:
    stores = StoreProvider(target)  # as `factdiff mcp` serves it: a store per thread
    server = build_mcp(stores.get, lambda: "a")
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(Client(server)) as mcp,
        open_store(target) as store,
    ):

        def check(moments: list[datetime]) -> None:
            before = store.entry_page(limit=0).total
            results = [
                portal.call(
                    mcp.call_tool, "remember", {"text": "note", "occurred_at": m.isoformat()}
                )
                for m in moments
            ]
            assert store.entry_page(limit=0).total == before + sum(map(in_range, moments))
            for moment, result in zip(moments, results, strict=True):
                if not in_range(moment):
                    assert result.is_error
                    assert REFUSED in result.content[0].text, result  # the tool's own message
                    continue
                assert not result.is_error, result
                made = result.structured_content or json.loads(result.content[0].text)
                assert same(store.get(made["id"]).occurred_at, moment)

        try:
            check(EDGES)
            given(st.lists(TIMES, min_size=1, max_size=4))(FEW(check))()
            demote_all(store)
        finally:
            stores.close()


# -- the CLI (in process, through click's runner) ------------------------------------------


def invoke(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def one_error_line(result: Any) -> str:
    """The one stderr line of an input error (exit 2), never a traceback."""
    assert result.exit_code == 2, (result.exit_code, result.output)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: "), result.stderr
    return str(lines[0])


def test_cli_add_refuses_or_keeps_every_time(target: str, tmp_path: Path) -> None:
    note = tmp_path / "note.txt"
    note.write_text("Invoice INV-7 of $40 is due tomorrow.\n", encoding="utf-8")
    with open_store(target) as store:

        def check(moment: datetime) -> None:
            result = invoke("add", "--db", target, "--agent", "a", "--occurred-at",
                            moment.isoformat(), str(note))  # fmt: skip
            if not in_range(moment):
                assert REFUSED in one_error_line(result)
                assert "--occurred-at" in result.stderr
                return
            assert result.exit_code == 0, result.output
            assert same(store.get(result.stdout.strip()).occurred_at, moment)

        for edge in EDGES:
            check(edge)
        given(TIMES)(FEW(check))()
        demote_all(store)


def test_cli_add_jsonl_refuses_or_keeps_every_time(target: str, tmp_path: Path) -> None:
    lines = tmp_path / "entries.jsonl"
    with open_store(target) as store:

        def check(moments: list[datetime]) -> None:
            lines.write_text(
                "".join(
                    json.dumps({"text": f"note {i}", "occurred_at": m.isoformat()}) + "\n"
                    for i, m in enumerate(moments)
                ),
                encoding="utf-8",
            )
            before = store.entry_page(limit=0).total
            result = invoke("add", "--db", target, "--agent", "a", "--jsonl", str(lines))
            bad = [i for i, m in enumerate(moments, start=1) if not in_range(m)]
            if bad:
                line = one_error_line(result)
                assert line.startswith(f"error: line {bad[0]}: ")
                assert REFUSED in line
                assert store.entry_page(limit=0).total == before  # all or none
                return
            assert result.exit_code == 0, result.output
            for entry_id, moment in zip(result.stdout.split(), moments, strict=True):
                assert same(store.get(entry_id).occurred_at, moment)

        check(EDGES)
        given(st.lists(TIMES, min_size=1, max_size=5))(FEW(check))()
        demote_all(store)


# -- a store that already holds such times ---------------------------------------------------


def _micros(moment: datetime) -> int:
    return (moment - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)


EARLY = datetime(1, 1, 1, tzinfo=_zone(14))  # 0000-12-31T10:00Z: before datetime in UTC
LATE = datetime(9999, 12, 31, 23, 59, tzinfo=_zone(-14))  # 10000-01-01T13:59Z: after it


def _store_unreadable_times(store: MemoryStore) -> tuple[list[str], list[str]]:
    """Three entries whose times were written before they were checked (raw SQL, as ``add``
    wrote them: ``last_used_at`` is the earlier of ``occurred_at`` and now), and two others."""
    ids = [
        store.add("a", f"Invoice INV-{i} of ${i}0 is due on 2026-04-0{i}.", now=NOW + i * SECOND)
        for i in range(1, 6)
    ]
    legacy, others = ids[:3], ids[3:]
    rows = [
        (_micros(EARLY), 840, _micros(EARLY), legacy[0]),
        (_micros(LATE), -840, _micros(NOW), legacy[1]),
        (2**62, 5000, -(2**62), legacy[2]),  # nothing a datetime holds, an offset of no zone
    ]
    for occurred, offset, used, entry_id in rows:
        raw(
            store,
            "UPDATE entries SET occurred_at = ?, occurred_offset = ?, last_used_at = ?"
            " WHERE id = ?",
            occurred,
            offset,
            used,
            entry_id,
        )
    return legacy, others


def test_a_store_holding_unreadable_times_still_works(store: MemoryStore) -> None:
    legacy, others = _store_unreadable_times(store)
    assert same(store.get(legacy[0]).occurred_at, EARLY)  # read back as given
    assert same(store.get(legacy[1]).occurred_at, LATE)
    assert store.get(legacy[2]).occurred_at == datetime.max.replace(tzinfo=UTC)
    assert [e.id for e in store.entries(with_content=False)] == legacy + others
    assert store.entry_page(limit=10).total == 5
    rendered = store.render_context(legacy + others)
    assert "occurred_at: 0001-01-01T00:00:00+14:00" in rendered.text
    Demoter(store, DemotionSettings(older_than=timedelta(0))).run(NOW + 60 * SECOND)
    assert all(store.get(i).tier is Tier.WARM for i in legacy + others)
    forgotten = store.forget(legacy, now=NOW)
    assert [f.tombstone.entry_id for f in forgotten] == legacy
    with pytest.raises(EntryErased):
        store.get(legacy[0])


def test_http_and_cli_on_a_store_holding_unreadable_times(target: str) -> None:
    with open_store(target) as store:
        legacy, others = _store_unreadable_times(store)
    keys = make_keys(target)
    with running_api(target) as base, client(base, keys.operator) as http:
        listed = http.get("/v1/entries")
        assert listed.status_code == 200, listed.text
        assert [e["id"] for e in listed.json()["entries"]] == legacy + others
        shown = http.get(f"/v1/entries/{legacy[0]}")
        assert shown.status_code == 200, shown.text
        assert shown.json()["entry"]["occurred_at"] == EARLY.isoformat()
    for args in (["list", "--json"], ["show", legacy[1], "--json"], ["context", *legacy]):
        result = invoke(*args, "--db", target)
        assert result.exit_code == 0, result.output
    shown_late = json.loads(invoke("show", legacy[1], "--db", target, "--json").stdout)
    assert shown_late["entry"]["occurred_at"] == LATE.isoformat()
    demoted = invoke("demote", "--db", target, "--older-than", "0s", "--json")
    assert demoted.exit_code == 0, demoted.output
    forgot = invoke("forget", *legacy, "--db", target, "--json")
    assert forgot.exit_code == 0, forgot.output


def test_a_worker_demotes_around_unreadable_times_and_goes_on(target: str) -> None:
    with open_store(target) as store:
        legacy, others = _store_unreadable_times(store)
    worker = Worker(
        target,
        WorkerSettings(concurrency=2, lease_seconds=5, poll_seconds=0.05),
        DemotionSettings(older_than=timedelta(0)),
    )
    runner = threading.Thread(target=worker.run)
    runner.start()
    try:
        with open_store(target) as store:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and not all(
                store.get(i).tier is Tier.WARM for i in legacy + others
            ):
                time.sleep(0.05)
            assert runner.is_alive()  # it did not exit on them
    finally:
        worker.stop()
        runner.join(30)
    assert worker.report.failure is None
    with open_store(target) as store:
        assert all(store.get(i).tier is Tier.WARM for i in legacy + others)
