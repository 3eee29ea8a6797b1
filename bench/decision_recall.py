"""Decision recall: does ``check`` flag a flipped or dropped decision, and only those?

Run: ``.venv/bin/python bench/decision_recall.py [--limit N] [--data DIR] [--seed S]``

Entries are real dialogues (SGD and tau-bench by default: they state confirmations,
cancellations, refusals), turns joined as ``speaker: text`` lines. Per entry with at least one
decision in its generic record, one decision is picked with a seeded RNG and:

* flip    - every mention of that decision is inverted: a verb of consent becomes one of
            refusal and back (confirmed -> rejected, declined -> accepted), any other verb
            gains a ``not`` (cancelled -> not cancelled);
* drop    - every sentence mentioning that decision is deleted;
* trim    - faithful: every sentence that states no typed fact is deleted;
* synonym - faithful: every decision verb is replaced by another verb of its class in the same
            inflection (refused -> declined, confirmed -> approved, booked -> reserved).

False alarms: faithful summaries must state no decision change. Per entry of every dataset
(with or without a decision) the extractive summarizer's output (default rung budget) is
checked, and so are the trim and synonym variants above; the worked example's faithful
summary is checked under the generic and the customer_service schema. A false alarm is a
``changed`` or ``added`` finding on ``inventory.decision`` (a decision the budget dropped is a
gap, reported as ``missing``, not an alarm). The dev datasets carry no reference summaries.

``flagged`` is an outcome other than clean; ``by decision`` counts findings on
``inventory.decision`` only (other facts lost with a deleted sentence do not count there);
``changed`` counts changed or added decisions.
Targets: flip and drop flagged by decision >= 0.9; trim and synonym flagged <= 0.01; false
alarms <= 0.01.

Labelled SGD outcomes (with ``sgd`` among the datasets): the system turns the dataset labels
``NOTIFY_SUCCESS`` or ``NOTIFY_FAILURE`` for a transaction service (see
``bench/outcome_rewrites.py``), each as the dialogue up to that turn. ``stated``: the turn
holds a decision of the labelled polarity (done: not negated; failed: negated); ``drop``: the
turn deleted is flagged by decision. Prospective turns (system ``CONFIRM`` or
``OFFER_INTENT``, user ``INFORM_INTENT``: a transaction asked about or wished for, not done)
should state none: ``with a decision`` is the share that does (lower is better).
"""

from __future__ import annotations

import random
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
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
from bench.outcome_rewrites import NOUNS, labelled_outcomes, rewritten
from factdiff.compression.engine import Rung
from factdiff.extraction.clauses import Boundaries
from factdiff.extraction.decisions import VERB_CLASSES, verb_forms
from factdiff.extraction.record import Fact, FactRecord
from factdiff.extraction.rules import infer_reference
from factdiff.schema.builtin import builtin_schema, generic_schema
from factdiff.summarize import ExtractiveSummarizer, SummaryRequest
from factdiff.values.base import FactType
from factdiff.values.decision import DecisionValue
from factdiff.verify.check import check, extract
from factdiff.verify.diff import FactDiff, Verdict
from factdiff.verify.policy import Outcome

WORKED = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "worked_example"
FAITHFUL = ("trim", "synonym", "extractive")
"""Variants whose summaries are faithful: any changed or added decision is a false alarm."""

_FLIP_TO = {"accept": "reject", "refuse": "accept"}
"""Which verb replaces a verb of each class when flipped (other classes gain a ``not``)."""
_SYNONYM = {
    "agree": "accept",
    "accept": "approve",
    "approve": "confirm",
    "confirm": "approve",
    "authorize": "approve",
    "authorise": "approve",
    "grant": "approve",
    "refuse": "decline",
    "decline": "refuse",
    "deny": "decline",
    "reject": "reject",
    "cancel": "revoke",
    "revoke": "cancel",
    "promise": "guarantee",
    "guarantee": "promise",
    "offer": "propose",
    "propose": "offer",
    "refund": "reimburse",
    "reimburse": "refund",
    "ship": "dispatch",
    "dispatch": "ship",
    "book": "reserve",
    "reserve": "book",
    "waive": "waive",
    "escalate": "escalate",
    "exchange": "exchange",
}
"""One synonym per verb, within its class and with the same negating force (``reject`` is
not a negator of what follows it while ``refuse`` and ``decline`` are, so they never trade)."""


