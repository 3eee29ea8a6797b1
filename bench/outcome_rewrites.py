"""Outcome rewrites: does ``check`` flag a labelled transaction outcome dropped or flipped,
and leave it alone when reworded?

Run: ``.venv/bin/python bench/outcome_rewrites.py [--limit N] [--data DIR] [--seed S]``

Rows are SGD system turns the dataset labels with a transaction outcome: a ``NOTIFY_SUCCESS``
(done) or ``NOTIFY_FAILURE`` (failed) act of a service that books, buys or pays (restaurants,
hotels, buses, events, home visits, rental cars, rides, appointments, bank transfers; playing
media, setting alarms and travel searches are no transactions). A row's entry is the dialogue
up to and including that turn (``speaker: text`` lines; leading turns dropped to keep it under
2 KB). The summary is the entry with the outcome turn's text replaced by:

* reword - faithful: the same outcome in other words, a template picked with a seeded RNG
           (``Your reservation is confirmed.``, ``Sorry, the reservation could not be made.``);
* drop   - the outcome turn deleted;
* flip   - the opposite outcome in other words (``was confirmed`` -> ``could not be made``).

The templates name the service's transaction noun (reservation, tickets, visit, rental, ride,
appointment, transfer) and use light verbs, passives and outcome words as agents and
summarizers do. ``by decision`` counts a finding on ``inventory.decision``; ``changed``
counts a changed or added decision (what a faithful rewrite must never show: a decision the
reword left out with the rest of the turn is a gap, not an alarm); ``changed|stated`` is the
same share among the rows whose outcome turn the extractor reads as a decision of the
labelled polarity (when it reads none, a reword that states the outcome adds one).
Targets: drop and flip flagged by decision >= 0.9; reword changed <= 0.01.
"""

from __future__ import annotations

import random
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import as_demoted
from bench.datasets import (
    LOADERS,
    Dialogue,
    Entry,
    base_parser,
    build_entry,
    clip,
    fmt_ratio,
    print_table,
    resolve_limit,
    spread,
)
from factdiff.extraction.record import FactRecord
from factdiff.schema.builtin import generic_schema
from factdiff.values.base import FactType
from factdiff.values.decision import DecisionValue
from factdiff.verify.check import extract
from factdiff.verify.diff import Verdict
from factdiff.verify.policy import Outcome

NOUNS = {
    "Restaurants": "reservation",
    "Hotels": "reservation",
    "Buses": "ticket",
    "Events": "ticket",
    "Homes": "visit",
    "RentalCars": "rental",
    "RideSharing": "ride",
    "Services": "appointment",
    "Banks": "transfer",
}
"""SGD service family -> its transaction noun (families not listed state no transaction)."""
DONE = (
    "Your {noun} is confirmed.",
    "The {noun} went through.",
    "The {noun} was completed successfully.",
    "Done: your {noun} has been set up.",
)
FAILED = (
    "Sorry, the {noun} could not be made.",
    "I was unable to complete the {noun}.",
    "Unfortunately, the {noun} didn't go through.",
    "Sorry, your {noun} failed.",
)
MAX_CHARS = 2000
VARIANTS = ("reword", "drop", "flip")


@dataclass(frozen=True)
class Labelled:
    """One labelled outcome: the entry ending at the outcome turn, its noun and result."""

    entry: Entry
    noun: str
    done: bool


def labelled_outcomes(dialogues: list[Dialogue]) -> Iterator[Labelled]:
    """Every SGD system turn labelled ``NOTIFY_SUCCESS``/``NOTIFY_FAILURE`` by a transaction
    service, as an entry ending at that turn."""
    for dialogue in dialogues:
        for k, turn in enumerate(dialogue.turns):
            for service, act in turn.acts:
                noun = NOUNS.get(service.split("_")[0])
                if noun is None or act not in ("NOTIFY_SUCCESS", "NOTIFY_FAILURE"):
                    continue
                yield Labelled(_upto(dialogue, k), noun, act == "NOTIFY_SUCCESS")
                break


def _upto(dialogue: Dialogue, k: int) -> Entry:
    """The dialogue's turns up to ``k`` as an entry under :data:`MAX_CHARS` (leading turns
    dropped, the last always kept)."""
    cut = replace(dialogue, turns=dialogue.turns[: k + 1])
    start = 0
    while start < k:
        lines = sum(len(t.speaker) + len(t.text) + 3 for t in cut.turns[start:])
        if lines <= MAX_CHARS:
            break
        start += 1
    return build_entry(cut, None, start)


