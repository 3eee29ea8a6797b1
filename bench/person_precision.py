"""People without cues: how precise, and how complete, is the person recognizer on real dialogues?

Run: ``.venv/bin/python bench/person_precision.py [--limit N] [--data DIR]``

Every dialogue of SGD, MultiWOZ and tau-retail (``speaker: text`` lines, whole) is extracted
with the generic schema plus one many-valued ``person`` field. Every extracted person
occurrence is then judged against the DATASET LABELS:

* *person label*: it overlaps a slot that names a person (SGD ``therapist_name``,
  ``recipient_name``, ``recipient_account_name``, ``contact_name``, ``stylist_name``,
  ``doctor_name``, ``dentist_name``, ``artist``, ``director``, ``starring``, ``actors``;
  tau-retail: the name of a user of the mock database);
* *other label*: it overlaps a labelled slot of another kind (a restaurant, a city...):
  certainly wrong;
* *unlabelled*: no label at all (labels are not exhaustive: some of these are right).

*precision* = (person label + unlabelled) / all; *strict precision* = person label / all
(unlabelled counted wrong too).

*person-named event*: an occurrence on an other label that is an SGD ``event_name`` whose value
the same dataset also labels as a person (an ``artist`` elsewhere, or any person slot's whole
value): a concert named after its performer (``Ben Harper``) is a person's name in the text,
labelled as the event. These stay counted in *on other label* and in the two columns above
(the label-strict figures); the *ambiguous out* columns give both precisions again with them
left out of the count as ambiguous.

*recall* = labelled person mentions (SGD person slots; tau-retail: every verbatim mention of a
mock-database user's full name) that some extracted person overlaps / all of them.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.datasets import (
    LOADERS,
    Dialogue,
    Label,
    base_parser,
    build_entry,
    clip,
    fmt_ratio,
    print_table,
    resolve_limit,
    spread,
)
from factdiff.schema.builtin import GENERIC_INVENTORY
from factdiff.schema.model import Criticality, FactSchema, FieldSpec
from factdiff.values.base import FactType
from factdiff.verify.check import extract

PERSON_SLOTS = frozenset(
    {
        "therapist_name", "recipient_name", "recipient_account_name", "contact_name",
        "stylist_name", "doctor_name", "dentist_name", "artist", "director", "starring", "actors",
    }
)  # fmt: skip
DEFAULT_LIMITS = {"multiwoz": 999, "sgd": 2000, "tau": 69}


def people_schema() -> FactSchema:
    """The generic schema plus one many-valued person field (no cues, no pattern)."""
    people = FieldSpec("people", FactType.PERSON, Criticality.CRITICAL, many=True)
    return FactSchema.build("people", 1, fields=[people], inventory=GENERIC_INVENTORY)


def tau_user_names(root: Path) -> set[str]:
    """First and last names of the users of the tau-retail mock database."""
    users = json.loads((root / "tau-retail" / "db" / "users.json").read_text(encoding="utf-8"))
    names = set()
    for user in users.values():
        name = user.get("name", {})
        names.add(f"{name.get('first_name', '')} {name.get('last_name', '')}".strip().lower())
    return names


def labelled_people(
    dialogue: Dialogue, text: str, labels: Iterable[Label], tau_names: set[str]
) -> list[tuple[int, int]]:
    """Spans of the labelled person mentions of one entry (see the module docstring)."""
    if dialogue.dataset == "tau":
        lowered = text.lower()
        return [
            (m.start(), m.end())
            for name in sorted(tau_names)
            if " " in name
            for m in re.finditer(r"\b" + re.escape(name) + r"\b", lowered)
        ]
    return sorted({(lab.start, lab.end) for lab in labels if lab.slot in PERSON_SLOTS})


def person_values(dialogues: Iterable[Dialogue]) -> frozenset[str]:
    """Every value (surface and canonical, lower-cased) that the dialogues label as a person."""
    values = set()
    for dialogue in dialogues:
        for turn in dialogue.turns:
            for label in turn.labels:
                if label.slot in PERSON_SLOTS:
                    values.add(label.text.strip().lower())
                    if label.canonical:
                        values.add(label.canonical.strip().lower())
    return frozenset(values)


def person_named_event(labels: Iterable[Label], people: frozenset[str]) -> bool:
    """Whether the labels an occurrence overlaps are all ``event_name`` labels whose value the
    dataset also labels as a person (see the module docstring)."""
    labels = list(labels)
    return bool(labels) and all(
        label.slot == "event_name"
        and (
            label.text.strip().lower() in people
            or (label.canonical or "").strip().lower() in people
        )
        for label in labels
    )


def judge(
    dialogue: Dialogue,
    tau_names: set[str],
    people: frozenset[str],
    counts: Counter[str],
    examples: list[str],
    missed: list[str],
) -> None:
    """Count every person occurrence extracted from one dialogue, and every labelled person
    mention found or missed."""
    entry = build_entry(dialogue)
    record = extract(entry.text, people_schema(), entry.reference)
    found = [span for fact in record.fields["people"] for span in fact.spans]
    for start, end in labelled_people(dialogue, entry.text, entry.labels, tau_names):
        hit = any(s < end and start < e for s, e in found)
        counts["labelled"] += 1
        counts["recalled"] += hit
        if not hit and len(missed) < 12:
            around = entry.text[max(0, start - 40) : end + 25]
            missed.append(f"{dialogue.dialogue_id} missed: {clip(around, 90)}")
    for fact in record.fields["people"]:
        for start, end in fact.spans:
            labels = [lab for lab in entry.labels if lab.start < end and start < lab.end]
            known_user = str(fact.value.canonical()).lower() in tau_names
            if (dialogue.dataset == "tau" and known_user) or any(
                lab.slot in PERSON_SLOTS for lab in labels
            ):
                verdict = "person"
            elif labels:
                verdict = "other"
                counts["person-named event"] += person_named_event(labels, people)
            else:
                verdict = "unlabelled"
            counts[verdict] += 1
            if verdict != "person" and len(examples) < 12:
                around = entry.text[max(0, start - 40) : end + 25]
                examples.append(f"{dialogue.dialogue_id} {verdict}: {clip(around, 90)}")


def main() -> None:
    """Extract every dialogue and print the precision table."""
    parser = base_parser(__doc__ or "", default_limit=-1)
    args = parser.parse_args()
    print(__doc__)
    tau_names = tau_user_names(args.data)
    rows = []
    for name in ("sgd", "multiwoz", "tau"):
        limit = DEFAULT_LIMITS[name] if args.limit < 0 else resolve_limit(args.limit)
        started = time.perf_counter()
        every = LOADERS[name](args.data, None)
        people = person_values(every)
        dialogues = spread(every, limit)
        counts: Counter[str] = Counter()
        examples: list[str] = []
        missed: list[str] = []
        for dialogue in dialogues:
            judge(dialogue, tau_names, people, counts, examples, missed)
        total = counts["person"] + counts["other"] + counts["unlabelled"]
        ambiguous = counts["person-named event"]
        rows.append(
            [
                name,
                str(len(dialogues)),
                str(total),
                str(counts["person"]),
                str(counts["other"]),
                str(counts["unlabelled"]),
                fmt_ratio(total - counts["other"], total),
                fmt_ratio(counts["person"], total),
                str(ambiguous),
                fmt_ratio(total - counts["other"], total - ambiguous),
                fmt_ratio(counts["person"], total - ambiguous),
                str(counts["labelled"]),
                fmt_ratio(counts["recalled"], counts["labelled"]),
            ]
        )
        print(f"{name}: {len(dialogues)} dialogues, {time.perf_counter() - started:.1f} s")
        for example in (*examples, *missed):
            print(f"  {example}")
    print()
    headers = ["dataset", "dialogues", "persons", "on person label", "on other label",
               "unlabelled", "precision", "strict precision", "person-named event",
               "precision (ambiguous out)", "strict (ambiguous out)", "labelled",
               "recall"]  # fmt: skip
    print_table(headers, rows)


if __name__ == "__main__":
    main()