def _slots() -> dict[str, tuple[str, int]]:
    """Every inflected form -> (its verb, its slot among the verb's forms)."""
    out: dict[str, tuple[str, int]] = {}
    for verbs in VERB_CLASSES.values():
        for verb in verbs:
            past, other = verb_forms(verb)
            for i, form in enumerate((past[0], *other)):
                out.setdefault(form, (verb, i))
            for form in past[1:]:
                out.setdefault(form, (verb, 0))
    return out


_SLOTS = _slots()


def _inflect(verb: str, slot: int) -> str:
    past, other = verb_forms(verb)
    return (past[0], *other)[slot]


def _recase(new: str, old: str) -> str:
    return new.capitalize() if old[:1].isupper() else new


def _cut(text: str, start: int, end: int) -> tuple[int, int, str]:
    """Delete a sentence, keeping its line break (lines must not glue together)."""
    return (start, end, "\n" if text[end - 1] == "\n" else " ")


def _replace(text: str, edits: list[tuple[int, int, str]]) -> str:
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _mentions(record: FactRecord, target: DecisionValue) -> list[tuple[int, int]]:
    facts = record.inventory.get(FactType.DECISION, ())
    return sorted({s for f in facts if f.value.same_as(target) for s in f.spans})


def flipped(text: str, record: FactRecord, target: DecisionValue) -> str | None:
    """Every mention of ``target`` inverted."""
    edits = []
    for start, end in _mentions(record, target):
        old = text[start:end]
        slot = _SLOTS.get(old.lower())
        if slot is None:
            return None
        if target.verb in _FLIP_TO:
            new = _inflect(_FLIP_TO[target.verb], slot[1])
            edits.append((start, end, _recase(new, old)))
        elif not target.negated:
            edits.append((start, start, "not "))
        else:
            return None
    return _replace(text, edits) if edits else None


