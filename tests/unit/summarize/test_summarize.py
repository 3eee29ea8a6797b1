"""The offline summarizers: facts first, budgets, dialogue, determinism, failure modes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from factdiff import summarize
from factdiff.errors import UsageError
from factdiff.extraction.record import Fact, FactRecord
from factdiff.schema.builtin import generic_schema
from factdiff.schema.model import Criticality, FactSchema, FieldSpec
from factdiff.summarize import (
    EmptySourceError,
    ExtractiveSummarizer,
    NaiveSummarizer,
    Summarizer,
    SummaryRequest,
    count_words,
    facts_by_criticality,
)
from factdiff.testing import FixedSummarizer
from factdiff.values.base import JSON, FactType, Value
from factdiff.verify.check import check, extract


@dataclass(frozen=True)
class _Atom(Value):
    """A test-only value: its surface text is its identity."""

    type: ClassVar[FactType] = FactType.TEXT
    surface: str

    def canonical(self) -> JSON:
        return self.surface

    def key(self) -> object:
        return self.surface

    def to_json(self) -> dict[str, JSON]:
        return {"type": "test-atom", "surface": self.surface}


SCHEMA = FactSchema.build(
    "summarize_test",
    1,
    [
        FieldSpec("crit", FactType.TEXT, Criticality.CRITICAL, many=True),
        FieldSpec("imp", FactType.TEXT, Criticality.IMPORTANT, many=True),
        FieldSpec("ctx", FactType.TEXT, Criticality.CONTEXTUAL, many=True),
        FieldSpec("total", FactType.TEXT, Criticality.CRITICAL, cues=("totaling",)),
    ],
    inventory={FactType.MONEY: Criticality.CRITICAL, FactType.EMAIL: Criticality.IMPORTANT},
)

WORKED = (
    "Customer cust_482 (Acme Corp) called at 2026-03-14 14:32 EST regarding invoice INV-9182 "
    "totaling $14,250. Customer disputes line item 3 ($2,400 for engineering hours on March 6) "
    "claiming work was not authorized by their CTO Marcus Chen. Customer agreed to pay $11,850 "
    "(full invoice minus disputed line) within 7 business days (by 2026-03-25) if we issue a "
    "credit memo for $2,400 by EOD 2026-03-15. Agent committed to credit memo. Tool call: "
    "invoice.adjust(invoice_id='INV-9182', adjustment_amount=-2400, "
    "reason='disputed_line_item_3', notes='see customer call 2026-03-14') returned success "
    "with credit_memo_id='CM-3392'."
)
WORKED_CRITICAL = (
    "cust_482",
    "Acme Corp",
    "INV-9182",
    "$14,250",
    "$2,400",
    "Marcus Chen",
    "$11,850",
    "2026-03-25",
    "CM-3392",
)

FILLER = (
    "The weather in the region was mild and the office was quiet for most of the afternoon. "
    "Several colleagues discussed the upcoming quarterly planning meeting over coffee. "
    "Nobody mentioned anything about the new cafeteria menu or the parking situation. "
)


def _fact(text: str, surface: str) -> Fact:
    spans = tuple((m.start(), m.end()) for m in re.finditer(re.escape(surface), text))
    assert spans, surface
    return Fact(_Atom(surface), spans, surface)


def _record(
    text: str,
    critical: tuple[str, ...] = (),
    important: tuple[str, ...] = (),
    contextual: tuple[str, ...] = (),
    money: tuple[str, ...] = (),
) -> FactRecord:
    return FactRecord(
        SCHEMA.ref,
        {
            "crit": tuple(_fact(text, s) for s in critical),
            "imp": tuple(_fact(text, s) for s in important),
            "ctx": tuple(_fact(text, s) for s in contextual),
        },
        inventory={FactType.MONEY: tuple(_fact(text, s) for s in money)} if money else {},
    )


def _request(text: str, budget: int, **facts: tuple[str, ...]) -> SummaryRequest:
    return SummaryRequest(text, SCHEMA, _record(text, **facts), budget)


def test_public_names_are_pinned() -> None:
    assert sorted(summarize.__all__) == [
        "EmptySourceError",
        "ExtractiveSummarizer",
        "FixedSummarizer",
        "NaiveSummarizer",
        "Summarizer",
        "Summary",
        "SummaryRequest",
        "count_words",
        "facts_by_criticality",
    ]
    # the same class from either import path
    assert summarize.FixedSummarizer is FixedSummarizer


def test_summarizers_satisfy_the_protocol() -> None:
    summarizers: list[Summarizer] = [
        ExtractiveSummarizer(),
        NaiveSummarizer(),
        FixedSummarizer("x"),
    ]
    assert [s.identity for s in summarizers] == ["extractive", "naive", "fixed"]


def test_worked_example_keeps_every_critical_fact_verbatim_even_over_budget() -> None:
    summary = ExtractiveSummarizer().summarize(_request(WORKED, 20, critical=WORKED_CRITICAL))
    for surface in WORKED_CRITICAL:
        assert surface in summary.text
    assert summary.over_budget
    assert count_words(summary.text) < count_words(WORKED)
    assert summary.summarizer == "extractive"
    assert summary.method_version == "extractive/1"
    assert summary.tokens_in is None
    assert summary.cost_usd is None


def test_critical_fact_buried_in_long_text_is_kept_within_budget() -> None:
    text = FILLER * 4 + "The refund of $312.40 was approved for order W-7731. " + FILLER * 4
    summary = ExtractiveSummarizer().summarize(_request(text, 40, critical=("W-7731", "$312.40")))
    assert "W-7731" in summary.text
    assert "$312.40" in summary.text
    assert count_words(summary.text) <= 40
    assert not summary.over_budget


def test_inventory_facts_take_the_schema_inventory_criticality() -> None:
    text = FILLER * 3 + "Late fee: $45.00 added. " + FILLER * 3
    summary = ExtractiveSummarizer().summarize(_request(text, 25, money=("$45.00",)))
    assert "$45.00" in summary.text


def test_important_facts_fit_the_budget_at_rung_0_and_are_forced_from_rung_1() -> None:
    text = (
        "Invoice INV-1 was disputed by the customer during the call today. "
        + FILLER * 3
        + "Their backup contact is ops@example.com for any further questions. "
    )
    important = ("ops@example.com",)
    loose = _request(text, 12, critical=("INV-1",), important=important)
    assert "ops@example.com" not in ExtractiveSummarizer().summarize(loose).text
    strict = SummaryRequest(loose.text, SCHEMA, loose.source_record, 12, strictness=1)
    summary = ExtractiveSummarizer().summarize(strict)
    assert "ops@example.com" in summary.text
    assert "INV-1" in summary.text
    assert summary.over_budget


def test_contextual_facts_are_targets_from_rung_2() -> None:
    text = FILLER * 3 + "The customer sounded calm. " + FILLER * 3
    base = _request(text, 30, contextual=("calm",))
    rung2 = SummaryRequest(text, SCHEMA, base.source_record, 30, strictness=2)
    assert "calm" in ExtractiveSummarizer().summarize(rung2).text


def test_must_keep_facts_are_stated_with_their_sentence() -> None:
    text = FILLER * 3 + "The customer sounded calm, which the agent noted. " + FILLER * 3
    record = _record(text, contextual=("calm",))
    must = record.fields["ctx"]
    request = SummaryRequest(text, SCHEMA, record, 10, must_keep=must, strictness=1)
    summary = ExtractiveSummarizer().summarize(request)
    assert "The customer sounded calm, which the agent noted." in summary.text


def test_must_keep_fact_with_foreign_spans_is_found_by_value_or_text() -> None:
    text = FILLER * 2 + "Ticket T-99 stays open. " + FILLER * 2
    record = _record(text, contextual=("T-99",))
    by_value = Fact(_Atom("T-99"), ((0, 4),), "T-99")  # spans from another text
    by_text = Fact(_Atom("not in record"), ((9000, 9004),), "quarterly planning")
    request = SummaryRequest(text, SCHEMA, record, 5, must_keep=(by_value, by_text))
    summary = ExtractiveSummarizer().summarize(request).text
    assert "T-99" in summary
    assert "quarterly planning" in summary


def test_trimming_cuts_clauses_without_facts_and_never_inside_a_span() -> None:
    text = (
        "After a long discussion about the history of the account, the many delays, and the "
        "general frustration of everyone involved, the customer agreed to pay $1,250.00 by "
        "Friday, which the agent confirmed in writing."
    )
    summary = ExtractiveSummarizer().summarize(_request(text, 12, critical=("$1,250.00",)))
    assert "$1,250.00" in summary.text
    assert count_words(summary.text) < count_words(text)
    assert summary.text.endswith(".")


def test_a_field_value_is_kept_where_its_cue_word_gives_it_its_role() -> None:
    text = (
        "Refund of $90 noted. "
        + FILLER * 3
        + "After a long review of all the line items, invoice INV-7 was sent totaling $90."
    )
    record = FactRecord(SCHEMA.ref, {"total": (_fact(text, "$90"),)})
    summary = ExtractiveSummarizer().summarize(SummaryRequest(text, SCHEMA, record, 8)).text
    assert "totaling $90" in summary


def test_a_decision_that_occurs_twice_is_kept_twice() -> None:
    text = (
        "system: Your reservation has been made. The bus leaves at 7 am.\n"
        "user: Thanks. I also need a rental car, a compact one with a big trunk, please.\n"
        "system: Shall I reserve the car for you?\n"
        "user: Yes please, go ahead with that.\n"
        "system: Your reservation has been made."
    )
    schema = generic_schema()
    record = extract(text, schema)
    [booking] = record.inventory[FactType.DECISION]
    assert booking.occurrences == 2
    request = SummaryRequest(text, schema, record, 20, strictness=1)
    summary = ExtractiveSummarizer().summarize(request).text
    assert summary.count("reservation has been made") == 2
    assert check(text, summary, schema).outcome.value == "clean"


def test_naive_loses_a_fact_stated_late_and_extractive_keeps_it() -> None:
    text = FILLER * 3 + "Payment is due by 2026-04-30 on invoice INV-5521."
    request = _request(text, 30, critical=("2026-04-30", "INV-5521"))
    naive = NaiveSummarizer().summarize(request)
    assert naive.summarizer == "naive"
    assert naive.method_version == "naive/1"
    assert "2026-04-30" not in naive.text
    assert naive.text
    assert count_words(naive.text) <= 30
    extractive = ExtractiveSummarizer().summarize(request)
    assert "2026-04-30" in extractive.text
    assert "INV-5521" in extractive.text


def test_naive_cuts_a_first_sentence_longer_than_the_budget() -> None:
    summary = NaiveSummarizer().summarize(_request(FILLER, 5))
    assert summary.text == "The weather in the region"


DIALOGUE = textwrap.dedent(
    """\
    user: Hi, I need to change the shipping address of my order #W4923227 please.
    assistant: Sure, I can help with that. Could you confirm your email address?
    user: It's isabella.lopez3271@example.com.
    assistant: None
    tool: {"order_id": "#W4923227", "user_id": "isabella_lopez_6490", "address": {"city": "Phoenix", "zip": "85034"}, "items": [{"name": "Bluetooth Speaker", "item_id": "7751905257", "price": 321.18}], "status": "pending"}
    assistant: Thanks. The order is pending, so the address can still be changed.

    Which new address should I use?
    user: 710 Sunset Drive, Suite 176, Phoenix.
    assistant: Done. Your order #W4923227 will ship to the new address.
    """  # noqa: E501
)


def test_dialogue_turns_render_as_speaker_lines_and_json_is_pruned() -> None:
    critical = ("#W4923227", "7751905257", "isabella_lopez_6490")
    summary = ExtractiveSummarizer().summarize(_request(DIALOGUE, 40, critical=critical)).text
    lines = summary.splitlines()
    assert all(re.match(r"(user|assistant|tool): \S", line) for line in lines), summary
    tool_line = next(line for line in lines if line.startswith("tool:"))
    assert "7751905257" in tool_line
    assert "isabella_lopez_6490" in tool_line
    assert json.loads(tool_line.removeprefix("tool: ")) == {
        "order_id": "#W4923227",
        "user_id": "isabella_lopez_6490",
        "items": [{"item_id": "7751905257"}],
    }  # still JSON, cut to the members that hold facts
    assert "assistant: None" not in summary
    assert count_words(summary) <= 40


def test_dialogue_with_upper_case_and_named_speakers() -> None:
    text = (
        "USER: I want a table for 2 at 7 pm.\nSYSTEM: Booked, reference ABC123.\n"
        "USER: Thanks.\nSYSTEM: You're welcome."
    )
    summary = ExtractiveSummarizer().summarize(_request(text, 12, critical=("ABC123",))).text
    assert "SYSTEM: Booked, reference ABC123." in summary
    named = "Customer: My account is 5512.\nAgent: Noted 5512.\nCustomer: Bye."
    out = ExtractiveSummarizer().summarize(_request(named, 20, critical=("5512",))).text
    assert out.startswith("Customer: My account is 5512.")


def test_a_fact_across_a_sentence_boundary_stays_verbatim() -> None:
    text = FILLER + "We meet on Jan. 5.  At noon we sign. " + FILLER
    record = FactRecord(
        SCHEMA.ref,
        {"crit": (Fact(_Atom("date"), ((text.index("5.  At"), text.index(" we sign")),)),)},
    )
    summary = ExtractiveSummarizer().summarize(SummaryRequest(text, SCHEMA, record, 10))
    assert "5.  At noon" in summary.text


def test_a_fact_inside_a_speaker_label_or_filler_turn_is_kept() -> None:
    text = "Marcus: I pay.\nAgent: Fine.\nMarcus: Done.\nAgent: None\nAgent: Bye."
    name = Fact(_Atom("Marcus"), ((0, 6),), "Marcus")
    none = Fact(_Atom("None"), ((text.index("None"), text.index("None") + 4),), "None")
    record = FactRecord(SCHEMA.ref, {"crit": (name, none)})
    summary = ExtractiveSummarizer().summarize(SummaryRequest(text, SCHEMA, record, 3)).text
    assert "Marcus" in summary
    assert "None" in summary


@pytest.mark.parametrize("text", ["", "   ", "\n\t \n"])
@pytest.mark.parametrize("summarizer", [ExtractiveSummarizer(), NaiveSummarizer()])
def test_blank_source_raises_a_typed_error(text: str, summarizer: Summarizer) -> None:
    with pytest.raises(EmptySourceError):
        summarizer.summarize(_request(text, 10))
    assert issubclass(EmptySourceError, UsageError)


def test_budget_below_one_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="budget_words"):
        ExtractiveSummarizer().summarize(_request("Some text.", 0))


def test_text_without_content_words_still_gives_a_summary() -> None:
    assert ExtractiveSummarizer().summarize(_request("... !!! ???", 3)).text == "... !!! ???"


def test_facts_by_criticality_orders_and_names_facts() -> None:
    text = "ops@example.com paid $5 for INV-1, calm, and owes $7."
    record = _record(text, critical=("INV-1",), contextual=("calm",), money=("$5", "$7"))
    inventory = dict(record.inventory)
    inventory[FactType.URL] = (_fact(text, "paid"),)  # not tracked by the schema: left out
    record = FactRecord(record.schema, record.fields, inventory)
    ordered = [(f.text, c, name) for f, c, name in facts_by_criticality(record, SCHEMA)]
    assert ordered == [
        ("$5", Criticality.CRITICAL, "inventory.money"),
        ("INV-1", Criticality.CRITICAL, "crit"),
        ("$7", Criticality.CRITICAL, "inventory.money"),
        ("calm", Criticality.CONTEXTUAL, "ctx"),
    ]


def test_fixed_summarizer_returns_its_texts_in_order() -> None:
    fixed = FixedSummarizer(["first", "second"], identity="scripted")
    request = _request("Source text.", 5)
    assert [fixed.summarize(request).text for _ in range(3)] == ["first", "second", "second"]
    assert fixed.identity == "scripted"
    assert len(fixed.calls) == 3
    with pytest.raises(UsageError):
        FixedSummarizer([])


def test_output_is_identical_across_hash_seeds_timezones_and_locales(tmp_path: Path) -> None:
    script = tmp_path / "run.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import sys
            sys.path.insert(0, {str(Path(__file__).parent)!r})
            from test_summarize import DIALOGUE, FILLER, WORKED, WORKED_CRITICAL, _request
            from factdiff.summarize import ExtractiveSummarizer, NaiveSummarizer
            for text, crit in ((WORKED, WORKED_CRITICAL), (DIALOGUE, ("#W4923227",)),
                               (FILLER * 20, ())):
                for budget in (15, 60):
                    for s in (ExtractiveSummarizer(), NaiveSummarizer()):
                        print(repr(s.summarize(_request(text, budget, critical=crit)).text))
            """
        )
    )
    outputs = set()
    for seed, tz, lang in (("1", "UTC", "C"), ("2", "Asia/Tokyo", "de_DE.UTF-8")):
        env = {**os.environ, "PYTHONHASHSEED": seed, "TZ": tz, "LANG": lang, "LC_ALL": lang}
        result = subprocess.run(
            [sys.executable, str(script)], env=env, capture_output=True, check=True
        )
        outputs.add(result.stdout)
    assert len(outputs) == 1


