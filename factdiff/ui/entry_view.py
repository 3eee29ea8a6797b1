"""One entry as a reviewer sees it: source and summary cut into highlighted segments, the
diff as rows, the attempts with each rung's summary, the events and the review state.

The facts come from the last event that recorded both fact records (a compression failure);
a warm entry without one shows its stored record over its archived source, and its narrative
with the facts the deterministic extractor finds in it under the same schema version.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any

from factdiff.documents import show_document
from factdiff.ui.highlight import marks_of_record, segments

if TYPE_CHECKING:
    from factdiff.store import MemoryStore

__all__ = ["entry_view"]

DIFF_KINDS = ("missing", "changed", "added")


def entry_view(store: MemoryStore, entry_id: str) -> dict[str, Any]:
    """``show_document`` plus ``{"source", "summary", "diff", "kept_hot"}``: ``source`` and
    ``summary`` hold ``text``, ``segments`` and where their facts came from."""
    shown = show_document(store, entry_id)
    entry = shown["entry"]
    recorded = _last_recorded(shown["events"])
    source_text = entry.get("content")
    if source_text is None:
        source_text = store.read_cold(entry_id)
    diff: dict[str, Any] = {}
    summary_text = ""
    source_record: dict[str, Any] = {}
    summary_record: dict[str, Any] = {}
    facts_from = "none"
    if recorded is not None:
        diff = dict(recorded.get("diff") or {})
        summary_text = str(recorded.get("summary") or "")
        source_record = dict(recorded.get("source_facts") or {})
        summary_record = dict(recorded.get("summary_facts") or {})
        facts_from = f"event {recorded['_event_id']}"
    elif "warm" in entry:
        summary_text = str(entry["warm"]["narrative"])
        source_record = dict(entry["warm"]["record"])
        summary_record = _narrative_record(store, source_record, summary_text)
        facts_from = "warm record"
        if shown["attempts"]:
            diff = dict(shown["attempts"][-1]["diff"] or {})
    elif shown["attempts"]:
        last = shown["attempts"][-1]
        summary_text, diff = str(last["summary"]), dict(last["diff"] or {})
    criticality = {
        str(f["field"]): str(f["criticality"])
        for f in diff.get("fields", [])
        if isinstance(f, dict) and "field" in f
    }
    verdicts: dict[str, str] = {}
    for kind in DIFF_KINDS:
        for item in diff.get(kind, []):
            verdicts.setdefault(str(item.get("field")), kind)
    summary_verdicts = {k: v for k, v in verdicts.items() if v in ("changed", "added")}
    return {
        **shown,
        "source": {
            "text": source_text,
            "segments": [
                s.to_json()
                for s in segments(
                    source_text, marks_of_record(source_record, criticality, verdicts)
                )
            ],
        },
        "summary": {
            "text": summary_text,
            "segments": [
                s.to_json()
                for s in segments(
                    summary_text, marks_of_record(summary_record, criticality, summary_verdicts)
                )
            ],
        },
        "facts_from": facts_from,
        "diff": {kind: list(diff.get(kind, [])) for kind in DIFF_KINDS},
        "kept_hot": store.kept_hot(entry_id),
    }


def _narrative_record(
    store: MemoryStore, source_record: dict[str, Any], narrative: str
) -> dict[str, Any]:
    """The deterministic extractor's record of a warm narrative, under the schema version of
    its source record (empty when that schema cannot be loaded)."""
    from factdiff.catalog import SchemaCatalog
    from factdiff.checking import extract
    from factdiff.errors import FactdiffError

    ref = source_record.get("schema")
    reference = source_record.get("reference")
    if not isinstance(ref, dict) or "name" not in ref:
        return {}
    try:
        version = ref.get("version")
        schema = SchemaCatalog(store).get(
            str(ref["name"]), datetime.now(UTC), None if version is None else int(version)
        )
        day = date.fromisoformat(reference) if isinstance(reference, str) else None
        return extract(narrative, schema, day).to_json()
    except (FactdiffError, ValueError):
        return {}


def _last_recorded(events: list[dict[str, Any]]) -> dict[str, Any] | None:
    for event in reversed(events):
        payload = event.get("payload")
        if isinstance(payload, dict) and "source_facts" in payload and "summary" in payload:
            return {**payload, "_event_id": event["id"]}
    return None
