"""``factdiff.present.wording.plural``, and no count left in front of a fixed plural noun."""

from __future__ import annotations

import re

from factdiff.present.wording import plural
from tests.conftest import ROOT

COUNTED = re.compile(
    r"\{[^{}]+\} (?:warm |error |source )?"
    r"(?:entries|attempts|events|fields|items|changes|agents|words|keys|hits|calls|migrations"
    r"|bytes|values|facts|rows|problems|schemas|versions|days|seconds|tokens|requests|lines)\b"
)
NEVER_ONE = {
    "{criticality.value.capitalize()} fields",  # a heading, not a count
    "{len(fields)} fields",  # over the limit of MAX_FIELDS
    "{MAX_BYTES} bytes",
    "{MAX_TEXT_BYTES} bytes",
    "{self.max_bytes} bytes",
    "{entry.size_bytes} bytes",  # above the compression limit
    "{len(data)} bytes",  # over the store's limit
    "{request.budget_words} words",  # a prompt to a model
    "{field} items",  # a field name
    "{entry.status.value} attempts",  # "status=review attempts=2"
    "{shlex.quote(str(db))} events",  # a command line
}
"""Placeholders before a plural noun that never stand for the count 1 (or no count)."""


def test_plural() -> None:
    assert plural(1, "entry", "entries") == "1 entry"
    assert plural(0, "entry", "entries") == "0 entries"
    assert plural(2, "event") == "2 events"
    assert plural(1, "warm entry", "warm entries") == "1 warm entry"


def test_no_count_before_a_fixed_plural_noun() -> None:
    """What the CLI and the pages say with a count goes through ``plural``."""
    found = []
    for path in sorted((ROOT / "factdiff").rglob("*")):
        if path.suffix not in {".py", ".html", ".js"} or "corpus" in path.parts:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in COUNTED.finditer(line):
                if match.group() not in NEVER_ONE:
                    found.append(f"{path.relative_to(ROOT)}:{number}: {match.group()}")
    assert not found, "use factdiff.present.wording.plural:\n" + "\n".join(found)
