"""Everyday use of the CLI: refused options, JSON everywhere, paging, bulk loading, --db."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.acceptance.test_cli import factdiff, worked_path
from tests.conftest import ROOT

SOURCE = worked_path("source")


def one_line_usage_error(run: object, needle: str) -> None:
    assert run.returncode == 2, (run.stdout, run.stderr)  # type: ignore[attr-defined]
    stderr: str = run.stderr  # type: ignore[attr-defined]
    assert stderr.startswith("error: "), stderr
    assert stderr.count("\n") == 1, stderr
    assert needle in stderr, stderr


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("worker", "--heartbeat", "0s"), "--heartbeat: must be longer than zero"),
        (("worker", "--poll", "0s"), "--poll: must be longer than zero"),
        (("worker", "--lease", "0s"), "--lease: must be longer than zero"),
        (("worker", "--lease", "30ms"), "lease (0.03s) is too short for its heartbeat"),
        (("worker", "--lease", "1s", "--heartbeat", "2s"), "heartbeat (2s) must be shorter"),
        (("worker", "--max-attempts", "0"), "'--max-attempts': 0 is not in the range 1<=x<="),
        (("demote", "--max-attempts", "-3"), "'--max-attempts': -3 is not in the range 1<=x"),
        (("demote", "--limit", "-1"), "'--limit': -1 is not in the range 0<=x<="),
        (("list", "--limit", "-1"), "'--limit': -1 is not in the range 0<=x<="),
        (("events", "--limit", "-1"), "'--limit': -1 is not in the range 0<=x<="),
        (("demote", "--ladder", ""), "'--ladder': must not be empty"),
        (("compress", SOURCE, "--ladder", " "), "'--ladder': must not be empty"),
        (("demote", "--summarizer", ""), "'--summarizer': must not be empty"),
        (("add", "--agent", "a", "--occurred-at", "", SOURCE), "--occurred-at '' is not an ISO"),
        (("add", "--agent", "", SOURCE), "'--agent': must not be empty"),
        (("check", "-", "-"), "cannot both be standard input"),
        (("check", SOURCE, SOURCE, "--schema", ""), "'--schema': must not be empty"),
        (("worker", "--older-than", "2 fortnights"), "is not a duration like"),
        (("list", "--cursor", "bogus"), "--cursor 'bogus' is not a cursor"),
        (("nonsense",), "No such command 'nonsense'"),
        (("list", "--tier", "cold"), "'--tier'"),
        (("add",), "give the FILE to add"),
    ],
)
def test_bad_options_are_one_line_usage_errors(
    args: tuple[str, ...], needle: str, tmp_path: Path
) -> None:
    one_line_usage_error(factdiff(*args, cwd=tmp_path), needle)
    assert os.listdir(tmp_path) == []  # refused before any store was opened


@pytest.mark.parametrize("text", ["", "   \n\t  \n"])
def test_add_refuses_empty_entries(text: str, tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    empty = tmp_path / "empty.txt"
    empty.write_text(text)
    one_line_usage_error(
        factdiff("add", "--agent", "a", "--db", db, str(empty)),
        f"{empty}: the entry's text is empty or only whitespace",
    )
    one_line_usage_error(
        factdiff("add", "--agent", "a", "--db", db, "-", stdin=text),
        "<stdin>: the entry's text is empty or only whitespace",
    )
    assert not Path(db).exists()  # refused before the store was even opened


@pytest.mark.parametrize("name", ["../..", "/etc/passwd", "a b", "caf\u00e9"])
def test_add_refuses_malformed_schema_names(name: str, tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    note = tmp_path / "note.txt"
    note.write_text("Invoice INV-1 for $5.")
    rule = f"schema name {name!r} must be a letter or _ then letters, digits or _"
    one_line_usage_error(
        factdiff("add", "--agent", "a", "--schema", name, "--db", db, str(note)), rule
    )
    line = json.dumps({"text": "Invoice INV-1 for $5.", "agent": "a", "schema": name})
    one_line_usage_error(factdiff("add", "--jsonl", "-", "--db", db, stdin=line), f"line 1: {rule}")
    assert not Path(db).exists()  # refused before the store was even opened


def test_durations_accept_milliseconds(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    run = factdiff(
        "worker", "--db", str(db), "--lease", "900ms", "--poll", "20ms", "--grace", "0s",
        "--heartbeat", "300ms", "--help",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr


def test_every_command_speaks_json(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    migrated = json.loads(factdiff("migrate", "--db", db, "--json").stdout)
    assert migrated["applied"] >= 1
    assert migrated["location"] == db
    assert json.loads(factdiff("migrate", "--db", db, "--json").stdout)["applied"] == 0
    added = json.loads(
        factdiff(
            "add", "--db", db, "--agent", "bot", "--occurred-at", "2026-03-14T19:32Z",
            "--schema", "customer_service", SOURCE, "--json",
        ).stdout
    )  # fmt: skip
    entry_id = added["id"]
    touched = json.loads(factdiff("touch", entry_id, "--db", db, "--json").stdout)
    assert touched["id"] == entry_id
    assert touched["touched"] is True
    factdiff("demote", "--db", db, "--now", "2099-01-01T00:00Z", "--older-than", "0s")
    restored = json.loads(factdiff("restore", entry_id, "--db", db, "--json").stdout)
    assert restored == {
        "id": entry_id,
        "restored": True,
        "tier": "hot",
        "content_hash": restored["content_hash"],
        "size_bytes": restored["size_bytes"],
    }
    verify = json.loads(factdiff("verify", "--db", db, "--json").stdout)
    assert verify == {"ok": True, "problems": []}
    validate = json.loads(factdiff("schema", "validate", "customer_service", "--json").stdout)
    assert validate["ok"] is True
    assert validate["name"] == "customer_service"
    assert validate["hash"].startswith("sha256:")
    schema_file = str(ROOT / "schemas" / "sales.yaml")
    first = json.loads(factdiff("schema", "register", schema_file, "--db", db, "--json").stdout)
    again = json.loads(factdiff("schema", "register", "sales", "--db", db, "--json").stdout)
    assert first["registered"] is True
    assert again["registered"] is False
    assert first["hash"] == again["hash"]
    assigned = json.loads(
        factdiff("schema", "assign", "bot", "sales", "--tag", "deals", "--db", db, "--json").stdout
    )
    assert assigned == {"agent": "bot", "tag": "deals", "schema": "sales"}
    resolved = json.loads(factdiff("review", "resolve", entry_id, "--db", db, "--json").stdout)
    assert resolved == {"resolved": [], "count": 0}
    demo = factdiff("demo", "--db", str(tmp_path / "demo.db"), "--count", "5", "--json")
    assert demo.returncode == 0, demo.stderr
    assert json.loads(demo.stdout)["entries"] == 6


def test_listings_page_with_totals_and_cursors(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    lines = "\n".join(
        json.dumps({"text": f"Note {i}: invoice INV-{i:04d} for ${i}.00.", "agent": f"a{i % 2}"})
        for i in range(25)
    )
    ids = json.loads(factdiff("add", "--jsonl", "-", "--db", db, "--json", stdin=lines).stdout)[
        "ids"
    ]
    seen: list[str] = []
    cursor: str | None = None
    while True:
        args = ["list", "--db", db, "--agent", "a1", "--limit", "5", "--json"]
        page = json.loads(factdiff(*args, *(["--cursor", cursor] if cursor else [])).stdout)
        assert page["total"] == 12
        assert page["offset"] == len(seen)
        seen += [e["id"] for e in page["entries"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == ids[1::2]
    table = factdiff("list", "--db", db, "--limit", "10")
    assert "10 of 25 entries (1-10); next page: --cursor " in table.stdout
    wrong = factdiff("list", "--db", db, "--agent", "a0", "--cursor", cursor or page_cursor(db))
    one_line_usage_error(wrong, "is not a cursor of this `list` listing with these filters")
    events = json.loads(factdiff("events", "--db", db, "--limit", "0", "--json").stdout)
    assert events["events"] == []
    assert events["total"] == 0
    assert events["next_cursor"] is None


def page_cursor(db: str) -> str:
    page = json.loads(factdiff("list", "--db", db, "--limit", "1", "--json").stdout)
    return str(page["next_cursor"])


def test_list_status_review_and_bulk_resolve(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    lines = "\n".join(
        json.dumps({"text": worked_text(), "agent": f"bot{i % 2}", "occurred_at": "2026-01-01"})
        for i in range(4)
    )
    assert factdiff("add", "--jsonl", "-", "--db", db, stdin=lines).returncode == 0
    failed = factdiff(
        "demote", "--db", db, "--now", "2026-05-01T00:00Z", "--ladder", "naive:5",
        "--max-attempts", "1", "--json",
    )  # fmt: skip
    assert json.loads(failed.stdout)["counts"].get("escalated") == 4, failed.stdout
    review = json.loads(factdiff("list", "--db", db, "--status", "review", "--json").stdout)
    assert review["total"] == 4
    assert "review" in factdiff("list", "--db", db, "--status", "review").stdout
    one_line_usage_error(
        factdiff("review", "resolve", "--db", db, "--agent", "bot1"), "use them with --all"
    )
    one_line_usage_error(factdiff("review", "resolve", "--db", db), "give an ENTRY_ID or --all")
    none = factdiff(
        "review", "resolve", "--all", "--reason", "provider_unavailable", "--db", db, "--json"
    )
    assert json.loads(none.stdout) == {"resolved": [], "count": 0}
    bot1 = json.loads(
        factdiff("review", "resolve", "--all", "--agent", "bot1", "--db", db, "--json").stdout
    )
    assert bot1["count"] == 2
    escalations = json.loads(
        factdiff("events", "--db", db, "--type", "escalated_to_review", "--json").stdout
    )["events"]
    reason = escalations[-1]["payload"]["reason"]
    rest = factdiff(
        "review", "resolve", "--all", "--reason", reason, "--db", db, "--note", "model fixed"
    )
    assert "2 entries back in demotion" in rest.stdout
    assert (
        json.loads(factdiff("list", "--db", db, "--status", "review", "--json").stdout)["total"]
        == 0
    )
    notes = json.loads(
        factdiff("events", "--db", db, "--type", "review_resolved", "--json").stdout
    )["events"]
    assert sorted(e["payload"]["note"] for e in notes) == ["", "", "model fixed", "model fixed"]


def worked_text() -> str:
    return Path(SOURCE).read_text(encoding="utf-8")


def test_piped_output_is_never_cut_to_a_width(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    agent = "agent-with-a-rather-long-name-" + "x" * 150
    factdiff("add", "--db", db, "--agent", agent, SOURCE)
    listing = factdiff("list", "--db", db)
    assert agent in listing.stdout
    assert "…" not in listing.stdout
    row = next(line for line in listing.stdout.splitlines() if agent in line)
    assert len(row) > 200
    events = factdiff("events", "--db", db)
    assert "schema_registered" in events.stdout or "0 of" in events.stdout
    check = factdiff("check", "--schema", "customer_service", SOURCE, worked_path("faithful"))
    assert "…" not in check.stdout
    assert 'reason="disputed_line_item_3") -> {credit_memo_id: "CM-3392"' in check.stdout


def test_db_before_or_after_the_command(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    entry_id = factdiff("--db", db, "add", "--agent", "a", SOURCE).stdout.strip()
    assert json.loads(factdiff("--db", db, "show", entry_id, "--json").stdout)["entry"]["id"]
    assert factdiff("show", entry_id, "--db", db).returncode == 0
    assert factdiff("--db", db, "show", entry_id, "--db", db).returncode == 0
    one_line_usage_error(
        factdiff("--db", db, "show", entry_id, "--db", str(tmp_path / "other.db")), "--db is given"
    )
    env_wins_not = factdiff("--db", db, "list", "--json")
    assert json.loads(env_wins_not.stdout)["total"] == 1
    demo_db = tmp_path / "demo.db"
    demo = factdiff("--db", str(demo_db), "demo", "--count", "5")
    assert demo.returncode == 0, demo.stderr
    hint = demo.stdout.replace("\n", " ")
    assert f"factdiff --db {demo_db} events --type compression_failure" in " ".join(hint.split())
    events = factdiff("--db", str(demo_db), "events", "--type", "compression_failure", "--json")
    assert events.returncode == 0, events.stderr
    assert json.loads(events.stdout)["total"] >= 1


def test_builtin_schemas_by_name_from_any_directory(tmp_path: Path) -> None:
    (tmp_path / "sales").mkdir()  # a directory named like a schema does not shadow it
    for name in ("customer_service", "sales", "operations", "generic"):
        run = factdiff("schema", "validate", name, cwd=tmp_path)
        assert run.returncode == 0, run.stderr
        assert run.stdout.startswith(f"ok: {name} v"), run.stdout
    check = factdiff(
        "check", "--schema", "customer_service", SOURCE, worked_path("faithful"), cwd=tmp_path
    )
    assert check.returncode == 0, check.stdout
    one_line_usage_error(
        factdiff("schema", "show", "no_such_schema", cwd=tmp_path), "no built-in schema"
    )


def test_jsonl_bulk_load_is_all_or_nothing(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    good: list[dict[str, object]] = [
        {"text": "Invoice INV-1 for $5.00.", "agent": "a", "tags": ["billing"]},
        {"text": "Ticket T-9 opened.", "agent": "b", "occurred_at": "2026-02-01T10:00Z"},
        {"text": "Call with Marcus.", "schema": "customer_service", "metadata": {"k": 1}},
    ]
    for bad, needle in (
        ({"text": "   ", "agent": "a"}, "line 3: the entry's text is empty or only whitespace"),
        ({"agent": "a"}, 'line 3: "text" must be a string'),
        ({"text": "x", "agent": "a", "colour": "red"}, "line 3: unknown key 'colour'"),
        ({"text": "x", "agent": "a", "occurred_at": "yesterday"}, 'line 3: "occurred_at"'),
        ({"text": "x", "agent": "a", "tags": "billing"}, 'line 3: "tags" must be a list'),
        ({"text": "x", "agent": "a", "schema": "nope"}, "line 3: schema 'nope' is not registered"),
        ({"text": "x"}, 'line 3: no "agent"'),
        ({"text": "x\ud800", "agent": "a"}, "line 3: entry content has a lone surrogate"),
    ):
        lines = [json.dumps(good[0]), "", json.dumps(bad), json.dumps(good[1])]
        path = tmp_path / "bad.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        one_line_usage_error(factdiff("add", "--jsonl", str(path), "--db", db), needle)
    not_json = factdiff("add", "--jsonl", "-", "--db", db, stdin='{"text": "a", "agent": "b"}\n{')
    one_line_usage_error(not_json, "line 2: not JSON")
    assert (
        not Path(db).exists()
        or json.loads(factdiff("list", "--db", db, "--json").stdout)["total"] == 0
    )
    path = tmp_path / "good.jsonl"
    path.write_text("\n".join(json.dumps(g) for g in good) + "\n", encoding="utf-8")
    loaded = factdiff("add", "--jsonl", str(path), "--agent", "default", "--db", db, "--json")
    assert loaded.returncode == 0, loaded.stderr
    ids = json.loads(loaded.stdout)["ids"]
    assert ids == sorted(ids)
    listing = json.loads(factdiff("list", "--db", db, "--json").stdout)["entries"]
    assert [e["id"] for e in listing] == ids
    assert [e["agent_id"] for e in listing] == ["a", "b", "default"]
    assert listing[0]["tags"] == ["billing"]
    assert listing[1]["occurred_at"] == "2026-02-01T10:00:00+00:00"
    assert listing[2]["schema"] == "customer_service"
    assert listing[2]["metadata"] == {"k": 1}
    shown = json.loads(factdiff("show", ids[0], "--db", db, "--json").stdout)
    assert shown["entry"]["content"] == good[0]["text"]
    plain = factdiff("add", "--jsonl", str(path), "--agent", "default", "--db", db)
    assert len(plain.stdout.split()) == 3


def test_read_commands_do_not_create_a_store(tmp_path: Path) -> None:
    db = tmp_path / "missing.db"
    for command in ("list", "stats", "verify", "events"):
        one_line_usage_error_or_runtime(factdiff(command, "--db", str(db)), "no store at")
    assert not db.exists()
    assert os.listdir(tmp_path) == []


def one_line_usage_error_or_runtime(run: object, needle: str) -> None:
    assert run.returncode in (1, 2)  # type: ignore[attr-defined]
    assert run.stderr.count("\n") == 1  # type: ignore[attr-defined]
    assert needle in run.stderr  # type: ignore[attr-defined]
