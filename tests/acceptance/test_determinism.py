"""Byte-identical output across runs, time zones and locales (the CLI as a subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.acceptance.test_cli import SCHEMA, worked_path

ENVIRONMENTS = [
    {"TZ": "UTC", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"},
    {"TZ": "Asia/Tokyo", "LANG": "de_DE.UTF-8", "LC_ALL": "de_DE.UTF-8"},
    {"TZ": "America/Los_Angeles", "LANG": "fr_FR.UTF-8", "LC_ALL": "fr_FR.UTF-8"},
]


def run_in(env: dict[str, str], *args: str) -> str:
    completed = subprocess.run(
        [sys.executable, "-m", "factdiff.cli", *args],
        capture_output=True,
        env={**os.environ, **env},
        check=False,
        timeout=120,
    )
    assert completed.returncode in (0, 1, 3), completed.stderr
    return completed.stdout.decode("utf-8")


def without_timings(text: str) -> str:
    data = json.loads(text)
    for attempt in data.get("attempts", []):
        attempt.pop("duration_ms", None)
    return json.dumps(data, sort_keys=True)


def test_extract_check_and_compress_are_byte_identical_everywhere() -> None:
    commands = [
        ("extract", "--schema", SCHEMA, worked_path("source"), "--json"),
        ("check", "--schema", SCHEMA, worked_path("source"), worked_path("faithful"), "--json"),
        ("check", worked_path("source"), worked_path("fluent"), "--json"),
    ]
    for command in commands:
        outputs = {run_in(env, *command) for env in ENVIRONMENTS}
        assert len(outputs) == 1, command
    compress = ("compress", worked_path("source"), "--schema", SCHEMA, "--json")
    assert len({without_timings(run_in(env, *compress)) for env in ENVIRONMENTS}) == 1
