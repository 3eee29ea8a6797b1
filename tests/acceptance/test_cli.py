"""The CLI as a user runs it: subprocesses, exit codes, one-line errors, JSON contracts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, WORKED

SCHEMA = str(ROOT / "schemas" / "customer_service.yaml")


def factdiff(
    *args: str, cwd: Path | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "120"}
    env.pop("FACTDIFF_DB", None)
    return subprocess.run(
        [sys.executable, "-m", "factdiff.cli", *args],
        capture_output=True,
        text=True,
        input=stdin,
        cwd=cwd,
        env=env,
        check=False,
        timeout=120,
    )


def worked_path(name: str) -> str:
    return str(WORKED / f"{name}.txt")


@pytest.mark.parametrize(
    ("summary", "code", "outcome"),
    [("fluent", 1, "failed"), ("faithful", 0, "clean"), ("changed", 1, "failed")],
)
def test_check_exit_codes_and_json_contract(summary: str, code: int, outcome: str) -> None:
    run = factdiff(
        "check", "--schema", SCHEMA, worked_path("source"), worked_path(summary), "--json"
    )
    assert run.returncode == code, run.stderr
    data = json.loads(run.stdout)
    assert data["outcome"] == outcome
    assert set(data["schema"]) == {"name", "version", "hash"}
    for key in ("missing", "changed", "added"):
        for item in data[key]:
            assert {"field", "criticality"} <= set(item)
            assert "source_value" in item or "summary_value" in item


def test_check_table_names_fields_and_outcome() -> None:
    run = factdiff("check", "--schema", SCHEMA, worked_path("source"), worked_path("fluent"))
    assert run.returncode == 1
    assert "invoice_total" in run.stdout
    assert "missing" in run.stdout
    assert "outcome: failed" in run.stdout


def test_check_acceptable_with_notes_exits_3(tmp_path: Path) -> None:
    source = tmp_path / "s.txt"
    summary = tmp_path / "m.txt"
    source.write_text("Order #W4923227 ships on 2026-03-25. Call us at 408-247-8880.")
    summary.write_text("Order #W4923227 ships on March 25, 2026.")
    run = factdiff("check", str(source), str(summary), "--json")
    assert run.returncode == 3, run.stdout
    assert json.loads(run.stdout)["outcome"] == "acceptable_with_notes"


def test_generic_schema_works_on_any_pair_and_stdin() -> None:
    run = factdiff(
        "check", "-", worked_path("faithful"), stdin=Path(worked_path("source")).read_text()
    )
    assert run.returncode in (0, 3), run.stderr
    assert "generic" in run.stdout


def test_extract_json_shape() -> None:
    run = factdiff("extract", "--schema", SCHEMA, worked_path("source"), "--json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert set(data) >= {"schema", "facts", "evidence", "inventory"}
    assert data["facts"]["invoice_id"] == "INV-9182"
    assert isinstance(data["facts"]["tool_calls"], list)
    assert data["evidence"]["invoice_id"]
    assert all(len(span) == 2 for span in data["evidence"]["invoice_id"])


def test_schema_validate_and_show() -> None:
    run = factdiff("schema", "validate", SCHEMA)
    assert run.returncode == 0
    assert "customer_service v2 sha256:" in run.stdout
    shown = factdiff("schema", "show", SCHEMA, "--json-schema")
    assert json.loads(shown.stdout)["additionalProperties"] is False


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (b"schema: x\nversion: 1\nversion: 2\n", "duplicate key"),
        (b"schema: x\nversion: 1\nfields:\n  a: {type: nope, criticality: critical}\n", ":4"),
        (
            b"schema: x\nversion: 1\nfields:\n"
            b"  a: {type: identifier, criticality: critical, pattern: '('}\n",
            "invalid regular expression",
        ),
    ],
)
def test_bad_schema_is_exit_2_with_one_line(tmp_path: Path, content: bytes, needle: str) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(content)
    for args in (
        ("schema", "validate", str(bad)),
        ("check", "--schema", str(bad), worked_path("source"), worked_path("fluent")),
    ):
        run = factdiff(*args)
        assert run.returncode == 2
        assert run.stderr.count("\n") == 1, run.stderr
        assert needle in run.stderr
        assert "Traceback" not in run.stderr


def test_unreadable_and_non_utf8_inputs_are_exit_2(tmp_path: Path) -> None:
    latin = tmp_path / "latin.txt"
    latin.write_bytes("caf\xe9 $40".encode("latin-1"))
    for path in (str(latin), str(tmp_path / "missing.txt")):
        run = factdiff("check", path, worked_path("fluent"))
        assert run.returncode == 2
        assert run.stderr.startswith("error: ")
        assert run.stderr.count("\n") == 1


def test_compress_json_contract() -> None:
    run = factdiff(
        "compress",
        worked_path("source"),
        "--schema",
        SCHEMA,
        "--ladder",
        "naive:40,extractive:0.35x",
        "--json",
    )
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["outcome"] == "clean"
    assert data["summary"]
    first, second = data["attempts"]
    assert first["outcome"] == "failed"
    assert first["summarizer"] == "naive"
    assert first["missing"]
    assert second["outcome"] == "clean"
    assert {"missing", "changed", "added"} <= set(second)


def test_store_workflow(tmp_path: Path) -> None:
    db = str(tmp_path / "memory.db")
    added = factdiff("--help")
    assert added.returncode == 0
    assert factdiff("migrate", "--db", db).returncode == 0
    run = factdiff(
        "add",
        "--db",
        db,
        "--agent",
        "support-bot",
        "--occurred-at",
        "2026-03-14T19:32Z",
        "--schema",
        "customer_service",
        worked_path("source"),
    )
    assert run.returncode == 0, run.stderr
    entry_id = run.stdout.strip()
    dry = factdiff("demote", "--db", db, "--now", "2026-05-01T00:00Z", "--dry-run", "--json")
    assert json.loads(dry.stdout)["due"][0]["id"] == entry_id
    demoted = factdiff(
        "demote",
        "--db",
        db,
        "--now",
        "2026-05-01T00:00Z",
        "--ladder",
        "naive:40,extractive",
        "--json",
    )
    assert json.loads(demoted.stdout)["counts"] == {"failed": 1}
    events = json.loads(
        factdiff("events", "--db", db, "--type", "compression_failure", "--json").stdout
    )["events"]
    assert events[0]["entry_id"] == entry_id
    assert events[0]["payload"]["diff"]["missing"]
    factdiff("demote", "--db", db, "--now", "2026-06-01T00:00Z", "--ladder", "naive:40,extractive")
    shown = json.loads(factdiff("show", entry_id, "--db", db, "--json").stdout)
    assert shown["entry"]["tier"] == "warm"
    assert [a["outcome"] for a in shown["attempts"]] == ["failed", "clean"]
    stats = json.loads(factdiff("stats", "--db", db, "--json").stdout)
    assert stats["tiers"]["warm"] == 1
    storage = stats["storage"]
    source_bytes = len(Path(worked_path("source")).read_bytes())
    assert storage["warm_source_bytes"] == source_bytes
    assert storage["hot_content"] == 0
    assert storage["warm_records"] > 0  # one entry: no dictionary trained yet
    assert storage["warm_ratio"] == round(
        (storage["warm_narratives"] + storage["warm_records"] + storage["warm_meta"])
        / source_bytes,
        4,
    )
    shown_stats = factdiff("stats", "--db", db).stdout
    assert f"the {source_bytes} source bytes they replaced" in shown_stats
    assert f"warm tier {storage['warm_ratio']:.2f}x" in shown_stats
    listing = json.loads(factdiff("list", "--db", db, "--tier", "warm", "--json").stdout)
    assert [e["id"] for e in listing["entries"]] == [entry_id]
    assert listing["total"] == 1
    assert listing["next_cursor"] is None
    assert factdiff("restore", entry_id, "--db", db).returncode == 0
    restored = json.loads(factdiff("show", entry_id, "--db", db, "--json").stdout)
    assert restored["entry"]["content"] == Path(worked_path("source")).read_text()
    assert factdiff("verify", "--db", db).returncode == 0
    missing = factdiff("show", "01ARZ3NDEKTSV4RRFFQ69G5FAV", "--db", db)
    assert missing.returncode == 2
    assert missing.stderr.startswith("error: ")


def test_demo_runs_offline(tmp_path: Path) -> None:
    run = factdiff("demo", "--db", str(tmp_path / "demo.db"), "--count", "30")
    assert run.returncode == 0, run.stderr
    assert "compression_failure" in run.stdout
    assert "Tiers now" in run.stdout
