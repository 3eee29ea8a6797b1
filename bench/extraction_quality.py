"""Extraction recall and precision of the deterministic extractor against dataset labels.

Run: ``.venv/bin/python bench/extraction_quality.py [--limit N] [--data DIR] [--examples K]``

Each dialogue is one entry (turns joined as ``speaker: text`` lines, tool results included)
extracted once with the built-in generic schema. See ``DEFINITIONS`` for the figures.
"""

from __future__ import annotations

import re
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import (
    Atom,
    Target,
    accepted,
    atoms_of,
    overlaps,
    target_of,
    value_matches,
)
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
)
from factdiff.extraction.recognizers.base import ExtractionContext
from factdiff.schema.builtin import generic_schema
from factdiff.values.base import FactType
from factdiff.verify.check import extract

DEFINITIONS = """\
Definitions (every dialogue is one entry; extraction with the generic schema, inventory only):
  recall    = labelled values for which an extracted atom of an accepted type overlaps the
              label span AND its value equals the label's normalised value (identifier: exact
              text; date: ISO date; time: hour:minute, 12-hour ambiguity accepted; money:
              amount only; phone: same parsed key or same digits) / labelled values.
              'span' = same but any value (found at the right place, maybe misread).
              A datetime atom is accepted for a date or a time label.
  precision = extracted atoms (one per stated occurrence) of that type that overlap a label
              whose expected type accepts it / all extracted atoms of that type in the entries.
              'other' = atoms on a label of another type or an untyped slot (address, name...);
              'unlab' = atoms on no label at all. Labels are not exhaustive (MultiWOZ labels
              only dialogue-act slots; SGD only its schema's slots; tau only database IDs), so
              precision is a LOWER bound: some 'unlab' atoms are true values nobody labelled.
  Label sources: MultiWOZ span_info + metadata booked references; SGD slot spans with
  canonical_values (reference date 2019-03-01); tau-retail tokens that are mock-DB IDs and
  the gold tool-call kwargs (retail_tasks_*.json) of the transcript's users, per occurrence.
"""

PRECISION_TYPES: dict[str, tuple[FactType, ...]] = {
    "multiwoz": (FactType.IDENTIFIER, FactType.PHONE, FactType.TIME, FactType.MONEY),
    "sgd": (FactType.DATE, FactType.TIME, FactType.DATETIME, FactType.MONEY, FactType.PHONE),
    "tau": (FactType.IDENTIFIER, FactType.PHONE, FactType.MONEY),
}

ARG_TYPES: dict[str, FactType] = {
    "order_id": FactType.IDENTIFIER,
    "item_ids": FactType.IDENTIFIER,
    "new_item_ids": FactType.IDENTIFIER,
    "payment_method_id": FactType.IDENTIFIER,
    "product_id": FactType.IDENTIFIER,
    "user_id": FactType.IDENTIFIER,
    "zip": FactType.IDENTIFIER,
    "email": FactType.EMAIL,
}
"""Gold tool-call arguments checked, and the type they should be extracted as."""


@dataclass
class RecallRow:
    """Counts of one (dataset, row)."""

    n: int = 0
    hits: int = 0
    span_hits: int = 0
    misses: list[str] = field(default_factory=list)


@dataclass
class PrecisionRow:
    """Counts of one (dataset, extracted type)."""

    n: int = 0
    correct: int = 0
    other: int = 0
    unlabelled: int = 0
    errors: list[str] = field(default_factory=list)


@dataclass
class Report:
    """Everything the script prints."""

    recall: dict[tuple[str, str], RecallRow] = field(default_factory=lambda: defaultdict(RecallRow))
    precision: dict[tuple[str, str], PrecisionRow] = field(
        default_factory=lambda: defaultdict(PrecisionRow)
    )
    notes: list[str] = field(default_factory=list)


def _context(text: str, span: tuple[int, int], width: int = 45) -> str:
    left = text[max(0, span[0] - width) : span[0]]
    right = text[span[1] : span[1] + width]
    return clip(f"{left}[[{text[span[0] : span[1]]}]]{right}", 140)


def _describe(atoms: list[Atom]) -> str:
    if not atoms:
        return "nothing extracted there"
    return ", ".join(f"{a.fact_type.value}:{a.value.canonical()!r}" for a in atoms[:3])


def _score_target(
    report: Report, dataset: str, entry: Entry, atoms: list[Atom], target: Target, *, k: int
) -> None:
    row = report.recall[(dataset, target.row)]
    span = (target.label.start, target.label.end)
    near = [a for a in atoms if overlaps(a.span, span)]
    typed = [a for a in near if a.fact_type in accepted(target.fact_type)]
    ctx = ExtractionContext(reference=entry.reference)
    row.n += 1
    row.span_hits += bool(typed)
    if any(value_matches(target, a.value, ctx) for a in typed):
        row.hits += 1
    elif len(row.misses) < k:
        want = target.label.canonical or target.label.text
        row.misses.append(f"want {want!r}; got {_describe(near)} | {_context(entry.text, span)}")


def _score_precision(
    report: Report, dataset: str, entry: Entry, atoms: list[Atom], targets: list[Target], *, k: int
) -> None:
    for atom in atoms:
        if atom.fact_type not in PRECISION_TYPES[dataset]:
            continue
        row = report.precision[(dataset, atom.fact_type.value)]
        row.n += 1
        on_labels = [lab for lab in entry.labels if overlaps((lab.start, lab.end), atom.span)]
        good = [
            t
            for t in targets
            if atom.fact_type in accepted(t.fact_type)
            and overlaps((t.label.start, t.label.end), atom.span)
        ]
        if good:
            row.correct += 1
            continue
        if on_labels:
            row.other += 1
            why = f"on {on_labels[0].slot}"
        else:
            row.unlabelled += 1
            why = "unlabelled"
        if len(row.errors) < k:
            row.errors.append(
                f"{atom.value.canonical()!r} ({why}) | {_context(entry.text, atom.span)}"
            )


