"""Percentages with what they apply to and partial weekdays survive demotion to warm."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from factdiff import Memory
from factdiff.store.model import Tier

NOW = datetime(2026, 3, 20, 9, 0, tzinfo=UTC)
SOURCE = (
    "Customer C-118 gets 20% off the annual plan.\n"
    "Technician visit for ticket TK-2201 is next Tuesday.\n"
    "Adjustment: ($1,250.00) posted to the account."
)


def test_format_facts_are_stored_warm_and_read_back(target: str) -> None:
    with Memory(target, agent="ops", schema="generic", clock=lambda: NOW) as memory:
        entry_id = memory.add(SOURCE)  # no occurred_at and no date: weekdays stay partial
        report = memory.demote(older_than=timedelta(0))
        assert report.counts == {"clean": 1}
        assert memory.get(entry_id).tier == Tier.WARM
        (hit,) = memory.search("TK-2201")
        assert hit.facts is not None
        facts = json.dumps(hit.facts.to_json())
        assert '"applies_to": "annual plan"' in facts
        assert '"weekday": 1' in facts
        inventory = hit.facts.inventory
        values = sorted(f.value.display() for found in inventory.values() for f in found)
        assert "20% (annual plan)" in values
        assert "Tuesday" in values
        assert "-1250 USD" in values
