"""The compact encodings of warm records and attempt diffs: exact round trips, smaller than JSON."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from factdiff import extract
from factdiff.schema.model import FactSchema
from factdiff.store import codec, compact
from tests.conftest import worked

SOURCE = worked("source")
HASH = "sha256:" + "ab" * 32
MOMENT = datetime(2026, 4, 1, 12, 0, tzinfo=UTC)
KEYS = ["spans", "text", "value", "k", "~x"]


def record_of(text: str, schema: FactSchema) -> dict[str, Any]:
    return extract(text, schema).to_json()


def test_worked_example_record_round_trips_without_its_surface_texts(
    customer_service: FactSchema,
) -> None:
    record = record_of(SOURCE, customer_service)
    packed = compact.pack_record(record, SOURCE)
    assert compact.unpack_record(packed, SOURCE) == record
    plain = codec.dump_json(record, "record").encode()
    assert len(packed) < len(plain) * 0.7
    assert len(codec.zstd_compress(packed)) < len(plain) / 3
    assert b"Marcus Chen" in plain
    assert b"Marcus Chen" not in packed  # the surface text is read back from the source


def test_unpacking_needs_the_same_source(customer_service: FactSchema) -> None:
    record = record_of(SOURCE, customer_service)
    packed = compact.pack_record(record, SOURCE)
    other = SOURCE.replace("Marcus Chen", "Marcia Chan")
    assert compact.unpack_record(packed, other) != record


def test_record_that_does_not_quote_its_source_is_kept_verbatim() -> None:
    record = {"fields": {"x": [{"spans": [[0, 3]], "text": "not the source", "value": 1}]}}
    packed = compact.pack_record(record, "abcdef")
    assert compact.unpack_record(packed, "abcdef") == record


def test_nul_strings_and_unknown_keys_round_trip() -> None:
    record = {
        "fields": {"f": [{"spans": [[0, 2]], "text": "ab", "v": "\0ab", "~odd": "ab"}]},
        "\0key": ["\0", "\0\0"],
    }
    assert compact.unpack_record(compact.pack_record(record, "abc"), "abc") == record


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=6),
        lambda inner: (
            st.lists(inner, max_size=3)
            | st.dictionaries(
                st.sampled_from(["spans", "text", "value", "k", "~x"]), inner, max_size=3
            )
        ),
        max_leaves=12,
    ),
    st.text(max_size=12),
)
def test_any_json_round_trips(data: Any, source: str) -> None:
    record = {"fields": data}
    assert compact.unpack_record(compact.pack_record(record, source), source) == record


def test_corrupt_compact_record_is_an_error() -> None:
    with pytest.raises(compact.CompactError):
        compact.unpack_record(b"\xff", "x")
    with pytest.raises(compact.CompactError):
        compact.unpack_record(b'{"zz":1}', "x")


def test_attempt_diff_drops_summary_values_equal_to_the_source() -> None:
    kept = {"criticality": "critical", "field": "a", "verdict": "kept"}
    diff = {
        "added": [],
        "changed": [],
        "fields": [
            {**kept, "source_values": ["1 USD"], "summary_values": ["1 USD"]},
            {**kept, "source_values": ["x"], "summary_values": ["X"]},
            {"field": "b", "verdict": "missing", "source_values": ["2"], "summary_values": []},
        ],
    }
    packed = compact.pack_diff(diff)
    assert compact.unpack_diff(packed) == diff
    assert "1 USD" in json.dumps(packed)
    assert json.dumps(packed).count("1 USD") == 1
    assert len(json.dumps(packed)) < len(json.dumps(diff)) * 0.7


@pytest.mark.parametrize(
    "diff",
    [
        {"fields": [{"verdict": "kept", "source_values": ["1"]}]},  # no summary values at all
        {"missing": ["amount"], "changed": []},
        "not a dict",
        {"~": 1},
    ],
)
def test_attempt_diffs_of_any_shape_round_trip(diff: Any) -> None:
    assert compact.unpack_diff(compact.pack_diff(diff)) == diff


def test_warm_index_hashes_are_fingerprints() -> None:
    digest = "sha256:" + "0f" * 32
    other = "sha256:0e" + "0f" * 31
    assert codec.fingerprint(digest) == bytes.fromhex("0f" * 8)
    assert codec.digest_matches(codec.fingerprint(digest), digest)
    assert not codec.digest_matches(codec.fingerprint(digest), other)
    assert codec.digest_matches(memoryview(codec.fingerprint(digest)), digest)
    assert not codec.digest_matches(bytes.fromhex("0f" * 32), digest)  # a whole SHA-256
    assert not codec.digest_matches(digest, digest)  # text
    assert not codec.digest_matches(None, digest)
    for bad in ("not a digest", "sha256:" + "zz" * 32):
        with pytest.raises(ValueError, match=r"digest|hex"):
            codec.fingerprint(bad)


def test_a_diff_packed_again_gets_the_same_form_and_a_changed_one_its_own() -> None:
    diff: dict[str, Any] = {
        "fields": [{"field": "amount", "verdict": "kept", "source_values": ["$5"]}],
        "missing": [],
    }
    first = compact.pack_diff(diff)
    assert compact.pack_diff(json.loads(json.dumps(diff))) is first  # an equal copy
    diff["missing"] = ["amount"]  # changed after it was packed: packed anew
    again = compact.pack_diff(diff)
    assert again is not first
    assert compact.unpack_diff(again) == diff
    not_json = {"x": float("nan")}
    assert set(compact.unpack_diff(compact.pack_diff(not_json))) == {"x"}  # not remembered
    assert compact.pack_diff(diff) is again
