"""Retrieval on ``MemoryStore``: ``search``, ``render_context``, ``attest`` and
``check_attestation`` as store methods.

``Searches`` hands the store (the facade) to its ``Retrieval`` service
(``factdiff.store.indexing``: ``factdiff.retrieve`` by default), which ranks, renders and
attests with the statements and indexes of ``factdiff.store.search_index`` and
``search_queries``. It holds the whole store, the one part that does: the service's
protocol takes the store, whose entries, index rows and attestations it reads. The results
are that layer's types (``SearchHit``, ``RenderedContext``, ``Attestation``,
``AttestationCheck``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol, Self

from factdiff.store.attestations import Attestation
from factdiff.store.indexing import StoreServices

__all__ = ["Searches", "ServedStore"]


class ServedStore(Protocol):
    """A store with the services that answer for it (``MemoryStore``)."""

    @property
    def services(self) -> StoreServices[Self]:
        """Its indexer and retrieval."""
        ...


class Searches:
    """Retrieval methods of ``MemoryStore`` (see the module docstring) over ``store``, the
    facade."""

    def __init__(self, store: ServedStore) -> None:
        self._store = store

    def search(
        self,
        query: str,
        *,
        agent: str | None = None,
        k: int = 10,
        tiers: Sequence[str] = ("hot", "warm"),
        include_source: str = "auto",
        touch: bool = True,
        now: datetime | None = None,
        settings: Any = None,
    ) -> Any:
        """The ``k`` entries that best answer ``query`` (see ``factdiff.retrieve.search``).

        Entries holding a distinctive fact of the query (an identifier, an amount, a full
        date...) in any format come first, then by text relevance. A warm hit carries its
        narrative, its source's fact record and its known gaps; ``gap_hit`` lists the gaps
        the query asks about. ``include_source``: ``always`` attaches every warm hit's
        archived source (hash-checked), ``auto`` only when a gap is asked about or the hit
        matched what only the archive states, ``never`` none. ``touch`` marks hits as used
        (``settings.touch`` says which); fetching a warm source counts toward its promotion
        back to hot (``settings.promote_after`` within ``settings.promote_window``).
        ``now`` defaults to the wall clock (UTC).
        """
        store = self._store
        return store.services.retrieval.search(
            store,
            query,
            agent=agent,
            k=k,
            tiers=tiers,
            include_source=include_source,
            touch=touch,
            now=now,
            settings=settings,
        )

    def render_context(self, entry_ids: Sequence[str]) -> Any:
        """Exactly what an agent is shown of these entries, deterministic, with its hash
        (a ``RenderedContext``)."""
        store = self._store
        return store.services.retrieval.render_context(store, entry_ids)

    def attest(self, decision_id: str, entry_ids: Sequence[str], *, now: datetime) -> Attestation:
        """Record that decision ``decision_id`` was made on the rendered context of
        ``entry_ids``, for the agent whose entries they are: decision ids are per agent (see
        ``factdiff.retrieve.attest``)."""
        store = self._store
        return store.services.retrieval.attest(store, decision_id, entry_ids, now=now)

    def check_attestation(self, decision_id: str, agent: str | None = None) -> Any:
        """Re-render an attested context and say whether it still matches, and what changed.
        Decision ids are per agent: ``agent`` names whose (``None``: whichever agent holds
        ``decision_id``, an ``InputError`` asking for the agent when several do)."""
        store = self._store
        return store.services.retrieval.check_attestation(store, decision_id, agent)
