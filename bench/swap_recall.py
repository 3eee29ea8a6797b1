"""Swap recall: does ``check`` flag summaries in which two values of one type trade roles?

Run: ``.venv/bin/python bench/swap_recall.py [--limit N] [--data DIR] [--seed S]``

Entries are real dialogues (turns joined as ``speaker: text`` lines, trimmed to ~2 KB; 8 KB for
tau-retail, whose amounts come late in long transcripts), checked
with the generic schema (no fields: only schema-free atoms and the roles the text gives them).
Pairs come from the DATASET LABELS, never from factdiff's extraction:

* SGD: the date and time slots of one trip or stay (:data:`ROLE_PAIRS`):
  ``departure_date``/``return_date``, ``pickup_date``/``dropoff_date``,
  ``check_in_date``/``leaving_date`` (SGD has no check-out slot), and outbound/inbound
  departure and arrival times;
* MultiWOZ: a ``Leave`` and an ``Arrive`` time;
* tau-retail: two amounts that the mock database gives different kinds (an item price, a
  payment, a gift-card balance).

Per entry one such pair (seeded) with two different values is picked, and:

* swap     - every labelled mention of the first value in its role is rewritten with the
             second value's surface and vice versa;
* format   - control: both values re-rendered in another format, roles untouched
             (``6:30 pm`` -> ``18:30``, ``March 4th`` -> ``2019-03-04``, ``$45`` -> ``45 USD``);
* reword   - control: the role words of the pair's kind rewritten with synonyms (a trip's:
             ``leaves`` -> ``departs``, ``arriving`` -> ``getting in``, ``returning`` ->
             ``coming back``...; an amount's: ``costs`` -> ``is priced at``...), values
             untouched.

``flagged`` = outcome not ``clean``. Targets: swaps flagged >= 0.95; the two controls are
false alarms and should stay where ``mutation_recall.py``'s format-only rows are (<= 0.01).
"""

from __future__ import annotations

import json
import random
import re
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import as_demoted, decimal_of
from bench.datasets import (
    LOADERS,
    Dialogue,
    Entry,
    Label,
    base_parser,
    build_entry,
    clip,
    fmt_ratio,
    print_table,
    resolve_limit,
    spread,
)
from bench.mutation_recall import apply_edits, render_date, render_money, render_time
from factdiff.extraction.rules import infer_reference
from factdiff.schema.builtin import generic_schema
from factdiff.verify.check import extract
from factdiff.verify.policy import Outcome

DEFAULT_LIMITS = {"multiwoz": 999, "sgd": 2000, "tau": 69}
ROLE_PAIRS = frozenset(
    frozenset(pair)
    for pair in (
        ("Leave", "Arrive"),
        ("departure_date", "return_date"),
        ("pickup_date", "dropoff_date"),
        ("check_in_date", "leaving_date"),
        ("outbound_departure_time", "inbound_departure_time"),
        ("outbound_departure_time", "outbound_arrival_time"),
        ("inbound_departure_time", "inbound_arrival_time"),
        ("price", "payment"),
        ("price", "balance"),
        ("payment", "balance"),
    )
)
"""Slots (SGD, MultiWOZ) and database kinds (tau) that are two roles of one type."""
_TRIP_REWORDS = (
    ("leaves", "departs"),
    ("leaving", "departing"),
    ("departs", "leaves"),
    ("departing", "leaving"),
    ("arrives", "gets in"),
    ("arriving", "getting in"),
    ("returning", "coming back"),
    ("return", "come back"),
    ("pick up", "pick-up"),
    ("check in", "check-in"),
)
_MONEY_REWORDS = (
    ("priced at", "costing"),
    ("costs", "is priced at"),
    ("balance of", "balance:"),
)
_REWORDS = {"date": _TRIP_REWORDS, "time": _TRIP_REWORDS, "money": _MONEY_REWORDS}
"""Role words by the kind of the pair: a trip's for dates and times, an amount's for money
(tau-retail's ``return`` is an after-sales service, not a trip's way back)."""


@dataclass(frozen=True)
class Pair:
    """Two labelled values of one type with different roles."""

    kind: str
    first: list[Label]
    second: list[Label]


@dataclass
class Cell:
    """Counts of one table cell."""

    n: int = 0
    flagged: int = 0
    failed: int = 0
    examples: list[str] = field(default_factory=list)


def _key(kind: str, label: Label) -> object:
    canon = label.canonical or label.text
    return decimal_of(canon) if kind == "money" else canon


