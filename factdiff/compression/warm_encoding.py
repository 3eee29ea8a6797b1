"""A passed summary's warm body, made in the worker process that verified it, and the
agents' zstd dictionaries it is encoded with."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from factdiff.extraction.record import FactRecord
from factdiff.schema.model import FactSchema

if TYPE_CHECKING:
    import zstandard

    from factdiff.store.warm_columns import WarmBody, WarmTarget

__all__ = ["prime_dictionary", "warm_body"]


def warm_body(
    warm: WarmTarget,
    narrative: str,
    source_facts: FactRecord,
    schema: FactSchema,
    narrative_facts: FactRecord,
) -> WarmBody:
    """The warm body of ``narrative`` for ``warm``: the store's thread writes it as made."""
    from factdiff.store.warm_columns import encode_body

    dictionary_id, data = warm.dictionary if warm.dictionary is not None else (None, None)
    same_schema = source_facts.schema == schema.ref  # else the store's thread indexes it
    return encode_body(
        warm.entry_id,
        warm.source,
        warm.content_hash,
        narrative,
        source_facts.to_json(),
        (dictionary_id, _dictionary(data)),
        _SentSchema(schema) if same_schema else None,
        narrative_facts,
        source_facts,
    )


class _SentSchema:
    """The one schema a worker process was sent, as a schema lookup for the records made
    under it."""

    def __init__(self, schema: FactSchema) -> None:
        self._schema = schema

    def get(self, name: str, version: int | None = None) -> FactSchema:
        if name != self._schema.name or version != self._schema.version:
            raise KeyError(f"schema {name} version {version} was not sent")  # pragma: no cover
        return self._schema


_DICTIONARIES: dict[bytes, zstandard.ZstdCompressionDict] = {}
"""In a worker process: the zstd dictionaries it was sent, by their bytes (a dictionary
object keeps its compression contexts cached; see ``codec``)."""
_DICTIONARY_LIMIT = 16


def _dictionary(data: bytes | None) -> zstandard.ZstdCompressionDict | None:
    if data is None:
        return None
    found = _DICTIONARIES.get(data)
    if found is None:
        import zstandard

        if len(_DICTIONARIES) >= _DICTIONARY_LIMIT:
            _DICTIONARIES.clear()
        found = _DICTIONARIES[data] = zstandard.ZstdCompressionDict(data)
    return found


def prime_dictionary(path: str, agent_id: str, now: datetime) -> tuple[int, bytes] | None:
    """In a worker process: train ``agent_id``'s first dictionary in the SQLite store at
    ``path``, on a connection of this process's own; the agent's latest dictionary after
    (id and bytes as stored), if it has one."""
    from factdiff.store import open_store

    with open_store(path, create=False) as store:
        if not store.prime_dictionary(agent_id, now):
            return None
        return store.latest_dictionary(agent_id)
