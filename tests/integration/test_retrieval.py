"""Retrieval on both stores: fact-aware and gap-aware search, indexes kept in step with tiers,
use promotes, touch, rendered context, attestations and verify."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from factdiff.compression.pipeline import Rung
from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.errors import InputError
from factdiff.retrieve.hits import SearchHit
from factdiff.schema.model import FactSchema
from factdiff.settings import RetrievalSettings, TouchMode
from factdiff.store import EntryNotFound, EventType, MemoryStore, NewEntry, Tier, codec
from factdiff.testing import FixedSummarizer
from tests.conftest import worked
from tests.integration.conftest import raw

T0 = datetime(2026, 3, 14, 19, 32, tzinfo=UTC)
LATER = T0 + timedelta(days=30)

ORDER = (
    "Order #W2378156 for user mia_garcia_4516 was refunded $54.04 on 2026-02-10. "
    "The courier arrives at 14:30 with the parcel."
)
ORDER_SUMMARY = "Order #W2378156 for user mia_garcia_4516 was refunded $54.04 on 2026-02-10."
TRAIN = "The train TR1234 leaves Cambridge at 10:11 on Sunday. Booking reference 7GAWK763."
OTHER_INVOICE = "Invoice INV-7777 for $980 is due April 2, 2026; the total was agreed by phone."


def add(store: MemoryStore, text: str, **options: object) -> str:
    return store.add("support-bot", text, now=T0, last_used_at=T0, **options)  # type: ignore[arg-type]


def demote(store: MemoryStore, entry_id: str, summary: str | None = None) -> None:
    """Demote one entry (with a fixed summary, or the default extractive ladder)."""
    settings = DemotionSettings(older_than=timedelta(days=14))
    if summary is not None:
        settings = DemotionSettings(
            older_than=timedelta(days=14), ladder=(Rung(FixedSummarizer(summary)),)
        )
    result = Demoter(store, settings).demote_entry(store.get(entry_id), LATER)
    assert result.applied, result
    assert store.get(entry_id).tier is Tier.WARM


def ids(hits: Sequence[SearchHit]) -> list[str]:
    return [h.entry_id for h in hits]


@pytest.fixture
def invoice(store: MemoryStore) -> str:
    entry_id = add(store, worked("source"), schema="customer_service", occurred_at=T0)
    add(store, TRAIN)
    add(store, OTHER_INVOICE)
    return entry_id


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("INV-9182", "invoice_id"),
        ("inv-9182", "invoice_id"),
        ("Can you find what we agreed on invoice INV-9182?", "invoice_id"),
        ("$14,250", "invoice_total"),
        ("14,250 USD", "invoice_total"),
        ("fourteen thousand two hundred fifty dollars", "invoice_total"),
        ("March 25th, 2026", "payment_deadline"),
        ("25 Mar 2026", "payment_deadline"),
    ],
)
def test_identifier_amount_and_date_in_any_format_find_the_entry(
    store: MemoryStore, invoice: str, query: str, field: str
) -> None:
    hits = store.search(query, touch=False)
    assert hits[0].entry_id == invoice
    assert hits[0].tier == "hot"
    facts = [(m.field, m.where) for m in hits[0].matched if m.kind == "fact"]
    assert (field, "text") in facts
    assert hits[0].schema == {"name": "customer_service", "version": hits[0].schema["version"]}
    assert hits[0].source is None  # hot: the text is the source


def test_fact_matches_rank_above_text_only_matches(store: MemoryStore) -> None:
    wordy = add(store, "The invoice total, the invoice total again: every invoice has a total.")
    holder = add(store, "Paid $14,250 yesterday.")
    hits = store.search("invoice total of $14,250", touch=False)
    assert ids(hits)[:2] == [holder, wordy]
    assert hits[0].score >= 2 > hits[1].score


def test_hits_carry_facts_text_and_occurred_at(store: MemoryStore, invoice: str) -> None:
    (hit, *_) = store.search("INV-9182", touch=False)
    data: Any = hit.to_json()
    assert set(data) == {
        "entry_id", "agent", "tier", "score", "matched", "text", "facts", "known_gaps",
        "gap_hit", "schema", "occurred_at", "source", "verified_share", "unverified",
    }  # fmt: skip
    assert data["text"] == worked("source")
    assert data["facts"]["invoice_total"][0]["value"] == "14250 USD"
    assert data["facts"]["invoice_total"][0]["text"] == "$14,250"
    assert data["occurred_at"] == T0.isoformat()
    assert store.search_queries.hot_record(invoice) is not None


def test_demotion_keeps_the_entry_findable_and_marks_what_only_the_archive_says(
    store: MemoryStore,
) -> None:
    order = add(store, ORDER)
    add(store, TRAIN)
    demote(store, order, ORDER_SUMMARY)
    assert store.search_queries.hot_record(order) is None
    assert store.search_queries.narrative_keys(order)

    (hit,) = store.search("#W2378156", touch=False)
    assert hit.entry_id == order
    assert hit.tier == "warm"
    assert hit.text == ORDER_SUMMARY
    assert ("inventory.identifier", "text") in [(m.field, m.where) for m in hit.matched]
    assert hit.source is None  # the narrative states what was asked

    (hit,) = store.search("courier parcel", touch=False)
    assert {(m.value, m.where) for m in hit.matched} == {
        ("courier", "archive"),
        ("parcel", "archive"),
    }
    assert hit.source == ORDER  # matched only in the archive: the source comes along

    assert store.search("courier parcel", include_source="never", touch=False)[0].source is None
    always = store.search("#W2378156", include_source="always", touch=False)
    assert always[0].source == ORDER


def test_a_query_about_a_lost_field_gets_the_gap_and_the_source(store: MemoryStore) -> None:
    order = add(store, ORDER)
    demote(store, order, ORDER_SUMMARY)
    (hit,) = store.search("what time does the courier for #W2378156 arrive?", touch=False)
    assert [g.field for g in hit.known_gaps] == ["inventory.time"]
    assert [g.to_json() for g in hit.gap_hit] == [
        {"field": "inventory.time", "criticality": "important", "type": "time"}
    ]
    assert hit.source == ORDER
    by_value = store.search("#W2378156 at 2:30 PM", touch=False)[0]
    assert [g.field for g in by_value.gap_hit] == ["inventory.time"]  # a value of its type
    assert ("inventory.time", "14:30", "archive") in [
        (m.field, m.value, m.where) for m in by_value.matched
    ]
    plain = store.search("#W2378156 refund", touch=False)[0]
    assert plain.gap_hit == ()
    assert plain.source is None


def test_a_gap_never_hides_a_hot_entry_that_holds_the_fact(store: MemoryStore) -> None:
    order = add(store, ORDER)
    demote(store, order, ORDER_SUMMARY)
    holder = add(store, "Courier update for #W2378156: the courier arrives at 14:30 sharp.")
    hits = store.search("what time does the courier for order #W2378156 arrive?", touch=False)
    assert ids(hits) == [holder, order]
    assert hits[1].gap_hit
    assert hits[1].source == ORDER


def test_restore_brings_the_source_facts_back(store: MemoryStore) -> None:
    order = add(store, ORDER)
    demote(store, order, ORDER_SUMMARY)
    store.restore(order, LATER)
    assert store.search_queries.hot_record(order) is not None
    assert store.search_queries.narrative_keys(order) is None
    (hit,) = store.search("courier 14:30 #W2378156", touch=False)
    assert hit.tier == "hot"
    assert hit.text == ORDER
    assert hit.known_gaps == ()
    assert store.verify() == []


def test_use_promotes_a_warm_entry_back_to_hot(store: MemoryStore) -> None:
    order = add(store, ORDER)
    add(store, TRAIN)
    demote(store, order, ORDER_SUMMARY)
    settings = RetrievalSettings(promote_after=2, promote_window=timedelta(hours=1))
    for minute in range(2):
        now = LATER + timedelta(minutes=minute)
        store.search("courier", now=now, settings=settings)
        assert store.get(order).tier is Tier.WARM
    store.search("courier", now=LATER + timedelta(minutes=2), settings=settings)
    entry = store.get(order)
    assert entry.tier is Tier.HOT
    assert entry.content == ORDER
    (event,) = store.events(order, type=EventType.PROMOTED)
    assert event.payload["fetches"] == 3
    assert event.payload["promote_after"] == 2
    (hit,) = store.search("courier", touch=False)
    assert hit.tier == "hot"
    assert hit.source is None
    assert store.verify() == []


def test_fetches_outside_the_window_or_never_do_not_promote(store: MemoryStore) -> None:
    order = add(store, ORDER)
    demote(store, order, ORDER_SUMMARY)
    settings = RetrievalSettings(promote_after=1, promote_window=timedelta(minutes=30))
    for hour in range(4):
        store.search("courier", now=LATER + timedelta(hours=hour), settings=settings)
    assert store.get(order).tier is Tier.WARM
    never = RetrievalSettings(promote_after=None)
    for minute in range(5):
        store.search("courier", now=LATER + timedelta(minutes=minute), settings=never)
    assert store.get(order).tier is Tier.WARM
    quiet = RetrievalSettings(promote_after=0)
    store.search("courier", touch=False, settings=quiet)  # no use recorded, no promotion
    assert store.get(order).tier is Tier.WARM
    store.search("courier", now=LATER, settings=quiet)
    assert store.get(order).tier is Tier.HOT


@pytest.mark.parametrize(
    ("mode", "touched"), [(TouchMode.HITS, 2), (TouchMode.TOP, 1), (TouchMode.NONE, 0)]
)
def test_touch_modes(store: MemoryStore, mode: TouchMode, touched: int) -> None:
    first = add(store, "Refund $54.04 for order #W2378156.")
    second = add(store, "Refund requested by phone.")
    hits = store.search("refund #W2378156", now=LATER, settings=RetrievalSettings(touch=mode))
    assert ids(hits) == [first, second]
    used = [store.get(i).last_used_at == LATER for i in (first, second)]
    assert used == [True] * touched + [False] * (2 - touched)


def test_filters_and_bad_arguments(store: MemoryStore) -> None:
    mine = add(store, "Refund $54.04 for order #W2378156.")
    theirs = store.add("other-bot", "Refund $54.04 for order #W2378156.", now=T0)
    assert set(ids(store.search("#W2378156", touch=False))) == {mine, theirs}
    assert ids(store.search("#W2378156", agent="other-bot", touch=False)) == [theirs]
    assert ids(store.search("refund", agent="other-bot", touch=False)) == [theirs]
    assert store.search("#W2378156", tiers=("warm",), touch=False) == []
    assert len(store.search("#W2378156", k=1, touch=False)) == 1
    assert store.search("zebra quokka", touch=False) == []
    for bad in (
        {"query": "  "},
        {"query": "x", "k": 0},
        {"query": "x", "tiers": ("cold",)},
        {"query": "x", "include_source": "sometimes"},
    ):
        with pytest.raises(InputError):
            store.search(**bad)


def test_bulk_add_indexes_every_entry_and_a_bad_batch_indexes_none(store: MemoryStore) -> None:
    good = [NewEntry("bot", f"Order #W{1000000 + i} refunded ${i}.50") for i in range(50)]
    ids_added = store.add_many(good, now=T0)
    assert ids(store.search("#W1000042", touch=False)) == [ids_added[42]]
    assert ids(store.search("$7.50", touch=False))[0] == ids_added[7]
    with pytest.raises(InputError):
        store.add_many([NewEntry("bot", "Order #W5555555"), NewEntry("", "x")], now=T0)
    assert store.search("#W5555555", touch=False) == []
    assert store.verify() == []


def test_rendered_context_is_exact_deterministic_and_hashed(store: MemoryStore) -> None:
    order = add(store, ORDER)
    train = add(store, TRAIN, occurred_at=T0)
    demote(store, order, ORDER_SUMMARY)
    first = store.render_context([order, train])
    assert first == store.render_context([order, train])
    import hashlib

    assert first.hash == "sha256:" + hashlib.sha256(first.text.encode()).hexdigest()
    assert first.text.startswith(f"## entry {order} (agent support-bot, tier warm)\n")
    assert f"narrative:\n{ORDER_SUMMARY}\n" in first.text
    assert '- inventory.time: 14:30 (stated as "14:30")' in first.text  # the lost fact too
    assert "known gaps:\n- inventory.time (important, time)\n" in first.text
    assert f"source:\n{TRAIN}\n" in first.text
    assert store.render_context([train, order]).hash != first.hash
    with pytest.raises(InputError, match="given twice"):
        store.render_context([order, order])
    with pytest.raises(EntryNotFound):
        store.render_context(["01NOPE"])


def test_attestations_are_checked_against_the_store(store: MemoryStore) -> None:
    order = add(store, ORDER)
    train = add(store, TRAIN)
    attested = store.attest("decision-1", [order, train], now=LATER)
    assert attested.rendered_hash == store.render_context([order, train]).hash
    assert [(e.tier, e.source_hash) for e in attested.entries] == [
        ("hot", store.get(order).content_hash),
        ("hot", store.get(train).content_hash),
    ]
    assert store.check_attestation("decision-1").ok
    with pytest.raises(InputError, match="already attested"):
        store.attest("decision-1", [order], now=LATER)
    with pytest.raises(InputError, match="no attestation"):
        store.check_attestation("decision-2")

    demote(store, order, ORDER_SUMMARY)
    check = store.check_attestation("decision-1")
    assert not check.ok
    assert check.intact
    changed, same = check.entries
    assert changed.status == "changed"
    assert changed.changes == ("tier hot -> warm", "rendered text changed")
    assert changed.source.startswith("cold archive matches the attested source sha256:")
    assert same.status == "unchanged"
    assert store.verify() == []


def test_verify_names_edits_behind_the_stores_back(store: MemoryStore) -> None:
    order = add(store, ORDER)
    train = add(store, TRAIN)
    demote(store, order, ORDER_SUMMARY)
    store.attest("d1", [order, train], now=LATER)
    assert store.verify() == []
    edited_narrative = codec.zstd_compress(b"Edited.")  # a narrative as the store frames it
    raw(store, "UPDATE warm_entries SET narrative = ? WHERE entry_id = ?", edited_narrative, order)
    edited = codec.zstd_compress(b"{}")  # an empty record in the compact encoding
    raw(store, "UPDATE warm_entries SET record = ? WHERE entry_id = ?", edited, order)
    problems = store.verify()
    assert f"entry {order}: warm narrative does not match its hash (edited)" in problems
    assert f"entry {order}: warm fact record does not match its hash (edited)" in problems
    assert not any("attestation" in p for p in problems)


def test_verify_and_check_name_an_erased_entry_and_an_altered_attestation(
    store: MemoryStore,
) -> None:
    order = add(store, ORDER)
    train = add(store, TRAIN)
    store.attest("d1", [order, train], now=LATER)
    for table in ("hot_records", "fact_index", "hot_content"):
        column = "doc" if table == "fact_index" else "entry_id"
        if column == "doc":
            raw(
                store,
                "DELETE FROM fact_index WHERE doc IN "
                "(SELECT doc FROM search_docs WHERE entry_id = ?)",
                train,
            )
        else:
            raw(store, f"DELETE FROM {table} WHERE entry_id = ?", train)
    raw(store, "DELETE FROM search_docs WHERE entry_id = ?", train)
    raw(store, "DELETE FROM entries WHERE id = ?", train)
    check = store.check_attestation("d1")
    assert not check.ok
    assert check.current_hash is None
    assert [e.status for e in check.entries] == ["unchanged", "erased"]
    named = "attestation d1 (agent support-bot)"
    assert f"{named}: entry {train} no longer exists" in store.verify()

    if store.dialect.name == "sqlite":
        raw(store, "DROP TRIGGER attestation_entries_no_update")
    else:
        raw(store, "ALTER TABLE attestation_entries DISABLE TRIGGER attestation_entries_no_update")
    raw(store, "UPDATE attestation_entries SET tier = 'warm' WHERE entry_id = ?", order)
    assert f"{named}: its stored rows do not match their digest (edited)" in store.verify()
    assert not store.check_attestation("d1").intact


def test_attestations_are_append_only(store: MemoryStore) -> None:
    from tests.integration.conftest import raw_error

    order = add(store, ORDER)
    store.attest("d1", [order], now=LATER)
    with pytest.raises(raw_error(), match="append-only"):
        raw(store, "DELETE FROM attestations")


def test_an_index_lost_or_never_built_is_rebuilt(store: MemoryStore) -> None:
    order = add(store, ORDER)
    train = add(store, TRAIN)
    demote(store, order, ORDER_SUMMARY)
    expected = [(h.entry_id, h.matched) for h in store.search("#W2378156 TR1234", touch=False)]
    raw(store, "DELETE FROM fact_index")
    raw(store, "DELETE FROM hot_records")
    if store.dialect.name == "sqlite":
        raw(store, "INSERT INTO search_text (search_text) VALUES ('delete-all')")
    raw(store, "DELETE FROM search_docs")
    assert store.search("#W2378156 TR1234", touch=False) == []
    assert "2 entries are missing from the search index: run `factdiff migrate`" in store.verify()
    assert store.migrate() == 0  # nothing to apply, but the index is filled again
    assert [(h.entry_id, h.matched) for h in store.search("#W2378156 TR1234", touch=False)] == (
        expected
    )
    assert store.build_search_index(rebuild=True) == 2
    assert store.verify() == []
    assert {order, train} == set(ids(store.search("#W2378156 TR1234", touch=False)))


def test_facts_added_later_are_indexed_by_the_next_recorded_search(store: MemoryStore) -> None:
    late = store.add_many(
        [NewEntry("bot", "Paid $14,250 on invoice INV-9182."), NewEntry("bot", ORDER)],
        now=T0,
        index_facts=False,
    )
    query = "fourteen thousand two hundred fifty dollars"  # a fact no word of the entry says
    assert store.search(query, touch=False) == []  # words only, so far
    assert ids(store.search("INV-9182", touch=False)) == [late[0]]  # found by its words
    assert store.search_queries.hot_record(late[0]) is None
    assert ids(store.search(query, now=LATER)) == [late[0]]  # a recorded search indexes first
    assert store.search_queries.hot_record(late[0]) is not None
    assert store.index_pending() == 0
    more = store.add_many([NewEntry("bot", "Refund of $980 approved.")], now=T0, index_facts=False)
    demote(store, late[1], ORDER_SUMMARY)  # demotion indexes its warm record instead
    assert store.index_pending() == 1
    assert ids(store.search("USD 980", touch=False)) == [more[0]]
    assert store.verify() == []


def test_narrative_keys_reused_from_verification_equal_a_fresh_extraction(
    store: MemoryStore, invoice: str
) -> None:
    """Demotion hands the index the narrative record verification made; the keys stored must
    be the ones the index's own extraction gives, and a record it cannot stand for (another
    extractor, another reference date) is extracted again."""
    from dataclasses import replace

    from factdiff.extraction.record import FactRecord
    from factdiff.retrieve.index import INDEX_EXTRACTOR, indexes_as, warm_doc
    from factdiff.retrieve.schemas import SchemaResolver

    demote(store, invoice)
    view = store.get(invoice)
    assert view.warm is not None
    narrative, record = view.warm.narrative, view.warm.record
    fresh = warm_doc(SchemaResolver(store), invoice, "", narrative, record)
    assert fresh.warm is not None
    assert store.search_queries.narrative_keys(invoice) == set(fresh.warm.narrative_keys)

    source = FactRecord.from_json(record)
    said = INDEX_EXTRACTOR.extract(narrative, customer_schema(store), source.reference)
    assert indexes_as(said, source, narrative)
    for other in (replace(said, extractor="jury/x"), replace(said, reference=None)):
        assert not indexes_as(other, source, narrative)
        doc = warm_doc(SchemaResolver(store), invoice, "", narrative, record, other)
        assert doc == fresh


def customer_schema(store: MemoryStore) -> FactSchema:
    from factdiff.retrieve.schemas import SchemaResolver

    found = SchemaResolver(store).get("customer_service")
    assert found is not None
    return found