def _kind_of_slot(dataset: str, label: Label) -> str | None:
    slot, canon = label.slot, label.canonical or ""
    if (
        dataset == "multiwoz"
        and slot in ("Leave", "Arrive")
        and re.fullmatch(r"\d{1,2}:\d{2}", canon)
    ):
        return "time"
    if dataset == "sgd":
        if slot.endswith("date") and re.fullmatch(r"\d{4}-\d{2}-\d{2}", canon):
            return "date"
        if slot.endswith("time") and re.fullmatch(r"\d{1,2}:\d{2}", canon):
            return "time"
    return None


def tau_amount_kinds(root: Path) -> dict[str, dict[Decimal, set[str]]]:
    """Per order, user and product ID of the tau-retail mock database: its amounts and the
    kinds each has there (item price, payment, gift-card balance)."""
    base = root / "tau-retail" / "db"
    kinds: dict[str, dict[Decimal, set[str]]] = defaultdict(lambda: defaultdict(set))

    def add(owner: str, value: object, kind: str) -> None:
        try:
            kinds[owner][Decimal(str(value)).quantize(Decimal("0.01"))].add(kind)
        except ArithmeticError:
            return

    products = json.loads((base / "products.json").read_text(encoding="utf-8"))
    for pid, product in products.items():
        for variant in product.get("variants", {}).values():
            add(pid, variant.get("price"), "price")
    orders = json.loads((base / "orders.json").read_text(encoding="utf-8"))
    for oid, order in orders.items():
        for item in order.get("items", []):
            add(oid, item.get("price"), "price")
        for payment in order.get("payment_history", []):
            add(oid, payment.get("amount"), "payment")
    users = json.loads((base / "users.json").read_text(encoding="utf-8"))
    for uid, user in users.items():
        for method in user.get("payment_methods", {}).values():
            if "balance" in method:
                add(uid, method["balance"], "balance")
    return kinds


def _entry_kinds(
    entry: Entry, tau_kinds: dict[str, dict[Decimal, set[str]]]
) -> dict[Decimal, set[str]]:
    """The kinds of the amounts tied to the IDs this transcript mentions."""
    out: dict[Decimal, set[str]] = defaultdict(set)
    for label in entry.labels:
        for amount, found in tau_kinds.get(label.text.lstrip("#"), {}).items():
            out[amount] |= found
        for amount, found in tau_kinds.get(label.text, {}).items():
            out[amount] |= found
    return out


def pairs_of(entry: Entry, tau_kinds: dict[str, dict[Decimal, set[str]]]) -> list[Pair]:
    """Every pair of differently-roled labelled values of one type in ``entry``."""
    dataset = entry.dialogue.dataset
    groups: dict[tuple[str, str, object], list[Label]] = defaultdict(list)
    kinds = _entry_kinds(entry, tau_kinds) if dataset == "tau" else {}
    for label in entry.labels:
        if dataset == "tau":
            amount = decimal_of(label.canonical or "") if label.slot == "amount" else None
            found = kinds.get(amount.quantize(Decimal("0.01"))) if amount is not None else None
            if found is None or len(found) != 1:
                continue
            kind, role = "money", next(iter(found))
        else:
            kind_or_none = _kind_of_slot(dataset, label)
            if kind_or_none is None:
                continue
            kind, role = kind_or_none, label.slot
        groups[(kind, role, _key(kind, label))].append(label)
    out = []
    keys = sorted(groups, key=str)
    for i, a in enumerate(keys):
        for b in keys[i + 1 :]:
            if a[0] == b[0] and frozenset((a[1], b[1])) in ROLE_PAIRS and a[2] != b[2]:
                out.append(Pair(a[0], groups[a], groups[b]))
    return out


def swapped(entry: Entry, pair: Pair) -> str:
    """Every mention of each value in its role rewritten with the other value."""
    to_second = pair.second[0].text
    to_first = pair.first[0].text
    edits = [(lab.start, lab.end, to_second) for lab in pair.first]
    edits += [(lab.start, lab.end, to_first) for lab in pair.second]
    return apply_edits(entry.text, edits)


def reformatted(entry: Entry, pair: Pair, rng: random.Random) -> str | None:
    """Both values in another format (or None when neither can be re-rendered safely)."""
    edits = []
    for lab in (*pair.first, *pair.second):
        canon = lab.canonical or lab.text
        if pair.kind == "date":
            new = render_date(lab.text, canon, rng)
        elif pair.kind == "time":
            new = render_time(lab.text, canon)
        else:
            new = render_money(lab.text, canon, rng) if "$" in lab.text else None
        if new is not None and new != lab.text:
            edits.append((lab.start, lab.end, new))
    return apply_edits(entry.text, edits) if edits else None