def test_same_request_gives_the_same_summary() -> None:
    request = _request(DIALOGUE + WORKED, 50, critical=WORKED_CRITICAL)
    first = ExtractiveSummarizer().summarize(request)
    assert all(ExtractiveSummarizer().summarize(request) == first for _ in range(3))


_PIECES = st.sampled_from(
    [
        *list("abc XYZ.,;:!?()-–\n\t\"'{}[]0123$#@_é"),
        "user: ",
        "\nassistant: ",
        "\nTool: ",
        "\nAl: ",
        "None",
        "Mr. ",
        ". The ",
        "}, {",
    ]
)
_TEXTS = st.lists(_PIECES, min_size=1, max_size=120).map("".join) | st.text(
    min_size=1, max_size=200
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_TEXTS, budget=st.integers(1, 60), data=st.data())
def test_arbitrary_text_never_crashes_and_never_grows(
    text: str, budget: int, data: st.DataObject
) -> None:
    if not text.strip():
        return
    spans = data.draw(
        st.lists(st.tuples(st.integers(0, len(text)), st.integers(0, len(text))), max_size=4)
    )
    facts = tuple(
        Fact(_Atom(f"f{i}"), ((min(a, b), max(a, b)),), "") for i, (a, b) in enumerate(spans)
    )
    record = FactRecord(SCHEMA.ref, {"crit": facts})
    request = SummaryRequest(text, SCHEMA, record, budget)
    for summarizer in (ExtractiveSummarizer(), NaiveSummarizer()):
        summary = summarizer.summarize(request).text
        assert summary.strip()
        assert len(summary) <= len(text)
        if budget < count_words(text):
            assert count_words(summary) <= count_words(text)
    extractive = ExtractiveSummarizer().summarize(request).text
    for fact in facts:
        core = text[fact.spans[0][0] : fact.spans[0][1]].strip()
        assert core in extractive


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=25,
)


