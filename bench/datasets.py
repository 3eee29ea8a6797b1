"""Loaders for the labelled dialogue datasets (the folder ``$FACTDIFF_BENCH_DATA``, or ``--data``).

Every loader returns :class:`Dialogue` objects: turns of text, each with character-offset
:class:`Label` spans taken from the dataset's own annotations (never from factdiff), plus
dialogue-level ground truth (MultiWOZ booking references, gold tool-call arguments).

* MultiWOZ 2.1: ``span_info`` token spans converted to character offsets; booked references.
* SGD: frame ``slots`` character spans, with the action's ``canonical_values`` when given;
  ``service_call`` parameters as tool arguments; each turn's dialogue acts (``NOTIFY_SUCCESS``,
  ``NOTIFY_FAILURE``, ``CONFIRM``...) with their service. Dialogues are set on 2019-03-01.
* tau-retail: transcript lines split into turns; every token that is an ID of the mock
  database (order, user, payment method, product, item, tracking) is a label, and so is
  every number equal to a price, payment or gift-card balance that the database ties to an
  order, user or product the transcript mentions (slot ``amount``); gold
  ``actions[].kwargs`` of the tasks of the users seen in the transcript are tool arguments.
* Taskmaster-4: utterances and the ``request`` JSON values of their API calls.
"""

from __future__ import annotations

import argparse
import glob
import gzip
import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
DATA_ENV = "FACTDIFF_BENCH_DATA"
DEFAULT_DATA = Path(os.environ.get(DATA_ENV) or "data/dev")
"""The datasets' folder: ``$FACTDIFF_BENCH_DATA``, else ``data/dev`` (every script's ``--data``
overrides it)."""
SGD_REFERENCE = date(2019, 3, 1)
"""SGD's simulated 'today' (its canonical values resolve 'today' to this date)."""


@dataclass(frozen=True)
class Label:
    """One labelled value: ``text[start:end]`` is its surface form in the turn (or entry)."""

    start: int
    end: int
    slot: str
    text: str
    canonical: str | None = None
    """The dataset's normalised value, when it gives one (SGD ``canonical_values``...)."""

    def shifted(self, offset: int) -> Label:
        """The same label ``offset`` characters further."""
        return Label(self.start + offset, self.end + offset, self.slot, self.text, self.canonical)


@dataclass(frozen=True)
class Turn:
    """One utterance (or tool result) with its labels."""

    speaker: str
    text: str
    labels: tuple[Label, ...] = ()
    acts: tuple[tuple[str, str], ...] = ()
    """The dataset's dialogue acts of the turn as ``(service, act)`` (SGD: ``NOTIFY_SUCCESS``,
    ``CONFIRM``...), in frame order."""


@dataclass(frozen=True)
class ToolArg:
    """One argument of a gold tool call: ``name=value``."""

    tool: str
    name: str
    value: str


@dataclass(frozen=True)
class Dialogue:
    """One dialogue of one dataset with its ground truth."""

    dataset: str
    dialogue_id: str
    turns: tuple[Turn, ...]
    reference: date | None = None
    booked_refs: tuple[str, ...] = ()
    tool_args: tuple[ToolArg, ...] = ()


@dataclass(frozen=True)
class Entry:
    """A memory entry built from a dialogue: ``speaker: text`` lines, labels re-based."""

    dialogue: Dialogue
    text: str
    labels: tuple[Label, ...] = field(default=())
    turn_spans: tuple[tuple[int, int], ...] = ()

    @property
    def reference(self) -> date | None:
        """The entry's own date, when the dataset fixes one."""
        return self.dialogue.reference


def build_entry(dialogue: Dialogue, max_chars: int | None = None, start_turn: int = 0) -> Entry:
    """Join turns as ``speaker: text`` lines from ``start_turn`` until ``max_chars``.

    At least one turn is always kept; a turn that would cross ``max_chars`` ends the entry.
    """
    parts: list[str] = []
    labels: list[Label] = []
    spans: list[tuple[int, int]] = []
    offset = 0
    for turn in dialogue.turns[start_turn:]:
        prefix = f"{turn.speaker}: "
        line = prefix + turn.text
        if max_chars is not None and parts and offset + len(line) > max_chars:
            break
        base = offset + len(prefix)
        labels.extend(label.shifted(base) for label in turn.labels)
        spans.append((offset, offset + len(line)))
        parts.append(line)
        offset += len(line) + 1
    return Entry(dialogue, "\n".join(parts), tuple(labels), tuple(spans))


# --------------------------------------------------------------------------- MultiWOZ

_TOKEN = re.compile(r"\S+")


