"""The benchmark loaders parse tiny synthetic samples of each dataset format."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from bench.datasets import (
    SGD_REFERENCE,
    ToolArg,
    build_entry,
    load_multiwoz,
    load_sgd,
    load_taskmaster,
    load_tau,
    spread,
)


def _gz(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        json.dump(data, fh)


def _json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def test_multiwoz_token_spans_become_character_labels(tmp_path: Path) -> None:
    booked = {"train": {"book": {"booked": [{"reference": "AB12CD34", "trainID": "TR1"}]}}}
    log = [
        {
            "text": "I need a train at 10:15 .",
            "metadata": {},
            "span_info": [["Train-Inform", "Leave", "10:15", 5, 5]],
        },
        {
            "text": "Booked ! Reference is AB12CD34 , call 01223 302580 .",
            "metadata": booked,
            "span_info": [
                ["Train-OfferBooked", "Ref", "AB12CD34", 4, 4],
                ["Train-Inform", "Phone", "01223302580", 7, 8],
                ["Bad", "Ref", "x", 40, 41],
            ],
        },
    ]
    _gz(tmp_path / "multiwoz21" / "val.json.gz", {"MUL1": {"goal": {}, "log": log}})
    (dialogue,) = load_multiwoz(tmp_path)
    assert dialogue.booked_refs == ("AB12CD34",)
    assert [t.speaker for t in dialogue.turns] == ["user", "system"]
    (leave,) = dialogue.turns[0].labels
    assert (leave.slot, leave.text, leave.canonical) == ("Leave", "10:15", "10:15")
    ref, phone = dialogue.turns[1].labels
    assert ref.text == "AB12CD34"
    assert phone.text == "01223 302580"
    assert phone.canonical == "01223302580"
    entry = build_entry(dialogue)
    assert all(entry.text[lab.start : lab.end] == lab.text for lab in entry.labels)


def test_sgd_slots_keep_offsets_canonical_values_and_service_calls(tmp_path: Path) -> None:
    utterance = "Booked for March 4th at 5 pm, $45."
    frame = {
        "service": "Restaurants_1",
        "slots": [
            {"slot": "date", "start": 11, "exclusive_end": 20},
            {"slot": "time", "start": 24, "exclusive_end": 28},
            {"slot": "price", "start": 30, "exclusive_end": 33},
        ],
        "actions": [
            {
                "act": "INFORM",
                "slot": "date",
                "values": ["March 4th"],
                "canonical_values": ["2019-03-04"],
            },
            {"act": "INFORM", "slot": "time", "values": ["5 pm"], "canonical_values": ["17:00"]},
        ],
        "service_call": {"method": "Reserve", "parameters": {"time": "17:00"}},
    }
    dialogues = [
        {
            "dialogue_id": "1_00000",
            "services": [],
            "turns": [{"speaker": "SYSTEM", "utterance": utterance, "frames": [frame]}],
        }
    ]
    _gz(tmp_path / "sgd" / "dialogues_001.json.gz", dialogues)
    (dialogue,) = load_sgd(tmp_path)
    assert dialogue.reference == SGD_REFERENCE
    date, time, price = dialogue.turns[0].labels
    assert (date.text, date.canonical) == ("March 4th", "2019-03-04")
    assert (time.text, time.canonical) == ("5 pm", "17:00")
    assert (price.text, price.canonical) == ("$45", None)
    assert dialogue.tool_args == (ToolArg("Reserve", "time", "17:00"),)
    assert dialogue.turns[0].acts == (("Restaurants_1", "INFORM"),)


def test_tau_labels_database_ids_amounts_and_gold_arguments(tmp_path: Path) -> None:
    base = tmp_path / "tau-retail"
    users = {
        "ann_lee_1234": {
            "payment_methods": {"gift_card_1": {"source": "gift_card", "balance": 60}},
            "orders": ["#W1000001"],
        }
    }
    orders = {
        "#W1000001": {
            "items": [{"item_id": "5550001111", "price": 12.5}],
            "payment_history": [{"amount": 12.5}],
            "fulfillments": [{"tracking_id": ["123456789012"]}],
        }
    }
    products = {"9990001111": {"variants": {"5550001111": {"price": 12.5}}}}
    _json(base / "db" / "users.json", users)
    _json(base / "db" / "orders.json", orders)
    _json(base / "db" / "products.json", products)
    tasks = [
        {
            "user_id": "ann_lee_1234",
            "actions": [
                {
                    "name": "cancel_pending_order",
                    "kwargs": {
                        "order_id": "#W1000001",
                        "reason": "no longer needed",
                        "item_ids": ["5550001111"],
                    },
                }
            ],
        }
    ]
    _json(base / "retail_tasks_dev.json", tasks)
    display = (
        "user: Cancel #W1000001 please.\nassistant: None\n"
        'tool: {"user_id": "ann_lee_1234", "price": 12.5}\n'
        "assistant: Done, $12.50 back on gift_card_1.\nSecond line 7."
    )
    (base / "log.jsonl").write_text(json.dumps({"messages_display": display}) + "\n")
    (dialogue,) = load_tau(tmp_path)
    assert [t.speaker for t in dialogue.turns] == ["user", "assistant", "tool", "assistant"]
    assert dialogue.turns[3].text.endswith("Second line 7.")
    kinds = {(lab.slot, lab.text) for t in dialogue.turns for lab in t.labels}
    assert ("order_id", "#W1000001") in kinds
    assert ("user_id", "ann_lee_1234") in kinds
    assert ("payment_method_id", "gift_card_1") in kinds
    assert ("amount", "12.5") in kinds
    assert ("amount", "$12.50") in kinds
    assert not any(text == "7" for _, text in kinds)
    assert ToolArg("cancel_pending_order", "item_ids", "5550001111") in dialogue.tool_args
    assert ToolArg("cancel_pending_order", "order_id", "#W1000001") in dialogue.tool_args


def test_taskmaster_request_values_are_tool_arguments(tmp_path: Path) -> None:
    utterance = {
        "index": 0,
        "speaker": "user",
        "text": "one chai latte",
        "annotations": [
            {"name": "api_call", "value": "get_menu_items", "context": "api_call_0"},
            {"name": "request", "value": '{"query": "chai latte"}', "context": "api_call_0"},
        ],
    }
    _gz(
        tmp_path / "taskmaster4" / "data_00.json.gz",
        [{"conversation_id": "dlg-1", "utterances": [utterance]}],
    )
    (dialogue,) = load_taskmaster(tmp_path)
    assert dialogue.turns[0].text == "one chai latte"
    assert dialogue.tool_args == (ToolArg("get_menu_items", "query", "chai latte"),)


def test_build_entry_caps_size_and_spread_is_even(tmp_path: Path) -> None:
    log = [{"text": f"turn number {i} .", "metadata": {}, "span_info": []} for i in range(10)]
    _gz(tmp_path / "multiwoz21" / "val.json.gz", {f"D{i}": {"log": log} for i in range(10)})
    dialogues = load_multiwoz(tmp_path)
    entry = build_entry(dialogues[0], max_chars=60)
    assert len(entry.text) <= 60
    assert entry.text.startswith("user: turn number 0 .\nsystem: turn number 1 .")
    assert [d.dialogue_id for d in spread(dialogues, 5)] == ["D0", "D2", "D4", "D6", "D8"]
    assert len(spread(dialogues, None)) == 10
