"""zstd dictionaries trained per agent from its own entries, for cold archives and records.

Short texts compress badly on their own (zlib gained ~1.6x on the demo's notes); a
dictionary trained on an agent's earlier entries holds the phrases they share. The first
demotion of an agent with at least ``MIN_SAMPLES`` entries trains one (version 1) from its
first ``TRAIN_SAMPLES`` entries (sources and compact records); later archives and warm
records of that agent are compressed with its latest version. A dictionary is sized to the
corpus it serves (``DICTIONARY_SHARE`` of its training bytes, at most ``DICTIONARY_BYTES``:
on short entries the dictionary is a large share of the cold tier) and stored as a zstd frame
of its bytes (``stored``).
Each dictionary row keeps the SHA-256 of its (raw) bytes, checked when it is loaded, and the
ids of the entries it was trained on (a zstd frame of their sorted, newline-joined ids), so
an erasure or a correction can tell which dictionaries hold fragments of an entry
(``trained_on``) and retire them.

Archives written before the agent had a dictionary are plain zstd frames: each warm row names
the dictionary of its archive and of its narrative and record (none: plain frames).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable
from dataclasses import dataclass

import zstandard

from factdiff.store import codec
from factdiff.store.backends.protocol import Row
from factdiff.store.database import Database
from factdiff.store.model import IntegrityError

MIN_SAMPLES = 64
"""An agent needs this many entries before a dictionary is trained for it."""
TRAIN_SAMPLES = 512
"""At most this many of an agent's entries (the first by id) train a dictionary."""
DICTIONARY_BYTES = 16384
"""The largest trained dictionary."""
DICTIONARY_SHARE = 6
"""A trained dictionary is at most 1/``DICTIONARY_SHARE`` of its samples' bytes. Measured on
Taskmaster's short dialogues (300 entries, dictionaries stored as frames), cold tier /
sources: 1/24 0.40x, 1/16 0.38x, 1/10 0.36x, 1/6 0.35x (the cap); a raw 1/10 dictionary
made it 0.48x. The longer datasets reach ``DICTIONARY_BYTES`` either way."""
MIN_DICTIONARY_BYTES = 1024
"""Below this size no dictionary is trained (too few sample bytes)."""


@dataclass(frozen=True)
class StoredDictionary:
    """A dictionary row: its id, agent, version and zstd dictionary (loaded, and as bytes,
    with the SHA-256 its row holds, checked when it was loaded)."""

    id: int
    agent_id: str
    version: int
    data: codec.CodecDictionary
    raw: bytes
    hash: bytes


def dictionary_hash(data: bytes) -> bytes:
    """The SHA-256 of a dictionary's bytes (stored with it)."""
    return hashlib.sha256(data).digest()


def pack_ids(ids: Iterable[str]) -> bytes:
    """The ``trained_on`` column: a zstd frame of the sorted, newline-joined entry ids."""
    return codec.zstd_compress("\n".join(sorted(set(ids))).encode("utf-8"))


def unpack_ids(packed: bytes) -> frozenset[str]:
    """Inverse of ``pack_ids``."""
    text = codec.zstd_decompress(packed).decode("utf-8")
    return frozenset(text.split("\n")) if text else frozenset()


def stored(data: bytes) -> bytes:
    """The ``data`` column of a dictionary: a zstd frame of its bytes (a trained dictionary
    is mostly text from its samples, and compresses about 2-3x)."""
    return codec.zstd_compress(data)


def loaded(value: bytes) -> bytes:
    """Inverse of ``stored``: the raw dictionary of a ``data`` column."""
    return codec.zstd_decompress(value)


def train(samples: list[bytes], size: int = DICTIONARY_BYTES) -> bytes | None:
    """A zstd dictionary trained on ``samples`` (``None`` when there are too few, or zstd
    cannot train on them)."""
    if len(samples) < MIN_SAMPLES:
        return None
    size = min(size, sum(len(s) for s in samples) // DICTIONARY_SHARE)
    if size < MIN_DICTIONARY_BYTES:
        return None
    try:
        chunks: list[bytes | bytearray | memoryview[int]] = list(samples)
        trained = zstandard.train_dictionary(size, chunks, threads=0)
    except zstandard.ZstdError:
        return None
    return trained.as_bytes()


class DictionaryCache:
    """The dictionaries a store has loaded (by id), verified against their hash once."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._by_id: dict[int, StoredDictionary] = {}
        self._lock = threading.Lock()

    def get(self, dictionary_id: int | None) -> codec.CodecDictionary | None:
        """The dictionary ``dictionary_id`` (``None`` for ``None``); ``IntegrityError`` if
        its row is missing or its bytes do not match their hash."""
        if dictionary_id is None:
            return None
        return self.stored(int(dictionary_id)).data

    def stored(self, dictionary_id: int) -> StoredDictionary:
        """The row of dictionary ``dictionary_id`` (loaded once, as ``get``)."""
        found = self._by_id.get(dictionary_id)
        return self.load(dictionary_id) if found is None else found

    def load(self, dictionary_id: int) -> StoredDictionary:
        """Read and check one dictionary row."""
        row = self._db.row("select_dictionary", id=dictionary_id)
        if row is None:
            raise IntegrityError(f"dictionary {dictionary_id}", "zstd dictionary is missing")
        try:
            data = loaded(bytes(row["data"]))
        except ValueError:
            data = b""
        if dictionary_hash(data) != bytes(row["hash"]):
            raise IntegrityError(
                f"dictionary {dictionary_id}", "zstd dictionary does not match its hash"
            )
        found = _stored(row, data)
        with self._lock:
            self._by_id[dictionary_id] = found
        return found

    def clear(self) -> None:
        """Drop every cached dictionary (after a rolled-back write that stored or deleted
        some: their ids may be reused)."""
        with self._lock:
            self._by_id.clear()

    def forget(self, dictionary_id: int) -> None:
        """Drop a deleted dictionary from the cache."""
        with self._lock:
            self._by_id.pop(dictionary_id, None)


def _stored(row: Row, data: bytes) -> StoredDictionary:
    return StoredDictionary(
        id=int(row["id"]),
        agent_id=str(row["agent_id"]),
        version=int(row["version"]),
        data=zstandard.ZstdCompressionDict(data),
        raw=data,
        hash=bytes(row["hash"]),
    )
