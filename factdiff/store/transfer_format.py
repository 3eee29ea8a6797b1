"""The export format of ``factdiff export``: JSON Lines, a header then one record per line.

The first line is the header::

    {"agent":null,"backend":"sqlite","counts":{"attempt":12,...},"format":"factdiff-export",
     "schema_version":1,"type":"header","version":1}

``counts`` holds every record type's count (0 included), so a reader knows the file is whole.
Every other line is one record: ``{"type": <family>, <column>: <value>...}``, its keys sorted,
compact separators, UTF-8. The families (``FAMILIES``), in file order: ``identity``,
``schema``, ``agent_schema``, ``api_key``, ``dictionary``, ``entry``, ``hot_record`` (a hot
entry's stored fact record, which an import indexes instead of extracting it again),
``source_fetch``, ``attempt``, ``model_call``, ``reevaluation``, ``tombstone``, ``event``,
``attestation``, ``attestation_entry``, ``extraction``. Times are integer microseconds since
the epoch (UTC), as the store keeps them; binary columns are standard base64; stored JSON text
(metadata, tags, diffs, payloads) is kept as the string it is, byte for byte.

Store-specific ids are not exported: dictionaries are named by ``(agent, version)`` and
identities by ``(kind, value)``, and the rows of autoincrement tables (attempts, model calls,
re-evaluations, dictionaries, identities) are written in their id order, which an import
keeps. Events keep their ids (the event cursor). ``docs/export-format.md`` is the reference.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from factdiff.errors import InputError
from factdiff.store.database import Row

FORMAT = "factdiff-export"
VERSION = 1
"""The format version this factdiff writes and reads."""
INT_MIN = -(2**63)
"""The start of an integer page key (below every stored value)."""

__all__ = [
    "FAMILIES",
    "FORMAT",
    "VERSION",
    "BadExportFile",
    "Family",
    "Scope",
    "StoreNotEmpty",
    "decode_record",
    "encode_record",
    "header_record",
    "read_header",
    "render",
]


class BadExportFile(InputError):
    """An import file that is not a whole export this factdiff reads: truncated, damaged, or
    of another format or version."""


class StoreNotEmpty(InputError):
    """An import into a store that already holds records (it would overwrite them)."""


class Scope(StrEnum):
    """Which of a family's rows ``export --agent A`` writes."""

    AGENT = "agent"
    """Only the agent's rows."""
    ALL = "all"
    """Every row (store-wide records an agent's entries need, such as schemas)."""
    WHOLE_STORE = "whole_store"
    """None: the family is exported only with the whole store."""


@dataclass(frozen=True)
class Family:
    """A record type: the table(s) it comes from, its page key and its inserts.

    ``columns`` are the record's keys (besides ``type``), named as the page statement
    ``transfer_<name>_page`` names them; ``key`` the page key with each column's start value
    (columns not in ``columns`` are store ids used only to page); ``inserts`` the statements
    that write a record, each with the column that must not be null for it to run (``None``:
    always); ``repeat``, the column saying how many times they run.
    """

    name: str
    columns: tuple[str, ...]
    key: tuple[tuple[str, str | int], ...]
    inserts: tuple[tuple[str, str | None], ...] = ()
    blobs: frozenset[str] = frozenset()
    ints: frozenset[str] = frozenset()
    floats: frozenset[str] = frozenset()
    scope: Scope = Scope.AGENT
    repeat: str | None = None
    keys: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "keys", frozenset(self.columns) | {"type"})

    @property
    def insert_statements(self) -> tuple[tuple[str, str | None], ...]:
        """``inserts``, or the family's one ``transfer_<name>_insert``."""
        return self.inserts or ((f"transfer_{self.name}_insert", None),)


def _family(
    name: str,
    columns: str,
    key: tuple[tuple[str, str | int], ...],
    *,
    blobs: str = "",
    ints: str = "",
    floats: str = "",
    inserts: tuple[tuple[str, str | None], ...] = (),
    scope: Scope = Scope.AGENT,
    repeat: str | None = None,
) -> Family:
    return Family(
        name,
        tuple(columns.split()),
        key,
        blobs=frozenset(blobs.split()),
        ints=frozenset(ints.split()),
        floats=frozenset(floats.split()),
        inserts=inserts,
        scope=scope,
        repeat=repeat,
    )


