"""What the parsers cannot read is a one-line usage error (exit 2), never a traceback:
JSON and YAML nested thousands deep, integers of 100,000 digits, integer options beyond
what a store holds. Nothing is stored by a refused command."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from tests.acceptance.test_cli import factdiff
from tests.acceptance.test_cli_everyday import one_line_usage_error

DEEP = "[" * 5000 + "]" * 5000
HUGE = "9" * 100_000
TOO_BIG = "99999999999999999999"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("list", "--limit", TOO_BIG), "'--limit': 99999999999999999999 is not in the range"),
        (("events", "--limit", TOO_BIG), "'--limit': 99999999999999999999 is not in the range"),
        (("search", "x", "-k", TOO_BIG), "'-k': 99999999999999999999 is not in the range"),
        (("stats", "--window", TOO_BIG), "'--window'"),
        (("demote", "--limit", TOO_BIG), "'--limit'"),
        (("demote", "--concurrency", TOO_BIG), "'--concurrency'"),
        (("worker", "--extract-workers", TOO_BIG), "'--extract-workers'"),
        (("reevaluate", "--schema", "sales", "--to-version", TOO_BIG), "'--to-version'"),
        (("schema", "diff", "sales", "1", TOO_BIG), "'V2'"),
        (("review", "retry", "x", "--rung", TOO_BIG), "'--rung'"),
        (("search", "x", "--promote-after", TOO_BIG), "not a count of fetches"),
        (("search", "x", "--promote-after", "²"), "not a count of fetches"),
    ],
)
def test_integers_beyond_their_bound_are_usage_errors(
    args: tuple[str, ...], needle: str, tmp_path: Path
) -> None:
    db = tmp_path / "m.db"
    one_line_usage_error(factdiff(*args, "--db", str(db), cwd=tmp_path), needle)
    assert not db.exists()


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ('{"text": "a note", "metadata": {"deep": ' + DEEP + "}}", "arrays or objects nested"),
        ('{"text": "a note", "metadata": {"n": ' + HUGE + "}}", "a number has more than 4300"),
        ('{"text": "a note", "tags": [' + "1" * 4301 + "]}", "a number has more than 4300"),
    ],
    ids=["deep", "100000-digits", "4301-digits"],
)
def test_unreadable_jsonl_lines_are_usage_errors(line: str, needle: str, tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    lines = tmp_path / "entries.jsonl"
    lines.write_text('{"text": "a first note"}\n' + line + "\n")
    run = factdiff("add", "--agent", "a", "--db", str(db), "--jsonl", str(lines))
    one_line_usage_error(run, f"line 2: not JSON ({needle}")
    assert (
        not db.exists()
        or json.loads(factdiff("list", "--db", str(db), "--json").stdout)["entries"] == []
    )


def test_unreadable_metadata_is_a_usage_error(tmp_path: Path) -> None:
    run = factdiff(
        "add", "--agent", "a", "--db", str(tmp_path / "m.db"), "--metadata", DEEP, "-",
        stdin="a note",
    )  # fmt: skip
    one_line_usage_error(run, "--metadata is not JSON: arrays or objects nested too deeply")


def test_a_forged_cursor_nested_deep_is_a_usage_error(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    assert factdiff("add", "--agent", "a", "--db", db, "-", stdin="a note").returncode == 0
    cursor = base64.urlsafe_b64encode(DEEP.encode()).decode().rstrip("=")
    one_line_usage_error(factdiff("list", "--db", db, "--cursor", cursor), "is not a cursor")


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("schema: deep\nversion: 1\nfields: " + DEEP + "\n", "nesting deeper than 32 levels"),
        ("schema: deep\nversion: 1\nfields: {a: " + "{a: " * 5000 + "}" * 5001 + "\n", "deeper"),
        ("schema: big\nversion: " + TOO_BIG + "\nfields: {}\n", "less than or equal to"),
    ],
    ids=["deep-flow-sequence", "deep-flow-mapping", "huge-version"],
)
def test_schema_validate_refuses_what_it_cannot_read(
    text: str, needle: str, tmp_path: Path
) -> None:
    path = tmp_path / "schema.yaml"
    path.write_text(text)
    one_line_usage_error(factdiff("schema", "validate", str(path)), needle)


def test_a_settings_file_nested_deep_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "factdiff.toml").write_text("extractor = " + DEEP + "\n")
    run = factdiff("demote", "--db", str(tmp_path / "m.db"), "--dry-run", cwd=tmp_path)
    one_line_usage_error(run, "factdiff.toml: invalid TOML: arrays or objects nested too deeply")
