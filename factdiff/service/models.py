"""Typed request and response bodies of the HTTP API (Pydantic at the border).

Response documents are the CLI's ``--json`` documents (``factdiff.present.documents``); the models
here describe them for the OpenAPI document, and requests are validated against them
(unknown keys refused).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, model_validator

from factdiff.inputs.bounds import VERSION_MAX

JsonObject = dict[str, object]
"""A JSON object passed through as it is (its own keys described elsewhere)."""
_SURROGATE = re.compile("[\ud800-\udfff]")


class Strict(BaseModel):
    """A request body: unknown keys are refused (422)."""

    model_config = ConfigDict(extra="forbid")


class Body(Strict):
    """A request body: unknown keys are refused, and so is a lone surrogate anywhere in it
    (``"\\ud800"`` is valid JSON but not Unicode text that can be stored or echoed): 422."""

    @model_validator(mode="before")
    @classmethod
    def _unicode_only(cls, data: object) -> object:
        where = lone_surrogate_at(data)
        if where is not None:
            raise ValueError(
                f"{where or 'the body'} holds a lone surrogate (a \\ud800-\\udfff escape "
                "without its pair): send valid Unicode"
            )
        return data


def lone_surrogate_at(value: object, path: str = "") -> str | None:
    """The dotted path of the first string (or key) in ``value`` with a lone surrogate."""
    if isinstance(value, str):
        return path if _SURROGATE.search(value) else None
    if isinstance(value, dict):
        for key, item in value.items():
            here = f"{path}.{key}" if path else str(key)
            if isinstance(key, str) and _SURROGATE.search(key):
                return path or "a key"
            found = lone_surrogate_at(item, here)
            if found is not None:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = lone_surrogate_at(item, f"{path}[{index}]")
            if found is not None:
                return found
    return None


class Open(BaseModel):
    """A response document: described, extra keys allowed (documents may grow)."""

    model_config = ConfigDict(extra="allow")


# -- requests --------------------------------------------------------------------------------


class NewEntryBody(Body):
    """One entry to add; an agent key's own agent is implied."""

    text: str = Field(description="The entry's text (UTF-8, at most 16 MiB; not blank).")
    agent: str | None = Field(default=None, min_length=1)
    occurred_at: datetime | None = None
    tags: list[str] = Field(default_factory=list)
    schema_name: str | None = Field(
        default=None, alias="schema", description="A schema name (NAME or NAME@VERSION)."
    )
    metadata: JsonObject = Field(default_factory=dict)


class NewEntriesBody(Body):
    """Several entries, added in one transaction (all or none)."""

    entries: list[NewEntryBody] = Field(min_length=1, max_length=1000)


class CheckBody(Body):
    """A source and a summary to diff."""

    source: str
    summary: str
    schema_name: str | None = Field(default=None, alias="schema", min_length=1)
    reference: datetime | None = Field(default=None, description="The entry's own date.")


class CompressBody(Body):
    """One text to compress with the offline pipeline and its retry ladder."""

    text: str = Field(min_length=1)
    schema_name: str | None = Field(default=None, alias="schema", min_length=1)


class ContextBody(Body):
    """Entries to render as an agent is shown them."""

    ids: list[str] = Field(min_length=1, max_length=1000)


class AttestBody(Body):
    """A decision and the entries it was made on."""

    decision: str = Field(min_length=1)
    ids: list[str] = Field(min_length=1, max_length=1000)


class DemotionBody(Body):
    """A demotion pass (operator): at most one attempt per due entry."""

    agent: str | None = Field(default=None, min_length=1)
    limit: StrictInt | None = Field(default=None, ge=0, le=1_000_000)
    older_than: str | None = Field(default=None, description="A duration such as 14d or 0s.")


class ResolveBody(Body):
    """Return an entry from review to automatic demotion."""

    note: str = ""


class BulkResolveBody(Body):
    """Return every matching entry in review to automatic demotion."""

    agent: str | None = Field(default=None, min_length=1)
    reason: str | None = Field(default=None, min_length=1)
    note: str = ""


class ApproveBody(Body):
    """Accept a summary despite its loss: why."""

    reason: str = Field(min_length=1, pattern=r"\S")


class EditBody(Body):
    """An operator's summary, to verify against the source."""

    summary: str = Field(min_length=1, pattern=r"\S")


class RetryBody(Body):
    """Retry now on this rung of the configured ladder (from 0)."""

    rung: StrictInt = Field(ge=0, le=1000)


class RetryOut(Strict):
    """The attempt made on the chosen rung."""

    id: str
    rung: int
    outcome: str
    applied: bool
    tier: str
    status: str


class KeepHotBody(Body):
    """Keep an entry hot for good: why."""

    reason: str = Field(min_length=1, pattern=r"\S")


class RegisterSchemaBody(Body):
    """A fact schema in YAML, or a built-in's name."""

    yaml: str | None = None
    builtin: str | None = Field(default=None, min_length=1)


# -- responses -------------------------------------------------------------------------------


class CreatedId(Strict):
    """``{"id"}`` of a new entry."""

    id: str


class CreatedIds(Strict):
    """``{"ids"}`` of new entries, in the order given."""

    ids: list[str]


class WarmOut(Strict):
    """A warm entry's narrative, source fact record and compression meta."""

    narrative: str
    record: JsonObject
    meta: JsonObject