_BY_ID = (("id", INT_MIN),)
_ENTRY_COLUMNS = (
    "id agent_id tier status occurred_at created_at last_used_at metadata schema_name tags "
    "content_hash size_bytes attempt_count next_attempt_at occurred_offset error_attempts "
    "error_streak content warm_narrative warm_record warm_meta warm_attempt_no "
    "warm_compressed_at warm_encoding warm_dictionary_agent warm_dictionary_version "
    "warm_identity_kind warm_identity_value warm_facts_digest warm_narrative_hash "
    "warm_record_hash warm_narrative_keys cold_codec cold_dictionary_agent "
    "cold_dictionary_version cold_source kept_at kept_key_name kept_reason"
)

FAMILIES: tuple[Family, ...] = (
    _family("identity", "kind value", _BY_ID, scope=Scope.ALL),
    _family(
        "schema",
        "name version hash definition source_text registered_at",
        (("name", ""), ("version", INT_MIN)),
        ints="version registered_at",
        scope=Scope.ALL,
    ),
    _family("agent_schema", "agent_id tag schema_name", (("agent_id", ""), ("tag", ""))),
    _family(
        "api_key",
        "name scope agent_id key_hash created_at revoked_at",
        (("name", ""),),
        ints="created_at revoked_at",
    ),
    _family(
        "dictionary",
        "agent_id version hash data trained_on created_at",
        _BY_ID,
        blobs="hash data trained_on",
        ints="version created_at",
    ),
    _family(
        "entry",
        _ENTRY_COLUMNS,
        (("id", ""),),
        inserts=(
            ("transfer_entry_insert", None),
            ("transfer_hot_insert", "content"),
            ("transfer_warm_insert", "warm_narrative"),
            ("transfer_kept_insert", "kept_at"),
        ),
        blobs="content warm_narrative warm_record warm_meta warm_facts_digest "
        "warm_narrative_hash warm_record_hash warm_narrative_keys cold_source",
        ints="occurred_at created_at last_used_at size_bytes attempt_count next_attempt_at "
        "occurred_offset error_attempts error_streak warm_attempt_no warm_compressed_at "
        "warm_encoding warm_dictionary_version cold_dictionary_version kept_at",
    ),
    _family("hot_record", "entry_id record", (("entry_id", ""),), blobs="record"),
    _family(
        "source_fetch",
        "entry_id at times",
        (("entry_id", ""), ("at", INT_MIN)),
        ints="at times",
        repeat="times",
    ),
    _family(
        "attempt",
        "entry_id attempt_no rung budget_words outcome diff summary started_at finished_at "
        "duration_ms tokens_in tokens_out cost_usd error schema_hash failure_class must_keep "
        "packed identity_kind identity_value",
        _BY_ID,
        blobs="packed",
        ints="attempt_no rung budget_words started_at finished_at tokens_in tokens_out",
        floats="duration_ms",
    ),
    _family(
        "model_call",
        "entry_id attempt_no role model outcome http_calls tokens_in tokens_out cost_usd "
        "duration_ms at",
        _BY_ID,
        ints="attempt_no http_calls tokens_in tokens_out at",
        floats="duration_ms",
    ),
    _family(
        "reevaluation",
        "entry_id agent_id schema_name from_version to_version status result fields diff "
        "enqueued_at finished_at",
        _BY_ID,
        ints="from_version to_version enqueued_at finished_at",
    ),
    _family(
        "tombstone",
        "entry_id agent_id tier erased_at reason content_hash",
        (("entry_id", ""),),
        ints="erased_at",
    ),
    _family(
        "event",
        "id event_type entry_id agent_id at payload packed then_type then_payload then_packed",
        _BY_ID,
        blobs="packed then_packed",
        ints="id at",
    ),
    _family(
        "attestation",
        "decision_id agent_id rendered_hash digest attested_at",
        (("decision_id", ""), ("agent_id", "")),
        ints="attested_at",
    ),
    _family(
        "attestation_entry",
        "decision_id agent_id position entry_id tier schema_name schema_version source_hash "
        "rendered_hash",
        (("decision_id", ""), ("agent_id", ""), ("position", INT_MIN)),
        ints="position schema_version",
    ),
    _family(
        "extraction",
        "content_hash schema_hash extractor_id record",
        (("content_hash", ""), ("schema_hash", ""), ("extractor_id", "")),
        scope=Scope.WHOLE_STORE,
    ),
)
"""Every record family, in the order an export writes them (an import needs it)."""

