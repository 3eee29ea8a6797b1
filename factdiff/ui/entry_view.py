"""One entry as a reviewer sees it: its current state first, its history below.

The current state is what the store holds now. A warm entry shows its archived source and its
narrative, highlighted with its stored fact record (the narrative's facts as the
deterministic extractor finds them under the same schema version), the diff of the attempt
that wrote it (an operator's approval or edit included), its facts and its known gaps. A hot
entry shows its source and its latest attempt: the summary and diff of the last attempt,
with the fact records of the event that recorded them when that event is the attempt's.
``history`` lists the attempts before the current one, newest first, each with its summary
and diff; ``attempts`` and ``events`` are the whole record (``show_document``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING

from factdiff.inputs.json_toml import JSON, json_objects
from factdiff.present.documents import attempt_json, show_document
from factdiff.retrieve.schemas import SchemaResolver
from factdiff.store import AttemptOutcome, Tier
from factdiff.ui.highlight import marks_of_record, segments
from factdiff.ui.review_facts import review_state, schema_used

if TYPE_CHECKING:
    from factdiff.store import AttemptRecord, Entry, MemoryStore

__all__ = ["entry_view"]

DIFF_KINDS = ("missing", "changed", "added")
PASSED = (AttemptOutcome.CLEAN, AttemptOutcome.ACCEPTABLE_WITH_NOTES)


def entry_view(store: MemoryStore, entry_id: str) -> dict[str, JSON]:
    """``show_document`` plus the current state: ``source`` and ``summary`` (``text``,
    ``segments``), ``facts_from``, ``diff``, ``current`` (``state``, ``attempt_no``,
    ``facts``, ``known_gaps``), ``schema`` (as ``schema_used``), ``review`` (why it is in
    review, else None), ``kept_hot``; and ``history``, the earlier attempts newest first."""
    shown = show_document(store, entry_id)
    entry = store.get(entry_id)
    attempts = store.attempts(entry_id)
    resolver = SchemaResolver(store)
    current = _current_attempt(entry, attempts)
    if entry.tier is Tier.WARM and entry.warm is not None:
        state = _warm_state(store, entry, current)
    else:
        events = shown["events"]
        state = _hot_state(entry, current, events if isinstance(events, list) else [])
    source_text, summary_text, source_record, summary_record, diff, facts_from = state
    verdicts: dict[str, str] = {}
    for kind in DIFF_KINDS:
        for item in json_objects(diff.get(kind)):
            verdicts.setdefault(str(item.get("field")), kind)
    criticality = {
        str(f["field"]): str(f["criticality"])
        for f in json_objects(diff.get("fields"))
        if "field" in f
    }
    summary_verdicts = {k: v for k, v in verdicts.items() if v in ("changed", "added")}
    earlier = [a for a in attempts if current is None or a.attempt_no != current.attempt_no]
    return {
        **shown,
        "source": _highlighted(source_text, source_record, criticality, verdicts),
        "summary": _highlighted(summary_text, summary_record, criticality, summary_verdicts),
        "facts_from": facts_from,
        "diff": {kind: _list(diff.get(kind)) for kind in DIFF_KINDS},
        "current": _current_json(store, entry, current, resolver),
        "history": [attempt_json(a) for a in reversed(earlier)],
        "schema": schema_used(store, entry, attempts, resolver),
        "review": review_state(store, entry),
        "kept_hot": store.kept_hot(entry_id),
    }


State = tuple[str, str, Mapping[str, JSON], Mapping[str, JSON], Mapping[str, JSON], str]
"""Source text, summary text, their fact records, the diff, and where the facts came from."""


def _current_attempt(entry: Entry, attempts: list[AttemptRecord]) -> AttemptRecord | None:
    """The attempt behind the entry's state: a warm entry's last passing attempt (the one
    that wrote it), a hot entry's last attempt."""
    if entry.tier is Tier.WARM:
        passed = [a for a in attempts if a.outcome in PASSED]
        return passed[-1] if passed else None
    return attempts[-1] if attempts else None


def _warm_state(store: MemoryStore, entry: Entry, current: AttemptRecord | None) -> State:
    assert entry.warm is not None
    source_record = dict(entry.warm.record)
    narrative = entry.warm.narrative
    diff = dict(current.diff or {}) if current is not None else {}
    summary_record = _narrative_record(store, source_record, narrative)
    return store.read_cold(entry.id), narrative, source_record, summary_record, diff, "warm record"