def _sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans as the extractor bounds them (each with its final stop)."""
    out, start = [], 0
    for end in (*Boundaries.of(text).sentences, len(text) - 1):
        if end + 1 > start:
            out.append((start, end + 1))
            start = end + 1
    return out


def dropped(text: str, record: FactRecord, target: DecisionValue) -> str | None:
    """Every sentence mentioning ``target`` deleted."""
    spans = _mentions(record, target)
    cut = [_cut(text, s, e) for s, e in _sentences(text) if any(s <= a < e for a, _ in spans)]
    return _replace(text, cut) if cut else None


def trimmed(text: str, record: FactRecord) -> str | None:
    """Every sentence stating no typed fact deleted."""
    facts: list[Fact] = [f for fs in record.inventory.values() for f in fs]
    starts = [a for f in facts for a, _ in f.spans]
    cut = [_cut(text, s, e) for s, e in _sentences(text) if not any(s <= a < e for a in starts)]
    return _replace(text, cut) if cut else None


def synonyms(text: str, record: FactRecord) -> str | None:
    """Every decision verb replaced by its class synonym in the same inflection."""
    edits = []
    for fact in record.inventory.get(FactType.DECISION, ()):
        for start, end in fact.spans:
            old = text[start:end]
            slot = _SLOTS.get(old.lower())
            if slot is not None and _SYNONYM[slot[0]] != slot[0]:
                edits.append((start, end, _recase(_inflect(_SYNONYM[slot[0]], slot[1]), old)))
    return _replace(text, edits) if edits else None


@dataclass
class Cell:
    """Counts of one (dataset, variant)."""

    n: int = 0
    flagged: int = 0
    by_decision: int = 0
    changed: int = 0
    examples: list[str] = field(default_factory=list)


def decision_changes(result: FactDiff) -> list[str]:
    """Changed or added decisions of one diff, as ``source => summary``."""
    return [
        f"{f.source and f.source.value.display()} => {f.summary and f.summary.value.display()}"
        for f in result.findings
        if f.field == "inventory.decision" and f.verdict in (Verdict.CHANGED, Verdict.ADDED)
    ]


def extractive(text: str, record: FactRecord) -> str:
    """The extractive summarizer's output at the default rung's budget."""
    request = SummaryRequest(
        text=text,
        schema=generic_schema(),
        source_record=record,
        budget_words=Rung(ExtractiveSummarizer()).budget_for(text),
    )
    return ExtractiveSummarizer().summarize(request).text


def run(dataset: str, entries: list[Entry], cells: dict[tuple[str, str], Cell], seed: int) -> int:
    """Check every variant of every entry with a decision; returns how many entries had one."""
    schema = generic_schema()
    used = 0
    for entry in entries:
        reference = entry.dialogue.reference or infer_reference(entry.text)
        source = extract(entry.text, schema, reference)
        decisions = source.inventory.get(FactType.DECISION, ())
        variants: dict[str, str | None] = {"extractive": extractive(entry.text, source)}
        if decisions:
            used += 1
            rng = random.Random(f"{seed}:{entry.dialogue.dialogue_id}")
            target = rng.choice(decisions).value
            assert isinstance(target, DecisionValue)
            variants |= {
                "flip": flipped(entry.text, source, target),
                "drop": dropped(entry.text, source, target),
                "trim": trimmed(entry.text, source),
                "synonym": synonyms(entry.text, source),
            }
        for variant, summary in variants.items():
            if summary is None or summary == entry.text:
                continue
            result = as_demoted(summary, source, schema, entry.text)
            cell = cells[(dataset, variant)]
            cell.n += 1
            flagged = result.outcome is not Outcome.CLEAN
            on_decision = any(f.field == "inventory.decision" for f in result.diff.findings)
            changes = decision_changes(result.diff)
            cell.flagged += flagged
            cell.by_decision += on_decision
            cell.changed += bool(changes)
            if variant == "extractive":
                if changes and len(cell.examples) < 4:
                    found = "; ".join(changes)
                    cell.examples.append(f"{entry.dialogue.dialogue_id}: {clip(found, 120)}")
                continue
            faithful = variant in FAITHFUL
            if (changes if faithful else not on_decision) and len(cell.examples) < 4:
                found = "; ".join(
                    f"{f.verdict.value} {f.field} {f.source and f.source.value.display()}"
                    f" => {f.summary and f.summary.value.display()}"
                    for f in result.diff.findings
                    if f.field == "inventory.decision"
                )
                cell.examples.append(
                    f"{entry.dialogue.dialogue_id}: {target.display()} => "
                    f"{result.outcome.value} [{clip(found, 120) or 'no findings'}]"
                )
    return used


PROSPECTIVE_ACTS = frozenset({"CONFIRM", "OFFER_INTENT", "INFORM_INTENT"})
"""SGD acts of a transaction asked about or wished for (the turn states it not done)."""


def labelled(dialogues: list[Dialogue]) -> list[list[str]]:
    """Rows of the labelled SGD section: stated and dropped outcomes, prospective turns."""
    schema = generic_schema()
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for outcome in labelled_outcomes(dialogues):
        entry = outcome.entry
        source = extract(entry.text, schema, entry.reference)
        start, end = entry.turn_spans[-1]
        stated = any(
            isinstance(f.value, DecisionValue)
            and f.value.negated != outcome.done
            and any(start <= a < end for a, _ in f.spans)
            for f in source.inventory.get(FactType.DECISION, ())
        )
        summary = rewritten(outcome, "drop", random.Random(0))
        result = as_demoted(summary, source, schema, entry.text)
        dropped = any(f.field == "inventory.decision" for f in result.diff.findings)
        for key in ("done" if outcome.done else "failed", "ALL"):
            row = counts[key]
            row[0] += 1
            row[1] += stated
            row[2] += dropped
    rows = [
        [key, str(n), fmt_ratio(stated, n), fmt_ratio(dropped, n)]
        for key in ("done", "failed", "ALL")
        for n, stated, dropped in [counts[key]]
    ]
    n = with_decision = 0
    for dialogue in dialogues:
        for turn in dialogue.turns:
            acts = {act for service, act in turn.acts if service.split("_")[0] in NOUNS}
            if not acts or not acts <= PROSPECTIVE_ACTS:
                continue
            n += 1
            record = extract(f"{turn.speaker}: {turn.text}", schema, dialogue.reference)
            with_decision += bool(record.inventory.get(FactType.DECISION))
    rows.append(["prospective", str(n), fmt_ratio(with_decision, n), "-"])
    return rows


def worked_example() -> list[list[str]]:
    """The worked example's faithful summary under the generic and customer_service schemas."""
    source = (WORKED / "source.txt").read_text(encoding="utf-8").strip()
    summary = (WORKED / "faithful.txt").read_text(encoding="utf-8").strip()
    rows = []
    for name in ("generic", "customer_service"):
        result = check(source, summary, builtin_schema(name))
        changes = decision_changes(result.diff)
        rows.append([name, result.outcome.value, str(len(changes)), "; ".join(changes) or "-"])
    return rows


