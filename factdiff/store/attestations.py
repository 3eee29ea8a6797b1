"""Attestations as stored: their record types, their rows, and their checks for ``verify``.

An attestation (``factdiff.retrieve.attest``) records which rendered context a decision was
made on: the decision id, the agent whose entries it holds (``''`` for several agents'), the
context's hash and, per entry, what it was rendered from. ``Attestations`` is the store's
read model and writer of those rows (``*attestation*`` statements): ``record`` writes one in
a transaction (refusing a decision id its agent attested already), ``load`` reads one back
with whether its rows still match their digest, ``problems`` lists what ``factdiff verify``
reports. Rendering and comparing contexts stay in ``factdiff.retrieve``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from factdiff.errors import InputError
from factdiff.schema.model import tagged_digest
from factdiff.store import codec
from factdiff.store.database import Database
from factdiff.store.model import EntryNotFound, Tombstone
from factdiff.values.base import JSON

__all__ = [
    "Attestation",
    "Attestations",
    "AttestedEntry",
    "DecisionAmbiguous",
    "digest_of",
]

PAGE = 64


class DecisionAmbiguous(InputError):
    """A decision id that several agents hold, asked for without naming the agent."""


@dataclass(frozen=True)
class AttestedEntry:
    """One entry as it was attested."""

    position: int
    entry_id: str
    tier: str
    schema_name: str | None
    schema_version: int | None
    source_hash: str
    rendered_hash: str

    def to_json(self) -> dict[str, JSON]:
        """The stored row as JSON (also the input of the attestation's digest)."""
        return {
            "position": self.position,
            "entry_id": self.entry_id,
            "tier": self.tier,
            "schema": {"name": self.schema_name, "version": self.schema_version},
            "source_hash": self.source_hash,
            "rendered_hash": self.rendered_hash,
        }


@dataclass(frozen=True)
class Attestation:
    """A decision and the context it was made on."""

    decision_id: str
    rendered_hash: str
    attested_at: datetime
    entries: tuple[AttestedEntry, ...]
    digest: str
    agent: str | None = None
    """The agent whose entries were attested (``None``: several agents')."""

    def to_json(self) -> dict[str, JSON]:
        """``{"decision_id", "agent", "rendered_hash", "attested_at", "entries", "digest"}``."""
        return {
            "decision_id": self.decision_id,
            "agent": self.agent,
            "rendered_hash": self.rendered_hash,
            "attested_at": self.attested_at.isoformat(),
            "entries": [e.to_json() for e in self.entries],
            "digest": self.digest,
        }


def digest_of(
    decision_id: str, rendered_hash: str, at_us: int, entries: Sequence[AttestedEntry]
) -> str:
    """The digest an attestation's rows are stored with."""
    data: dict[str, JSON] = {
        "decision_id": decision_id,
        "rendered_hash": rendered_hash,
        "attested_at": at_us,
        "entries": [e.to_json() for e in entries],
    }
    return tagged_digest("factdiff.attestation", data)


class Attestations:
    """The attestation rows of one store (see the module docstring)."""

    def __init__(self, db: Database, tombstone: Callable[[str], Tombstone | None]) -> None:
        self._db = db
        self._tombstone = tombstone

    def record(
        self,
        decision_id: str,
        rendered_hash: str,
        at_us: int,
        entries: Sequence[AttestedEntry],
        digest: str,
    ) -> str:
        """Store an attestation in one transaction, filed under the agent whose entries it
        holds, and return that agent (``''``: several agents'); ``InputError`` if that agent
        attested ``decision_id`` already, ``EntryNotFound`` for an unknown entry."""
        db = self._db

        def work() -> str:
            owner = self._owner([entry.entry_id for entry in entries])
            key = {"decision_id": decision_id, "agent_id": owner}
            if db.row("select_attestation", **key) is not None:
                raise InputError(
                    f"decision {decision_id!r} is already attested: use a new decision id"
                )
            db.exec(
                "insert_attestation", **key, rendered_hash=rendered_hash, digest=digest, at=at_us
            )
            for entry in entries:
                db.exec(
                    "insert_attestation_entry",
                    **key,
                    position=entry.position,
                    entry_id=entry.entry_id,
                    tier=entry.tier,
                    schema_name=entry.schema_name,
                    schema_version=entry.schema_version,
                    source_hash=entry.source_hash,
                    rendered_hash=entry.rendered_hash,
                )
            return owner

        return db.write(work)

    def _owner(self, entry_ids: Sequence[str]) -> str:
        """The agent of these entries when they are all one agent's, else ``''``."""
        agents = set()
        for entry_id in entry_ids:
            row = self._db.row("select_entry", id=entry_id)
            if row is None:
                raise EntryNotFound(entry_id)
            agents.add(str(row["agent_id"]))
        return agents.pop() if len(agents) == 1 else ""

    def _entry_agents(self, entry_ids: Sequence[str]) -> set[str]:
        """The agents of these entries, live or erased with a tombstone (others skipped)."""
        agents = set()
        for entry_id in entry_ids:
            row = self._db.row("select_entry", id=entry_id)
            stone = None if row is not None else self._tombstone(entry_id)
            if row is not None:
                agents.add(str(row["agent_id"]))
            elif stone is not None:
                agents.add(stone.agent_id)
        return agents

    def load(self, decision_id: str, agent: str | None = None) -> tuple[Attestation, bool]:
        """The stored attestation of ``decision_id`` by ``agent`` and whether its rows still
        match their digest. ``agent`` ``None`` (a caller who sees every agent) finds the
        decision id whichever agent holds it, and asks for the agent when several do; ``""``
        is an attestation of several agents' entries."""
        db = self._db
        with db.read():
            owner = self._attesting_agent(decision_id) if agent is None else agent
            key = {"decision_id": decision_id, "agent_id": owner}
            row = db.row("select_attestation", **key)
            if row is None:
                raise InputError(
                    f"no attestation for decision {decision_id!r}: check the id "
                    "(`factdiff attest --decision D ID...` records one)"
                )
            rows = db.rows(db.sql("select_attestation_entries"), key)
        entries = tuple(
            AttestedEntry(
                int(r["position"]),
                str(r["entry_id"]),
                str(r["tier"]),
                r["schema_name"],
                r["schema_version"],
                str(r["source_hash"]),
                str(r["rendered_hash"]),
            )
            for r in rows
        )
        at_us = int(row["attested_at"])
        attestation = Attestation(
            str(row["decision_id"]),
            str(row["rendered_hash"]),
            codec.from_micros(at_us),
            entries,
            str(row["digest"]),
            str(row["agent_id"]) or None,
        )
        digest = digest_of(attestation.decision_id, attestation.rendered_hash, at_us, entries)
        return attestation, digest == attestation.digest

    def _attesting_agent(self, decision_id: str) -> str:
        """The one agent holding ``decision_id`` (``''`` when none does: not found later)."""
        rows = self._db.rows(self._db.sql("attestation_agents"), {"decision_id": decision_id})
        agents = [str(agent) for (agent,) in rows]
        if len(agents) > 1:
            named = ", ".join(repr(a) if a else "several agents" for a in agents[:2])
            raise DecisionAmbiguous(
                f"decision {decision_id!r} is attested by more than one agent ({named}...): "
                "name the agent (--agent A, or ?agent=A)"
            )
        return agents[0] if agents else ""

    def problems(self) -> list[str]:
        """For ``verify``: attestations whose rows were altered, or whose entries or sources
        are gone."""
        db = self._db
        problems: list[str] = []
        sql, after, after_agent = db.sql("attestations_page"), "", ""
        while True:
            keys = [
                (str(decision_id), str(agent))
                for (decision_id, agent) in db.rows(
                    sql, {"after": after, "after_agent": after_agent, "limit": PAGE}
                )
            ]
            for decision_id, agent in keys:
                after, after_agent = decision_id, agent
                problems.extend(self._problems_of(decision_id, agent))
            if len(keys) < PAGE:
                return problems

    def _problems_of(self, decision_id: str, agent: str) -> list[str]:
        problems: list[str] = []
        attestation, intact = self.load(decision_id, agent)
        name = decision_id if not agent else f"{decision_id} (agent {agent})"
        if not intact:
            problems.append(
                f"attestation {name}: its stored rows do not match their digest (edited)"
            )
        owners = self._entry_agents([e.entry_id for e in attestation.entries])
        if owners and (agent or None) != (owners.pop() if len(owners) == 1 else None):
            problems.append(
                f"attestation {name}: it is not filed under its entries' agent (edited)"
            )
        for attested in attestation.entries:
            row = self._db.row("select_entry", id=attested.entry_id)
            if row is None and self._tombstone(attested.entry_id) is not None:
                continue  # erased through factdiff forget: reported by attest verify
            if row is None:
                problems.append(f"attestation {name}: entry {attested.entry_id} no longer exists")
            elif str(row["content_hash"]) != attested.source_hash:
                problems.append(
                    f"attestation {name}: entry {attested.entry_id}'s source is "
                    f"{row['content_hash']}, not the attested {attested.source_hash}"
                )
        return problems
