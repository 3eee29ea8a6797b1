"""Redaction and the erasure step list (pure: no store)."""

from __future__ import annotations

import json

from factdiff.store.erasure import (
    KEPT_KEYS,
    REDACTED,
    STEPS,
    erase_from_trained_dictionaries,
    redact,
    redact_json,
    redacted_payload,
)


def test_redaction_keeps_the_structure_and_the_vocabulary() -> None:
    diff = {
        "missing": [{"field": "invoice_total", "criticality": "critical", "source": "$14,250"}],
        "changed": [],
        "fields": [{"verdict": "kept", "source_values": ["INV-9182", 14250, True, None]}],
        "note": "Marcus Chen",
    }
    assert redact(diff) == {
        "missing": [{"field": "invoice_total", "criticality": "critical", "source": REDACTED}],
        "changed": [],
        "fields": [{"verdict": "kept", "source_values": [REDACTED, REDACTED, True, None]}],
        "note": REDACTED,
    }
    assert {"field", "criticality", "verdict", "outcome", "content_hash"} <= KEPT_KEYS


def test_redacted_texts() -> None:
    assert redact_json(None) is None
    assert json.loads(redact_json('"a summary"') or "") == REDACTED
    assert json.loads(redact_json("not json") or "") == REDACTED
    payload = json.loads(redacted_payload('{"summary": "Acme owes $5", "rung": 1}'))
    assert payload == {"summary": REDACTED, "rung": 1, "redacted": True}
    assert json.loads(redacted_payload("[1, 2]")) == {"payload": REDACTED, "redacted": True}


def test_the_steps_open_and_close_the_guard_and_name_every_place() -> None:
    names = [step.name for step in STEPS]
    assert len(names) == len(set(names))
    assert names[0] == "guard_open"
    assert names[-1] == "guard_close"
    assert names.index("events") < names.index("erased_event")
    assert names.index("search_text") < names.index("search_docs")
    assert names.index("fact_index") < names.index("search_docs")
    assert names.index("warm_entries") < names.index("entry")
    hook = next(s for s in STEPS if s.name == "trained_dictionaries")
    assert hook.run is erase_from_trained_dictionaries
    assert all(step.place for step in STEPS)
