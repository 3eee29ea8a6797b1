"""Stored and user-supplied text on screen: never Rich markup, never a terminal control.

Every command that prints stored or user-supplied text runs as a subprocess on a corpus of
markup (``[/INST]``, ``[red]``, ``[link=...]``, ``:smile:``) and escape sequences (CSI,
OSC 0 and OSC 8 hyperlinks with BEL and ST, C1 CSI/OSC, BEL, BS, CR, DEL, a bidi override).
The screen must show the markup literally and every control as a visible escape, exit 0
without a traceback, and the store must keep the text byte for byte.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from factdiff.store import AttemptOutcome, AttemptRecord, open_store
from tests.acceptance.test_cli import factdiff
from tests.processes import wait_for_sigterm_handler

MARKUP = "[/INST] [/ticket] [red]secret[/red] and [link=https://evil.example]click[/link] :smile:"
CONTROLS = (
    "\x1b[31mRED\x1b[0m \x1b]8;;https://evil.example\x07link\x1b]8;;\x07 "
    "\x1b]0;title\x1b\\ \x9b2J \x9d8;;x\x9c bell\x07 back\x08 cr\r del\x7f \u202eevil\u202c"
)
CORPUS = (
    f"Customer called about invoice INV-1234 for $250.00 due 2026-03-25. {MARKUP} {CONTROLS} "
    "The agent promised a callback on 2026-03-27 at 10:30 EST."
)
AGENT = "bot[/INST][red]x[/red]\x1b[31m\x9b\u202e"
INERT = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def assert_inert(
    run: subprocess.CompletedProcess[str], *literal: str, codes: tuple[int, ...] = (0,)
) -> None:
    """Exit 0 (or one of ``codes``), no traceback, no live control, the literal texts shown."""
    assert run.returncode in codes, (run.stdout[-2000:], run.stderr[-2000:])
    assert "Traceback" not in run.stderr
    for stream in (run.stdout, run.stderr):
        found = INERT.search(stream)
        assert found is None, f"live control {found.group()!r} in {stream[:2000]!r}"
    for text in literal:
        assert text in run.stdout, (text, run.stdout[:3000])


@pytest.fixture(scope="module")
def corpus_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("corpus")
    source = folder / "source.txt"
    source.write_text(CORPUS, encoding="utf-8")
    summary = folder / "summary.txt"
    summary.write_text(f"Invoice INV-1234 for $250.00. {MARKUP} {CONTROLS}", encoding="utf-8")
    schema = folder / "corpus_schema.yaml"
    schema.write_text(
        "schema: corpus\nversion: 1\n"
        'description: "Billing [red]calls[/red] \\x1b[31m \\x9b2J \\e]8;;https://evil.example\\a"\n'
        "fields:\n  invoice_id: {type: identifier, pattern: 'INV-\\d+', criticality: critical}\n"
        "  tags: {type: identifier, many: true, criticality: critical,"
        " pattern: '(\\[/?\\w+\\]|\\x1b\\S+)'}\n",
        encoding="utf-8",
    )
    return {"source": source, "summary": summary, "schema": schema}


@pytest.fixture(scope="module")
def corpus_store(tmp_path_factory: pytest.TempPathFactory, corpus_files: dict[str, Path]) -> str:
    """A store with a hot corpus entry, a warm one, one in review with a corpus note."""
    db = str(tmp_path_factory.mktemp("store") / "m.db")
    for _ in range(3):
        run = factdiff(
            "add", "--db", db, "--agent", AGENT, "--occurred-at", "2026-01-01T00:00Z",
            str(corpus_files["source"]),
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
    ids = [e["id"] for e in json.loads(factdiff("list", "--db", db, "--json").stdout)["entries"]]
    with open_store(db) as store:
        now = datetime(2026, 3, 1, tzinfo=UTC)
        attempt = AttemptRecord(
            rung=0,
            summarizer=f"openai:{MARKUP}{CONTROLS}",
            extractor="rules",
            method_version="x",
            outcome=AttemptOutcome.ERROR,
            started_at=now,
            finished_at=now,
            duration_ms=1.0,
            error=f"provider said {MARKUP} {CONTROLS}",
        )
        assert store.apply_failed(
            ids[2],
            expected_attempts=0,
            attempt=attempt,
            next_attempt_at=None,
            escalate=True,
            events=[],
            now=now,
        )
    demoted = factdiff(
        "demote", "--db", db, "--now", "2026-03-01T00:00Z", "--ladder", "extractive:1.0x"
    )
    assert demoted.returncode == 0, demoted.stderr
    return db


def entry_ids(db: str) -> list[str]:
    return [e["id"] for e in json.loads(factdiff("list", "--db", db, "--json").stdout)["entries"]]


def test_store_keeps_the_corpus_byte_for_byte(corpus_store: str) -> None:
    shown = json.loads(
        factdiff("show", entry_ids(corpus_store)[2], "--db", corpus_store, "--json").stdout
    )
    assert shown["entry"]["content"] == CORPUS
    assert shown["entry"]["agent_id"] == AGENT


def test_show_hot_and_warm(corpus_store: str) -> None:
    first, _, in_review = entry_ids(corpus_store)
    warm = factdiff("show", first, "--db", corpus_store)
    assert_inert(warm, "[/INST]", "[red]secret[/red]", "\\x1b[31mRED", "\\x9b2J", "\\u202e")
    assert "warm narrative" in warm.stdout
    hot = factdiff("show", in_review, "--db", corpus_store)
    assert_inert(hot, "hot source:", "[link=https://evil.example]click[/link]", ":smile:")
    assert_inert(hot, "\\x1b]8;;https://evil.example\\x07link", "cr\\r", "del\\x7f")
    assert_inert(hot, "[red]x[/red]\\x1b[31m")  # the agent, and the summarizer in history


def test_list_and_events(corpus_store: str) -> None:
    assert_inert(factdiff("list", "--db", corpus_store), "bot[/INST][red]x[/red]\\x1b[31m")
    factdiff(
        "review", "resolve", "--all", "--db", corpus_store, "--note", f"ok {MARKUP} {CONTROLS}"
    )
    events = factdiff("events", "--db", corpus_store)
    assert_inert(events, "review_resolved", "ok [/INST]", "\\x1b]0;title\\x1b\\ ")
    assert_inert(factdiff("events", "--db", corpus_store, "--agent", AGENT), "[red]x[/red]")


def test_stats(corpus_store: str) -> None:
    assert_inert(factdiff("stats", "--db", corpus_store), "openai:[/INST]", "\\x1b[31mRED")


def test_review_resolve_touch_restore_and_errors(corpus_store: str) -> None:
    first = entry_ids(corpus_store)[0]
    assert_inert(factdiff("touch", first, "--db", corpus_store), f"touched {first}")
    assert_inert(factdiff("restore", first, "--db", corpus_store), f"restored {first}")
    for args in (
        ("show", f"nope{CONTROLS}", "--db", corpus_store),
        ("touch", f"[red]x[/red]{CONTROLS}", "--db", corpus_store),
        ("review", "resolve", f"x{CONTROLS}", "--db", corpus_store),
    ):
        run = factdiff(*args)
        assert run.returncode == 2
        assert run.stderr.count("\n") == 1, run.stderr
        assert INERT.search(run.stderr) is None, run.stderr
        assert "\\x1b[31mRED" in run.stderr


def test_demote_dry_run_lists_the_agent(corpus_files: dict[str, Path], tmp_path: Path) -> None:
    db = str(tmp_path / "d.db")
    add = factdiff(
        "add", "--db", db, "--agent", AGENT, "--occurred-at", "2026-01-01T00:00Z",
        str(corpus_files["source"]),
    )  # fmt: skip
    assert add.returncode == 0, add.stderr
    dry = factdiff("demote", "--db", db, "--now", "2026-03-01T00:00Z", "--dry-run")
    assert_inert(dry, "bot[/INST][red]x[/red]\\x1b[31m\\x9b\\u202e")
    assert_inert(factdiff("demote", "--db", db, "--now", "2026-03-01T00:00Z"), "demoted")


def test_compress_check_extract(corpus_files: dict[str, Path]) -> None:
    source, summary = str(corpus_files["source"]), str(corpus_files["summary"])
    compress = factdiff("compress", source, "--ladder", "extractive:1.0x")
    assert_inert(compress, "[red]secret[/red]", "\\x1b[31mRED")
    check = factdiff("check", source, summary)
    assert_inert(check, "fact diff", "outcome:", codes=(0, 1, 3))
    extract = factdiff("extract", source, "--schema", str(corpus_files["schema"]))
    assert_inert(extract, "INV-1234", "[/INST]", "[red]", "\\x1b[31mRED\\x1b[0m")
    check = factdiff("check", source, summary, "--schema", str(corpus_files["schema"]))
    assert_inert(check, "[/ticket]", "\\x1b]8;;https://evil.example\\x07link", codes=(0, 1, 3))


def test_schema_show_register_assign(corpus_files: dict[str, Path], tmp_path: Path) -> None:
    schema = str(corpus_files["schema"])
    assert_inert(factdiff("schema", "show", schema), "Billing [red]calls[/red] \\x1b[31m")
    assert_inert(factdiff("schema", "validate", schema), "ok: corpus v1")
    db = str(tmp_path / "s.db")
    assert_inert(factdiff("schema", "register", schema, "--db", db), "registered: corpus v1")
    assign = factdiff("schema", "assign", AGENT, "corpus", "--tag", f"t{CONTROLS}", "--db", db)
    assert_inert(assign, "bot[/INST][red]x[/red]\\x1b[31m", "\\x1b]0;title")


def test_worker_id_on_screen(tmp_path: Path) -> None:
    db = tmp_path / "w.db"
    with open_store(db):
        pass
    proc = subprocess.Popen(
        [sys.executable, "-m", "factdiff.cli", "worker", "--db", str(db), "--poll", "50ms",
         "--worker-id", f"w[red]1[/red]{CONTROLS}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    wait_for_sigterm_handler(proc.pid)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    run = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    assert_inert(run, "worker w[red]1[/red]\\x1b[31mRED", "stopped")
