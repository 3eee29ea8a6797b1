"""``factdiff review approve|edit|keep-hot|retry`` and ``keys`` as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from factdiff.store import EntryStatus, EventType, Tier, open_store
from tests.conftest import WORKED
from tests.review_helpers import in_review


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "factdiff.cli", *args], check=False, capture_output=True, text=True
    )


def test_review_decisions_from_the_cli(tmp_path: Path) -> None:
    db = str(tmp_path / "memory.db")
    approved, edited, kept, retried = in_review(db, 4)
    done = _cli("review", "approve", approved, "--reason", "loss known", "--json", "--db", db)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["tier"] == "warm"
    fluent = _cli("review", "edit", edited, str(WORKED / "fluent.txt"), "--db", db)
    assert fluent.returncode == 1
    assert fluent.stderr.startswith("error: ")
    assert fluent.stderr.count("\n") == 1
    faithful = _cli("review", "edit", edited, str(WORKED / "faithful.txt"), "--db", db)
    assert faithful.returncode == 0, faithful.stderr
    held = _cli("review", "keep-hot", kept, "--reason", "legal hold", "--db", db)
    assert held.returncode == 0, held.stderr
    again = _cli("review", "retry", retried, "--rung", "0", "--json", "--db", db)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["outcome"] == "clean"
    with open_store(db) as store:
        assert store.get(approved).tier is Tier.WARM
        assert next(store.events(approved, type=EventType.REVIEW_APPROVED)).payload["key"]
        assert store.get(edited).tier is Tier.WARM
        assert store.get(kept).status is EntryStatus.REVIEW
        assert store.get(retried).tier is Tier.WARM
        assert store.verify() == []