def _hot_state(entry: Entry, current: AttemptRecord | None, events: Sequence[JSON]) -> State:
    source = entry.content or ""
    if current is None:
        return source, "", {}, {}, {}, "none"
    recorded = _recorded_for(events, current)
    if recorded is None:
        return source, current.summary, {}, {}, dict(current.diff or {}), "none"
    return (
        source,
        current.summary,
        _mapping(recorded.get("source_facts")),
        _mapping(recorded.get("summary_facts")),
        dict(current.diff) if current.diff else _mapping(recorded.get("diff")),
        f"event {recorded['_event_id']}",
    )


def _current_json(
    store: MemoryStore, entry: Entry, current: AttemptRecord | None, resolver: SchemaResolver
) -> dict[str, JSON]:
    """``{"state", "attempt_no", "outcome", "facts", "known_gaps", "coverage"}``: a warm
    entry's facts (its stored record, as retrieval reads it), known gaps and the coverage
    of the check that made it (``sentences``, ``verified``, ``verified_share``, and
    ``unverified``: the sentences no schema field covered that the narrative dropped;
    ``None`` when not recorded); a hot entry's none."""
    from factdiff.retrieve.context import entry_view as retrieval_view
    from factdiff.retrieve.hits import facts_json

    facts: dict[str, JSON] = {}
    gaps: list[dict[str, JSON]] = []
    coverage: dict[str, JSON] | None = None
    if entry.tier is Tier.WARM:
        view = retrieval_view(store, entry, resolver)
        facts = facts_json(view.record)
        gaps = [gap.to_json() for gap in view.gaps]
        if view.coverage is not None:
            coverage = {
                "sentences": view.coverage.sentences,
                "verified": view.coverage.verified,
                "verified_share": round(view.coverage.share, 4),
                "unverified": list(view.coverage.texts),
            }
    return {
        "state": entry.tier.value,
        "attempt_no": None if current is None else current.attempt_no,
        "outcome": None if current is None else current.outcome.value,
        "facts": facts,
        "known_gaps": gaps,
        "coverage": coverage,
    }


def _highlighted(
    text: str, record: Mapping[str, JSON], criticality: dict[str, str], verdicts: dict[str, str]
) -> dict[str, JSON]:
    marks = marks_of_record(record, criticality, verdicts)
    return {"text": text, "segments": [s.to_json() for s in segments(text, marks)]}


def _narrative_record(
    store: MemoryStore, source_record: Mapping[str, JSON], narrative: str
) -> dict[str, JSON]:
    """The deterministic extractor's record of a warm narrative, under the schema version of
    its source record (empty when that schema cannot be loaded)."""
    from factdiff.errors import FactdiffError
    from factdiff.store.catalog import SchemaCatalog
    from factdiff.verify.check import extract

    ref = source_record.get("schema")
    reference = source_record.get("reference")
    if not isinstance(ref, dict) or "name" not in ref:
        return {}
    try:
        version = ref.get("version")
        if not (version is None or isinstance(version, int)):
            return {}
        schema = SchemaCatalog(store).get(
            str(ref["name"]), datetime.now(UTC), None if version is None else int(version)
        )
        day = date.fromisoformat(reference) if isinstance(reference, str) else None
        return extract(narrative, schema, day).to_json()
    except (FactdiffError, ValueError):
        return {}


def _recorded_for(events: Sequence[JSON], attempt: AttemptRecord) -> dict[str, JSON] | None:
    """The last event that recorded both fact records, when it is the one of ``attempt``
    (its summary); a later attempt without such an event has none."""
    for event in reversed(events):
        payload = event.get("payload") if isinstance(event, Mapping) else None
        if (
            isinstance(event, Mapping)
            and isinstance(payload, Mapping)
            and "source_facts" in payload
            and "summary" in payload
        ):
            if str(payload.get("summary") or "") != attempt.summary:
                return None
            return {**payload, "_event_id": event["id"]}
    return None


def _mapping(value: JSON | None) -> Mapping[str, JSON]:
    """``value`` when it is a JSON object, else an empty one."""
    return value if isinstance(value, Mapping) else {}


def _list(value: JSON | None) -> list[JSON]:
    """The items of ``value`` when it is a JSON array, else none."""
    return list(value) if isinstance(value, list) else []