def _multiwoz_labels(text: str, rows: Iterable[list[Any]]) -> tuple[Label, ...]:
    tokens = [(m.start(), m.end()) for m in _TOKEN.finditer(text)]
    labels = []
    for row in rows:
        _act, slot, value, first, last = row[:5]
        if not (0 <= first <= last < len(tokens)):
            continue
        start, end = tokens[first][0], tokens[last][1]
        labels.append(Label(start, end, str(slot), text[start:end], str(value)))
    return tuple(sorted(labels, key=lambda lab: (lab.start, lab.end, lab.slot)))


def _booked_refs(log: list[dict[str, Any]]) -> tuple[str, ...]:
    refs: dict[str, None] = {}
    for turn in log:
        for domain in (turn.get("metadata") or {}).values():
            for booking in domain.get("book", {}).get("booked", []):
                ref = booking.get("reference")
                if isinstance(ref, str) and ref:
                    refs.setdefault(ref, None)
    return tuple(refs)


def parse_multiwoz(data: dict[str, Any], limit: int | None = None) -> list[Dialogue]:
    """Dialogues of a MultiWOZ 2.1 ``{dialogue_id: {goal, log}}`` object, sorted by id."""
    out = []
    for dialogue_id in sorted(data)[:limit]:
        log = data[dialogue_id]["log"]
        turns = tuple(
            Turn(
                "user" if i % 2 == 0 else "system",
                t["text"],
                _multiwoz_labels(t["text"], t.get("span_info", [])),
            )
            for i, t in enumerate(log)
        )
        out.append(Dialogue("multiwoz", dialogue_id, turns, None, _booked_refs(log)))
    return out


def load_multiwoz(root: Path, limit: int | None = None) -> list[Dialogue]:
    """MultiWOZ 2.1 validation dialogues from ``root/multiwoz21/val.json.gz``."""
    with gzip.open(root / "multiwoz21" / "val.json.gz", "rt", encoding="utf-8") as fh:
        return parse_multiwoz(json.load(fh), limit)


# --------------------------------------------------------------------------- SGD


def _sgd_canonical(frame: dict[str, Any], slot: str, surface: str) -> str | None:
    for action in frame.get("actions", []):
        if action.get("slot") != slot:
            continue
        values, canon = action.get("values", []), action.get("canonical_values", [])
        for i, value in enumerate(values):
            if value == surface and i < len(canon):
                return str(canon[i])
    return None


def _sgd_turn(turn: dict[str, Any]) -> tuple[Turn, list[ToolArg]]:
    text = turn["utterance"]
    labels, args = [], []
    acts: list[tuple[str, str]] = []
    for frame in turn.get("frames", []):
        for action in frame.get("actions", []):
            act = (str(frame.get("service", "")), str(action.get("act", "")))
            if act not in acts:
                acts.append(act)
        for slot in frame.get("slots", []):
            start, end = int(slot["start"]), int(slot["exclusive_end"])
            if not 0 <= start < end <= len(text):
                continue
            surface = text[start:end]
            canon = _sgd_canonical(frame, slot["slot"], surface)
            labels.append(Label(start, end, slot["slot"], surface, canon))
        call = frame.get("service_call")
        if call:
            for name, value in sorted(call.get("parameters", {}).items()):
                args.append(ToolArg(str(call.get("method", "")), name, str(value)))
    labels.sort(key=lambda lab: (lab.start, lab.end, lab.slot))
    return Turn(turn["speaker"].lower(), text, tuple(labels), tuple(acts)), args


def parse_sgd(dialogues: list[dict[str, Any]]) -> list[Dialogue]:
    """Dialogues of one SGD ``dialogues_NNN.json`` list."""
    out = []
    for raw in dialogues:
        turns, args = [], []
        for turn in raw["turns"]:
            parsed, turn_args = _sgd_turn(turn)
            turns.append(parsed)
            args.extend(turn_args)
        out.append(
            Dialogue("sgd", raw["dialogue_id"], tuple(turns), SGD_REFERENCE, (), tuple(args))
        )
    return out


def load_sgd(root: Path, limit: int | None = None) -> list[Dialogue]:
    """SGD dev dialogues from ``root/sgd/dialogues_*.json.gz``, in file order."""
    out: list[Dialogue] = []
    for name in sorted(glob.glob(str(root / "sgd" / "dialogues_*.json.gz"))):
        with gzip.open(name, "rt", encoding="utf-8") as fh:
            out.extend(parse_sgd(json.load(fh)))
        if limit is not None and len(out) >= limit:
            return out[:limit]
    return out


# --------------------------------------------------------------------------- tau-retail

_TAU_LINE = re.compile(r"^(user|assistant|tool): ", re.MULTILINE)
_TAU_TOKEN = re.compile(r"#?[A-Za-z0-9_]+")
_TAU_AMOUNT = re.compile(r"(?<![\w.,])\$?(\d[\d,]*(?:\.\d+)?)(?![\w]|[.,]\d)")


