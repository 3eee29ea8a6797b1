"""Storage contracts of the memory store: times, ids, content, JSON, archives, SQL files."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from factdiff.errors import ArchiveCorrupt, InputError
from factdiff.store import codec
from factdiff.store.dialect import load_dialect, parse_queries

NOW = datetime(2026, 3, 25, 12, 0, tzinfo=UTC)


def test_micros_round_trip_and_utc() -> None:
    paris = datetime(2026, 3, 25, 13, 0, 0, 123456, tzinfo=timezone(timedelta(hours=1)))
    back = codec.from_micros(codec.to_micros(paris))
    assert back == paris
    assert back.tzinfo is UTC


def test_naive_time_rejected() -> None:
    with pytest.raises(InputError, match="timezone-aware"):
        codec.to_micros(datetime(2026, 1, 1), "now")


def test_entry_ids_sort_by_time_and_are_unique() -> None:
    early = [codec.new_entry_id(NOW) for _ in range(100)]
    late = codec.new_entry_id(NOW + timedelta(milliseconds=1))
    assert len(set(early)) == 100
    assert all(len(i) == 26 for i in early)
    assert max(early) < late


@given(st.text())
def test_content_round_trips(text: str) -> None:
    try:
        data = codec.encode_content(text, 1 << 30)
    except InputError:
        assert any(0xD800 <= ord(c) <= 0xDFFF for c in text)
        return
    assert codec.decode_content(data) == text
    assert codec.unarchive(codec.COLD_CODEC, codec.archive(data)) == data


def test_nul_kept_surrogate_rejected_oversize_rejected() -> None:
    assert codec.decode_content(codec.encode_content("a\0b", 10)) == "a\0b"
    with pytest.raises(InputError, match="lone surrogate at character 1"):
        codec.encode_content("a\ud800", 10)
    with pytest.raises(InputError, match="over the store's limit of 3"):
        codec.encode_content("ééé", 3)


def test_content_hash_is_sha256_of_utf8() -> None:
    assert codec.content_hash(b"") == (
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    )


def test_json_is_canonical_and_strict() -> None:
    assert codec.dump_json({"b": 1, "a": "\0é"}, "x") == '{"a":"\\u0000é","b":1}'
    with pytest.raises(InputError, match="not JSON-serialisable"):
        codec.dump_json({"x": float("nan")}, "meta")
    with pytest.raises(InputError, match="not JSON-serialisable"):
        codec.dump_json({"x": object()}, "meta")
    with pytest.raises(InputError, match="NUL"):
        codec.check_text("a\0", "narrative")


def test_unarchive_rejects_garbage() -> None:
    with pytest.raises(ArchiveCorrupt, match="does not decompress"):
        codec.unarchive(codec.COLD_CODEC, b"not zlib")
    with pytest.raises(ArchiveCorrupt, match="unknown cold codec"):
        codec.unarchive("lzma", b"")


def test_parse_queries_and_filters() -> None:
    queries = parse_queries(
        "-- header\n-- name: q_page\nSELECT 1 WHERE x {filters}\n-- a comment\n"
        "-- name: filter_q_a\nAND a = :a\n-- name: filter_q_b\nAND b = :b\n"
    )
    assert queries["q_page"] == "SELECT 1 WHERE x {filters}"
    dialect = load_dialect("sqlite")
    sql = dialect.sql("events_page", entry=True, agent=False, type=True)
    assert "AND entry_id = :entry_id AND (type = :type OR then_type = :type)" in sql
    assert "{filters}" not in sql


def test_packaged_sqlite_dialect() -> None:
    dialect = load_dialect("sqlite")
    versions = [m.version for m in dialect.migrations]
    assert versions[0] == 1
    assert versions == sorted(set(versions))  # increasing; gaps are allowed
    assert dialect.version == versions[-1]
    for key, sql in dialect.queries.items():
        assert sql, key
