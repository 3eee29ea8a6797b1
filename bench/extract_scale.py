"""Extraction on big and hostile entries: time and memory grow linearly; over the limit, refused.

Run: ``.venv/bin/python bench/extract_scale.py [--data DIR] [--sizes 0.25,0.5,1,2]``

Every case runs in a fresh child process (so its peak RSS is its own) and extracts one entry
with the built-in ``customer_service`` schema (fields with patterns and cues, polarity, the
inventory with roles; the decision cases with ``generic``, whose inventory tracks them):

* *dialogue*: real dev dialogues (MultiWOZ, SGD, tau-retail) joined up to the size;
* hostile texts of 1 MB: a digit soup (``1 1 1 ...``), amounts (``$1,234.56 ...``), dates,
  JSON, capitalised names, identifiers, decisions, outcomes and outcomes stated of a pronoun
  in one endless sentence, amounts with a role, and one long word;
* *10 MB*: refused by the size limit (the time is how long the refusal takes), and, with
  ``--over-limit``, extracted anyway with the limit lifted, to show where the time would go.

Figures: seconds, MB per second, facts found, the child's peak RSS (Python, factdiff and, for
the dialogue cases, the loaded dev data) and its growth during the extraction alone.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.datasets import DEFAULT_DATA, LOADERS, build_entry, print_table, spread

HOSTILE = {
    "digit soup": "1 ",
    "amounts": "$1,234.56 ",
    "dates": "on the 3rd of March 2019 at 10:00 am, ",
    "json": '{"price": 54.04, "amount": 12, "payment_history": [{"amount": 3}]} ',
    "names": "Guest John Smith and Dr. Ana Ruiz, ",
    "identifiers": "INV-1234 cust_482 W4923227 ",
    "decisions": "set up the appointment and ",
    "outcomes": "your reservation for a party of four was confirmed and ",
    "pronoun outcomes": "a cab to the airport and it is on its way, ",
    "roled amounts": "$1,249.00 due on March 3 and ",
    "one word": "a",
}

SCHEMA_OF = {"decisions": "generic", "outcomes": "generic", "pronoun outcomes": "generic"}
"""Cases extracted with the generic schema, whose inventory tracks decisions."""


def dialogue_text(data: Path, size: int) -> str:
    """Real dialogues joined until ``size`` characters (repeated if the data runs out)."""
    parts = []
    for name in ("multiwoz", "sgd", "tau"):
        parts += [build_entry(d).text for d in spread(LOADERS[name](data, None), 300)]
    base = "\n".join(parts)
    return (base * (size // len(base) + 1))[:size]


def one(kind: str, megabytes: float, data: Path, over_limit: bool) -> dict[str, object]:
    """Extract one case in this process; returns its figures."""
    from factdiff.errors import InputError
    from factdiff.extraction import rules
    from factdiff.schema.builtin import builtin_schema
    from factdiff.verify.check import extract

    size = int(megabytes * 1_000_000)
    if kind == "dialogue":
        text = dialogue_text(data, size)
    else:
        piece = HOSTILE[kind]
        text = (piece * (size // len(piece) + 1))[:size]
    if over_limit:
        rules.MAX_TEXT_CHARS = len(text)
    schema = builtin_schema(SCHEMA_OF.get(kind, "customer_service"))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    started = time.perf_counter()
    try:
        record = extract(text, schema, date(2019, 3, 1))
        outcome, facts = "extracted", record.fact_count()
    except InputError:
        outcome, facts = "refused", 0
    took = time.perf_counter() - started
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "seconds": took,
        "facts": facts,
        "outcome": outcome,
        "rss": rss,
        "growth": rss - before,
        "chars": len(text),
    }


def run_child(kind: str, megabytes: float, data: Path, over_limit: bool) -> dict[str, object]:
    """``one`` in a fresh process."""
    args = [sys.executable, __file__, "--one", kind, str(megabytes), "--data", str(data)]
    if over_limit:
        args.append("--over-limit")
    out = subprocess.run(args, capture_output=True, text=True, check=True)
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    """Run every case in a child process and print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--sizes", default="0.25,0.5,1,2")
    parser.add_argument("--over-limit", action="store_true", help="also extract 10 MB")
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        kind, megabytes = args.one
        print(json.dumps(one(kind, float(megabytes), args.data, args.over_limit)))
        return
    print(__doc__)
    cases = [("dialogue", float(s), False) for s in args.sizes.split(",")]
    cases += [(kind, 1.0, False) for kind in HOSTILE]
    cases.append(("dialogue", 10.0, False))
    if args.over_limit:
        cases.append(("dialogue", 10.0, True))
    rows = []
    for kind, megabytes, over in cases:
        r = run_child(kind, megabytes, args.data, over)
        seconds = float(str(r["seconds"]))
        chars = int(str(r["chars"]))
        rate = f"{chars / 1e6 / seconds:.2f}" if r["outcome"] == "extracted" else "-"
        label = kind + (" (limit lifted)" if over else "")
        rows.append(
            [
                label,
                f"{chars / 1e6:.2f}",
                str(r["outcome"]),
                f"{seconds:.2f}",
                rate,
                str(r["facts"]),
                f"{float(str(r['rss'])):.0f}",
                f"{float(str(r['growth'])):.0f}",
            ]
        )
    headers = ["text", "MB", "outcome", "seconds", "MB/s", "facts", "peak RSS MiB", "growth MiB"]
    print_table(headers, rows)


if __name__ == "__main__":
    main()