def rewritten(outcome: Labelled, variant: str, rng: random.Random) -> str:
    """The entry with its outcome turn reworded, dropped or flipped."""
    entry = outcome.entry
    start, end = entry.turn_spans[-1]
    if variant == "drop":
        return entry.text[: max(0, start - 1)]
    done = outcome.done if variant == "reword" else not outcome.done
    line = rng.choice(DONE if done else FAILED).format(noun=outcome.noun)
    prefix = entry.dialogue.turns[-1].speaker + ": "
    return entry.text[:start] + prefix + line + entry.text[end:]


def states(outcome: Labelled, record: FactRecord) -> bool:
    """Whether ``record`` holds a decision of the labelled polarity in the outcome turn."""
    start, end = outcome.entry.turn_spans[-1]
    return any(
        isinstance(f.value, DecisionValue)
        and f.value.negated != outcome.done
        and any(start <= a < end for a, _ in f.spans)
        for f in record.inventory.get(FactType.DECISION, ())
    )


@dataclass
class Cell:
    """Counts of one (outcome, variant)."""

    n: int = 0
    flagged: int = 0
    by_decision: int = 0
    changed: int = 0
    stated: int = 0
    stated_changed: int = 0
    examples: list[str] = field(default_factory=list)


def run(outcomes: list[Labelled], seed: int) -> dict[tuple[str, str], Cell]:
    """Check every variant of every labelled outcome."""
    schema = generic_schema()
    cells: dict[tuple[str, str], Cell] = defaultdict(Cell)
    for outcome in outcomes:
        entry = outcome.entry
        source = extract(entry.text, schema, entry.reference)
        label = "done" if outcome.done else "failed"
        stated = states(outcome, source)
        rng = random.Random(f"{seed}:{entry.dialogue.dialogue_id}:{len(entry.text)}")
        for variant in VARIANTS:
            summary = rewritten(outcome, variant, rng)
            result = as_demoted(summary, source, schema, entry.text)
            findings = [f for f in result.diff.findings if f.field == "inventory.decision"]
            changes = [f for f in findings if f.verdict in (Verdict.CHANGED, Verdict.ADDED)]
            cell = cells[(label, variant)]
            cell.n += 1
            cell.flagged += result.outcome is not Outcome.CLEAN
            cell.by_decision += bool(findings)
            cell.changed += bool(changes)
            cell.stated += stated
            cell.stated_changed += stated and bool(changes)
            missed = bool(changes) if variant == "reword" else not findings
            if missed and len(cell.examples) < 4:
                turn = entry.text[entry.turn_spans[-1][0] : entry.turn_spans[-1][1]]
                found = "; ".join(
                    f"{f.verdict.value} {f.source and f.source.value.display()}"
                    f" => {f.summary and f.summary.value.display()}"
                    for f in findings
                )
                cell.examples.append(
                    f"{entry.dialogue.dialogue_id}: {clip(turn, 90)} [{found or 'no findings'}]"
                )
    return cells


def main() -> None:
    """Parse flags, build the labelled outcomes, run every variant, print."""
    parser = base_parser(__doc__ or "", default_limit=600)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    print(__doc__)
    started = time.perf_counter()
    dialogues = spread(LOADERS["sgd"](args.data, None), resolve_limit(args.limit))
    outcomes = list(labelled_outcomes(dialogues))
    cells = run(outcomes, args.seed)
    took = time.perf_counter() - started
    done = sum(o.done for o in outcomes)
    print(
        f"sgd: {len(dialogues)} dialogues, {len(outcomes)} labelled outcomes "
        f"({done} done, {len(outcomes) - done} failed), {took:.1f} s"
    )
    print("\n== Labelled outcomes: drop and flip (target >= 0.9), reword changed (<= 0.01) ==")
    rows = []
    for variant in VARIANTS:
        for label in ("done", "failed", "ALL"):
            picked = [c for (lab, v), c in cells.items() if v == variant and label in (lab, "ALL")]
            n = sum(c.n for c in picked)
            counts = (sum(c.flagged for c in picked), sum(c.by_decision for c in picked))
            changed = sum(c.changed for c in picked)
            stated = sum(c.stated for c in picked)
            stated_changed = sum(c.stated_changed for c in picked)
            rows.append(
                [
                    label,
                    variant,
                    str(n),
                    *(fmt_ratio(k, n) for k in (*counts, changed)),
                    f"{fmt_ratio(stated_changed, stated)} of {stated}",
                ]
            )
    headers = ["outcome", "variant", "n", "flagged", "by decision", "changed", "changed|stated"]
    print_table(headers, rows)
    print("\n== Examples: drops/flips without a decision finding, rewords with a change ==")
    for (label, variant), cell in sorted(cells.items()):
        for example in cell.examples:
            print(f"  {label}/{variant}: {example}")


if __name__ == "__main__":
    main()
