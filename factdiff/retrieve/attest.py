"""Attested context: which rendered context a decision was made on, checkable later.

``attest(store, decision_id, entry_ids, now=...)`` renders the entries
(``factdiff.retrieve.context``) and records, in one transaction, the decision id, the
context's hash and, per entry, its tier, schema name and version, its source's content hash
(the cold archive's, for a warm entry) and its block's hash. The rows are append-only and
carry a digest (``factdiff.attestation`` tagged hash of their canonical JSON), so an edit
behind the store's back is found by ``factdiff verify``.

Decision ids are per agent: an attestation belongs to the agent whose entries it holds
(``agent`` ``None`` when they are several agents', which only an operator can attest), and a
decision id is unique for that agent only. One agent attesting a decision id tells nothing
about, and takes nothing from, another agent's ids.

``check_attestation(store, decision_id, agent=...)`` renders the same entries again and
compares: the
context still matches, or each entry that changed is named with what changed (tier, schema
version, source, rendered text) or as erased; each source is cross-referenced with the entry's
current source (hot, or the cold archive, hash-checked on read). An entry erased through
``factdiff forget`` is reported with its tombstone (when, why, the source hash it held) and
the rest is still verified: the check's ``status`` is then ``erased``, not ``changed``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from factdiff.errors import InputError
from factdiff.retrieve.context import (
    RenderedEntry,
    assemble,
    check_ids,
    entry_view,
    render_context,
    render_entry,
)
from factdiff.retrieve.schemas import SchemaResolver
from factdiff.store import codec
from factdiff.store.attestations import (
    Attestation,
    AttestedEntry,
    DecisionAmbiguous,
    digest_of,
)
from factdiff.store.model import EntryNotFound, IntegrityError, Tier
from factdiff.values.base import JSON

if TYPE_CHECKING:
    from factdiff.store.base import MemoryStore

__all__ = [
    "Attestation",
    "AttestationCheck",
    "AttestedEntry",
    "DecisionAmbiguous",
    "EntryChange",
    "attest",
    "attestation_problems",
    "check_attestation",
    "digest_of",
    "load_attestation",
]


@dataclass(frozen=True)
class EntryChange:
    """What changed in one attested entry since the decision."""

    entry_id: str
    status: str
    """``unchanged``, ``changed`` or ``erased``."""
    changes: tuple[str, ...]
    source: str
    """The cross-reference of the attested source with the entry's current one."""
    tombstone: bool = False
    """Erased through ``factdiff forget``, its tombstone holding the attested source hash."""

    def to_json(self) -> dict[str, JSON]:
        """``{"entry_id", "status", "changes", "source", "tombstone"}``."""
        return {
            "entry_id": self.entry_id,
            "status": self.status,
            "changes": list(self.changes),
            "source": self.source,
            "tombstone": self.tombstone,
        }


@dataclass(frozen=True)
class AttestationCheck:
    """The result of re-rendering an attested context."""

    attestation: Attestation
    current_hash: str | None
    """The hash of the context rendered now (None when an entry was erased)."""
    entries: tuple[EntryChange, ...]
    intact: bool
    """The attestation's own rows still match their digest."""

    @property
    def ok(self) -> bool:
        """The context renders exactly as attested and the record is intact."""
        return self.intact and self.current_hash == self.attestation.rendered_hash

    @property
    def status(self) -> str:
        """``ok``; ``erased`` when the record is intact, every entry left is unchanged and the
        others were erased through ``factdiff forget`` (their tombstones keep the attested
        source hash): what can be verified still is; else ``changed``."""
        if self.ok:
            return "ok"
        erased = [e for e in self.entries if e.status == "erased"]
        if (
            self.intact
            and erased
            and all(e.tombstone for e in erased)
            and all(e.status in ("unchanged", "erased") for e in self.entries)
        ):
            return "erased"
        return "changed"

    def to_json(self) -> dict[str, JSON]:
        """``{"decision_id", "agent", "ok", "status", "rendered_hash", "current_hash",
        "intact", "attested_at", "entries"}``."""
        return {
            "decision_id": self.attestation.decision_id,
            "agent": self.attestation.agent,
            "ok": self.ok,
            "status": self.status,
            "rendered_hash": self.attestation.rendered_hash,
            "current_hash": self.current_hash,
            "intact": self.intact,
            "attested_at": self.attestation.attested_at.isoformat(),
            "entries": [e.to_json() for e in self.entries],
        }


