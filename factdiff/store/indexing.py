"""What the store needs from the layers above it: index documents and retrieval, as protocols.

The store keeps its search indexes in step inside the transactions that change entries, but
it does not read facts itself: an ``Indexer`` makes each entry's index rows (``IndexDoc``:
its text, fact keys, packed hot record, warm hashes) and the store writes them. A
``Retrieval`` answers the facade's ``search``, ``render_context``, ``attest`` and
``check_attestation``. Both are implemented above the store (``factdiff.retrieve``: the
rules extractor's index, the ranking) and handed to it as ``StoreServices`` where a store is
opened (``MemoryStore.open(..., services=...)``); a store opened without them takes the
default that the package root wires (``factdiff.wiring``), resolved on first use.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, runtime_checkable

from factdiff import wiring
from factdiff.errors import StoreError
from factdiff.extraction.record import FactRecord
from factdiff.schema.model import FactSchema

if TYPE_CHECKING:
    from factdiff.store.attestations import Attestation
    from factdiff.store.model import Entry, NewEntry
    from factdiff.store.schema_resolver import SchemaResolver

__all__ = [
    "IndexDoc",
    "Indexer",
    "Retrieval",
    "SchemaLookup",
    "StoreServices",
    "WarmIndex",
    "default_services",
    "index_text",
    "text_digest",
    "unpack_json",
    "warm_doc",
]

StoreT_contra = TypeVar("StoreT_contra", contravariant=True)
"""The store a ``Retrieval`` works on (``MemoryStore``; this module does not import it)."""


class SchemaLookup(Protocol):
    """Schemas by name and version (``SchemaResolver`` over a store, or the one schema a
    worker process was sent)."""

    def get(self, name: str, version: int | None = None) -> FactSchema | None: ...


@dataclass(frozen=True)
class WarmIndex:
    """What the indexes keep of a warm entry besides its fact keys."""

    narrative_hash: str
    """``sha256:`` of the narrative's UTF-8 bytes."""
    record_hash: str
    """``factdiff.extraction.record`` tagged digest of the record's canonical JSON."""
    narrative_keys: tuple[int, ...]
    """The fact key hashes of the facts the narrative states."""


@dataclass(frozen=True)
class IndexDoc:
    """One entry's rows in the search indexes."""

    entry_id: str
    text: str
    """The full source (NUL characters as spaces: PostgreSQL text cannot hold them)."""
    key_hashes: tuple[int, ...]
    hot_record: bytes | None = None
    """A hot entry's packed fact record."""
    warm: WarmIndex | None = None
    facts_pending: bool = False
    """Added without its facts (``add_many(index_facts=False)``): indexed later."""


def index_text(text: str) -> str:
    """The text as the text index takes it."""
    return text.replace("\0", " ")


def text_digest(text: str) -> str:
    """``sha256:`` of the UTF-8 bytes of ``text`` (a narrative's hash)."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def unpack_json(data: bytes) -> dict[str, Any]:
    """The JSON of a packed hot record (zlib of its canonical JSON), before parsing."""
    found: dict[str, Any] = json.loads(zlib.decompress(bytes(data)).decode("utf-8"))
    return found


@runtime_checkable
class Indexer(Protocol):
    """Makes the index rows of entries (the rules extractor's, in ``factdiff.retrieve``)."""

    def hot_docs(
        self,
        schemas: SchemaResolver,
        ids: Sequence[str],
        items: Sequence[NewEntry],
        *,
        facts: bool = True,
    ) -> list[IndexDoc]:
        """The rows of entries about to be added (``ids[i]`` is ``items[i]``'s id); without
        ``facts``, their text only (``facts_pending``)."""
        ...

    def entry_hot_doc(self, schemas: SchemaResolver, entry: Entry, text: str) -> IndexDoc:
        """The rows of a stored entry whose source is ``text``, as a hot entry."""
        ...

    def warm_doc(
        self,
        schemas: SchemaLookup,
        entry_id: str,
        source: str,
        narrative: str,
        record: Mapping[str, Any],
        narrative_facts: FactRecord | None = None,
        record_hash: str | None = None,
        parsed: FactRecord | None = None,
    ) -> IndexDoc:
        """The rows of a warm entry: its record's facts, its hashes, its narrative's facts."""
        ...

    def stored_keys(self, record: Mapping[str, Any]) -> tuple[int, ...] | None:
        """The fact key hashes of a stored fact record's JSON (a hot entry's unpacked record,
        a warm entry's source record), as ``hot_docs`` and ``warm_doc`` key it; ``None`` when
        the JSON is no fact record. Indexes a stored entry without extracting it again."""
        ...


@runtime_checkable
class Retrieval(Protocol[StoreT_contra]):
    """Answers the facade's retrieval methods (``factdiff.retrieve``); results are that
    layer's types (``SearchHit``, ``RenderedContext``, ``Attestation``,
    ``AttestationCheck``)."""

    def search(self, store: StoreT_contra, query: str, **options: Any) -> Any:
        """The best entries for ``query`` (``factdiff.retrieve.search.search``)."""
        ...

    def render_context(self, store: StoreT_contra, entry_ids: Sequence[str]) -> Any:
        """What an agent is shown of these entries (``factdiff.retrieve.context``)."""
        ...

    def attest(
        self, store: StoreT_contra, decision_id: str, entry_ids: Sequence[str], *, now: datetime
    ) -> Attestation:
        """Record an attestation of a rendered context (``factdiff.retrieve.attest``)."""
        ...

    def check_attestation(self, store: StoreT_contra, decision_id: str, agent: str | None) -> Any:
        """Re-render an attested context and compare (``factdiff.retrieve.attest``)."""
        ...


@dataclass(frozen=True)
class StoreServices(Generic[StoreT_contra]):
    """What a store is given by the layers above it (``StoreServices[MemoryStore]``)."""

    indexer: Indexer
    retrieval: Retrieval[StoreT_contra]


_default: list[StoreServices[Any]] = []


def default_services() -> StoreServices[Any]:
    """The services the package root wires (``factdiff.wiring.store_services``), made once."""
    if not _default:
        factory = wiring.store_services
        found = None if factory is None else factory()
        if not isinstance(found, StoreServices):
            raise StoreError(
                "no indexer is wired for the store: import factdiff (the package root wires "
                "the rules indexer) or pass services= when opening the store"
            )
        _default.append(found)
    return _default[0]


def warm_doc(
    schemas: SchemaLookup,
    entry_id: str,
    source: str,
    narrative: str,
    record: Mapping[str, Any],
    narrative_facts: FactRecord | None = None,
    record_hash: str | None = None,
    parsed: FactRecord | None = None,
) -> IndexDoc:
    """A warm entry's index rows by the default indexer (for encoders that run before any
    store is at hand, in a worker process)."""
    return default_services().indexer.warm_doc(
        schemas, entry_id, source, narrative, record, narrative_facts, record_hash, parsed
    )
