"""Mutation recall: does ``check`` flag summaries with one corrupted fact, and only those?

Run: ``.venv/bin/python bench/mutation_recall.py [--limit N] [--data DIR] [--seed S]``

Entries are real dialogues (turns joined as ``speaker: text`` lines, trimmed to ~2 KB). Every
mutation is positioned by the DATASET LABELS (see ``bench/common.py``), never by factdiff's
own extraction, so the benchmark does not test the extractor against itself. Per entry and
labelled type, one labelled value is picked with a seeded RNG and:

* drop    - every labelled mention of that value and every verbatim copy of its surface
            text is deleted;
* alter   - those mentions are rewritten with one changed value in the same style (a digit
            or letter of an ID, a digit of an amount or phone, the day of a date +-1, the
            minutes or hour of a time);
* invent  - a new sentence stating a new value of that type (shaped like the label) is
            inserted between two turns;
* format  - every labelled value of the type is re-rendered in another format, keeping the
            fact ($45 -> 45.00 USD, March 4th -> 2019-03-04, 6:30 pm -> 18:30,
            408-247-8880 -> (408) 247-8880); values whose label cannot be re-rendered
            unambiguously (a bare 5:15, an amount with no currency, a time label whose am/pm
            lies outside its span) are left as they are.

``check(source, summary, generic_schema())`` then decides, for every type (people too: the
generic inventory tracks them, ``important``).
"""

from __future__ import annotations

import random
import re
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import Target, as_demoted, clock_of, decimal_of, target_of
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
from factdiff.extraction.rules import infer_reference
from factdiff.schema.builtin import GENERIC_INVENTORY, generic_schema
from factdiff.values.base import FactType
from factdiff.verify.check import extract
from factdiff.verify.diff import FactDiff, Finding, Verdict
from factdiff.verify.policy import Outcome

MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
PERSON_SLOTS = frozenset(
    {"therapist_name", "recipient_name", "artist", "director", "starring", "actors"}
)
SPEAKER = {"multiwoz": "system", "sgd": "system", "tau": "assistant"}
DEFAULT_LIMITS = {"multiwoz": 150, "sgd": 250, "tau": 69}

# --------------------------------------------------------------------------- text edits

Edit = tuple[int, int, str]


def apply_edits(text: str, edits: list[Edit]) -> str:
    """Replace each ``[start, end)`` by its string; overlapping edits keep the first."""
    out, last = [], 0
    for start, end, new in sorted(edits):
        if start < last:
            continue
        out.append(text[last:start])
        out.append(new)
        last = end
    out.append(text[last:])
    return "".join(out)


def occurrences(text: str, surface: str) -> list[tuple[int, int]]:
    """Verbatim copies of ``surface`` not inside a longer word."""
    pattern = re.compile(rf"(?<!\w){re.escape(surface)}(?!\w)")
    return [(m.start(), m.end()) for m in pattern.finditer(text)]


# --------------------------------------------------------------------------- normalised keys


def value_key(target: Target) -> object:
    """The labelled value's identity, from the label's own normalised value."""
    canon = target.label.canonical or target.label.text
    kind = target.fact_type
    if kind is FactType.MONEY:
        return decimal_of(canon)
    if kind is FactType.TIME:
        return clock_of(canon)
    if kind is FactType.PHONE:
        return "".join(c for c in target.label.text if c.isdigit()).lstrip("0")[-9:]
    if kind is FactType.PERSON:
        return canon.lower()
    return canon


def group_spans(entry: Entry, targets: list[Target], chosen: Target) -> list[tuple[int, int]]:
    """Every labelled mention of the chosen value plus every verbatim copy of its surfaces."""
    key = value_key(chosen)
    same = [t for t in targets if t.fact_type is chosen.fact_type and value_key(t) == key]
    spans = {(t.label.start, t.label.end) for t in same}
    for surface in {t.label.text for t in same}:
        spans.update(occurrences(entry.text, surface))
    return sorted(spans)