def attest(
    store: MemoryStore, decision_id: str, entry_ids: Sequence[str], *, now: datetime
) -> Attestation:
    """Render ``entry_ids`` and record the attestation of ``decision_id`` for the agent whose
    entries they are (see the module); ``InputError`` if that agent attested it already."""
    decision = codec.check_text(decision_id, "decision id").strip()
    if not decision:
        raise InputError("decision id must not be empty")
    context = render_context(store, entry_ids)
    at_us = codec.to_micros(now, "now")
    entries = tuple(
        AttestedEntry(
            position,
            block.entry_id,
            block.tier,
            block.schema_name,
            block.schema_version,
            block.source_hash,
            block.hash,
        )
        for position, block in enumerate(context.entries, start=1)
    )
    digest = digest_of(decision, context.hash, at_us, entries)

    owner = store.attestations.record(decision, context.hash, at_us, entries, digest)
    return Attestation(
        decision, context.hash, codec.from_micros(at_us), entries, digest, owner or None
    )


def load_attestation(
    store: MemoryStore, decision_id: str, agent: str | None = None
) -> tuple[Attestation, bool]:
    """The stored attestation of ``decision_id`` by ``agent`` and whether its rows still
    match their digest (``factdiff.store.attestations.Attestations.load``)."""
    return store.attestations.load(decision_id, agent)


def check_attestation(
    store: MemoryStore, decision_id: str, agent: str | None = None
) -> AttestationCheck:
    """Re-render the attested entries from the store and compare (see the module); the
    decision is ``agent``'s (``None``: whichever agent holds it, as ``load_attestation``)."""
    attestation, intact = load_attestation(store, decision_id, agent)
    check_ids([e.entry_id for e in attestation.entries])
    schemas = SchemaResolver(store)
    blocks: list[RenderedEntry] = []
    changes: list[EntryChange] = []
    erased = False
    for attested in attestation.entries:
        try:
            entry = store.get(attested.entry_id)
        except EntryNotFound:
            erased = True
            changes.append(_erased(store, attested))
            continue
        block = render_entry(entry_view(store, entry, schemas))
        blocks.append(block)
        changes.append(_compare(store, attested, block))
    current = None if erased else assemble(blocks).hash
    return AttestationCheck(attestation, current, tuple(changes), intact)


def _erased(store: MemoryStore, attested: AttestedEntry) -> EntryChange:
    """An attested entry that no longer exists: erased with a tombstone, or gone without."""
    stone = store.tombstone(attested.entry_id)
    if stone is None:
        return EntryChange(attested.entry_id, "erased", ("the entry no longer exists",), "gone")
    why = f" ({stone.reason})" if stone.reason else ""
    change = f"erased at {stone.erased_at.isoformat()}{why}"
    if stone.content_hash != attested.source_hash:
        source = f"erased; its tombstone holds {stone.content_hash}, not {attested.source_hash}"
        return EntryChange(attested.entry_id, "erased", (change,), source)
    source = f"erased; its tombstone holds the attested source hash {attested.source_hash}"
    return EntryChange(attested.entry_id, "erased", (change,), source, tombstone=True)


def _compare(store: MemoryStore, attested: AttestedEntry, block: RenderedEntry) -> EntryChange:
    changes = []
    if block.tier != attested.tier:
        changes.append(f"tier {attested.tier} -> {block.tier}")
    if (block.schema_name, block.schema_version) != (attested.schema_name, attested.schema_version):
        changes.append(
            f"schema {attested.schema_name} v{attested.schema_version} -> "
            f"{block.schema_name} v{block.schema_version}"
        )
    if block.source_hash != attested.source_hash:
        changes.append(f"source hash {attested.source_hash} -> {block.source_hash}")
    if block.hash != attested.rendered_hash:
        changes.append("rendered text changed")
    source = _cross_reference(store, attested, block)
    status = "changed" if changes else "unchanged"
    return EntryChange(attested.entry_id, status, tuple(changes), source)


def _cross_reference(store: MemoryStore, attested: AttestedEntry, block: RenderedEntry) -> str:
    """Whether the entry's current source (the cold archive when warm) is the attested one."""
    where = "cold archive" if block.tier == Tier.WARM.value else "hot source"
    if block.tier == Tier.WARM.value:
        try:
            store.read_cold(block.entry_id)
        except IntegrityError as exc:
            return f"{where} is corrupt: {exc}"
    if block.source_hash == attested.source_hash:
        return f"{where} matches the attested source {attested.source_hash}"
    return f"{where} is {block.source_hash}, not the attested {attested.source_hash}"


def attestation_problems(store: MemoryStore) -> list[str]:
    """For ``verify``: attestations whose rows were altered, or whose entries or sources are
    gone (``factdiff.store.attestations.Attestations.problems``)."""
    return store.attestations.problems()
