"""``factdiff forget`` and ``factdiff correct`` as a user runs them (subprocesses): JSON
contracts, exit codes, one-line errors, and ``attest verify`` after an erasure."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.acceptance.test_cli import factdiff
from tests.acceptance.test_cli_retrieval import ok, one_line_error

NOTE = "Order ORD-7781 for Quillon Farms: 12 crates, total $930.00, deliver 2026-05-02.\n"
FIXED = "Order ORD-7781 for Quillon Farms: 12 crates, total $390.00, deliver 2026-05-02.\n"
STONE_KEYS = {
    "entry_id", "agent_id", "tier", "erased_at", "reason", "content_hash", "newly_erased",
    "redacted_events", "redacted_attempts",
}  # fmt: skip


def add(db: str, tmp_path: Path, agent: str, text: str) -> str:
    note = tmp_path / f"{agent}-{len(list(tmp_path.iterdir()))}.txt"
    note.write_text(text)
    out = ok(factdiff("add", "--db", db, "--agent", agent, str(note), "--json"))
    entry_id: str = json.loads(out)["id"]
    return entry_id


def as_json(text: str) -> Any:
    return json.loads(text)


def test_forget_ids_and_agents(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    first = add(db, tmp_path, "shop", NOTE)
    second = add(db, tmp_path, "shop", "Second note for Quillon Farms, crate count 14.\n")
    other = add(db, tmp_path, "ops", "Ops note: rotate the keys on Friday.\n")
    ok(factdiff("attest", "--db", db, "--decision", "d1", first, other))

    one_line_error(factdiff("forget", "--db", db, first, "nope"), 2, "no entry with id 'nope'")
    one_line_error(factdiff("forget", "--db", db), 2, "give entry ids or --agent A")

    done = as_json(ok(factdiff("forget", "--db", db, first, "--reason", "asked", "--json")))
    assert done["newly_erased"] == 1
    (stone,) = done["forgotten"]
    assert set(stone) == STONE_KEYS
    assert (stone["entry_id"], stone["reason"], stone["tier"]) == (first, "asked", "hot")
    again = as_json(ok(factdiff("forget", "--db", db, first, "--json")))
    assert again["newly_erased"] == 0
    assert again["forgotten"][0]["erased_at"] == stone["erased_at"]

    shown = as_json(ok(factdiff("show", "--db", db, first, "--json")))
    assert shown["tombstone"]["content_hash"] == stone["content_hash"]
    assert [e["type"] for e in shown["events"]] == ["erased"]
    assert "erased at" in ok(factdiff("show", "--db", db, first))

    verify = factdiff("attest", "--db", db, "verify", "d1", "--json")
    assert verify.returncode == 3, verify.stderr
    check = as_json(verify.stdout)
    assert check["status"] == "erased"
    assert [e["status"] for e in check["entries"]] == ["erased", "unchanged"]

    agent = as_json(ok(factdiff("forget", "--db", db, "--agent", "shop", "--vacuum", "--json")))
    assert [s["entry_id"] for s in agent["forgotten"]] == [second]
    assert agent["vacuumed"] is True
    one_line_error(factdiff("forget", "--db", db, "--agent", "nobody"), 2, "has no entries")
    assert ok(factdiff("verify", "--db", db))
    listed = as_json(ok(factdiff("list", "--db", db, "--json")))
    assert [e["id"] for e in listed["entries"]] == [other]


def test_correct_from_a_file_and_stdin(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    entry_id = add(db, tmp_path, "shop", NOTE)
    fixed = tmp_path / "fixed.txt"
    fixed.write_text(FIXED)
    done = as_json(
        ok(factdiff("correct", "--db", db, entry_id, str(fixed), "--reason", "typo", "--json"))
    )
    assert set(done) == {
        "id", "previous_content_hash", "content_hash", "size_bytes", "restored", "reason", "tier",
    }  # fmt: skip
    assert done["reason"] == "typo"
    shown = as_json(ok(factdiff("show", "--db", db, entry_id, "--json")))
    assert shown["entry"]["content"] == FIXED
    corrected = [e for e in shown["events"] if e["type"] == "corrected"]
    assert corrected[0]["payload"]["previous_content_hash"] == done["previous_content_hash"]
    out = ok(factdiff("correct", "--db", db, entry_id, "-", stdin=NOTE))
    assert out.startswith(f"corrected {entry_id}: ")
    one_line_error(
        factdiff("correct", "--db", db, entry_id, "-", stdin=NOTE), 2, "already holds exactly"
    )
    one_line_error(factdiff("correct", "--db", db, "nope", str(fixed)), 2, "no entry with id")