# --------------------------------------------------------------------------- alterations


def _swap_char(c: str, rng: random.Random, first: bool = False) -> str:
    if c.isdigit():
        pool = "123456789" if first else "0123456789"
    elif c.isupper():
        pool = "ABCDEFGHJKLMNPQRSTUVWXYZ"
    else:
        pool = "abcdefghjkmnpqrstuvwxyz"
    return rng.choice([x for x in pool if x != c])


def alter_identifier(surface: str, rng: random.Random, changes: int = 1) -> str | None:
    """``changes`` letters or digits replaced by others of the same class."""
    positions = [i for i, c in enumerate(surface) if c.isalnum()]
    if len(positions) < changes:
        return None
    chars = list(surface)
    for i in rng.sample(positions, changes):
        chars[i] = _swap_char(chars[i], rng)
    return "".join(chars)


def alter_digit(surface: str, rng: random.Random, last_only: int = 0) -> str | None:
    """One digit of the first number changed (of the last ``last_only`` digits if given)."""
    m = re.search(r"\d[\d,. -]*\d|\d", surface)
    if not m:
        return None
    positions = [i for i in range(m.start(), m.end()) if surface[i].isdigit()]
    if last_only:
        positions = positions[-last_only:]
    i = rng.choice(positions)
    new = _swap_char(surface[i], rng, first=i == positions[0] and not last_only)
    return surface[:i] + new + surface[i + 1 :]


def _ordinal(day: int) -> str:
    if 10 <= day % 100 <= 20:
        return f"{day}th"
    return f"{day}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(day % 10, 'th') }"


def alter_date(surface: str, canonical: str, rng: random.Random) -> str | None:
    """The day moved by one, in the surface's style when it writes a day number."""
    day = date.fromisoformat(canonical)
    moved = day + timedelta(days=rng.choice((-1, 1)))
    if moved.month != day.month:
        moved = day + (day - moved)
    m = re.search(r"\b(\d{1,2})(st|nd|rd|th)?\b", surface)
    if m and int(m.group(1)) == day.day:
        new = _ordinal(moved.day) if m.group(2) else str(moved.day)
        return surface[: m.start()] + new + surface[m.end() :]
    return f"{MONTHS[moved.month - 1]} {_ordinal(moved.day)}"


def alter_time(surface: str, canonical: str, rng: random.Random) -> str | None:
    """Minutes moved by 10-50 when written, else the hour moved by one."""
    clock = clock_of(canonical)
    if clock is None:
        return None
    m = re.search(r":(\d{2})", surface)
    if m:
        minute = (int(m.group(1)) + rng.choice((10, 20, 30, 40, 50))) % 60
        return f"{surface[: m.start()]}:{minute:02d}{surface[m.end() :]}"
    m = re.search(r"\b(\d{1,2})\b", surface)
    if m:
        hour = int(m.group(1))
        new = hour - 1 if hour in (12, 23) else hour + 1
        return f"{surface[: m.start()]}{new}{surface[m.end() :]}"
    hour, minute = clock
    return f"{(hour + 1) % 24:02d}:{minute:02d}"


def alter_value(target: Target, rng: random.Random, names: list[str]) -> str | None:
    """A changed value for ``target`` in the same style as its surface."""
    surface, canon = target.label.text, target.label.canonical or target.label.text
    kind = target.fact_type
    if kind is FactType.IDENTIFIER:
        return alter_identifier(surface, rng)
    if kind is FactType.MONEY:
        return alter_digit(surface, rng)
    if kind is FactType.PHONE:
        return alter_digit(surface, rng, last_only=4)
    if kind is FactType.DATE:
        return alter_date(surface, canon, rng)
    if kind is FactType.TIME:
        return alter_time(surface, canon, rng)
    if kind is FactType.PERSON:
        others = [n for n in names if n.lower() != surface.lower()]
        return rng.choice(others) if others else None
    return None


# --------------------------------------------------------------------------- inventions