BY_NAME: Mapping[str, Family] = {family.name: family for family in FAMILIES}
ORDER: Mapping[str, int] = {family.name: index for index, family in enumerate(FAMILIES)}


def render(record: Mapping[str, object]) -> str:
    """One line of the file: ``record`` as compact JSON with sorted keys, and a newline."""
    text = json.dumps(
        record, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False
    )
    return text + "\n"


def header_record(
    backend: str, schema_version: int, agent: str | None, counts: Mapping[str, int]
) -> dict[str, object]:
    """The header: format, version, source backend and schema version, agent, counts."""
    return {
        "type": "header",
        "format": FORMAT,
        "version": VERSION,
        "backend": backend,
        "schema_version": schema_version,
        "agent": agent,
        "counts": {family.name: int(counts[family.name]) for family in FAMILIES},
    }


def encode_record(family: Family, row: Row) -> dict[str, object]:
    """A page row as its record (binary columns in base64)."""
    record: dict[str, object] = {"type": family.name}
    for column in family.columns:
        value = row[column]
        if value is not None and column in family.blobs:
            value = base64.b64encode(bytes(value)).decode("ascii")
        elif value is not None and column in family.floats:
            value = float(value)
        record[column] = value
    return record


def decode_record(family: Family, record: Mapping[str, object], line: int) -> dict[str, object]:
    """A record's insert parameters; ``BadExportFile`` naming ``line`` when a key is missing
    or unknown or a value has the wrong type."""
    if record.keys() != family.keys:
        odd = sorted(record.keys() ^ family.keys)
        raise BadExportFile(
            f"line {line}: a {family.name} record with missing or unknown keys {odd}: "
            "the file is damaged; export the store again"
        )
    params: dict[str, object] = {}
    for column in family.columns:
        params[column] = _value(family, column, record[column], line)
    return params


def _value(family: Family, column: str, value: object, line: int) -> object:
    if value is None:
        return None
    if column in family.blobs:
        if isinstance(value, str):
            try:
                return base64.b64decode(value.encode("ascii"), validate=True)
            except (binascii.Error, UnicodeEncodeError):
                pass
    elif column in family.ints:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif column in family.floats:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    elif isinstance(value, str):
        return value
    raise BadExportFile(
        f"line {line}: {family.name} {column} has a value of the wrong type: "
        "the file is damaged; export the store again"
    )


def read_header(record: object, schema_version: int) -> dict[str, int]:
    """The counts of a header for a store at ``schema_version``; ``BadExportFile`` for a
    line that is no header, another format, another version or another schema version."""
    if not isinstance(record, dict) or record.get("type") != "header":
        raise BadExportFile(
            "the file does not start with an export header: give a file `factdiff export` wrote"
        )
    if record.get("format") != FORMAT:
        raise BadExportFile(
            f"the file's format is {record.get('format')!r}, not {FORMAT!r}: "
            "give a file `factdiff export` wrote"
        )
    if record.get("version") != VERSION:
        raise BadExportFile(
            f"the file is export format version {record.get('version')!r}; this factdiff "
            f"reads version {VERSION}: import it with the factdiff that exported it"
        )
    if record.get("schema_version") != schema_version:
        raise BadExportFile(
            f"the file was exported from store schema version "
            f"{record.get('schema_version')!r}, this store is at {schema_version}: "
            "migrate the source store and export it again with this factdiff"
        )
    counts = record.get("counts")
    if not isinstance(counts, dict) or set(counts) != set(BY_NAME):
        raise BadExportFile(
            "the header's record counts are missing or incomplete: the file is damaged; "
            "export the store again"
        )
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in counts.values()):
        raise BadExportFile("the header's record counts are not counts: export the store again")
    return {str(name): int(count) for name, count in counts.items()}
