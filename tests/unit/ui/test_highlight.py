"""Highlight segments: the text cut at every evidence span, nothing lost or reordered, and
rendered through the autoescaping templates as text only."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from factdiff.ui.highlight import Mark, marks_of_record, segments
from factdiff.ui.render import environment
from factdiff.values.base import JSON


def test_overlapping_spans_split_and_the_worst_verdict_leads() -> None:
    marks = [Mark(2, 5, "a", "critical", "missing"), Mark(4, 8, "b", "important", "kept")]
    cut = segments("abcdefghij", marks)
    assert [s.text for s in cut] == ["ab", "cd", "e", "fgh", "ij"]
    assert [s.lead.field if s.lead else None for s in cut] == [None, "a", "a", "b", None]
    assert [len(s.marks) for s in cut] == [0, 1, 2, 1, 0]


def test_spans_outside_the_text_are_clipped_or_dropped() -> None:
    cut = segments("abc", [Mark(1, 9, "x", "critical", "kept"), Mark(5, 7, "y", "c", "kept")])
    assert [(s.text, [m.field for m in s.marks]) for s in cut] == [("a", []), ("bc", ["x"])]
    assert segments("", [Mark(0, 3, "x", "c", "kept")]) == []


@given(
    st.text(max_size=40),
    st.lists(st.tuples(st.integers(-5, 50), st.integers(-5, 50)), max_size=8),
)
def test_segments_always_join_back_to_the_text(text: str, spans: list[tuple[int, int]]) -> None:
    marks = [Mark(a, b, f"f{i}", "critical", "kept") for i, (a, b) in enumerate(spans)]
    cut = segments(text, marks)
    assert "".join(s.text for s in cut) == text
    assert all(s.text for s in cut)


def test_marks_of_a_record_take_the_diff_verdicts() -> None:
    record: dict[str, JSON] = {
        "fields": {"amount": [{"spans": [[0, 3], [5, 8]], "text": "$10"}], "note": []},
        "inventory": {"date": [{"spans": [[9, 12]]}]},
    }
    found = marks_of_record(
        record, {"amount": "critical", "inventory.date": "critical"}, {"amount": "missing"}
    )
    assert [(m.start, m.field, m.criticality, m.verdict) for m in found] == [
        (0, "amount", "critical", "missing"),
        (5, "amount", "critical", "missing"),
        (9, "inventory.date", "critical", "kept"),
    ]


def test_entry_text_renders_as_text() -> None:
    hostile = "<script>alert(1)</script><img src=x onerror=alert(2)>\x1b[31m"
    lead = {"field": '"><script>x</script>', "criticality": "critical", "verdict": "missing"}
    part = {
        "segments": [
            {"text": hostile, "marks": [], "lead": None},
            {"text": '"><b>bold</b>', "marks": [lead], "lead": lead},
        ]
    }
    macro = '{% from "_segments.html" import text %}{{ text(part, "Source") }}'
    html = environment().from_string(macro).render(part=part)
    assert "<script>" not in html
    assert "<b>" not in html
    assert "<img" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "\x1b" not in html
    assert "\\x1b[31m" in html
    assert html.count("<mark ") == 1
