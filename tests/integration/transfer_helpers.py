"""A store with a record in every family an export writes, and how to compare two stores.

``fill`` builds it: the demo corpus's agents and schemas, 80 support calls under a schema
that then gains a version (re-evaluation queued), demotion run (warm entries with cold
archives and a trained zstd dictionary), an entry that failed every attempt (in review)
kept hot by an operator, an erasure, API keys (one revoked), an attestation, source fetches
and a cached extraction.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

from factdiff.compression.components import ladder_from_spec
from factdiff.demo import AGENTS, generate_corpus
from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.demotion.retry import RetryPolicy
from factdiff.store import EntryStatus, MemoryStore, Tier
from factdiff.store.api_keys import KeyScope
from factdiff.store.catalog import SchemaCatalog
from factdiff.store.transfer import export_lines
from tests.integration import evolution_helpers as evolution

NOW = evolution.LATER + timedelta(days=1)
QUERIES = ("refund ticket", "T-1004", "invoice", "March 3, 2026", "delivery", "outage")


def fill(store: MemoryStore, folder: Path) -> dict[str, str]:
    """Fill ``store`` (see the module docstring); the ids the tests look at again."""
    evolution.seed(store, folder, count=80)
    corpus = generate_corpus(24)
    catalog = SchemaCatalog(store)
    for agent, schema_name in AGENTS:
        catalog.get(schema_name, evolution.T0)
        store.set_agent_schema(agent, schema_name)
    demo_ids = [
        store.add(
            e.agent_id,
            e.content,
            now=evolution.T0,
            occurred_at=e.occurred_at,
            schema=e.schema,
            tags=e.tags,
            last_used_at=evolution.T0,
        )
        for e in corpus
    ]
    Demoter(store, DemotionSettings(older_than=timedelta(days=14))).run(evolution.LATER)
    failing = store.add("ops-agent", corpus[0].content, now=NOW, last_used_at=evolution.T0)
    ladder = ladder_from_spec("naive:3")
    settings = DemotionSettings(ladder=ladder, retry=RetryPolicy(max_attempts=1))
    Demoter(store, settings).run(NOW)
    assert store.get(failing).status is EntryStatus.REVIEW
    store.keep_hot(failing, NOW, key_name="ops", reason="needs a person")
    evolution.register(store, evolution.schema(2, folder), evolution.V2)
    assert store.enqueue_reevaluations(evolution.NAME, [1], 2, now=NOW) > 0
    store.create_api_key(scope=KeyScope.AGENT, agent_id="support-bot", name="bot", now=NOW)
    operator = store.create_api_key(scope=KeyScope.OPERATOR, agent_id=None, name="ops", now=NOW)
    store.revoke_api_key("bot", NOW)
    erased = demo_ids[1]
    warm = [e.id for e in store.entries(tier=Tier.WARM, with_content=False) if e.id != erased]
    store.forget([erased], now=NOW, reason="asked to")
    store.attest("decision-1", warm[:3], now=NOW)
    store.search("refund ticket", include_source="always", now=NOW)
    store.put_extraction("sha256:abc", "sha256:def", "rules/2", {"fields": {}})
    return {"failing": failing, "erased": demo_ids[1], "secret": operator.secret}


def export_text(store: MemoryStore, agent: str | None = None) -> str:
    """The whole export of ``store``, as text."""
    return "".join(export_lines(store, agent))


def body(text: str) -> list[str]:
    """An export's records: every line but its header (which names the source backend)."""
    return text.splitlines()[1:]


def searches(store: MemoryStore) -> dict[str, list[str]]:
    """The ids each of ``QUERIES`` finds, sorted: the same entries on either backend (their
    rank by text relevance is each backend's own: FTS5 or tsvector). Nothing is touched."""
    return {
        query: sorted(hit.entry_id for hit in store.search(query, k=500, touch=False, now=NOW))
        for query in QUERIES
    }


FACT_QUERIES = ("T-1004", "acct_517", "INV-67175", "mei.nakamura@redwood.co", "acct_6066")
"""Queries by fact values: their hits match by fact keys (the stored records')."""


def fact_searches(store: MemoryStore) -> dict[str, list[tuple[str, str, list[str]]]]:
    """For each of ``FACT_QUERIES``, the hits that matched a fact: their ids and tiers with
    the facts each matched (``field=value``), sorted. (Hits by words alone are left out: the
    backends split ``1,250`` into words each their own way.)"""
    found: dict[str, list[tuple[str, str, list[str]]]] = {}
    for query in FACT_QUERIES:
        hits = store.search(query, k=500, touch=False, now=NOW)
        matched = (
            (hit, sorted(f"{m.field}={m.value}" for m in hit.matched if m.kind == "fact"))
            for hit in hits
        )
        found[query] = sorted((hit.entry_id, hit.tier, facts) for hit, facts in matched if facts)
    return found


def cold_sources(store: MemoryStore) -> Iterator[tuple[str, str]]:
    """Every warm entry's id with its archived source, read back hash-checked."""
    for entry in store.entries(tier=Tier.WARM, with_content=False):
        yield entry.id, store.read_cold(entry.id)
