"""``factdiff.integrations.session_log``: how a session's entries group into segments."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from factdiff.errors import InputError
from factdiff.integrations.session_log import SessionLog, runs, session_tag
from factdiff.store import Entry, EntryStatus, Tier

NOW = datetime(2026, 3, 20, 9, 0, tzinfo=UTC)


def entry(entry_id: str, tier: Tier) -> Entry:
    return Entry(
        id=entry_id,
        agent_id="support-bot",
        tier=tier,
        status=EntryStatus.ACTIVE,
        occurred_at=NOW,
        created_at=NOW,
        last_used_at=NOW,
        metadata={},
        schema_name=None,
        tags=(),
        content_hash="",
        size_bytes=0,
        attempt_count=0,
        next_attempt_at=None,
    )


def test_each_hot_entry_alone_and_each_warm_run_together() -> None:
    hot, warm = Tier.HOT, Tier.WARM
    listed = [
        entry("a", warm),
        entry("b", warm),
        entry("c", hot),
        entry("d", hot),
        entry("e", warm),
        entry("f", hot),
        entry("g", warm),
        entry("h", warm),
    ]
    grouped = [[e.id for e in run] for run in runs(listed)]
    assert grouped == [["a", "b"], ["c"], ["d"], ["e"], ["f"], ["g", "h"]]
    assert list(runs([])) == []


def test_the_session_tag_and_a_blank_session_id() -> None:
    assert session_tag("conv 1") == "session:conv 1"
    assert SessionLog("support-bot", "conv 1").tag == "session:conv 1"
    with pytest.raises(InputError, match="give the session an id"):
        SessionLog("support-bot", "  ")
