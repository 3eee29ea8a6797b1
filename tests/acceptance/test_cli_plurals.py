"""Counts read as English: "1 entry", "2 entries", in every CLI line that counts something."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.acceptance.test_cli import factdiff

NOW = "2026-03-01T00:00Z"
SOURCE = "Customer called about invoice INV-4455 for $250.00, due 2026-03-25."
V1 = (
    "schema: one_field\nversion: 1\nfields:\n"
    "  invoice_id: {type: identifier, criticality: critical, pattern: 'INV-\\d+'}\n"
)
V2 = V1.replace("version: 1", "version: 2") + "  due: {type: date, criticality: critical}\n"


def ok(*args: str, cwd: Path, codes: tuple[int, ...] = (0,)) -> str:
    run = factdiff(*args, "--db", "m.db", cwd=cwd)
    assert run.returncode in codes, (args, run.stdout, run.stderr)
    return run.stdout


def test_one_entry_is_one_entry(tmp_path: Path) -> None:
    (tmp_path / "note.txt").write_text(SOURCE, encoding="utf-8")
    ok("add", "--agent", "a", "--occurred-at", "2026-01-01T00:00Z", "note.txt", cwd=tmp_path)
    assert "1 of 1 entry (1-1)" in ok("list", cwd=tmp_path)
    assert "1 entry would be attempted" in ok("demote", "--now", NOW, "--dry-run", cwd=tmp_path)
    demoted = ok("demote", "--now", NOW, "--ladder", "naive:3", "--max-attempts", "1", cwd=tmp_path)
    assert re.search(r"demotion: 1 entry\b", demoted)
    assert "1 of 1 event" in ok("events", "--type", "escalated_to_review", cwd=tmp_path)
    escalated = json.loads(ok("events", "--type", "escalated_to_review", "--json", cwd=tmp_path))
    assert escalated["events"][0]["payload"]["detail"] == "1 of 1 attempt failed"
    assert re.search(r"generic v1 / naive: 1 attempt\b", ok("report", "losses", cwd=tmp_path))
    assert "1 entry back in demotion" in ok("review", "resolve", "--all", cwd=tmp_path)
    assert "1 entry indexed (rebuilt)" in ok("index", "--rebuild", cwd=tmp_path)
    (entry_id,) = [e["id"] for e in json.loads(ok("list", "--json", cwd=tmp_path))["entries"]]
    assert "attested decision d-1: 1 entry, context" in ok(
        "attest", "--decision", "d-1", entry_id, cwd=tmp_path
    )


def test_one_field_one_change_one_warm_entry(tmp_path: Path) -> None:
    (tmp_path / "v1.yaml").write_text(V1, encoding="utf-8")
    (tmp_path / "v2.yaml").write_text(V2, encoding="utf-8")
    (tmp_path / "note.txt").write_text(SOURCE, encoding="utf-8")
    assert "(1 field)" in factdiff("schema", "validate", str(tmp_path / "v1.yaml")).stdout
    ok("schema", "register", "v1.yaml", cwd=tmp_path)
    ok("add", "--agent", "a", "--schema", "one_field", "--occurred-at", "2026-01-01T00:00Z",
       "note.txt", cwd=tmp_path)  # fmt: skip
    ok("demote", "--now", NOW, "--ladder", "extractive:1.0x", cwd=tmp_path)
    registered = ok("schema", "register", "v2.yaml", cwd=tmp_path)
    assert "1 warm entry compressed under an older version is due" in registered
    assert "one_field v1 -> v2: 1 change" in ok(
        "schema", "diff", "one_field", "1", "2", cwd=tmp_path
    )
    reevaluated = ok("reevaluate", "--schema", "one_field", "--now", NOW, cwd=tmp_path)
    assert "one_field v2: 1 entry was checked" in reevaluated