@dataclass(frozen=True)
class TauIds:
    """IDs of the tau-retail mock database, by kind, and the money amounts tied to them."""

    by_id: dict[str, str]
    """id -> kind (order_id, user_id, payment_method_id, product_id, item_id, tracking_id)."""
    amounts: dict[str, frozenset[Decimal]] = field(default_factory=dict)
    """order, user or product id -> prices, payments and balances the database gives it."""

    @classmethod
    def from_db(
        cls, users: dict[str, Any], orders: dict[str, Any], products: dict[str, Any]
    ) -> TauIds:
        """Collect every ID of the three database tables and the amounts of each."""
        by_id: dict[str, str] = {}
        amounts: dict[str, set[Decimal]] = {}
        for pid, product in products.items():
            by_id[pid] = "product_id"
            for item_id, variant in product.get("variants", {}).items():
                by_id[item_id] = "item_id"
                amounts.setdefault(pid, set()).add(_decimal(variant.get("price")))
        for oid, order in orders.items():
            by_id[oid] = "order_id"
            found = amounts.setdefault(oid, set())
            for item in order.get("items", []):
                by_id.setdefault(str(item.get("item_id")), "item_id")
                found.add(_decimal(item.get("price")))
            for payment in order.get("payment_history", []):
                found.add(_decimal(payment.get("amount")))
            for ful in order.get("fulfillments", []):
                for tracking in ful.get("tracking_id", []):
                    by_id[str(tracking)] = "tracking_id"
        for uid, user in users.items():
            by_id[uid] = "user_id"
            for method, info in user.get("payment_methods", {}).items():
                by_id[method] = "payment_method_id"
                if "balance" in info:
                    amounts.setdefault(uid, set()).add(_decimal(info["balance"]))
        frozen = {k: frozenset(v - {_NAN}) for k, v in amounts.items()}
        return cls(by_id, frozen)


_NAN = Decimal("NaN")


def _decimal(value: Any) -> Decimal:
    try:
        return Decimal(str(value))
    except (InvalidOperation, ValueError):
        return _NAN


def split_tau_transcript(display: str) -> list[tuple[str, str]]:
    """``user: ...`` / ``assistant: ...`` / ``tool: ...`` messages (multi-line bodies kept)."""
    heads = list(_TAU_LINE.finditer(display))
    out = []
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(display)
        out.append((head.group(1), display[head.end() : end].rstrip("\n")))
    return out


def _tau_id_labels(text: str, ids: TauIds) -> list[Label]:
    labels = []
    for m in _TAU_TOKEN.finditer(text):
        kind = ids.by_id.get(m.group())
        if kind is not None:
            labels.append(Label(m.start(), m.end(), kind, m.group(), m.group()))
    return labels


def _tau_amount_labels(text: str, amounts: frozenset[Decimal]) -> list[Label]:
    """Numbers equal to an amount the database ties to an ID the transcript mentions."""
    labels = []
    for m in _TAU_AMOUNT.finditer(text):
        value = _decimal(m.group(1).replace(",", ""))
        if value in amounts:
            labels.append(Label(m.start(), m.end(), "amount", m.group(), str(value)))
    return labels


def _tau_turns(display: str, ids: TauIds) -> tuple[Turn, ...]:
    raw = split_tau_transcript(display)
    id_labels = [_tau_id_labels(text, ids) for _, text in raw]
    mentioned = {lab.text for labels in id_labels for lab in labels}
    amounts = frozenset().union(*(ids.amounts.get(i, frozenset()) for i in sorted(mentioned)))
    turns = []
    for (speaker, text), labels in zip(raw, id_labels, strict=True):
        both = labels + _tau_amount_labels(text, amounts)
        turns.append(Turn(speaker, text, tuple(sorted(both, key=lambda b: (b.start, b.end)))))
    return tuple(turns)


def _task_args(tasks: Iterable[dict[str, Any]]) -> tuple[ToolArg, ...]:
    seen: dict[ToolArg, None] = {}
    for task in tasks:
        for action in task.get("actions", []):
            for name, value in sorted(action.get("kwargs", {}).items()):
                for item in value if isinstance(value, list) else [value]:
                    if isinstance(item, str | int | float) and not isinstance(item, bool):
                        seen.setdefault(ToolArg(action["name"], name, str(item)), None)
    return tuple(seen)


