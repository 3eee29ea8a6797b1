"""How values are stored: times, ids, content bytes and hashes, JSON, cold archives.

Contracts (shared by every backend):

* times are timezone-aware datetimes, stored as integer microseconds since the Unix epoch (UTC);
  an entry's ``occurred_at`` also keeps the UTC offset it was given with (minutes, its own
  column), so its local date is the one the user meant; every time written lies from
  ``TIME_MIN`` to ``TIME_MAX`` (``factdiff.inputs.times``), and a stored value outside them
  (written before they were checked) still reads back, never raising;
* entry ids are 26-character ULIDs (Crockford base32) whose time part comes from the ``now``
  given to ``add``: they sort by creation time, then randomly;
* content is stored as its UTF-8 bytes, so NUL characters round-trip; lone surrogates cannot
  be encoded and are rejected;
* a content hash is ``sha256:`` + the hex SHA-256 of the UTF-8 bytes;
* JSON is canonical (sorted keys, no spaces, no NaN) UTF-8 text;
* a cold archive is a zstd frame (level 19) of the content bytes, made with the agent's
  latest zstd dictionary when it has one (``source_dictionary_id`` on the warm row);
* a warm row keeps the hashes of its narrative and record as fingerprints (``fingerprint``).
"""

from __future__ import annotations

import hashlib
import json
import math
import secrets
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from typing import Any, TypeVar

import zstandard

from factdiff.errors import ArchiveCorrupt, InputError
from factdiff.inputs.times import MAX_DURATION, check_time

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_EARLIEST = datetime.min.replace(tzinfo=UTC)
_FARTHEST = datetime.max.replace(tzinfo=UTC)
_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
COLD_CODEC = "zstd"
ZSTD_LEVEL = 19
"""The zstd level of archives, warm records and narratives (any level reads alike). Level 12
takes a fourth to a sixth of the CPU, but its frames are 0.6-2.8% bigger (tau-retail's
records 10%): on the dev data tau-retail's PostgreSQL store then no longer shrinks on
demotion, for about 2% of a demotion's CPU."""
CodecDictionary = zstandard.ZstdCompressionDict
T = TypeVar("T")


def to_micros(moment: datetime, what: str = "time") -> int:
    """Microseconds since the epoch of a timezone-aware datetime from ``TIME_MIN`` to
    ``TIME_MAX`` (else ``InputError``: see ``factdiff.inputs.times``)."""
    return (check_time(moment, what) - _EPOCH) // timedelta(microseconds=1)


def opt_micros(moment: datetime | None, what: str = "time") -> int | None:
    """``to_micros`` that lets ``None`` through."""
    return None if moment is None else to_micros(moment, what)


def from_micros(micros: int) -> datetime:
    """Inverse of ``to_micros``: a UTC datetime. A stored value beyond what ``datetime``
    holds (written before times were checked) reads as its nearest end, never raising."""
    try:
        return _EPOCH + timedelta(microseconds=micros)
    except OverflowError:
        return _FARTHEST if micros > 0 else _EARLIEST


def opt_datetime(micros: int | None) -> datetime | None:
    """``from_micros`` that lets ``None`` through."""
    return None if micros is None else from_micros(micros)


def duration_micros(duration: float | timedelta, what: str) -> int:
    """Microseconds of a duration (seconds or a timedelta) of at most ``MAX_DURATION`` either
    way (else ``InputError``): what a lease or a window adds to a stored time."""
    seconds = duration.total_seconds() if isinstance(duration, timedelta) else float(duration)
    if not abs(seconds) <= MAX_DURATION:
        raise InputError(f"{what} must be at most 36500d (got {seconds:g}s)")
    if isinstance(duration, timedelta):
        return duration // timedelta(microseconds=1)
    return round(seconds * 1_000_000)


def offset_minutes(moment: datetime | None, what: str = "time") -> int | None:
    """Minutes east of UTC of a timezone-aware datetime (None for None); an offset with
    seconds is ``InputError`` (the store keeps whole minutes)."""
    if moment is None:
        return None
    offset = moment.utcoffset()
    if offset is None:
        return None
    if offset % timedelta(minutes=1):
        raise InputError(
            f"{what} {moment.isoformat()} has a UTC offset with seconds: give whole minutes"
        )
    return offset // timedelta(minutes=1)


