"""Tool calls: values, recognizer, parser and coverage."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from factdiff.extraction.recognizers.base import ExtractionContext
from factdiff.extraction.recognizers.toolcalls import ToolCallRecognizer, parse_tool_call
from factdiff.values.base import FactType, Tolerance, value_from_json
from factdiff.values.toolcall import ToolCallValue, missing_parts

CTX = ExtractionContext()
RECOGNIZER = ToolCallRecognizer()

SOURCE = (
    "Agent called invoice.adjust(invoice_id='INV-9182', adjustment_amount=-2400, "
    "reason='disputed_line_item_3', notes='see customer call 2026-03-14') returned success "
    "with credit_memo_id='CM-3392'. Then the ticket was closed."
)


def values(text: str) -> list[ToolCallValue]:
    found = []
    for match in RECOGNIZER.find(text, CTX):
        assert isinstance(match.value, ToolCallValue)
        found.append(match.value)
    return found


def the_call(text: str) -> ToolCallValue:
    calls = [v for v in values(text) if v.form == "call"]
    assert len(calls) == 1
    return calls[0]


# ---------------------------------------------------------------- call syntax


def test_call_syntax_with_result_clause() -> None:
    matches = list(RECOGNIZER.find(SOURCE, CTX))
    assert len(matches) == 1
    match = matches[0]
    assert SOURCE[match.start : match.end].startswith("invoice.adjust(")
    assert SOURCE[match.start : match.end].endswith("credit_memo_id='CM-3392'")
    assert match.value.type is FactType.TOOL_CALL
    assert match.value.canonical() == {
        "name": "invoice.adjust",
        "arguments": {
            "adjustment_amount": -2400,
            "invoice_id": "INV-9182",
            "notes": "see customer call 2026-03-14",
            "reason": "disputed_line_item_3",
        },
        "result": {"credit_memo_id": "CM-3392", "status": "success"},
    }


@pytest.mark.parametrize(
    ("tail", "result"),
    [
        (" returned success", {"status": "success"}),
        (" succeeded", {}),
        (" returned an error", {"status": "error"}),
        (' -> {"status": "ok", "n": 2}', {"status": "ok", "n": 2}),
        (
            " returned {'refund': 12.50, 'items': [1, 2]}",
            {"refund": Decimal("12.5"), "items": [1, 2]},
        ),
        (" returned 'CM-1'", {"value": "CM-1"}),
        (" returned 42.0", {"value": 42}),
        (
            " returned success with id=CM-7 and total=3",
            {"status": "success", "id": "CM-7", "total": 3},
        ),
        (' returned credit_memo_id="CM-8"', {"credit_memo_id": "CM-8"}),
        ('\ntool: {"status": "pending"}', {"status": "pending"}),
    ],
)
def test_result_forms(tail: str, result: dict[str, object]) -> None:
    value = the_call("get_order(order_id='A1')" + tail)
    assert value == ToolCallValue.build(
        "get_order", {"order_id": "A1"}, result, context=value.context
    )


def test_literals_and_positional_arguments() -> None:
    value = the_call('run_job(1, "x", [1, {"b": 2, "a": 1.0}], flag=True, other=null, n=-0.50)')
    assert dict(value.arguments) == {
        "0": "1",
        "1": '"x"',
        "2": '[1,{"a":1,"b":2}]',
        "flag": "true",
        "other": "null",
        "n": "-0.5",
    }


def test_equal_surface_variants_have_equal_keys() -> None:
    a = the_call("invoice.adjust(amount=-2400, id='X') returned success")
    b = the_call('invoice.adjust(id="X", amount=-2400.00) returned OK')
    c = parse_tool_call(
        '{"name": "invoice.adjust", "arguments": {"id": "X", "amount": -2.4e3},'
        ' "result": {"status": "success"}}',
        CTX,
    )
    assert c is not None
    assert a.key() == b.key() == c.key()
    assert a.same_as(b)


@pytest.mark.parametrize(
    "text",
    [
        "print('hello')",
        "f(x)",
        "get_order(order_id=customer)",
        "get_order(**kwargs)",
        "get_order(lambda: 1)",
        "get_order(a=__import__('os').system('true'))",
        "see (note 3)",
        "compute(a=1",
        "Section(3)",
    ],
)
def test_not_calls(text: str) -> None:
    assert [v for v in values(text) if v.form == "call"] == []


# ---------------------------------------------------------------- JSON logs


def test_openai_tool_call_with_tool_line_result() -> None:
    text = (
        'assistant: {"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":'
        '{"name":"get_order_details","arguments":"{\\"order_id\\":\\"#W1\\"}"}}]}\n'
        'tool: {"order_id": "#W1", "status": "pending", "items": [{"price": 321.18}]}\n'
    )
    value = the_call(text)
    assert value.name == "get_order_details"
    assert dict(value.arguments) == {"order_id": '"#W1"'}
    assert dict(value.result) == {
        "order_id": '"#W1"',
        "status": '"pending"',
        "items": '[{"price":321.18}]',
    }


def test_anthropic_tool_use_and_result_matched_by_id() -> None:
    text = (
        '{"type":"tool_use","id":"a","name":"cancel_pending_order","input":{"order_id":"#W1"}}\n'
        '{"type":"tool_use","id":"b","name":"get_user","input":{"user_id":"u"}}\n'
        '{"type":"tool_result","tool_use_id":"a",'
        '"content":[{"type":"text","text":"{\\"ok\\": true}"}]}'
    )
    found = {v.name: v for v in values(text)}
    assert dict(found["cancel_pending_order"].result) == {"ok": "true"}
    assert found["get_user"].result == ()


@pytest.mark.parametrize(
    "obj",
    [
        {"name": "get_x", "arguments": {"a": 1}},
        {"function": {"name": "get_x", "arguments": '{"a": 1}'}},
        {"type": "tool_use", "name": "get_x", "input": {"a": 1}},
        {"tool": "get_x", "args": {"a": 1}},
        {"tool": "get_x", "kwargs": {"a": 1.0}},
        {"tool": "get_x", "parameters": {"a": 1}},
    ],
)
def test_json_call_shapes(obj: dict[str, object]) -> None:
    value = the_call("log: " + json.dumps(obj) + " end")
    assert value.key() == ToolCallValue.build("get_x", {"a": 1}).key()


def test_non_call_json_is_ignored() -> None:
    text = (
        '{"name": {"first_name": "Ann"}, "orders": ["#W1"], "payment_method_id": "credit_card_1"}'
    )
    assert values(text) == []


# ---------------------------------------------------------------- mentions


def test_mentions_and_context() -> None:
    text = (
        "Intro line. The agent ran cancel_pending_order for #W1. The refund was $12. "
        "Unrelated third sentence."
    )
    (value,) = values(text)
    assert value.form == "mention"
    assert value.name == "cancel_pending_order"
    assert value.context == "The agent ran cancel_pending_order for #W1. The refund was $12."
    assert value.canonical() == {"name": "cancel_pending_order", "mention": True}


@pytest.mark.parametrize(
    "text",
    [
        "Email mia.garcia2723@example.com about it.",
        "See www.example.com or report.pdf.",
        "The item_id and first_name fields.",
        "Paid with credit_card_9513926 and user yusuf_rossi_9620.",
        "Best wishes.good bye",
        "e.g. this, i.e. that",
    ],
)
def test_not_mentions(text: str) -> None:
    assert values(text) == []


def test_cue_word_makes_a_mention() -> None:
    assert [v.name for v in values("We used the order_lookup tool.")] == ["order_lookup"]


# ---------------------------------------------------------------- coverage


def source_call() -> ToolCallValue:
    return the_call(SOURCE)


def mention(text: str) -> ToolCallValue:
    (value,) = [v for v in values(text) if v.form == "mention"]
    return value


def test_missing_parts_against_mention() -> None:
    summary = mention(
        "The agent issued a $2,400 credit via invoice.adjust on INV-9182 for disputed line "
        "item 3; it succeeded with credit memo CM-3392. Notes mention the customer call."
    )
    assert missing_parts(source_call(), summary) == ["arguments.notes"]


def test_missing_parts_full_and_empty() -> None:
    summary = mention(
        "invoice.adjust on INV-9182 for -2400 USD, reason disputed-line-item-3, notes: see "
        "customer call 2026-03-14; success, credit_memo_id CM-3392."
    )
    assert missing_parts(source_call(), summary) == []
    assert source_call().same_as(summary)
    assert summary.same_as(source_call())
    other = mention("We ran invoice.void on it.")
    assert missing_parts(source_call(), other) is None
    bare = mention("We ran invoice.adjust.")
    assert missing_parts(source_call(), bare) == [
        "arguments.adjustment_amount",
        "arguments.invoice_id",
        "arguments.notes",
        "arguments.reason",
        "result.credit_memo_id",
        "result.status",
    ]


@pytest.mark.parametrize("written", ["-$2,400", "$2,400", "2400 USD", "2.4k", "2,400.00"])
def test_number_formats_state_an_amount(written: str) -> None:
    source = ToolCallValue.build("pay.out", {"amount": -2400})
    summary = mention(f"Paid {written} via pay.out today.")
    assert missing_parts(source, summary) == []


def test_partial_number_does_not_state() -> None:
    source = ToolCallValue.build("pay.out", {"amount": 240, "id": "INV-918"})
    summary = mention("Paid 2400 via pay.out for INV-9182.")
    assert missing_parts(source, summary) == ["arguments.amount", "arguments.id"]


def test_missing_parts_against_call() -> None:
    partial = the_call("invoice.adjust(invoice_id='INV-9182', adjustment_amount=-2400.0)")
    assert missing_parts(source_call(), partial) == [
        "arguments.notes",
        "arguments.reason",
        "result.credit_memo_id",
        "result.status",
    ]
    assert not source_call().same_as(partial)


def test_same_as_with_tolerance() -> None:
    a = ToolCallValue.build("pay", {"amount": 100})
    b = ToolCallValue.build("pay", {"amount": "100.4"})
    assert not a.same_as(b)
    assert a.same_as(b, Tolerance(absolute=Decimal("0.5")))


# ---------------------------------------------------------------- parser


@pytest.mark.parametrize(
    ("text", "form"),
    [
        ("get_x(a=1) returned success.", "call"),
        ('{"name": "get_x", "arguments": {"a": 1}}', "call"),
        ('{"name": "get_x", "mention": true}', "mention"),
        ("cancel_pending_order", "mention"),
    ],
)
def test_parse_tool_call(text: str, form: str) -> None:
    value = parse_tool_call(text, CTX)
    assert value is not None
    assert value.form == form


@pytest.mark.parametrize("text", ["", "hello", "get_x(a=1) and then more words", "{", "[1]"])
def test_parse_rejects(text: str) -> None:
    assert parse_tool_call(text, CTX) is None


def test_canonical_round_trips_through_parser() -> None:
    value = source_call()
    again = parse_tool_call(json.dumps(value.canonical()), CTX)
    assert again is not None
    assert again.key() == value.key()


def test_decoder_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="tool_call"):
        value_from_json({"type": "tool_call", "name": 3})
    with pytest.raises(ValueError, match="form"):
        value_from_json({"type": "tool_call", "name": "x", "form": "other"})


# ---------------------------------------------------------------- robustness


@pytest.mark.parametrize(
    "text",
    [
        "{" * 300_000,
        '{"a":[1,' * 100_000,
        "get_x(" * 100_000,
        "get_x(a='" * 100_000,
        "get_x(a=" + "[" * 50_000 + "]" * 50_000 + ")",
        '{"a":' * 200_000,
        "a_b." * 200_000,
        'tool: {"a": 1}\n' * 50_000,
    ],
)
def test_pathological_inputs_complete(text: str) -> None:
    list(RECOGNIZER.find(text, CTX))
    parse_tool_call(text, CTX)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_never_crashes_on_arbitrary_text(text: str) -> None:
    for match in RECOGNIZER.find(text, CTX):
        assert 0 <= match.start < match.end <= len(text)
    parse_tool_call(text, CTX)


FRAGMENTS = st.sampled_from(
    [
        "get_x(",
        "a=1",
        ", ",
        "'s'",
        ")",
        "{",
        "}",
        '"name"',
        ":",
        "[",
        "]",
        " returned ",
        "success",
        " with ",
        "tool: ",
        "\n",
        "invoice.adjust",
        "-2400",
        "null",
        "\\",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(FRAGMENTS, max_size=30).map("".join))
def test_never_crashes_on_call_like_text(text: str) -> None:
    for match in RECOGNIZER.find(text, CTX):
        assert value_from_json(match.value.to_json()) == match.value
    parse_tool_call(text, CTX)


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    # canonical() shows numbers as JSON floats: keep them float-exact here (to_json is lossless)
    st.decimals(min_value=-(10**9), max_value=10**9, places=4),
    st.text(max_size=20),
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
KEYS = st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True)


@settings(max_examples=200, deadline=None)
@given(
    st.from_regex(r"[a-z]{2,6}\.[a-z]{2,6}", fullmatch=True),
    st.dictionaries(KEYS, JSON_VALUES, max_size=4),
    st.dictionaries(KEYS, JSON_VALUES, max_size=3),
)
def test_json_round_trip_and_canonical_reparse(
    name: str, arguments: dict[str, object], result: dict[str, object]
) -> None:
    value = ToolCallValue.build(name, arguments, result, context="ctx")
    assert value_from_json(value.to_json()) == value
    assert value_from_json(json.loads(json.dumps(value.to_json()))) == value
    again = parse_tool_call(json.dumps(value.canonical()), CTX)
    assert again is not None
    assert again.key() == value.key()
    assert missing_parts(value, again) == []


@settings(max_examples=200, deadline=None)
@given(st.integers(-(10**9), 10**9), st.sampled_from(["", ".0", ".00"]))
def test_number_variants_have_equal_keys(number: int, zeros: str) -> None:
    a = parse_tool_call(f"pay.out(amount={number})", CTX)
    b = parse_tool_call(f'{{"tool": "pay.out", "args": {{"amount": {number}{zeros}}}}}', CTX)
    assert a is not None
    assert b is not None
    assert a.key() == b.key()
