"""Piped output is never wrapped or cut: every command that prints tables, panels or long
lines runs as a subprocess with stdout piped (and ``COLUMNS`` set narrow, which a pipe must
ignore), on data whose values are longer than any terminal, and each value must come out
whole on one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

LONG_FIELD = "reimbursement_authorization_reference_for_the_disputed_invoice_line_item"
NEW_FIELD = "statement_correction_reference_promised_by_the_enterprise_account_manager"
LONG_AGENT = (
    "emea-enterprise-accounts-customer-support-assistant-with-a-name-longer-than-a-terminal"
)
SCHEMA = "enterprise_reimbursements_for_the_emea_accounts_team_with_a_long_name"
REFERENCE = "REF-" + "1234567890" * 8
SENTENCE = (
    "the account manager confirmed the reimbursement and promised to send the corrected "
    "statement before the end of the quarter together with the signed approval form"
)
SOURCE = f"Customer called about invoice INV-4455 and reimbursement {REFERENCE}: {SENTENCE}."
SUMMARY = "Customer called about invoice INV-4455."
NOW = "2026-03-01T00:00Z"


def piped(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The CLI with stdout piped and a narrow ``COLUMNS`` (a pipe must not wrap to it)."""
    env = {**os.environ, "COLUMNS": "50"}
    env.pop("FACTDIFF_DB", None)
    return subprocess.run(
        [sys.executable, "-m", "factdiff.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        check=False,
        timeout=300,
    )


def assert_whole(
    run: subprocess.CompletedProcess[str], *values: str, codes: tuple[int, ...] = (0,)
) -> None:
    """Exit as expected, and every value on one line of stdout (not wrapped, folded or cut)."""
    assert run.returncode in codes, (run.returncode, run.stdout[-3000:], run.stderr[-3000:])
    lines = run.stdout.splitlines()
    for value in values:
        assert any(value in line for line in lines), (value, run.stdout[:6000])


def _schema(version: int, *fields: tuple[str, str]) -> str:
    specs = "".join(
        f"  {name}: {{type: identifier, pattern: '{pattern}', criticality: critical}}\n"
        for name, pattern in fields
    )
    return f"schema: {SCHEMA}\nversion: {version}\nfields:\n{specs}"


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Files and a store: one entry of the long agent warm, one in review (its long field
    lost), the long schema in two versions, an agent key with a long name."""
    here = tmp_path_factory.mktemp("piped")
    (here / "source.txt").write_text(SOURCE, encoding="utf-8")
    (here / "summary.txt").write_text(SUMMARY, encoding="utf-8")
    first = ((LONG_FIELD, r"REF-\d+"), ("invoice_id", r"INV-\d+"))
    (here / "v1.yaml").write_text(_schema(1, *first), encoding="utf-8")
    (here / "v2.yaml").write_text(_schema(2, *first, (NEW_FIELD, r"INV-\d+")), encoding="utf-8")
    steps = [
        ("schema", "register", "v1.yaml"),
        ("add", "--agent", LONG_AGENT, "--schema", SCHEMA, "--occurred-at", "2026-01-01T00:00Z",
         "source.txt"),
        ("add", "--agent", LONG_AGENT, "--schema", SCHEMA, "--occurred-at", "2026-01-01T00:00Z",
         "source.txt"),
        ("demote", "--now", NOW, "--ladder", "naive:5", "--max-attempts", "1", "--limit", "1"),
        ("demote", "--now", NOW, "--ladder", "extractive:1.0x"),
        ("keys", "create", "--agent", LONG_AGENT, "--name", f"key-of-{LONG_AGENT}"),
    ]  # fmt: skip
    for step in steps:
        run = piped(*step, "--db", "m.db", cwd=here)
        assert run.returncode == 0, (step, run.stderr)
    return here


def _ids(folder: Path) -> dict[str, str]:
    listed = json.loads(piped("list", "--db", "m.db", "--json", cwd=folder).stdout)["entries"]
    return {e["tier"]: e["id"] for e in listed}


def test_check_extract_compress_and_schema_show(folder: Path) -> None:
    check = piped("check", "--schema", "v1.yaml", "source.txt", "summary.txt", cwd=folder)
    assert_whole(check, LONG_FIELD, REFERENCE, f"fact diff: {SCHEMA} v1", codes=(1,))
    assert_whole(piped("extract", "--schema", "v1.yaml", "source.txt", cwd=folder), LONG_FIELD)
    compress = piped(
        "compress", "source.txt", "--schema", "v1.yaml", "--ladder", "naive:5", cwd=folder
    )
    assert_whole(compress, LONG_FIELD, REFERENCE, codes=(1,))
    assert_whole(piped("schema", "show", "v1.yaml", cwd=folder), LONG_FIELD, SCHEMA)


def test_store_listings(folder: Path) -> None:
    ids = _ids(folder)
    db = ("--db", "m.db")
    assert_whole(piped("list", *db, cwd=folder), LONG_AGENT)
    assert_whole(piped("events", *db, cwd=folder), LONG_AGENT, f"missing: {LONG_FIELD}")
    assert_whole(piped("stats", *db, cwd=folder), LONG_FIELD, LONG_AGENT)
    assert_whole(piped("show", ids["warm"], *db, cwd=folder), LONG_FIELD, REFERENCE, LONG_AGENT)
    assert_whole(piped("show", ids["hot"], *db, cwd=folder), SENTENCE, LONG_FIELD)
    losses = piped("report", "losses", *db, cwd=folder)
    assert_whole(losses, LONG_FIELD, f"{SCHEMA} v1 / extractive", f"{SCHEMA} v1 / naive")
    assert_whole(piped("keys", "list", *db, cwd=folder), f"key-of-{LONG_AGENT}")
    assert_whole(piped("schema", "list", *db, cwd=folder), SCHEMA)
    assert_whole(piped("context", ids["hot"], *db, cwd=folder), SENTENCE)


def test_search(folder: Path) -> None:
    run = piped("search", REFERENCE, "--db", "m.db", "--read-only", cwd=folder)
    assert_whole(run, LONG_AGENT, SENTENCE, REFERENCE)


def test_schema_evolution(folder: Path) -> None:
    assert_whole(piped("schema", "register", "v2.yaml", "--db", "m.db", cwd=folder), SCHEMA)
    assert_whole(piped("schema", "diff", SCHEMA, "1", "2", "--db", "m.db", cwd=folder), NEW_FIELD)
    reevaluated = piped("reevaluate", "--schema", SCHEMA, "--now", NOW, "--db", "m.db", cwd=folder)
    assert_whole(reevaluated, SCHEMA)


def test_demo(tmp_path: Path) -> None:
    run = piped("demo", "--count", "5", "--db", "demo.db", cwd=tmp_path)
    assert_whole(
        run,
        "factdiff compresses old agent memories and verifies every summary with a fact diff: "
        "facts are extracted from the source and from the summary, compared field by field",
        "credit_memo_deadline",
        "payment_commitment",
    )
