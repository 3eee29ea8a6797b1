"""What a clean check did not verify, carried through the product on both stores: the warm
meta keeps it, search hits and the rendered context show it, ``stats`` and the memory score
count it; rows written before it was kept read and render exactly as before."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from factdiff.compression.pipeline import Rung
from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.ops.health import agent_health
from factdiff.retrieve.context import text_hash
from factdiff.store import MemoryStore, Tier
from factdiff.testing import FixedSummarizer
from tests.integration.conftest import raw

T0 = datetime(2026, 3, 14, 19, 32, tzinfo=UTC)
LATER = T0 + timedelta(days=30)
UPSET = "The customer sounded upset about the delay."
SOURCE = f"Refund of $54.04 for order W2378156 was approved on 2026-02-10. {UPSET}"
SUMMARY = "Refund of $54.04 for order W2378156 was approved on 2026-02-10."
CHECK_LINE = "check: clean: {kept} facts kept; 1 sentence not covered by the schema was dropped"


def demoted(store: MemoryStore, text: str = SOURCE, summary: str = SUMMARY) -> str:
    entry_id = store.add("support-bot", text, now=T0, last_used_at=T0)
    settings = DemotionSettings(
        older_than=timedelta(days=14), ladder=(Rung(FixedSummarizer(summary)),)
    )
    result = Demoter(store, settings).demote_entry(store.get(entry_id), LATER)
    assert result.applied, result
    assert result.outcome.value == "clean", result
    assert store.get(entry_id).tier is Tier.WARM
    return entry_id


def strip_coverage(store: MemoryStore, entry_id: str) -> None:
    """Rewrite the warm row's meta as a version before coverage wrote it."""
    ((meta,),) = raw(store, "SELECT meta FROM warm_entries WHERE entry_id = ?", entry_id)
    data = json.loads(bytes(meta))
    del data["v"]
    old = json.dumps(data, separators=(",", ":"), sort_keys=True).encode()
    raw(store, "UPDATE warm_entries SET meta = ? WHERE entry_id = ?", old, entry_id)


def test_hits_and_context_carry_the_dropped_unverified_sentence(store: MemoryStore) -> None:
    entry_id = demoted(store)
    warm = store.get(entry_id).warm
    assert warm is not None
    assert warm.meta.coverage is not None
    kept = warm.meta.coverage.facts_kept
    (hit,) = store.search("order W2378156", touch=False)
    assert hit.unverified == (UPSET,)
    assert hit.verified_share == 0.5
    data = hit.to_json()
    assert (data["verified_share"], data["unverified"]) == (0.5, [UPSET])
    rendered = store.render_context([entry_id])
    assert f"{CHECK_LINE.format(kept=kept)}\n- {json.dumps(UPSET)}\n" in rendered.text
    assert rendered.text.endswith(f'- "{UPSET}"\n')


def test_stats_and_the_memory_score_count_coverage(store: MemoryStore) -> None:
    demoted(store)
    demoted(store, SUMMARY, SUMMARY)  # one verified sentence, nothing dropped
    hot = store.add("support-bot", "Still hot, never checked.", now=T0)
    coverage = store.stats()["coverage"]
    expected = {"entries": 2, "sentences": 3, "verified": 2, "dropped_unverified": 1}
    assert {k: coverage[k] for k in expected} == expected
    assert coverage["share"] == round(2 / 3, 4)
    (agent,) = coverage["agents"]
    assert agent == {"agent": "support-bot", **expected, "share": round(2 / 3, 4)}
    (score,) = agent_health(store)
    assert score["coverage"] == {**expected, "share": round(2 / 3, 4)}
    u = 1 - 2 / 3
    assert score["health"] == round(100 * (1 - u / 4), 1)  # nothing else lowers it here
    (hit,) = [h for h in store.search("Still hot", touch=False) if h.entry_id == hot]
    assert (hit.verified_share, hit.unverified) == (None, ())


def test_a_row_written_before_coverage_reads_and_renders_as_before(store: MemoryStore) -> None:
    entry_id = demoted(store)
    with_check = store.render_context([entry_id]).text
    strip_coverage(store, entry_id)
    warm = store.get(entry_id).warm
    assert warm is not None
    assert warm.meta.coverage is None
    rendered = store.render_context([entry_id])
    before, _, _ = with_check.partition("check: ")
    assert rendered.text == before  # the block as it was rendered before coverage was kept
    assert rendered.hash == text_hash(before)
    (hit,) = store.search("order W2378156", touch=False)
    assert (hit.verified_share, hit.unverified) == (None, ())
    assert store.stats()["coverage"]["entries"] == 0
    assert agent_health(store)[0]["health"] == 100.0
