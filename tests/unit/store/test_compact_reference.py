"""The compact encodings give the very bytes of their first, plain implementation (kept
here as the reference): the faster walks change no stored byte."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from factdiff import extract
from factdiff.schema.model import FactSchema
from factdiff.store import compact
from tests.conftest import worked

MARK = "\0"


def ref_key(key: str) -> str:
    return compact._KEYS.get(key, "~" + key)


def ref_surface(node: dict[str, Any], source: str, outer: str | None) -> str | None:
    spans = node.get("spans")
    if isinstance(spans, list) and spans:
        first = spans[0]
        if (
            isinstance(first, list)
            and len(first) == 2
            and all(isinstance(i, int) for i in first)
            and 0 <= first[0] <= first[1] <= len(source)
        ):
            return source[first[0] : first[1]]
    return outer


def ref_pack(node: Any, source: str, surface: str | None) -> Any:
    if isinstance(node, str):
        if surface is not None and node == surface:
            return MARK
        return MARK + node if node.startswith(MARK) else node
    if isinstance(node, list):
        return [ref_pack(item, source, surface) for item in node]
    if isinstance(node, dict):
        inner = ref_surface(node, source, surface)
        return {
            ref_key(k): ref_pack(v, source, inner)
            for k, v in node.items()
            if not (k == "text" and inner is not None and v == inner and "spans" in node)
        }
    return node


def ref_unpack(node: Any, source: str, surface: str | None) -> Any:
    if isinstance(node, str):
        if node == MARK:
            assert surface is not None
            return surface
        return node[1:] if node.startswith(MARK) else node
    if isinstance(node, list):
        return [ref_unpack(item, source, surface) for item in node]
    if isinstance(node, dict):
        out = {compact._unkey(k): v for k, v in node.items()}
        inner = ref_surface(out, source, surface)
        result = {k: ref_unpack(v, source, inner) for k, v in out.items()}
        if "spans" in result and inner is not None and "text" not in result and result["spans"]:
            result["text"] = inner
        return result
    return node


def ref_keys_only(node: Any, unkey: bool) -> Any:
    if isinstance(node, list):
        return [ref_keys_only(item, unkey) for item in node]
    if isinstance(node, dict):
        return {
            (compact._unkey(k) if unkey else ref_key(k)): ref_keys_only(v, unkey)
            for k, v in node.items()
        }
    return node


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet="ab\0 ", max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["spans", "text", "value", "k", "~x", "verdict", "fields"]),
            inner,
            max_size=4,
        )
        | st.builds(
            lambda start, length, rest: {"spans": [[start, start + length]], **rest},
            st.integers(0, 4),
            st.integers(0, 3),
            st.dictionaries(st.sampled_from(["text", "value", "roles"]), inner, max_size=3),
        )
    ),
    max_leaves=16,
)


@settings(max_examples=300)
@given(JSON, st.text(alphabet="ab\0 ", max_size=8))
def test_record_walks_match_the_reference(data: Any, source: str) -> None:
    packed = compact._pack(data, source, None)
    assert compact._dump(packed) == compact._dump(ref_pack(data, source, None))
    reread = json.loads(compact._dump(packed).decode("utf-8"))
    try:
        expected = ref_unpack(reread, source, None)
    except AssertionError:
        return  # the reference refuses it too (a marker outside any fact)
    assert compact._unpack(reread, source, None) == expected


@settings(max_examples=300)
@given(JSON)
def test_diff_walks_match_the_reference(data: Any) -> None:
    short = compact._keys_only(data, unkey=False)
    assert compact._dump(short) == compact._dump(ref_keys_only(data, unkey=False))
    assert compact._keys_only(short, unkey=True) == ref_keys_only(short, unkey=True)


def test_a_real_record_packs_to_the_reference_bytes(customer_service: FactSchema) -> None:
    source = worked("source")
    record = extract(source, customer_service).to_json()
    assert compact.pack_record(record, source) == compact._dump(ref_pack(record, source, None))
