"""``factdiff export``, ``import`` and ``copy`` as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.acceptance.test_cli import factdiff


def test_export_import_and_copy_as_commands(tmp_path: Path) -> None:
    store = tmp_path / "demo.db"
    assert factdiff("demo", "--db", str(store), "--count", "20", "--json").returncode == 0
    out = tmp_path / "memory.jsonl"
    exported = factdiff("export", "--db", str(store), "--out", str(out))
    assert exported.returncode == 0, exported.stderr
    assert exported.stderr.startswith("exported ")
    assert "21 entries" in exported.stderr
    to_stdout = factdiff("export", "--db", str(store))
    assert to_stdout.stdout == out.read_text(encoding="utf-8")
    header = json.loads(to_stdout.stdout.splitlines()[0])
    assert header["format"] == "factdiff-export"
    assert header["counts"]["entry"] == 21

    moved = tmp_path / "moved.db"
    imported = factdiff("import", str(out), "--db", str(moved), "--json")
    assert imported.returncode == 0, imported.stderr
    assert json.loads(imported.stdout)["counts"] == header["counts"]
    assert factdiff("verify", "--db", str(moved)).returncode == 0
    again = factdiff("import", str(out), "--db", str(moved))
    assert again.returncode == 2
    assert again.stderr.count("\n") == 1
    assert "is not empty" in again.stderr

    copied = factdiff("copy", "--from", str(store), "--to", str(tmp_path / "copy.db"))
    assert copied.returncode == 0, copied.stderr
    assert "21 entries" in copied.stdout
    re_exported = factdiff("export", "--db", str(tmp_path / "copy.db"))
    assert re_exported.stdout == to_stdout.stdout

    broken = tmp_path / "broken.jsonl"
    broken.write_text(out.read_text(encoding="utf-8")[:-40], encoding="utf-8")
    refused = factdiff("import", str(broken), "--db", str(tmp_path / "empty.db"))
    assert refused.returncode == 2
    assert refused.stderr == "error: line " + refused.stderr.split("line ", 1)[1]
    assert "truncated" in refused.stderr
