"""Say what 'clean' did not check, from the command line: a source with a sentence no schema
field covers, summarised without it, goes warm as clean, and search, context, show and stats
say that sentence was not checked and was dropped."""

from __future__ import annotations

import json
from pathlib import Path

from tests.acceptance.test_cli import factdiff
from tests.acceptance.test_cli_retrieval import ok

UPSET = "The customer sounded upset about the delay."
SOURCE = f"Refund of $54.04 for order W2378156 was approved on 2026-02-10. {UPSET}\n"


def test_a_clean_summary_that_dropped_an_unverified_sentence_says_so(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    source = tmp_path / "refund.txt"
    source.write_text(SOURCE)
    entry = json.loads(ok(factdiff("add", "--db", db, "--agent", "shop", str(source), "--json")))
    # a 10-word naive summary keeps the first sentence, every fact in it, and nothing else
    ok(
        factdiff(
            "demote", "--db", db, "--now", "2099-01-01T00:00Z", "--older-than", "0s",
            "--ladder", "naive:10", "--agent", "shop",
        )
    )  # fmt: skip
    shown = json.loads(ok(factdiff("show", entry["id"], "--db", db, "--json")))
    warm = shown["entry"]["warm"]
    assert shown["entry"]["tier"] == "warm"
    assert warm["meta"]["outcome"] == "clean"
    assert UPSET not in warm["narrative"]
    assert UPSET not in json.dumps(warm["meta"])  # kept as a span into the source, not text

    found = json.loads(ok(factdiff("search", "order W2378156", "--db", db, "--json")))
    (hit,) = found["hits"]
    assert hit["unverified"] == [UPSET]
    assert 0 < hit["verified_share"] < 1
    plain = ok(factdiff("search", "order W2378156", "--db", db))
    assert f"  verified: {hit['verified_share']:.0%} of the source's sentences\n" in plain
    assert f'  not checked, dropped: "{UPSET}"\n' in plain

    context = ok(factdiff("context", entry["id"], "--db", db))
    assert "; 1 sentence not covered by the schema was dropped\n" in context
    assert f'\n- "{UPSET}"\n' in context
    check = next(line for line in context.splitlines() if line.startswith("check: "))
    assert check.startswith("check: clean: ")
    assert " facts kept; " in check

    stats = json.loads(ok(factdiff("stats", "--db", db, "--json")))
    assert stats["coverage"]["dropped_unverified"] == 1
    assert stats["coverage"]["share"] == hit["verified_share"]
    (agent,) = stats["agents"]
    assert agent["coverage"]["dropped_unverified"] == 1
    assert agent["health"] < 100