SENTENCES: dict[FactType, str] = {
    FactType.IDENTIFIER: "Your reference number is {v}.",
    FactType.MONEY: "The total comes to {v}.",
    FactType.DATE: "It is booked for {v}.",
    FactType.TIME: "It leaves at {v}.",
    FactType.PHONE: "You can reach them at {v}.",
    FactType.PERSON: "I have also let {v} know.",
}


def invent_value(target: Target, rng: random.Random, names: list[str]) -> tuple[str, str] | None:
    """``(surface, canonical)`` of a new value shaped like the label."""
    surface, canon = target.label.text, target.label.canonical or target.label.text
    kind = target.fact_type
    if kind is FactType.IDENTIFIER:
        new = alter_identifier(surface, rng, changes=min(3, max(1, len(surface) // 3)))
        return (new, new) if new else None
    if kind is FactType.MONEY:
        amount = (decimal_of(canon) or Decimal(0)) + rng.randint(3, 90)
        written = f"${amount}" if "$" in surface or "£" not in surface else f"£{amount}"
        return written, str(amount)
    if kind is FactType.PHONE:
        out = surface
        for _ in range(3):
            out = alter_digit(out, rng, last_only=4) or out
        return out, out
    if kind is FactType.DATE:
        day = date.fromisoformat(canon) + timedelta(days=rng.randint(2, 9))
        return f"{MONTHS[day.month - 1]} {_ordinal(day.day)}", day.isoformat()
    if kind is FactType.TIME:
        clock = clock_of(canon) or (12, 0)
        hour, minute = (clock[0] + rng.randint(2, 6)) % 12 or 12, rng.choice((5, 25, 35, 55))
        return f"{hour}:{minute:02d} pm", f"{hour % 12 + 12}:{minute:02d}"
    if kind is FactType.PERSON:
        name = alter_value(target, rng, names)
        return (name, name) if name else None
    return None


def is_new(entry: Entry, targets: list[Target], chosen: Target, canonical: str) -> bool:
    """True when no labelled value of the entry has the invented value's key."""
    probe = Target(Label(0, 0, "", canonical, canonical), chosen.fact_type, chosen.row)
    key = value_key(probe)
    same = (t for t in targets if t.fact_type is chosen.fact_type)
    return canonical not in entry.text and all(value_key(t) != key for t in same)


# --------------------------------------------------------------------------- format only

_CURRENCY = (
    ("USD", re.compile(r"\$|dollar|bucks|USD", re.IGNORECASE), "dollars"),
    ("GBP", re.compile(r"£|pound|GBP", re.IGNORECASE), "pounds"),
    ("EUR", re.compile(r"€|euro|EUR", re.IGNORECASE), "euros"),
)


def render_money(surface: str, canon: str, rng: random.Random) -> str | None:
    """``45 USD``, ``USD 45.00`` or ``45.00 dollars`` when the label states its currency."""
    amount = decimal_of(canon)
    numbers = re.findall(r"\d[\d,]*(?:\.\d+)?", surface)
    if amount is None or len(numbers) != 1 or decimal_of(numbers[0]) != amount:
        return None  # a range, a typo ('16:5 GBP') or a label that disagrees with its text
    if amount.as_tuple().exponent < -2:  # type: ignore[operator]
        return None
    for code, pattern, word in _CURRENCY:
        if pattern.search(surface):
            plain = f"{amount:.2f}"
            styles = [f"{amount} {code}", f"{code} {plain}", f"{plain} {word}"]
            return rng.choice([s for s in styles if s != surface])
    return None


def render_date(surface: str, canon: str, rng: random.Random) -> str | None:
    """``March 4, 2019``, ``2019-03-04`` or ``4 Mar 2019``."""
    day = date.fromisoformat(canon)
    month = MONTHS[day.month - 1]
    styles = [
        f"{month} {day.day}, {day.year}",
        day.isoformat(),
        f"{day.day} {month[:3]} {day.year}",
    ]
    return rng.choice([s for s in styles if s != surface])


def render_time(surface: str, canon: str) -> str | None:
    """24-hour form for a 12-hour or spoken time; 12-hour form for an unambiguous 24-hour one."""
    clock = clock_of(canon)
    if clock is None:
        return None
    hour, minute = clock
    written_clock = re.search(r"(\d{1,2}):(\d{2})", surface)
    if hour > 23 or minute > 59:
        return None
    if written_clock and int(written_clock.group(2)) != minute:
        return None  # the label's value disagrees with its text
    bare = re.fullmatch(r"(\d{1,2}):(\d{2})", surface.strip())
    if bare is None:
        return f"{hour:02d}:{minute:02d}"
    written = int(bare.group(1))
    if written != hour or not (hour >= 12 or surface.startswith("0")):
        return None
    half = "pm" if hour >= 12 else "am"
    return f"{(hour % 12) or 12}:{minute:02d} {half}"


def render_phone(surface: str, rng: random.Random) -> str | None:
    """Another layout of a US (10-digit) or UK (0 + 10 digits) number."""
    digits = "".join(c for c in surface if c.isdigit())
    if len(digits) == 11 and digits.startswith("1") and surface.lstrip().startswith("+"):
        digits = digits[1:]
    if len(digits) == 10 and not digits.startswith("0") and "+" not in surface.replace("+1", ""):
        a, b, c = digits[:3], digits[3:6], digits[6:]
        styles = [f"({a}) {b}-{c}", f"{a}-{b}-{c}", f"+1 {a} {b} {c}", f"{a}.{b}.{c}"]
    elif len(digits) == 11 and digits.startswith("0"):
        styles = [f"{digits[:5]} {digits[5:]}", f"+44 {digits[1:5]} {digits[5:]}"]
    else:
        return None
    return rng.choice([s for s in styles if s != surface])


_MERIDIEM_AFTER = re.compile(r"[ \t]?[ap]\.?m\b", re.IGNORECASE)
"""A time label followed by am/pm outside its span (``[[01:15]] pm``): re-rendering the label
alone would change the time, so such a mention is left as it is."""


def render_format(target: Target, rng: random.Random) -> str | None:
    """The same value in another format, or None when that cannot be done safely."""
    surface, canon = target.label.text, target.label.canonical or target.label.text
    kind = target.fact_type
    if kind is FactType.MONEY:
        return render_money(surface, canon, rng)
    if kind is FactType.DATE:
        return render_date(surface, canon, rng)
    if kind is FactType.TIME:
        return render_time(surface, canon)
    if kind is FactType.PHONE:
        return render_phone(surface, rng)
    return None


# --------------------------------------------------------------------------- running


@dataclass
class Cell:
    """Counts of one table cell."""

    n: int = 0
    failed: int = 0
    detected: int = 0
    right: int = 0
    examples: list[str] = field(default_factory=list)


@dataclass
class Results:
    """Counts per (dataset, type, kind)."""

    cells: dict[tuple[str, str, str], Cell] = field(default_factory=lambda: defaultdict(Cell))


def _right_reason(result: FactDiff, kind: str, fact_type: FactType) -> bool:
    types = (
        {fact_type, FactType.DATETIME}
        if fact_type in (FactType.DATE, FactType.TIME)
        else {fact_type}
    )
    verdicts = {
        "drop": {Verdict.MISSING},
        "alter": {Verdict.CHANGED, Verdict.MISSING, Verdict.ADDED},
        "invent": {Verdict.ADDED},
    }[kind]
    return any(f.verdict in verdicts and f.fact_type in types for f in result.findings)


def _typed_targets(dialogue: Dialogue, entry: Entry) -> list[Target]:
    unique = {(lab.start, lab.end): lab for lab in entry.labels}
    out = []
    for lab in unique.values():
        target = target_of(dialogue.dataset, lab)
        if target is None and dialogue.dataset == "sgd" and lab.slot in PERSON_SLOTS:
            target = Target(lab, FactType.PERSON, "name")
        if target is not None and lab.text.strip():
            out.append(target)
    return out


def _insert_sentence(entry: Entry, rng: random.Random, sentence: str) -> str:
    cut = rng.choice([end for _, end in entry.turn_spans])
    line = f"\n{SPEAKER.get(entry.dialogue.dataset, 'system')}: {sentence}"
    return entry.text[:cut] + line + entry.text[cut:]


def variants(
    entry: Entry, targets: list[Target], rng: random.Random, names: list[str]
) -> list[tuple[str, FactType, str, str]]:
    """``(kind, type, summary, what changed)`` for one entry."""
    out: list[tuple[str, FactType, str, str]] = []
    by_type: dict[FactType, list[Target]] = defaultdict(list)
    for t in targets:
        by_type[t.fact_type].append(t)
    for kind_type in sorted(by_type, key=lambda k: k.value):
        group = by_type[kind_type]
        chosen = rng.choice(group)
        spans = group_spans(entry, targets, chosen)
        label = chosen.label.text
        out.append(
            (
                "drop",
                kind_type,
                apply_edits(entry.text, [(s, e, "") for s, e in spans]),
                f"-{label!r}",
            )
        )
        new = alter_value(chosen, rng, names)
        if new and new != label:
            edits = [(s, e, new) for s, e in spans]
            out.append(("alter", kind_type, apply_edits(entry.text, edits), f"{label!r}->{new!r}"))
        invented = invent_value(chosen, rng, names)
        if (
            invented
            and is_new(entry, targets, chosen, invented[1])
            and invented[0] not in entry.text
        ):
            sentence = SENTENCES[kind_type].format(v=invented[0])
            summary = _insert_sentence(entry, rng, sentence)
            out.append(("invent", kind_type, summary, f"+{invented[0]!r}"))
        edits = [
            (t.label.start, t.label.end, r)
            for t in group
            if not _MERIDIEM_AFTER.match(entry.text, t.label.end)
            and (r := render_format(t, rng)) is not None
            and r != t.label.text
        ]
        if edits:
            what = ", ".join(f"{entry.text[s:e]!r}->{r!r}" for s, e, r in edits[:3])
            out.append(("format", kind_type, apply_edits(entry.text, edits), what))
    return out


def _finding_text(finding: Finding) -> str:
    """``verdict type value`` of one finding, for the examples."""
    fact = finding.source or finding.summary
    shown = fact.value.canonical() if fact else ""
    return f"{finding.verdict.value} {finding.fact_type.value} {shown}"


def run_entry(entry: Entry, results: Results, rng: random.Random, names: list[str], k: int) -> int:
    """Check every variant of one entry; returns how many checks ran."""
    targets = _typed_targets(entry.dialogue, entry)
    if not targets:
        return 0
    schema = generic_schema()
    reference = entry.reference or infer_reference(entry.text)
    source = extract(entry.text, schema, reference)
    ran = 0
    ds = entry.dialogue.dataset
    for kind, fact_type, summary, what in variants(entry, targets, rng, names):
        result = as_demoted(summary, source, schema, entry.text)
        ran += 1
        cell = results.cells[(ds, fact_type.value, kind)]
        cell.n += 1
        failed = result.outcome is Outcome.FAILED
        detected = result.outcome is not Outcome.CLEAN
        cell.failed += failed
        cell.detected += detected
        if kind != "format":
            cell.right += _right_reason(result.diff, kind, fact_type)
        bad = detected if kind == "format" else not failed
        if bad and len(cell.examples) < k:
            found = "; ".join(_finding_text(f) for f in result.diff.findings[:3])
            cell.examples.append(
                f"{entry.dialogue.dialogue_id}: {clip(what, 70)} => {result.outcome.value}"
                f" [{clip(found, 90) or 'no findings'}]"
            )
    return ran


def _critical(fact_type: str) -> str:
    crit = GENERIC_INVENTORY.get(FactType(fact_type))
    return crit.value if crit else "-"


def print_results(results: Results) -> None:
    """Tables per dataset and type, totals per type, then examples."""
    cells = results.cells
    print("\n== Corrupted summaries (one fact dropped / altered / invented) ==")
    print("failed = outcome 'failed'; flagged = outcome not 'clean'; right = the diff reports")
    print("that type as missing (drop), changed/missing/added (alter) or added (invent).")
    rows = []
    for (ds, ft, kind), c in sorted(cells.items()):
        if kind == "format":
            continue
        rows.append(
            [
                ds,
                ft,
                _critical(ft),
                kind,
                str(c.n),
                fmt_ratio(c.failed, c.n),
                fmt_ratio(c.detected, c.n),
                fmt_ratio(c.right, c.n),
            ]
        )
    print_table(
        ["dataset", "type", "criticality", "mutation", "n", "failed", "flagged", "right"], rows
    )
    print("\n== All datasets, per type and mutation (target: failed >= 0.98 for critical types) ==")
    total: dict[tuple[str, str], Cell] = defaultdict(Cell)
    for (_ds, ft, kind), c in cells.items():
        t = total[(ft, kind)]
        t.n += c.n
        t.failed += c.failed
        t.detected += c.detected
        t.right += c.right
    rows = [
        [
            ft,
            _critical(ft),
            kind,
            str(c.n),
            fmt_ratio(c.failed, c.n),
            fmt_ratio(c.detected, c.n),
            fmt_ratio(c.right, c.n),
        ]
        for (ft, kind), c in sorted(total.items())
        if kind != "format"
    ]
    print_table(["type", "criticality", "mutation", "n", "failed", "flagged", "right"], rows)
    print("\n== Format-only variants (every fact kept; target: flagged <= 0.01) ==")
    rows = [
        [ds, ft, str(c.n), fmt_ratio(c.detected, c.n), fmt_ratio(c.failed, c.n)]
        for (ds, ft, kind), c in sorted(cells.items())
        if kind == "format"
    ]
    fmt_all = [c for (_d, _f, kind), c in cells.items() if kind == "format"]
    n_all = sum(c.n for c in fmt_all)
    rows.append(
        [
            "ALL",
            "all",
            str(n_all),
            fmt_ratio(sum(c.detected for c in fmt_all), n_all),
            fmt_ratio(sum(c.failed for c in fmt_all), n_all),
        ]
    )
    print_table(["dataset", "type", "n", "flagged", "failed"], rows)
    print("\n== Examples: corruptions not failed, format-only variants flagged ==")
    for (ds, ft, kind), c in sorted(cells.items()):
        for ex in c.examples:
            print(f"  {ds}/{ft}/{kind}: {ex}")


def main() -> None:
    """Parse flags, build entries, run every variant, print."""
    parser = base_parser(__doc__ or "", default_limit=-1)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--max-chars", type=int, default=2000, help="entry size cap")
    parser.add_argument("--examples", type=int, default=3, help="examples per cell")
    parser.add_argument("--datasets", default="multiwoz,sgd,tau")
    args = parser.parse_args()
    results = Results()
    print(__doc__)
    for name in args.datasets.split(","):
        limit = DEFAULT_LIMITS[name] if args.limit < 0 else resolve_limit(args.limit)
        started = time.perf_counter()
        dialogues = spread(LOADERS[name](args.data, None), limit)
        names = sorted(
            {
                lab.text
                for d in dialogues
                for t in d.turns
                for lab in t.labels
                if lab.slot in PERSON_SLOTS
            }
        )
        ran = 0
        for dialogue in dialogues:
            rng = random.Random(f"{args.seed}:{dialogue.dialogue_id}")
            entry = build_entry(dialogue, args.max_chars)
            ran += run_entry(entry, results, rng, names, args.examples)
        took = time.perf_counter() - started
        print(f"{name}: {len(dialogues)} entries, {ran} checks, {took:.1f} s")
    print_results(results)


if __name__ == "__main__":
    main()
