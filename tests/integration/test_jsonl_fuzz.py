"""Property fuzz of ``factdiff add --jsonl``: any file either stores every line or nothing,
and a refusal is one ``error:`` line with exit 2, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from factdiff.cli.main import main as cli
from factdiff.store import open_store

HOSTILE_STRINGS = st.sampled_from(
    [
        "",
        "  ",
        "\x00",
        "\ud800",
        "../..",
        "/etc/passwd",
        "0001-01-01T00:00+14:00",
        "9999-12-31T23:59-14:00",
        "2026-03-14T19:32Z",
        "99999999999999d",
        "customer_service",
        "x" * 5_000,
    ]
)
VALUES = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.sampled_from([2**64, -1, 10**30]),
        st.floats(allow_nan=False, allow_infinity=False),
        HOSTILE_STRINGS,
        st.text(st.characters(exclude_categories=[]), max_size=20),
    ),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=5,
)
KEYS = ("text", "agent", "occurred_at", "tags", "schema", "metadata")
PLAUSIBLE = {
    "text": st.text(min_size=1, max_size=40),
    "agent": st.sampled_from(["alice", "bob"]),
    "occurred_at": st.sampled_from(["2026-03-14T19:32Z", "2026-03-14"]),
    "tags": st.lists(st.sampled_from(["call", "ops"]), max_size=2),
    "schema": st.sampled_from(["customer_service", "generic"]),
    "metadata": st.dictionaries(st.sampled_from(["k", "source"]), st.text(max_size=5)),
}
OBJECTS = st.fixed_dictionaries(
    {"text": st.one_of(PLAUSIBLE["text"], VALUES)},
    optional={key: st.one_of(PLAUSIBLE[key], PLAUSIBLE[key], VALUES) for key in KEYS[1:]},
)
RAW_LINES = st.one_of(
    st.sampled_from(["", "{", "[]", "null", "NaN", '{"text": "a"', '{"text": "a"}}']),
    st.integers(1_000, 20_000).map(lambda n: "[" * n + "]" * n),
    st.integers(5_000, 50_000).map(lambda n: '{"text": "a", "k": ' + "9" * n + "}"),
    st.text(max_size=30),
)
LINES = st.lists(
    st.one_of(OBJECTS.map(json.dumps), OBJECTS.map(json.dumps), RAW_LINES), min_size=1, max_size=4
)


def _count(target: str) -> int:
    with open_store(target) as store:
        return sum(1 for _ in store.entries(with_content=False))


@settings(
    max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
)
@given(lines=LINES)
def test_a_jsonl_file_is_stored_whole_or_refused_in_one_line(
    tmp_path: Path, lines: list[str]
) -> None:
    target = str(tmp_path / "memory.db")
    with open_store(target):
        pass
    before = _count(target)
    source = tmp_path / "lines.jsonl"
    source.write_bytes("\n".join(lines).encode("utf-8", "surrogatepass"))
    result = CliRunner().invoke(
        cli, ["add", "--db", target, "--agent", "alice", "--jsonl", str(source)]
    )
    shown = f"{lines!r:.300} -> {result.exit_code}: {result.output!r:.300}"
    assert result.exception is None or isinstance(result.exception, SystemExit), shown
    assert "Traceback" not in result.output, shown
    assert result.exit_code in (0, 2), shown
    stored = _count(target) - before
    if result.exit_code == 2:
        assert stored == 0, shown
        errors = [line for line in result.output.splitlines() if line.startswith("error:")]
        assert len(errors) == 1, shown
    else:
        assert stored == sum(1 for line in lines if line.strip()), shown


@pytest.fixture(autouse=True)
def _wide(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
