"""One entry as a reviewer sees it: source and summary cut into highlighted segments, the
diff as rows, the attempts with each rung's summary, the events and the review state.

The facts come from the last event that recorded both fact records (a compression failure);
a warm entry without one shows its stored record over its archived source.
"""

from __future__ import annotations

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
        facts_from = "warm record"
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


def _last_recorded(events: list[dict[str, Any]]) -> dict[str, Any] | None:
    for event in reversed(events):
        payload = event.get("payload")
        if isinstance(payload, dict) and "source_facts" in payload and "summary" in payload:
            return {**payload, "_event_id": event["id"]}
    return None