class EntryOut(Strict):
    """An entry (``entry_json``)."""

    id: str
    agent_id: str
    tier: Literal["hot", "warm"]
    status: str
    occurred_at: str | None
    created_at: str
    last_used_at: str
    schema_: str | None = Field(alias="schema")
    tags: list[str]
    metadata: JsonObject
    content_hash: str
    size_bytes: int
    attempt_count: int
    next_attempt_at: str | None
    content: str | None = None
    warm: WarmOut | None = None


class AttemptOut(Strict):
    """One compression attempt (``attempt_json``)."""

    attempt_no: int
    rung: int
    summarizer: str
    extractor: str
    method_version: str
    outcome: str
    budget_words: int | None
    summary: str | None
    diff: JsonObject | None
    duration_ms: int | float | None
    tokens_in: int | None
    tokens_out: int | None
    cost_usd: str | None
    error: str | None
    started_at: str


class EventOut(Strict):
    """One event (``event_json``)."""

    id: int
    type: str
    entry_id: str | None
    agent_id: str | None
    at: str
    payload: JsonObject


class ShowDocument(Strict):
    """``factdiff show --json``: the entry in any tier, its attempts and its events."""

    entry: EntryOut
    attempts: list[AttemptOut]
    events: list[EventOut]


class EntryPage(Strict):
    """One page of entries (``factdiff list --json``)."""

    entries: list[EntryOut]
    total: int
    offset: int
    count: int
    next_cursor: str | None


class EventPage(Strict):
    """One page of events (``factdiff events --json``)."""

    events: list[EventOut]
    total: int
    offset: int
    count: int
    next_cursor: str | None


class AttemptList(Strict):
    """An entry's compression history."""

    entry_id: str
    attempts: list[AttemptOut]


class SearchHitOut(Open):
    """One hit (``SearchHit.to_json``)."""

    entry_id: str
    agent: str
    tier: str
    score: float
    matched: list[JsonObject]
    text: str
    facts: JsonObject | None
    known_gaps: list[JsonObject]
    gap_hit: list[JsonObject]
    schema_: JsonObject = Field(alias="schema")
    occurred_at: str | None
    source: str | None
    verified_share: float | None
    unverified: list[str]


class SearchDocument(Strict):
    """``factdiff search --json``."""

    query: str
    hits: list[SearchHitOut]


class CheckDocument(Open):
    """``factdiff check --json``."""

    outcome: str


class Touched(Strict):
    """An entry marked used."""

    id: str
    last_used_at: str


class ForgetBody(Body):
    """Why an entry is erased (recorded in its tombstone)."""

    reason: str = Field(default="", max_length=1000)


class ForgottenEntry(Strict):
    """An erased entry: its tombstone, and what the erasure redacted."""

    entry_id: str
    agent_id: str
    tier: str
    erased_at: str
    reason: str
    content_hash: str
    newly_erased: bool
    redacted_events: int
    redacted_attempts: int


class Restored(Strict):
    """An entry back in the hot tier."""

    id: str
    tier: str


class ReviewItem(Strict):
    """An entry waiting for an operator, with its last attempt's diff."""

    entry: EntryOut
    last_attempt: AttemptOut | None


class ReviewPage(Strict):
    """The review queue, one page."""

    reviews: list[ReviewItem]
    total: int
    offset: int
    count: int
    next_cursor: str | None


class Resolved(Strict):
    """Entries returned to automatic demotion."""

    resolved: list[str]
    count: int


class ReviewDecisionOut(Strict):
    """An approved or edited summary, now the warm entry."""

    id: str
    tier: str
    outcome: str
    known_gaps: list[JsonObject]
    diff: JsonObject


class KeptHot(Strict):
    """An entry kept hot for good."""

    id: str
    kept: bool
    already: bool


class SchemaSummary(Strict):
    """A registered schema version."""

    name: str
    version: int
    hash: str


class SchemaList(Strict):
    """Registered schema versions."""

    schemas: list[SchemaSummary]


class SchemaDocument(Strict):
    """A registered schema version with its definition."""

    name: str
    version: int
    hash: str
    definition: JsonObject
    source_text: str | None


class SchemaRegistered(Strict):
    """The result of registering a schema."""

    name: str
    version: int
    hash: str
    new: bool
    due_for_reevaluation: int = Field(
        description="Warm entries this version makes due for re-evaluation (queued)."
    )


class ReevaluateBody(Body):
    """What to re-evaluate (``factdiff reevaluate``'s options)."""

    to_version: StrictInt | None = Field(default=None, ge=1, le=VERSION_MAX)
    agent: str | None = Field(default=None, min_length=1)
    all: bool = False
    dry_run: bool = False


class ReevaluationDocument(BaseModel):
    """The ``factdiff reevaluate --json`` document."""

    model_config = ConfigDict(extra="allow")

    schema_: str = Field(alias="schema")
    to_version: int
    dry_run: bool
    checked: int
    promoted: int
    annotated: int
    clean: int


class SchemaDiff(Strict):
    """Fields added, removed and changed between two versions of a schema."""

    name: str
    from_version: int
    to_version: int
    added: list[str]
    removed: list[str]
    changed: list[str]


class Health(Strict):
    """``/healthz`` and ``/readyz``."""

    status: str
    schema_version: int | None = None
    expected_version: int | None = None