def _occurrences(text: str, value: str) -> list[Label]:
    pattern = re.compile(rf"(?<![\w#.@-]){re.escape(value)}(?![\w@]|-\w)")
    return [Label(m.start(), m.end(), "", value, value) for m in pattern.finditer(text)]


def _ground_truth_targets(dialogue: Dialogue, entry: Entry) -> list[Target]:
    """Booked references (MultiWOZ) and gold tool arguments (tau) found in the text."""
    out: list[Target] = []
    for ref in dialogue.booked_refs:
        out.extend(
            Target(lab, FactType.IDENTIFIER, "booked_ref(metadata)")
            for lab in _occurrences(entry.text, ref)
        )
    seen: set[tuple[str, str]] = set()
    for arg in dialogue.tool_args:
        kind = ARG_TYPES.get(arg.name)
        if kind is None or (arg.name, arg.value) in seen:
            continue
        seen.add((arg.name, arg.value))
        out.extend(
            Target(lab, kind, f"tool_arg:{arg.name}") for lab in _occurrences(entry.text, arg.value)
        )
    return out


def _arg_match(target: Target, atom: Atom) -> bool:
    if target.fact_type is FactType.EMAIL:
        return atom.fact_type is FactType.EMAIL and atom.value.key() == target.label.text.lower()
    return atom.fact_type is target.fact_type and atom.value.canonical() == target.label.text


def _score_truth(report: Report, entry: Entry, atoms: list[Atom], target: Target, k: int) -> None:
    row = report.recall[(entry.dialogue.dataset, target.row)]
    span = (target.label.start, target.label.end)
    near = [a for a in atoms if overlaps(a.span, span)]
    row.n += 1
    row.span_hits += any(a.fact_type is target.fact_type for a in near)
    if any(_arg_match(target, a) for a in near):
        row.hits += 1
    elif len(row.misses) < k:
        row.misses.append(
            f"want {target.label.text!r}; got {_describe(near)} | {_context(entry.text, span)}"
        )


def evaluate(dialogues: list[Dialogue], report: Report, k: int) -> None:
    """Extract every dialogue once and score its labels and ground truth."""
    schema = generic_schema()
    for dialogue in dialogues:
        entry = build_entry(dialogue)
        record = extract(entry.text, schema, entry.reference)
        atoms = atoms_of(dict(record.inventory))
        unique = {(lab.start, lab.end, lab.slot): lab for lab in entry.labels}
        targets = [
            t for lab in unique.values() if (t := target_of(dialogue.dataset, lab)) is not None
        ]
        for target in targets:
            _score_target(report, dialogue.dataset, entry, atoms, target, k=k)
        _score_precision(report, dialogue.dataset, entry, atoms, targets, k=k)
        for target in _ground_truth_targets(dialogue, entry):
            _score_truth(report, entry, atoms, target, k)


def print_report(report: Report) -> None:
    """Recall table, precision table, then example misses and false atoms."""
    print("\n== Recall per dataset and labelled type ==")
    rows = [
        [ds, name, str(r.n), fmt_ratio(r.hits, r.n), fmt_ratio(r.span_hits, r.n)]
        for (ds, name), r in sorted(report.recall.items())
    ]
    print_table(["dataset", "label type", "n", "recall", "span"], rows)
    print("\n== Precision per dataset and extracted type ==")
    rows = [
        [
            ds,
            name,
            str(p.n),
            fmt_ratio(p.correct, p.n),
            fmt_ratio(p.other, p.n),
            fmt_ratio(p.unlabelled, p.n),
        ]
        for (ds, name), p in sorted(report.precision.items())
    ]
    print_table(["dataset", "extracted type", "atoms", "precision", "other", "unlab"], rows)
    print("\n== Example misses (recall) ==")
    for (ds, name), r in sorted(report.recall.items()):
        for miss in r.misses:
            print(f"  {ds}/{name}: {miss}")
    print("\n== Example atoms not on a label of their type (precision) ==")
    for (ds, name), p in sorted(report.precision.items()):
        for err in p.errors:
            print(f"  {ds}/{name}: {err}")
    for note in report.notes:
        print(note)


def main() -> None:
    """Parse flags, load, evaluate, print."""
    parser = base_parser(__doc__ or "", default_limit=0)
    parser.add_argument("--examples", type=int, default=4, help="misses shown per row")
    parser.add_argument(
        "--datasets", default="multiwoz,sgd,tau", help="comma-separated: multiwoz,sgd,tau"
    )
    args = parser.parse_args()
    limit = resolve_limit(args.limit)
    print(DEFINITIONS)
    report = Report()
    for name in args.datasets.split(","):
        started = time.perf_counter()
        dialogues = LOADERS[name](args.data, limit)
        evaluate(dialogues, report, args.examples)
        chars = sum(len(build_entry(d).text) for d in dialogues)
        print(
            f"{name}: {len(dialogues)} dialogues, {chars / 1000:.0f} K chars, "
            f"{time.perf_counter() - started:.1f} s"
        )
    print_report(report)


if __name__ == "__main__":
    main()
