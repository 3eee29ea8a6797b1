"""Sentence, turn and clause splitting for the summarizers."""

from __future__ import annotations

from factdiff.extraction.record import FactRecord
from factdiff.schema.model import FactSchema
from factdiff.summarize import ExtractiveSummarizer, NaiveSummarizer, SummaryRequest
from factdiff.summarize.rendering import flat_segments, render, unit_text
from factdiff.summarize.text_units import Layout, count_words, split_units


def _texts(text: str, layout: Layout) -> list[str]:
    return [text[u.start : u.end] for u in layout.units]


def test_prose_sentences_respect_abbreviations_initials_and_decimals() -> None:
    text = (
        "Mr. Smith paid $14.50. Then he left at 3 p.m. sharp! Was it J. R. Doe? "
        "Visit example.com. Done"
    )
    layout = split_units(text)
    assert not layout.dialogue
    assert _texts(text, layout) == [
        "Mr. Smith paid $14.50.",
        "Then he left at 3 p.m. sharp!",
        "Was it J. R. Doe?",
        "Visit example.com.",
        "Done",
    ]


def test_line_breaks_split_lists_but_not_wrapped_lines() -> None:
    text = "The customer called about\nthe invoice today\n- refund $5\n- close ticket\n\nNew topic"
    assert _texts(text, split_units(text)) == [
        "The customer called about\nthe invoice today",
        "- refund $5",
        "- close ticket",
        "New topic",
    ]


def test_transcripts_split_into_turns_with_labels_and_multiline_bodies() -> None:
    text = "user: hi\nassistant: Hello. How can I help?\n\nAsk away.\nassistant: None\ntool: 42"
    layout = split_units(text)
    assert layout.dialogue
    assert [text[u.label[0] : u.label[1]] for u in layout.units if u.label] == [
        "user:",
        "assistant:",
        "tool:",
    ]
    assert len(layout.units[1].sentences) == 3  # the None turn is dropped


def test_named_speakers_need_repetition_and_headers_stay_prose() -> None:
    assert split_units("Alice: hi\nBob: hey\nAlice: bye\nBob: ok").dialogue
    assert not split_units("Note: call back.\nSubject: refund.").dialogue
    assert split_units("Customer: hi\nAgent: hello").dialogue


def test_json_bodies_split_into_members_and_render_as_pruned_json() -> None:
    text = 'tool: {"order_id": "#W1", "items": [{"name": "Lamp", "price": 3.5}], "ok": true}'
    layout = split_units(text)
    assert layout.units[0].structured
    members = [text[a:b] for (a, b), _, _ in flat_segments(layout)]
    assert members == [
        '"order_id": "#W1"',
        '"items": [',
        "{",
        '"name": "Lamp"',
        '"price": 3.5',
        '"ok": true',
    ]
    price = text.index("3.5")
    rendered = render(text, layout, [False, False, False, False, True, False], [(price, price + 3)])
    assert rendered == 'tool: {"items": [{"price": 3.5}]}'
    assert unit_text(text, layout.units[0]) == text


def test_a_span_across_sibling_members_joins_them_and_otherwise_json_is_prose() -> None:
    assert not split_units('tool: {"a": 1,').units[0].structured
    text = 'tool: {"n": {"first": "Ada", "last": "Byron"}, "z": 1}'
    siblings = (text.index("Ada"), text.index("Byron") + 5)
    layout = split_units(text, [siblings])
    assert [text[a:b] for (a, b), _, _ in flat_segments(layout)] == [
        '"n": {',
        '"first": "Ada", "last": "Byron"',
        '"z": 1',
    ]
    rendered = render(text, layout, [False, True, False], [siblings])
    assert rendered == 'tool: {"n": {"first": "Ada", "last": "Byron"}}'
    across_levels = (text.index("Byron"), text.index("z"))
    assert not split_units(text, [across_levels]).units[0].structured


def test_protected_spans_are_never_cut_or_altered() -> None:
    text = "We met on Jan. 5.  At noon, we signed.\nuser: x"
    start, end = text.index("5."), text.index("noon") + 4
    layout = split_units(text, [(start, end)])
    segments = [seg for seg, _, _ in flat_segments(layout)]
    assert any(a <= start and end <= b for a, b in segments)
    rendered = render(text, layout, [True] * len(segments), [(start, end)])
    assert text[start:end] in rendered


def test_render_collapses_whitespace_and_marks_dropped_clauses() -> None:
    text = "First   clause with words, a dropped middle clause here, and the end."
    layout = split_units(text)
    assert render(text, layout, [True, False, True]) == "First clause with words, ... and the end."
    assert render(text, layout, [True, False, False]) == "First clause with words."


def test_count_words_counts_tokens_with_letters_or_digits() -> None:
    assert count_words("user: it's $14,250 -- ok ... 3") == 5
    assert count_words("") == 0
    assert count_words("—— ...") == 0


def test_a_100_kb_text_is_summarized_within_budget() -> None:
    sentence = "The agent, who was polite, confirmed refund R-{} of ${}.00 for order W{} today. "
    text = "".join(sentence.format(i, i, i) for i in range(1400))[:100_000]
    schema = FactSchema.build("empty", 1)
    record = FactRecord(schema.ref, {})
    request = SummaryRequest(text, schema, record, 200)
    for summarizer in (ExtractiveSummarizer(), NaiveSummarizer()):
        summary = summarizer.summarize(request)
        assert 0 < len(summary.text) < len(text)
