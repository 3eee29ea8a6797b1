"""Issue 34: a decision the summary dropped is a known gap that retrieval shows, so the
rendered context never reads like a pending refund."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from factdiff.compression.pipeline import Rung
from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.store import MemoryStore, Tier
from factdiff.testing import FixedSummarizer

T0 = datetime(2026, 3, 14, 19, 32, tzinfo=UTC)
SOURCE = (
    "Order ORD-5521 arrived damaged on March 3, 2026. "
    "The agent refused the refund and offered a transfer."
)
SUMMARY = "Order ORD-5521 arrived damaged on March 3, 2026."


def test_a_dropped_decision_goes_warm_with_its_gap_and_retrieval_shows_it(
    store: MemoryStore,
) -> None:
    entry_id = store.add("support-bot", SOURCE, now=T0, last_used_at=T0)
    settings = DemotionSettings(
        older_than=timedelta(days=14), ladder=(Rung(FixedSummarizer(SUMMARY)),)
    )
    result = Demoter(store, settings).demote_entry(store.get(entry_id), T0 + timedelta(days=30))
    assert result.applied, result
    assert store.get(entry_id).tier is Tier.WARM

    (hit,) = store.search("ORD-5521 refund", touch=False)
    assert [g.field for g in hit.known_gaps] == ["inventory.decision"]

    context = store.render_context([entry_id]).text
    assert f"narrative:\n{SUMMARY}\n" in context
    assert "known gaps:\n- inventory.decision (important, decision)\n" in context
    assert '- inventory.decision: refuse: refund (stated as "refused")\n' in context
    assert '- inventory.decision: offer: transfer (stated as "offered")\n' in context
