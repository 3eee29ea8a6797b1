"""Schema evolution from the command line: list, diff, NAME@VERSION, register's count,
reevaluate (dry run, run, rerun), report losses and the memory score in stats."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from factdiff.store import open_store
from tests.acceptance.test_cli import factdiff
from tests.integration.evolution_helpers import AGENT, NAME, call_text, seed, write_schemas


def run_json(*args: str) -> Any:
    run = factdiff(*args, "--json")
    assert run.returncode == 0, (args, run.stderr)
    return json.loads(run.stdout)


def test_schema_evolution_commands(tmp_path: Path) -> None:
    db = str(tmp_path / "memory.db")
    with open_store(db) as store:
        seed(store, tmp_path, count=20)
    _, v2 = write_schemas(tmp_path)

    registered = run_json("schema", "register", str(v2), "--db", db)
    assert registered["registered"] is True
    assert registered["due_for_reevaluation"] == 20

    listed = run_json("schema", "list", "--db", db)["schemas"]
    mine = [row for row in listed if row["name"] == NAME]
    assert [(r["version"], r["latest"], r["warm_entries"]) for r in mine] == [
        (1, False, 20),
        (2, True, 0),
    ]
    assert mine[1]["used_by"] == [{"agent": AGENT, "tag": None}]

    changes = run_json("schema", "diff", NAME, "1", "2", "--db", db)
    assert changes["material"] is True
    assert [(c["field"], c["change"], c["after"]) for c in changes["changes"]] == [
        ("call_time", "added", "critical"),
        ("contact_email", "added", "important"),
    ]

    source, summary = tmp_path / "source.txt", tmp_path / "summary.txt"
    source.write_text(call_text(4), encoding="utf-8")
    summary.write_text(re.sub(r" called at \S+", " called", call_text(4)), encoding="utf-8")
    kept = factdiff("check", str(source), str(summary), "--schema", f"{NAME}@1", "--db", db)
    assert kept.returncode == 0, kept.stdout
    failed = factdiff("check", str(source), str(summary), "--schema", NAME, "--db", db)
    assert failed.returncode == 1, failed.stderr
    assert "call_time" in failed.stdout
    shown = run_json("schema", "show", f"{NAME}@2", "--db", db)
    assert shown["version"] == 2
    facts = run_json("extract", str(source), "--schema", f"{NAME}@2", "--db", db)
    assert "call_time" in facts["facts"]
    unknown = factdiff("check", str(source), str(summary), "--schema", "travel", "--db", db)
    assert unknown.returncode == 2
    assert "none is registered in the store" in unknown.stderr

    dry = run_json("reevaluate", "--schema", NAME, "--dry-run", "--db", db)
    assert (dry["checked"], dry["promoted"], dry["annotated"], dry["clean"]) == (20, 5, 3, 12)
    first = run_json("reevaluate", "--schema", NAME, "--db", db)
    assert {k: first[k] for k in ("checked", "promoted", "annotated", "clean")} == {
        k: dry[k] for k in ("checked", "promoted", "annotated", "clean")
    }
    assert first["fields"]["call_time"]["promoted"] == 5
    again = run_json("reevaluate", "--schema", NAME, "--db", db)
    assert (again["enqueued"], again["checked"]) == (0, 0)
    text = factdiff("reevaluate", "--schema", NAME, "--db", db)
    assert "0 entries were checked" in text.stdout

    failures = run_json("events", "--db", db, "--type", "reevaluation_failed")
    assert len(failures["events"]) == 5

    losses = run_json("report", "losses", "--schema", NAME, "--db", db)
    [group] = losses["groups"]  # v1 let the call time go (contextual): it shows here
    assert (group["version"], group["summarizer"], group["attempts"]) == (1, "lossy", 20)
    lost = {f["field"]: f for f in group["fields"]}
    assert lost["inventory.time"]["missing"] == 5
    assert lost["inventory.time"]["rate"] == 0.25
    assert len(lost["inventory.time"]["examples"]) == 3
    assert run_json("report", "losses", "--agent", "nobody", "--db", db)["groups"] == []
    stats = run_json("stats", "--db", db)
    assert "failure_rate" in stats
    assert "facts_lost" in stats
    assert stats["reevaluation"] == [
        {
            "schema": NAME,
            "version": 2,
            "checked": 20,
            "promoted": 5,
            "annotated": 3,
            "clean": 12,
            "rate": 0.25,
        }
    ]
    [score] = stats["agents"]
    assert score["agent"] == AGENT
    assert score["reevaluation"]["rate"] == 0.25
    assert score["gap_share"] == round(3 / 15, 4)
    u = 1 - score["coverage"]["verified"] / score["coverage"]["sentences"]
    assert score["health"] == round(100 * (1 - 0.1) * (1 - 0.25) * (1 - u / 4), 1)
    one = factdiff("stats", "--agent", AGENT, "--db", db)
    assert "memory score per agent" in one.stdout
    assert factdiff("stats", "--agent", "nobody", "--db", db).returncode == 2

    demoted = run_json("demote", "--db", db, "--older-than", "1d", "--now", "2026-05-01T00:00Z")
    assert demoted["processed"] == 5
    losses = run_json("report", "losses", "--schema", NAME, "--since", "2026-04-15", "--db", db)
    assert [(g["version"], g["attempts"]) for g in losses["groups"]] == [(2, 5)]
    table = factdiff("report", "losses", "--db", db)
    assert "support_calls v1 / lossy: 20 attempts" in table.stdout


def test_items_leased_elsewhere_are_left_pending_and_said_so(tmp_path: Path) -> None:
    db = str(tmp_path / "memory.db")
    with open_store(db) as store:
        seed(store, tmp_path, count=4)
        _, v2 = write_schemas(tmp_path)
    assert run_json("schema", "register", str(v2), "--db", db)["due_for_reevaluation"] == 4
    with open_store(db) as store:
        assert len(store.claim_reevaluations("elsewhere", lease_seconds=600, limit=10)) == 4
    report = run_json("reevaluate", "--schema", NAME, "--db", db)
    assert (report["enqueued"], report["checked"], report["pending"]) == (0, 0, 4)
    text = factdiff("reevaluate", "--schema", NAME, "--db", db)
    assert "4 items are still pending" in text.stdout
    bad = factdiff("reevaluate", "--schema", NAME, "--to-version", "7", "--db", db)
    assert bad.returncode == 2
    assert "version 7 is not registered" in bad.stderr
