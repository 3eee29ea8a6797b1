"""The store's services from this layer: the rules indexer and retrieval (see
``factdiff.store.indexing``). ``rules_services()`` is the default the package root wires."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from factdiff.extraction.record import FactRecord
from factdiff.retrieve import index
from factdiff.retrieve.attest import attest as attest_context
from factdiff.retrieve.attest import check_attestation as check_context
from factdiff.retrieve.context import render_context as render
from factdiff.retrieve.search import search as ranked
from factdiff.store.indexing import IndexDoc, SchemaLookup, StoreServices
from factdiff.store.schema_resolver import SchemaResolver

if TYPE_CHECKING:
    from factdiff.retrieve.attest import Attestation, AttestationCheck
    from factdiff.retrieve.context import RenderedContext
    from factdiff.retrieve.hits import SearchHit
    from factdiff.store.base import MemoryStore
    from factdiff.store.model import Entry, NewEntry
    from factdiff.values.base import JSON

__all__ = ["RulesIndexer", "RulesRetrieval", "rules_services"]


class RulesIndexer:
    """Index rows made with the rules extractor (``factdiff.retrieve.index``)."""

    def hot_docs(
        self,
        schemas: SchemaResolver,
        ids: Sequence[str],
        items: Sequence[NewEntry],
        *,
        facts: bool = True,
    ) -> list[IndexDoc]:
        """``index.hot_docs``."""
        return index.hot_docs(schemas, ids, items, facts=facts)

    def entry_hot_doc(self, schemas: SchemaResolver, entry: Entry, text: str) -> IndexDoc:
        """``index.entry_hot_doc``."""
        return index.entry_hot_doc(schemas, entry, text)

    def warm_doc(
        self,
        schemas: SchemaLookup,
        entry_id: str,
        source: str,
        narrative: str,
        record: Mapping[str, JSON],
        narrative_facts: FactRecord | None = None,
        record_hash: str | None = None,
        parsed: FactRecord | None = None,
    ) -> IndexDoc:
        """``index.warm_doc``."""
        return index.warm_doc(
            schemas, entry_id, source, narrative, record, narrative_facts, record_hash, parsed
        )

    def stored_keys(self, record: Mapping[str, JSON]) -> tuple[int, ...] | None:
        """``index.stored_keys``."""
        return index.stored_keys(record)


class RulesRetrieval:
    """``search``, ``render_context``, ``attest`` and ``check_attestation`` of this layer."""

    def search(self, store: MemoryStore, query: str, **options: Any) -> list[SearchHit]:
        """``factdiff.retrieve.search.search``."""
        return ranked(store, query, **options)

    def render_context(self, store: MemoryStore, entry_ids: Sequence[str]) -> RenderedContext:
        """``factdiff.retrieve.context.render_context``."""
        return render(store, entry_ids)

    def attest(
        self, store: MemoryStore, decision_id: str, entry_ids: Sequence[str], *, now: datetime
    ) -> Attestation:
        """``factdiff.retrieve.attest.attest``."""
        return attest_context(store, decision_id, entry_ids, now=now)

    def check_attestation(
        self, store: MemoryStore, decision_id: str, agent: str | None
    ) -> AttestationCheck:
        """``factdiff.retrieve.attest.check_attestation``."""
        return check_context(store, decision_id, agent)


def rules_services() -> StoreServices[MemoryStore]:
    """The rules indexer and this layer's retrieval."""
    return StoreServices(RulesIndexer(), RulesRetrieval())
