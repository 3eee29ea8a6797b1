"""The README's worked-example figures are the ones the CLI prints."""

from __future__ import annotations

import json
import re

from tests.acceptance.test_cli import factdiff, worked_path
from tests.conftest import ROOT

NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
}  # fmt: skip


def test_worked_example_figures_match_the_output() -> None:
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    stated = re.search(r"fails with (\w+) critical facts missing \((\w+) facts in all", readme)
    assert stated, "the README no longer states the worked example's figures"
    run = factdiff(
        "check", "--schema", "customer_service", worked_path("source"), worked_path("fluent"),
        "--json",
    )  # fmt: skip
    missing = json.loads(run.stdout)["missing"]
    critical = [m for m in missing if m["criticality"] == "critical"]
    assert NUMBERS[stated.group(1)] == len(critical)
    assert NUMBERS[stated.group(2)] == len(missing)
    changed = factdiff(
        "check", "--schema", "customer_service", worked_path("source"), worked_path("changed"),
        "--json",
    )  # fmt: skip
    assert "changing `$2,400` to `$2,500` fails with exactly that change" in readme
    assert [c["field"] for c in json.loads(changed.stdout)["changed"]] == ["disputed_amount"]