@settings(max_examples=200, deadline=None)
@given(value=_JSON_VALUES, compact=st.booleans(), budget=st.integers(1, 30), data=st.data())
def test_pruned_tool_results_stay_valid_json_and_keep_their_facts(
    value: object, compact: bool, budget: int, data: st.DataObject
) -> None:
    body = json.dumps(value, separators=(",", ":") if compact else None)
    text = f'user: look it up\ntool: {{"result": {body}}}\nassistant: Done.'
    tokens = re.finditer(r'"(?:[^"\\]|\\.)*"', text)
    strings = [(m.start() + 1, m.end() - 1) for m in tokens if m.end() - m.start() > 2]
    chosen = data.draw(st.lists(st.sampled_from(strings), max_size=3)) if strings else []
    facts = tuple(Fact(_Atom(f"f{i}"), (span,), "") for i, span in enumerate(chosen))
    record = FactRecord(SCHEMA.ref, {"crit": facts})
    summary = ExtractiveSummarizer().summarize(SummaryRequest(text, SCHEMA, record, budget)).text
    assert len(summary) <= len(text)
    for line in summary.splitlines():
        if line.startswith("tool: "):
            json.loads(line.removeprefix("tool: "))
    for a, b in chosen:
        assert text[a:b].strip() in summary
