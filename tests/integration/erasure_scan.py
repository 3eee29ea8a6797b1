"""Search every table and column of a store for fragments of a text (the erasure tests).

Tables are enumerated from the catalog (``sqlite_master`` + ``PRAGMA table_info`` on
SQLite, ``information_schema`` on PostgreSQL), so a table added later is searched without a
change here. Text is compared lowercased; blobs are searched raw and, when they inflate,
zlib-inflated (old cold archives, packed fact records) or zstd-decompressed: zstd frames
(cold archives, warm narratives and records, packed attempts and events) are decoded with
the store's own dictionaries (``zstd_dictionaries``) when they were made with one, and
primed frames (packed attempts and events, ``factdiff.store.frames``) are unpacked. A zstd
frame that needs a dictionary the store does not hold cannot be searched: ``find`` fails on
it rather than report it clean.
"""

from __future__ import annotations

import sqlite3
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import zstandard

from factdiff.store import MemoryStore, frames

WINDOW = 12


def windows(text: str, size: int = WINDOW) -> set[str]:
    """Every ``size``-character window of ``text``, lowercased."""
    low = text.lower()
    return {low[i : i + size] for i in range(len(low) - size + 1)}


def string_leaves(value: Any) -> Iterator[str]:
    """Every string (and number, as text) in a JSON value."""
    if isinstance(value, dict):
        for item in value.values():
            yield from string_leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from string_leaves(item)
    elif isinstance(value, str):
        yield value
    elif isinstance(value, int | float) and not isinstance(value, bool):
        yield str(value)


ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"

Dictionaries = dict[int, zstandard.ZstdCompressionDict]
"""The store's zstd dictionaries by their zstd dictionary id (the one frames name)."""


class UnreadableFrame(AssertionError):
    """A zstd frame the scan cannot decompress (a dictionary the store no longer has)."""


def dictionaries(rows: Iterable[tuple[str, str, Any]]) -> Dictionaries:
    """The dictionaries among (table, column, value) rows: ``zstd_dictionaries.data``."""
    found: Dictionaries = {}
    for table, column, value in rows:
        if table == "zstd_dictionaries" and column == "data" and value is not None:
            raw = bytes(value)
            if raw.startswith(ZSTD_MAGIC):  # stored as a zstd frame of the dictionary
                raw = zstandard.ZstdDecompressor().decompress(raw)
            loaded = zstandard.ZstdCompressionDict(raw)
            found[loaded.dict_id()] = loaded
    return found


def unzstd(data: bytes, dicts: Dictionaries, where: str = "") -> bytes | None:
    """The content of a zstd frame (``None`` when ``data`` is not one), decoded with the
    dictionary it names; ``UnreadableFrame`` if it cannot be decoded."""
    if data.startswith(frames.TAG):  # a packed attempt or event payload (version 11)
        try:
            return frames.unpack(data)
        except ValueError:
            return None
    if not data.startswith(ZSTD_MAGIC):
        return None
    try:
        dict_id = zstandard.get_frame_parameters(data).dict_id
    except zstandard.ZstdError:
        return None
    try:
        if dict_id == 0:
            return zstandard.ZstdDecompressor().decompress(data)
        if dict_id not in dicts:
            raise UnreadableFrame(f"{where}: zstd frame needs dictionary {dict_id}, not in store")
        return zstandard.ZstdDecompressor(dict_data=dicts[dict_id]).decompress(data)
    except zstandard.ZstdError as exc:
        raise UnreadableFrame(f"{where}: zstd frame does not decode: {exc}") from None


def _texts(value: Any, dicts: Dictionaries | None = None, where: str = "") -> Iterator[str]:
    if value is None:
        return
    if isinstance(value, bytes | bytearray | memoryview):
        data = bytes(value)
        yield data.decode("latin-1").lower()
        yield data.decode("utf-8", "replace").lower()
        decoded = unzstd(data, dicts or {}, where)
        if decoded is not None:
            yield decoded.decode("utf-8", "replace").lower()
            return
        try:
            inflated = zlib.decompress(data)
        except zlib.error:
            return
        yield inflated.decode("utf-8", "replace").lower()
    else:
        yield str(value).lower()


def table_rows(store: MemoryStore) -> Iterator[tuple[str, str, Any]]:
    """(table, column, value) for every value of every table of the store."""
    if store.dialect.name == "sqlite":
        path: Path = store.backend.path  # type: ignore[attr-defined]
        conn = sqlite3.connect(path)
        try:
            tables = [
                str(r[0])
                for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            ]
            for table in tables:
                columns = [str(c[1]) for c in conn.execute(f"PRAGMA table_info('{table}')")]
                if not columns:
                    continue
                names = ", ".join(f'"{c}"' for c in columns)
                for row in conn.execute(f'SELECT {names} FROM "{table}"'):
                    for column, value in zip(columns, row, strict=True):
                        yield table, column, value
        finally:
            conn.close()
        return
    import psycopg

    dsn: str = store.backend.dsn  # type: ignore[attr-defined]
    with psycopg.connect(dsn, autocommit=True) as pg:
        tables = [
            str(r[0])
            for r in pg.execute(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
            )
        ]
        for table in tables:
            described = pg.execute(
                "SELECT column_name, data_type FROM information_schema.columns "
                "WHERE table_schema = current_schema() AND table_name = %s "
                "ORDER BY ordinal_position",
                (table,),
            ).fetchall()
            columns = [str(r[0]) for r in described]
            # Every column as text (tsvector, jsonb...) but bytea, searched as its bytes.
            names = ", ".join(
                f'"{name}"' if kind == "bytea" else f'"{name}"::text' for name, kind in described
            )
            for row in pg.execute(f'SELECT {names} FROM "{table}"'):
                for column, value in zip(columns, row, strict=True):
                    yield table, column, value


def find(store: MemoryStore, needles: Iterable[str]) -> set[tuple[str, str, str]]:
    """(table, column, needle) for every needle found in a value of the store."""
    wanted = {n.lower() for n in needles if n}
    found: set[tuple[str, str, str]] = set()
    rows = list(table_rows(store))
    dicts = dictionaries(rows)
    for table, column, value in rows:
        for text in _texts(value, dicts, f"{table}.{column}"):
            for needle in wanted:
                if needle in text:
                    found.add((table, column, needle))
    return found


def find_in_files(paths: Iterable[Path], needles: Iterable[str]) -> set[tuple[str, str]]:
    """(file name, needle) for every needle found in the raw bytes of these files."""
    found: set[tuple[str, str]] = set()
    wanted = {n.lower().encode("utf-8") for n in needles if n}
    for path in paths:
        if not path.exists():
            continue
        data = path.read_bytes().lower()
        for needle in wanted:
            if needle in data:
                found.add((path.name, needle.decode("utf-8")))
    return found