def parse_tau(
    lines: Iterable[str], ids: TauIds, tasks: list[dict[str, Any]], limit: int | None = None
) -> list[Dialogue]:
    """Dialogues of a tau-bench ``*.jsonl`` log (one ``{messages_display}`` object a line)."""
    by_user: dict[str, list[dict[str, Any]]] = {}
    for task in tasks:
        by_user.setdefault(task["user_id"], []).append(task)
    out: list[Dialogue] = []
    for n, line in enumerate(lines):
        if not line.strip():
            continue
        display = json.loads(line)["messages_display"]
        turns = _tau_turns(display, ids)
        users = sorted({lab.text for t in turns for lab in t.labels if lab.slot == "user_id"})
        args = _task_args(task for u in users for task in by_user.get(u, []))
        out.append(Dialogue("tau", f"tau-{n:03d}", turns, None, (), args))
        if limit is not None and len(out) >= limit:
            break
    return out


def load_tau(root: Path, limit: int | None = None) -> list[Dialogue]:
    """tau-retail agent logs with DB-ID labels and the gold tool arguments of their users."""
    base = root / "tau-retail"

    def read(name: str) -> Any:
        with open(base / name, encoding="utf-8") as fh:
            return json.load(fh)

    ids = TauIds.from_db(read("db/users.json"), read("db/orders.json"), read("db/products.json"))
    tasks: list[dict[str, Any]] = []
    for name in sorted(glob.glob(str(base / "retail_tasks_*.json"))):
        tasks.extend(read(os.path.basename(name)))
    logs = sorted(glob.glob(str(base / "*.jsonl")))
    out: list[Dialogue] = []
    for name in logs:
        with open(name, encoding="utf-8") as fh:
            out.extend(parse_tau(fh, ids, tasks, None if limit is None else limit - len(out)))
    return out[:limit]


# --------------------------------------------------------------------------- Taskmaster-4


def parse_taskmaster(conversations: list[dict[str, Any]]) -> list[Dialogue]:
    """Dialogues of one Taskmaster-4 file; API ``request`` JSON values become tool args."""
    out = []
    for conv in conversations:
        turns, args = [], []
        for utt in conv.get("utterances", []):
            turns.append(Turn(str(utt.get("speaker", "")), str(utt.get("text", ""))))
            calls = {a["context"]: a["value"] for a in _annotations(utt, "api_call")}
            for req in _annotations(utt, "request"):
                args.extend(_request_args(calls.get(req.get("context"), ""), req.get("value")))
        out.append(
            Dialogue("taskmaster", conv["conversation_id"], tuple(turns), None, (), tuple(args))
        )
    return out


def _annotations(utt: dict[str, Any], name: str) -> Iterator[dict[str, Any]]:
    for ann in utt.get("annotations") or []:
        if ann.get("name") == name:
            yield ann


def _request_args(tool: str, raw: Any) -> list[ToolArg]:
    try:
        data = json.loads(raw) if isinstance(raw, str) else {}
    except json.JSONDecodeError:
        return []
    if not isinstance(data, dict):
        return []
    return [ToolArg(tool, str(k), str(v)) for k, v in sorted(data.items()) if v is not None]


def load_taskmaster(root: Path, limit: int | None = None) -> list[Dialogue]:
    """Taskmaster-4 coffee-ordering conversations from ``root/taskmaster4/data_*.json.gz``."""
    out: list[Dialogue] = []
    for name in sorted(glob.glob(str(root / "taskmaster4" / "data_*.json.gz"))):
        with gzip.open(name, "rt", encoding="utf-8") as fh:
            out.extend(parse_taskmaster(json.load(fh)))
        if limit is not None and len(out) >= limit:
            return out[:limit]
    return out


LOADERS = {
    "multiwoz": load_multiwoz,
    "sgd": load_sgd,
    "tau": load_tau,
    "taskmaster": load_taskmaster,
}


# --------------------------------------------------------------------------- CLI helpers


def base_parser(description: str, default_limit: int) -> argparse.ArgumentParser:
    """``--data`` and ``--limit`` flags shared by every script."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "--data", type=Path, default=DEFAULT_DATA, help=f"dataset folder (default {DEFAULT_DATA})"
    )
    parser.add_argument(
        "--limit",
        type=int,
        default=default_limit,
        help=f"dialogues per dataset (default {default_limit}; 0 = all)",
    )
    return parser


def resolve_limit(limit: int) -> int | None:
    """``0`` (or less) means no limit."""
    return None if limit <= 0 else limit


def spread(items: list[Dialogue], limit: int | None) -> list[Dialogue]:
    """``limit`` items evenly spaced over ``items`` (all of them when ``limit`` is None)."""
    if limit is None or limit >= len(items):
        return items
    step = len(items) / limit
    return [items[int(i * step)] for i in range(limit)]


def fmt_ratio(num: int, den: int) -> str:
    """``0.973`` or ``-`` when there is nothing to divide."""
    return f"{num / den:.3f}" if den else "-"


def print_table(headers: list[str], rows: list[list[str]]) -> None:
    """A plain fixed-width table on stdout."""
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)
    ]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    print(line)
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))


def clip(text: str, width: int = 110) -> str:
    """One line, at most ``width`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"