def local_datetime(micros: int | None, offset: int | None) -> datetime | None:
    """``from_micros`` in the offset it was given with (UTC when the offset is unknown).

    Made from the local wall time, so a value stored before times were checked reads back
    as given even where its UTC instant is beyond ``datetime`` (``0001-01-01T00:00+14:00``);
    a value that cannot be shown in its offset reads as ``from_micros`` does."""
    if micros is None:
        return None
    if offset:
        try:
            zone = timezone(timedelta(minutes=offset))
            wall = _EPOCH + timedelta(microseconds=micros, minutes=offset)
        except (OverflowError, ValueError):
            return from_micros(micros)
        return wall.replace(tzinfo=zone)
    return from_micros(micros)


def new_entry_id(now: datetime) -> str:
    """A ULID: 48 bits of milliseconds from ``now`` and a random part, in Crockford base32."""
    return new_entry_ids(now, 1)[0]


def new_entry_ids(now: datetime, count: int) -> list[str]:
    """``count`` ULIDs from ``now`` that sort in the order given (a bulk load keeps its order).

    The first has a random 79-bit part; each next one adds 1 to it (monotonic ULIDs), so the
    ids of one batch never collide with each other and cannot overflow into the time part.
    """
    millis = max(0, to_micros(now, "now") // 1000) & ((1 << 48) - 1)
    first = (millis << 80) | secrets.randbits(79)
    return [_crockford(first + i) for i in range(count)]


def _crockford(value: int) -> str:
    chars = []
    for _ in range(26):
        chars.append(_CROCKFORD[value & 31])
        value >>= 5
    return "".join(reversed(chars))


def encode_content(content: str, max_bytes: int) -> bytes:
    """The UTF-8 bytes of ``content``; rejects lone surrogates and oversized entries."""
    try:
        data = content.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(
            f"entry content has a lone surrogate at character {exc.start}: "
            "decode the source with errors='replace' or fix it"
        ) from None
    if len(data) > max_bytes:
        raise InputError(
            f"entry content is {len(data)} bytes, over the store's limit of {max_bytes}: "
            "split it into several entries"
        )
    return data


def decode_content(data: bytes) -> str:
    """Inverse of ``encode_content``."""
    return bytes(data).decode("utf-8")


def content_hash(data: bytes) -> str:
    """``sha256:<hex>`` of the content's UTF-8 bytes."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


FINGERPRINT_BYTES = 8
"""How much of a SHA-256 a warm row keeps as a fingerprint."""


def fingerprint(digest: str) -> bytes:
    """The first ``FINGERPRINT_BYTES`` of a ``sha256:<hex>`` digest: what a warm row keeps of
    the hashes of its narrative and record. They tell that a narrative or record changed
    behind the store's back; no hash in the same row stops someone who rewrites it too, and a
    chance change matches 8 bytes once in 2^64."""
    if not (digest.startswith("sha256:") and len(digest) == 71):
        raise ValueError(f"not a sha256 digest: {digest[:80]!r}")
    return bytes.fromhex(digest[7:])[:FINGERPRINT_BYTES]


def digest_matches(stored: Any, digest: str) -> bool:
    """Whether a stored fingerprint is the one of ``digest`` (``sha256:<hex>``)."""
    return isinstance(stored, bytes | memoryview) and bytes(stored) == fingerprint(digest)


def check_text(text: str, what: str) -> str:
    """Reject NUL and lone surrogates in text columns (portable to PostgreSQL TEXT)."""
    if "\0" in text:
        raise InputError(f"{what} contains a NUL character: remove it before storing")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(f"{what} has a lone surrogate at character {exc.start}") from None
    return text


def dump_json(data: Any, what: str) -> str:
    """Canonical JSON text; raises ``InputError`` for values JSON cannot hold."""
    try:
        text = json.dumps(
            data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
        )
    except (TypeError, ValueError) as exc:
        raise InputError(f"{what} is not JSON-serialisable: {exc}") from None
    return check_text(text, what)


def load_json(text: str) -> Any:
    """Inverse of ``dump_json``."""
    return json.loads(text)


def archive(data: bytes, dictionary: CodecDictionary | None = None) -> bytes:
    """The cold form of content bytes (a zstd frame, with ``dictionary`` if given),
    verified to decompress back to them."""
    packed = zstd_compress(data, dictionary)
    if unarchive(COLD_CODEC, packed, dictionary) != data:  # pragma: no cover - lossless
        raise InputError("cold archive did not round-trip")
    return packed


def unarchive(codec: str, packed: bytes, dictionary: CodecDictionary | None = None) -> bytes:
    """Inverse of ``archive``; raises ``ArchiveCorrupt`` (a ``ValueError``) on an unknown
    codec, a broken stream or a missing dictionary."""
    if codec != COLD_CODEC:
        raise ArchiveCorrupt(f"unknown cold codec {codec!r}")
    try:
        return zstd_decompress(packed, dictionary)
    except ValueError as exc:
        raise ArchiveCorrupt(str(exc)) from None


def zstd_compress(
    data: bytes, dictionary: CodecDictionary | None = None, level: int = ZSTD_LEVEL
) -> bytes:
    """A zstd frame of ``data`` (its size written in the header)."""
    return _CODECS.compressor(dictionary, level).compress(data)


def zstd_decompress(packed: bytes, dictionary: CodecDictionary | None = None) -> bytes:
    """Inverse of ``zstd_compress``; ``ValueError`` if the frame is broken or needs a
    dictionary other than ``dictionary``."""
    try:
        return _CODECS.decompressor(dictionary).decompress(bytes(packed))
    except zstandard.ZstdError as exc:
        raise ValueError(f"zstd frame does not decompress: {exc}") from None


class _Codecs(threading.local):
    """This thread's zstd compressors (one per dictionary and level) and decompressors
    (one per dictionary).

    Making a level-19 compressor (and loading a dictionary into it) costs about a
    millisecond, far more than compressing a short text with it; zstd contexts are not
    thread-safe, so each thread keeps its own. A cached context holds its dictionary, so
    the ``id`` it is keyed by cannot be reused while it is cached.
    """

    LIMIT = 64

    def __init__(self) -> None:
        self.compressors: dict[int, dict[int, tuple[object, zstandard.ZstdCompressor]]] = {}
        self.decompressors: dict[int, tuple[object, zstandard.ZstdDecompressor]] = {}

    def compressor(
        self, dictionary: CodecDictionary | None, level: int
    ) -> zstandard.ZstdCompressor:
        def make() -> zstandard.ZstdCompressor:
            if dictionary is None:
                return zstandard.ZstdCompressor(level=level)
            return zstandard.ZstdCompressor(level=level, dict_data=dictionary)

        return _cached(self.compressors.setdefault(level, {}), dictionary, make)

    def decompressor(self, dictionary: CodecDictionary | None) -> zstandard.ZstdDecompressor:
        def make() -> zstandard.ZstdDecompressor:
            if dictionary is None:
                return zstandard.ZstdDecompressor()
            return zstandard.ZstdDecompressor(dict_data=dictionary)

        return _cached(self.decompressors, dictionary, make)


def _cached(
    cache: dict[int, tuple[object, T]], dictionary: CodecDictionary | None, make: Callable[[], T]
) -> T:
    """The context of ``cache`` for ``dictionary``, made (and cached) if missing; the cache
    is emptied first when it holds ``_Codecs.LIMIT`` contexts."""
    found = cache.get(id(dictionary))
    if found is not None and found[0] is dictionary:
        return found[1]
    if len(cache) >= _Codecs.LIMIT:
        cache.clear()
    made = make()
    cache[id(dictionary)] = (dictionary, made)
    return made


_CODECS = _Codecs()


def finite_float(value: float, what: str) -> float:
    """A finite float, or ``InputError``."""
    if not math.isfinite(value):
        raise InputError(f"{what} must be a finite number (got {value})")
    return float(value)
