"""Retrieval from the command line: search, show, context, attest and verify as a user runs
them (subprocesses), with their JSON contracts, exit codes and one-line errors."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from factdiff.store import codec
from tests.acceptance.test_cli import factdiff, worked_path
from tests.acceptance.test_determinism import ENVIRONMENTS, run_in

ORDER = (
    "Order #W2378156 for user mia_garcia_4516 was refunded $54.04 on 2026-02-10. "
    "The courier arrives at 14:30 with the parcel.\n"
)
ORDER_SUMMARY = "Order #W2378156 for user mia_garcia_4516 was refunded $54.04 on 2026-02-10."
HIT_KEYS = {
    "entry_id", "agent", "tier", "score", "matched", "text", "facts", "known_gaps", "gap_hit",
    "schema", "occurred_at", "source", "verified_share", "unverified",
}  # fmt: skip


def ok(run: object) -> str:
    assert run.returncode == 0, (run.stdout, run.stderr)  # type: ignore[attr-defined]
    return str(run.stdout)  # type: ignore[attr-defined]


def one_line_error(run: object, code: int, needle: str) -> None:
    assert run.returncode == code, (run.stdout, run.stderr)  # type: ignore[attr-defined]
    stderr: str = run.stderr  # type: ignore[attr-defined]
    assert stderr.startswith("error: "), stderr
    assert stderr.count("\n") == 1, stderr
    assert needle in stderr, stderr


@pytest.fixture
def store(tmp_path: Path) -> tuple[str, str, str]:
    """A store with the worked example (hot) and an order demoted with a lost time."""
    db = str(tmp_path / "m.db")
    invoice = json.loads(
        ok(
            factdiff(
                "add", "--db", db, "--agent", "bot", "--schema", "customer_service",
                "--occurred-at", "2026-03-14T19:32Z", worked_path("source"), "--json",
            )
        )
    )["id"]  # fmt: skip
    order_file = tmp_path / "order.txt"
    order_file.write_text(ORDER)
    order = json.loads(
        ok(factdiff("add", "--db", db, "--agent", "shop", str(order_file), "--json"))
    )["id"]
    # Demote the order with a 12-word naive summary: it keeps the first sentence and drops
    # the courier's time (important), so the entry goes warm with a known gap.
    ok(
        factdiff(
            "demote", "--db", db, "--now", "2099-01-01T00:00Z", "--older-than", "0s",
            "--ladder", "naive:12", "--agent", "shop",
        )
    )  # fmt: skip
    shown = json.loads(ok(factdiff("show", order, "--db", db, "--json")))
    assert shown["entry"]["tier"] == "warm"
    assert shown["entry"]["warm"]["meta"]["lost_important_fields"] == ["inventory.time"]
    return db, invoice, order


def test_search_json_contract(store: tuple[str, str, str]) -> None:
    db, invoice, _ = store
    data = json.loads(ok(factdiff("search", "fourteen thousand two hundred fifty dollars",
                                  "--db", db, "--json", "--read-only")))  # fmt: skip
    assert data["query"] == "fourteen thousand two hundred fifty dollars"
    first = data["hits"][0]
    assert set(first) == HIT_KEYS
    assert first["entry_id"] == invoice
    assert {"kind": "fact", "field": "invoice_total", "value": "14250 USD", "where": "text"} in (
        first["matched"]
    )
    assert first["schema"]["name"] == "customer_service"
    assert first["facts"]["invoice_id"][0]["value"] == "INV-9182"


def test_search_finds_a_lost_field_with_its_gap_and_source(store: tuple[str, str, str]) -> None:
    db, _, order = store
    data = json.loads(
        ok(factdiff("search", "what time does the courier for #W2378156 arrive?", "--db", db,
                    "--json", "-k", "1"))
    )  # fmt: skip
    (hit,) = data["hits"]
    assert hit["entry_id"] == order
    assert hit["tier"] == "warm"
    assert [g["field"] for g in hit["gap_hit"]] == ["inventory.time"]
    assert hit["source"] == ORDER
    human = ok(factdiff("search", "what time does the courier for #W2378156 arrive?", "--db", db))
    assert "narrative:" in human
    assert "known gap: inventory.time (important)  <- the query asks about it" in human
    assert "archived source (hash-checked):" in human
    assert "matched fact inventory.identifier: #W2378156" in human


def test_search_options_and_errors(store: tuple[str, str, str], tmp_path: Path) -> None:
    db, invoice, _ = store
    hot = json.loads(ok(factdiff("search", "#W2378156 INV-9182", "--db", db, "--tier", "hot",
                                 "--json")))  # fmt: skip
    assert [h["entry_id"] for h in hot["hits"]] == [invoice]
    never = json.loads(
        ok(factdiff("search", "courier", "--db", db, "--include-source", "never", "--json"))
    )
    assert all(h["source"] is None for h in never["hits"])
    assert json.loads(ok(factdiff("search", "zebra", "--db", db, "--json")))["hits"] == []
    assert "no entry matches 'zebra'" in ok(factdiff("search", "zebra", "--db", db))
    one_line_error(factdiff("search", " ", "--db", db), 2, "'QUERY': must not be empty")
    one_line_error(factdiff("search", "x", "--db", db, "-k", "0"), 2, "0 is not in the range")
    one_line_error(
        factdiff("search", "x", "--db", db, "--promote-after", "often"), 2, "is not a count"
    )
    one_line_error(factdiff("search", "x", "--db", str(tmp_path / "none.db")), 1, "no store at")


def test_promote_after_from_the_command_line(store: tuple[str, str, str]) -> None:
    db, _, order = store
    for _ in range(2):
        ok(factdiff("search", "courier", "--db", db, "--promote-after", "1", "--json"))
    shown = json.loads(ok(factdiff("show", order, "--db", db, "--json")))
    assert shown["entry"]["tier"] == "hot"
    assert "promoted" in [e["type"] for e in shown["events"]]
    promoted = json.loads(ok(factdiff("events", "--type", "promoted", "--db", db, "--json")))
    assert promoted["events"][0]["payload"]["fetches"] == 2


def test_show_prints_a_warm_entrys_fact_record(store: tuple[str, str, str]) -> None:
    db, _, order = store
    out = ok(factdiff("show", order, "--db", db))
    assert "tier=warm" in out
    assert "fact record (of the source)" in out
    assert "inventory.identifier" in out
    assert "#W2378156" in out
    assert "14:30" in out  # the lost time is in the record, and listed as a known gap
    assert "known gaps: inventory.time (important, time)" in out


def test_context_attest_and_verify(store: tuple[str, str, str], tmp_path: Path) -> None:
    db, invoice, order = store
    rendered = json.loads(ok(factdiff("context", invoice, order, "--db", db, "--json")))
    assert rendered["hash"].startswith("sha256:")
    assert [e["entry_id"] for e in rendered["entries"]] == [invoice, order]
    text = ok(factdiff("context", invoice, order, "--db", db))
    assert text.endswith(f"hash: {rendered['hash']}\n")
    assert text.startswith(f"## entry {invoice} (agent bot, tier hot)\n")
    assert f"## entry {order} (agent shop, tier warm)\n" in text

    attested = json.loads(
        ok(factdiff("attest", "--decision", "refund-42", invoice, order, "--db", db, "--json"))
    )
    assert attested["rendered_hash"] == rendered["hash"]
    assert [e["tier"] for e in attested["entries"]] == ["hot", "warm"]
    checked = json.loads(ok(factdiff("attest", "verify", "refund-42", "--db", db, "--json")))
    assert checked["ok"] is True
    assert "the context matches" in ok(factdiff("attest", "verify", "refund-42", "--db", db))

    ok(factdiff("demote", "--db", db, "--now", "2099-02-01T00:00Z", "--older-than", "0s"))
    changed = factdiff("attest", "verify", "refund-42", "--db", db)
    assert changed.returncode == 1
    assert f"{invoice}: changed; tier hot -> warm; rendered text changed; cold archive " in (
        changed.stdout
    )
    assert json.loads(ok(factdiff("verify", "--db", db, "--json"))) == {"ok": True, "problems": []}

    conn = sqlite3.connect(db)
    with conn:
        # an edit behind the store's back, framed as the store frames a narrative
        edited = codec.zstd_compress(b"Nothing happened.")
        conn.execute("UPDATE warm_entries SET narrative = ?", (edited,))
    conn.close()
    broken = factdiff("verify", "--db", db, "--json")
    assert broken.returncode == 1
    problems = json.loads(broken.stdout)["problems"]
    assert f"entry {invoice}: warm narrative does not match its hash (edited)" in problems
    assert f"entry {order}: warm narrative does not match its hash (edited)" in problems

    one_line_error(factdiff("attest", invoice, "--db", db), 2, "give the decision")
    one_line_error(factdiff("attest", "verify", "--db", db), 2, "give one decision id")
    one_line_error(factdiff("attest", "verify", "nope", "--db", db), 2, "no attestation")
    one_line_error(
        factdiff("attest", "--decision", "refund-42", invoice, order, "--db", db),
        2,
        "already attested",
    )
    # decision ids are per agent: refund-42 of bot's entry alone is bot's own decision
    mine = json.loads(
        ok(factdiff("attest", "--decision", "refund-42", invoice, "--db", db, "--json"))
    )
    assert mine["agent"] == "bot"
    one_line_error(factdiff("attest", "verify", "refund-42", "--db", db), 2, "name the agent")
    bots = factdiff("attest", "verify", "refund-42", "--agent", "bot", "--db", db, "--json")
    assert json.loads(ok(bots))["agent"] == "bot"
    one_line_error(
        factdiff("attest", "--decision", "refund-42", invoice, "--db", db), 2, "already attested"
    )
    one_line_error(factdiff("context", "01NOPE", "--db", db), 2, "no entry with id")


def test_rendered_context_is_byte_identical_across_time_zones_and_locales(
    store: tuple[str, str, str],
) -> None:
    db, invoice, order = store
    outputs = {run_in(env, "context", invoice, order, "--db", db, "--json") for env in ENVIRONMENTS}
    assert len(outputs) == 1
    searched = {
        run_in(env, "search", "INV-9182 courier", "--db", db, "--json", "--read-only")
        for env in ENVIRONMENTS
    }
    assert len(searched) == 1


def test_bulk_add_with_deferred_facts_then_index(tmp_path: Path) -> None:
    db = str(tmp_path / "bulk.db")
    lines = "\n".join(
        json.dumps({"text": f"Order #W{1000000 + i} refunded ${i}.25", "agent": "shop"})
        for i in range(30)
    )
    added = json.loads(ok(factdiff("add", "--jsonl", "-", "--defer-index", "--db", db, "--json",
                                   stdin=lines)))  # fmt: skip
    assert added["count"] == 30
    query = ("search", "USD 7.25", "--db", db, "--json")
    before = json.loads(ok(factdiff(*query, "--read-only")))["hits"]  # words only, so far
    assert not [m for h in before for m in h["matched"] if m["kind"] == "fact"]
    assert json.loads(ok(factdiff("index", "--db", db, "--json"))) == {
        "indexed": 30,
        "rebuilt": False,
    }
    hit = json.loads(ok(factdiff(*query, "--read-only")))["hits"][0]
    assert hit["entry_id"] == added["ids"][7]
    assert {"kind": "fact", "field": "inventory.money", "value": "7.25 USD", "where": "text"} in (
        hit["matched"]
    )
    assert "30 entries indexed (rebuilt)" in ok(factdiff("index", "--rebuild", "--db", db))
    one_line_error(factdiff("add", "--agent", "a", "--defer-index", "x.txt", "--db", db), 2,
                   "--defer-index goes with --jsonl")  # fmt: skip