def main() -> None:
    """Parse flags, build entries, run every variant, print."""
    parser = base_parser(__doc__ or "", default_limit=400)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--datasets", default="sgd,tau,multiwoz,taskmaster")
    args = parser.parse_args()
    print(__doc__)
    cells: dict[tuple[str, str], Cell] = defaultdict(Cell)
    sgd: list[Dialogue] = []
    for name in args.datasets.split(","):
        started = time.perf_counter()
        dialogues = spread(LOADERS[name](args.data, None), resolve_limit(args.limit))
        sgd = dialogues if name == "sgd" else sgd
        entries = [build_entry(d, 8000 if name == "tau" else 2000) for d in dialogues]
        used = run(name, entries, cells, args.seed)
        took = time.perf_counter() - started
        print(f"{name}: {len(entries)} entries, {used} with a decision, {took:.1f} s")
    print("\n== Flipped/dropped decisions (target >= 0.9) and faithful variants (<= 0.01) ==")
    rows = [
        [ds, v, str(c.n), *(fmt_ratio(k, c.n) for k in (c.flagged, c.by_decision, c.changed))]
        for (ds, v), c in sorted(cells.items())
    ]
    for variant in ("flip", "drop", "trim", "synonym", "extractive"):
        picked = [c for (_d, v), c in cells.items() if v == variant]
        n = sum(c.n for c in picked)
        rows.append(
            [
                "ALL",
                variant,
                str(n),
                fmt_ratio(sum(c.flagged for c in picked), n),
                fmt_ratio(sum(c.by_decision for c in picked), n),
                fmt_ratio(sum(c.changed for c in picked), n),
            ]
        )
    print_table(["dataset", "variant", "n", "flagged", "by decision", "changed"], rows)
    print("\n== False alarms: faithful summaries with a changed or added decision (<= 0.01) ==")
    datasets = sorted({ds for ds, _v in cells})
    alarm_rows = []
    for ds in [*datasets, "ALL"]:
        picked = [c for (d, v), c in cells.items() if v in FAITHFUL and ds in (d, "ALL")]
        n = sum(c.n for c in picked)
        alarm_rows.append([ds, str(n), fmt_ratio(sum(c.changed for c in picked), n)])
    print_table(["dataset", "faithful summaries", "false-alarm rate"], alarm_rows)
    if sgd:
        print("\n== Labelled SGD outcomes: stated and dropped (>= 0.9); prospective turns ==")
        print_table(["outcome", "turns", "stated / with a decision", "drop flagged"], labelled(sgd))
    print("\n== The worked example's faithful summary ==")
    print_table(["schema", "outcome", "decision changes", "which"], worked_example())
    print("\n== Examples: flips/drops without a decision finding, faithful decision changes ==")
    for (ds, variant), c in sorted(cells.items()):
        for example in c.examples:
            print(f"  {ds}/{variant}: {example}")


if __name__ == "__main__":
    main()
