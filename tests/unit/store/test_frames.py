"""Primed frames of packed attempts and events: round trip, size, refusals."""

from __future__ import annotations

import pytest
import zstandard

from factdiff.store import frames

DEMOTED = b'[{"known_gaps":[],"lost":[],"summarizer":"extractive"}]'
CLEAN = (
    b'[{"rung":0},{"ad":[],"ch":[],"f":[],"ms":[],"sh":{"h":"sha256:'
    + b"e80c0c67ca702efd77b9ab022042be21e26ca08ec437511a10927abf5b36f8b9"
    + b'","n":"generic","ve":1}}]'
)
PLAIN = zstandard.ZstdCompressor(level=19).compress(CLEAN)
"""A plain zstd frame: not a primed one."""


@pytest.mark.parametrize("data", [b"", DEMOTED, CLEAN, "caf\u00e9 \u2603".encode() * 50])
def test_pack_round_trips(data: bytes) -> None:
    packed = frames.pack(data)
    assert packed.startswith(frames.TAG)
    assert frames.unpack(packed) == data


def test_primed_frames_are_smaller_than_plain_ones_and_than_the_json() -> None:
    for data in (DEMOTED, CLEAN):
        plain = zstandard.ZstdCompressor(level=19).compress(data)
        assert len(frames.pack(data)) < len(plain) - 20
    assert len(frames.pack(DEMOTED)) < len(DEMOTED) / 2


@pytest.mark.parametrize("bad", [b"", b"{}", frames.TAG + b"\x00\x01garbage", PLAIN])
def test_unpack_refuses_what_is_not_a_frame(bad: bytes) -> None:
    with pytest.raises(ValueError, match="frame"):
        frames.unpack(bad)
