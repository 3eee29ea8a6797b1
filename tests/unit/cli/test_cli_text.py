"""Screen escaping, cursors, DSN redaction and durations: the CLI's small pure parts."""

from __future__ import annotations

import io
import re
from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from factdiff.cli.render import diff_table, table, text
from factdiff.errors import InputError
from factdiff.present.paging import decode_cursor, encode_cursor, shown_line
from factdiff.present.safe_text import one_line, visible
from factdiff.settings import Settings, parse_duration
from factdiff.store.dsn import redact

LIVE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@given(st.text())
def test_visible_leaves_no_live_control_and_keeps_everything_else(value: str) -> None:
    shown = visible(value)
    assert LIVE.search(shown) is None
    if LIVE.search(value) is None:
        assert shown == value
    assert "\n" not in one_line(value)
    assert LIVE.search(one_line(value)) is None


def test_visible_escapes_name_the_control() -> None:
    assert visible("a\x1b[31mb\x9b\r\x07\x7f\u202e\tc\nd") == (
        "a\\x1b[31mb\\x9b\\r\\x07\\x7f\\u202e\tc\nd"
    )
    assert one_line("a\nb\tc") == "a\\nb\\tc"


def render(renderable: object) -> str:
    buffer = io.StringIO()
    Console(file=buffer, width=200, emoji=False, highlight=False).print(renderable)
    return buffer.getvalue()


@pytest.mark.parametrize(
    "value",
    ["[/INST]", "[red]secret[/red]", "[link=https://evil.example]click[/link]", ":smile:", "\\["],
)
def test_markup_is_shown_literally(value: str) -> None:
    assert value in render(text(value))
    rows = table("a", title=value)
    rows.add_row(text(value))
    assert render(rows).count(value) == 2


def test_tables_fold_instead_of_cutting() -> None:
    rows = table("id")
    rows.add_row(text("X" * 300))
    buffer = io.StringIO()
    Console(file=buffer, width=40).print(rows)
    assert buffer.getvalue().count("X") == 300
    assert "…" not in buffer.getvalue()


def test_diff_table_never_parses_values(customer_service: object) -> None:
    from factdiff.verify.check import check

    result = check(
        "Invoice INV-1 for $5.00 [red]x[/red].",
        "Invoice INV-1 [/INST].",
        customer_service,  # type: ignore[arg-type]
    )
    assert "fact diff" in render(diff_table(result.diff))


def test_cursor_round_trip_and_refusals() -> None:
    filters = {"agent": "a", "tier": None}
    cursor = encode_cursor("list", filters, "01ABC")
    assert re.fullmatch(r"[A-Za-z0-9_-]+", cursor)
    assert decode_cursor(cursor, "list", filters) == "01ABC"
    assert decode_cursor(encode_cursor("events", {}, 42), "events", {}) == 42
    for bad, listing, wanted in (
        (cursor, "events", filters),
        (cursor, "list", {"agent": "b", "tier": None}),
        ("not-a-cursor!", "list", filters),
        ("", "list", filters),
    ):
        with pytest.raises(InputError, match="--cursor"):
            decode_cursor(bad, listing, wanted)


def test_shown_line() -> None:
    entries, events = ("entry", "entries"), ("event", "events")
    assert shown_line(entries, 200, 0, 603, "C") == (
        "200 of 603 entries (1-200); next page: --cursor C"
    )
    assert shown_line(events, 3, 200, 203, None) == "3 of 203 events (201-203)"
    assert shown_line(entries, 0, 0, 0, None) == "0 of 0 entries"
    assert shown_line(entries, 1, 0, 1, None) == "1 of 1 entry (1-1)"
    assert shown_line(events, 0, 0, 1, None) == "0 of 1 event"


@pytest.mark.parametrize(
    ("dsn", "shown"),
    [
        ("postgresql://u:s3cret@h:5432/db?options=-c", "postgresql://u:***@h:5432/db?options=-c"),
        ("postgres://u:p%40ss@h/db", "postgres://u:***@h/db"),
        (
            "postgresql://u@h/db?sslmode=off&password=s3cret",
            "postgresql://u@h/db?sslmode=off&password=***",
        ),
        ("host=h password=s3cret user=u", "host=h password=*** user=u"),
        ("host=h password='s3 cret' user=u", "host=h password=*** user=u"),
        ("postgresql://h/db", "postgresql://h/db"),
    ],
)
def test_redact_hides_every_password_form(dsn: str, shown: str) -> None:
    assert redact(dsn) == shown


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("14d", timedelta(days=14)),
        ("500ms", timedelta(milliseconds=500)),
        ("1m30s", timedelta(seconds=90)),
        ("1.5s", timedelta(seconds=1.5)),
        ("2w", timedelta(weeks=2)),
        ("0s", timedelta(0)),
    ],
)
def test_durations(value: str, expected: timedelta) -> None:
    assert parse_duration(value) == expected.total_seconds()


@pytest.mark.parametrize("value", ["", " ", "5x", "ms", "-1s", "1s 2"])
def test_bad_durations(value: str) -> None:
    with pytest.raises(ValueError, match="is not a duration like"):
        parse_duration(value)


def test_zero_duration_refused_where_positive() -> None:
    with pytest.raises(ValueError, match="must be longer than zero"):
        Settings(poll="0ms")  # type: ignore[arg-type]


def test_command_registry_matches_the_commands() -> None:
    import click

    from factdiff.cli.main import COMMANDS, main

    for name, (_, _, short) in COMMANDS.items():
        command = main.get_command(click.Context(main), name)
        assert command is not None
        assert command.name == name
        first_line = (command.help or "").strip().splitlines()[0]
        assert first_line.startswith(short.rstrip(".")), (name, first_line, short)