def reworded(entry: Entry, kind: str) -> str | None:
    """The role words of values of ``kind`` replaced by synonyms (None when the entry has
    none)."""
    text, changed = entry.text, False
    for old, new in _REWORDS[kind]:
        pattern = re.compile(rf"(?<![\w-]){re.escape(old)}(?![\w-])")
        text, count = pattern.subn(new, text)
        changed = changed or count > 0
    return text if changed else None


def run(
    dataset: str,
    entries: list[Entry],
    cells: dict[tuple[str, str, str], Cell],
    seed: int,
    tau_kinds: dict[str, dict[Decimal, set[str]]],
    k: int,
) -> int:
    """Check every variant of every entry with a pair; returns how many checks ran."""
    schema = generic_schema()
    ran = 0
    for entry in entries:
        pairs = pairs_of(entry, tau_kinds)
        if not pairs:
            continue
        rng = random.Random(f"{seed}:{entry.dialogue.dialogue_id}")
        pair = rng.choice(pairs)
        reference = entry.reference or infer_reference(entry.text)
        source_facts = extract(entry.text, schema, reference)
        variants = [("swap", swapped(entry, pair)), ("format", reformatted(entry, pair, rng))]
        variants.append(("reword", reworded(entry, pair.kind)))
        for variant, summary in variants:
            if summary is None or summary == entry.text:
                continue
            result = as_demoted(summary, source_facts, schema, entry.text)
            ran += 1
            cell = cells[(dataset, pair.kind, variant)]
            cell.n += 1
            flagged = result.outcome is not Outcome.CLEAN
            cell.flagged += flagged
            cell.failed += result.outcome is Outcome.FAILED
            bad = flagged if variant != "swap" else not flagged
            if bad and len(cell.examples) < k:
                what = f"{pair.first[0].text!r}<->{pair.second[0].text!r}"
                found = "; ".join(
                    f"{f.verdict.value} {f.field} {f.detail}" for f in result.diff.findings[:2]
                )
                cell.examples.append(
                    f"{entry.dialogue.dialogue_id}: {clip(what, 50)} => {result.outcome.value}"
                    f" [{clip(found, 90) or 'no findings'}]"
                )
    return ran


def main() -> None:
    """Parse flags, build entries, run every variant, print."""
    parser = base_parser(__doc__ or "", default_limit=-1)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument(
        "--max-chars", type=int, default=0, help="entry size cap (default 2000; tau 8000)"
    )
    parser.add_argument("--examples", type=int, default=4, help="examples per cell")
    parser.add_argument("--datasets", default="multiwoz,sgd,tau")
    args = parser.parse_args()
    print(__doc__)
    tau_kinds = tau_amount_kinds(args.data)
    cells: dict[tuple[str, str, str], Cell] = defaultdict(Cell)
    for name in args.datasets.split(","):
        limit = DEFAULT_LIMITS[name] if args.limit < 0 else resolve_limit(args.limit)
        started = time.perf_counter()
        dialogues: list[Dialogue] = spread(LOADERS[name](args.data, None), limit)
        cap = args.max_chars or (8000 if name == "tau" else 2000)
        entries = [build_entry(d, cap) for d in dialogues]
        ran = run(name, entries, cells, args.seed, tau_kinds, args.examples)
        took = time.perf_counter() - started
        print(f"{name}: {len(entries)} entries, {ran} checks, {took:.1f} s")
    print("\n== Swapped roles (target: flagged >= 0.95) and controls (false alarms) ==")
    rows = [
        [ds, kind, variant, str(c.n), fmt_ratio(c.flagged, c.n), fmt_ratio(c.failed, c.n)]
        for (ds, kind, variant), c in sorted(cells.items())
    ]
    for variant in ("swap", "format", "reword"):
        picked = [c for (_d, _k, v), c in cells.items() if v == variant]
        n = sum(c.n for c in picked)
        flagged = sum(c.flagged for c in picked)
        failed = sum(c.failed for c in picked)
        rows.append(["ALL", "all", variant, str(n), fmt_ratio(flagged, n), fmt_ratio(failed, n)])
    print_table(["dataset", "type", "variant", "n", "flagged", "failed"], rows)
    print("\n== Examples: swaps not flagged, controls flagged ==")
    for (ds, kind, variant), c in sorted(cells.items()):
        for ex in c.examples:
            print(f"  {ds}/{kind}/{variant}: {ex}")


if __name__ == "__main__":
    main()
