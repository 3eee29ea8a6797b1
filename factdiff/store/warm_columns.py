"""A warm write's columns, encoded without the store.

Most of a demotion's write is encoding, not SQL: the compact record against its source, the
narrative and record as zstd frames with the agent's dictionary, the cold archive (checked
to round-trip to the source's hash) and the search index rows. None of it needs a
connection or the warm meta, so with worker processes it is made where the summary was
verified, in the same task (``WarmTarget``, ``encode_body``); the store's thread then only
splits the meta and writes (``MemoryStore.apply_compressed(body=...)``). Without worker
processes, or when a body no longer fits the entry (its source, its narrative or the
agent's latest dictionary), the apply makes the body itself with the same function.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from factdiff.schema.model import tagged_digest, tagged_text_digest
from factdiff.store import codec, compact, compact_meta
from factdiff.store.dictionaries import dictionary_hash
from factdiff.store.model import IntegrityError, WarmMeta

if TYPE_CHECKING:
    from factdiff.extraction.record import FactRecord
    from factdiff.store.indexing import IndexDoc, SchemaLookup

__all__ = [
    "MetaColumns",
    "WarmBody",
    "WarmTarget",
    "encode_body",
    "encode_meta",
    "record_digest",
]

Dictionary = tuple[int | None, codec.CodecDictionary | None]
"""A zstd dictionary with its id (``(None, None)``: none)."""


@dataclass(frozen=True)
class WarmTarget:
    """Where a passed summary's warm row would go: the entry, its source and the agent's
    latest zstd dictionary (id and bytes; ``None``: none yet), sent with the summary's
    verification so that a worker process encodes the body there."""

    entry_id: str
    source: str
    content_hash: str
    dictionary: tuple[int, bytes] | None
    agent_id: str = ""
    """Whose dictionary: one trained while the summary was being written is used instead of
    none (``Work.verify_summary``)."""


@dataclass(frozen=True)
class WarmBody:
    """The columns of a warm row that its meta does not change, with its index rows; made
    for one narrative, one source and one dictionary."""

    narrative: str
    content_hash: str
    """The hash of the source the archive holds (the entry's must still be it)."""
    dictionary_id: int | None
    dictionary_hash: bytes | None
    """The SHA-256 of the dictionary's bytes (an id alone can name another dictionary
    after one was deleted)."""
    record_digest: str
    """The digest of the record (the meta's source facts digest, the index's record hash)."""
    narrative_frame: bytes
    record_frame: bytes
    source_frame: bytes
    """The cold archive: a zstd frame of the source, checked to round-trip."""
    index: IndexDoc | None
    """``None`` when no schema lookup was at hand (the apply makes the index rows)."""

    def fits(
        self,
        narrative: str,
        content_hash: str,
        dictionary_id: int | None,
        dictionary_hash: bytes | None,
    ) -> bool:
        """Whether this is the body to write: of this narrative and source, with the
        agent's latest dictionary (its id and the SHA-256 of its bytes)."""
        return (
            self.content_hash == content_hash
            and self.dictionary_id == dictionary_id
            and self.dictionary_hash == dictionary_hash
            and self.narrative == narrative
        )

    def params(self, meta: MetaColumns) -> dict[str, Any]:
        """The ``insert_warm`` parameters of this body with ``meta`` (but the entry id, the
        times, the attempt number and the identities' reference)."""
        return {
            **frame_params(self.narrative_frame, self.record_frame, self.dictionary_id, meta),
            "source_codec": codec.COLD_CODEC,
            "source_dictionary_id": self.dictionary_id,
            "source": self.source_frame,
        }


@dataclass(frozen=True)
class MetaColumns:
    """A warm meta as stored: its compact rest, its digest bytes and the canonical JSON of
    its identities (stored once, by reference: ``store_identities``)."""

    rest: bytes
    facts_digest: bytes | None
    profile: str


def frame_params(
    narrative: bytes, record: bytes, dictionary_id: int | None, meta: MetaColumns
) -> dict[str, Any]:
    """The parameters of a warm row's narrative and record frames (made with dictionary
    ``dictionary_id``) and of its ``meta``: what a demotion and a re-encoding both write."""
    return {
        "narrative": narrative,
        "record": record,
        "meta": meta.rest,
        "encoding": compact.RECORD_ENCODING,
        "dictionary_id": dictionary_id,
        "facts_digest": meta.facts_digest,
    }


def record_digest(record: Mapping[str, Any]) -> str:
    """The ``factdiff.extraction.record`` tagged digest of a stored record."""
    return tagged_digest("factdiff.extraction.record", dict(record))


@dataclass(frozen=True)
class RecordColumn:
    """A record's column, a zstd frame of its compact form against its source, and the
    record's digest (``record_digest``)."""

    frame: bytes
    digest: str


SMALL_RECORD_BYTES = 2048
SMALL_RECORD_LEVEL = 12
"""The zstd level of a record whose compact form is at most ``SMALL_RECORD_BYTES``: on the
dev data such records come out at level 12 as small as at level 19 or smaller (MultiWOZ
-1.0%, SGD -0.8%, Taskmaster-4 -8.5%; tau-retail's ten +6%) for a tenth of the CPU (a
600-byte MultiWOZ record: 0.13 -> 0.014 ms). Larger records, narratives and archives stay
at ``codec.ZSTD_LEVEL`` (19), which makes them 1-16% smaller (any level reads alike)."""


def record_column(record: Mapping[str, Any], source: str, dictionary: Any) -> RecordColumn:
    """``record``'s column against ``source``, with its digest hashed from the canonical
    JSON text that checks the record is JSON (one serialisation for both)."""
    text = codec.dump_json(dict(record), "fact record")
    packed = compact.pack_record(dict(record), source)
    level = SMALL_RECORD_LEVEL if len(packed) <= SMALL_RECORD_BYTES else codec.ZSTD_LEVEL
    frame = codec.zstd_compress(packed, dictionary, level)
    return RecordColumn(frame, tagged_text_digest("factdiff.extraction.record", text))


def narrative_frame(narrative: str, dictionary: Any) -> bytes:
    """A narrative's column: a zstd frame of its UTF-8 bytes."""
    return codec.zstd_compress(narrative.encode("utf-8"), dictionary)


def encode_meta(
    entry_id: str, meta: WarmMeta, content_hash: str, compressed_at: int, digest: str
) -> MetaColumns:
    """``meta`` as a warm row stores it (``digest``: the record's); ``IntegrityError`` when
    it does not encode."""
    moment = codec.from_micros(compressed_at).isoformat()
    try:
        split = compact_meta.split_meta(meta.to_json(), content_hash, moment, digest)
    except ValueError as exc:
        raise IntegrityError(entry_id, f"compression meta does not encode: {exc}") from None
    profile = codec.check_text(
        compact.dump(dict(split.identities)).decode("utf-8"), "compression meta"
    )
    return MetaColumns(split.rest, split.facts_digest, profile)


def verified_archive(entry_id: str, source: str, expected_hash: str, dictionary: Any) -> bytes:
    """The cold archive of ``source``, after checking that it is the source whose hash the
    entry holds (``codec.archive`` checks that the archive restores to its bytes)."""
    content = codec.encode_content(source, max_bytes=2**63)
    if codec.content_hash(content) != expected_hash:
        raise IntegrityError(entry_id, "hot content does not match its content hash")
    return codec.archive(content, dictionary)


def encode_body(
    entry_id: str,
    source: str,
    content_hash: str,
    narrative: str,
    record: Mapping[str, Any],
    dictionary: Dictionary,
    schemas: SchemaLookup | None,
    narrative_facts: FactRecord | None = None,
    parsed: FactRecord | None = None,
) -> WarmBody:
    """The body of a demotion of ``source`` (its ``content_hash``) to ``narrative`` with
    ``record``; ``schemas`` gives the schema the narrative's facts are read with when
    ``narrative_facts`` is not the index's own extraction (``None``: the record's schema is
    not at hand, the caller makes the index rows); ``parsed``: the ``FactRecord`` whose JSON
    ``record`` is, when the caller has it."""
    from factdiff.store.indexing import warm_doc

    dictionary_id, data = dictionary
    column = record_column(record, source, data)  # one digest: the meta's and the index's
    index = None
    if schemas is not None:
        index = warm_doc(
            schemas, entry_id, source, narrative, record, narrative_facts, column.digest, parsed
        )
    return WarmBody(
        narrative,
        content_hash,
        dictionary_id,
        None if data is None else dictionary_hash(data.as_bytes()),
        column.digest,
        narrative_frame(narrative, data),
        column.frame,
        verified_archive(entry_id, source, content_hash, data),
        index,
    )
