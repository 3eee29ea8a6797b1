"""Time and duration options, settings and query parameters beyond what factdiff takes are one
line (exit 2, HTTP 422), never a traceback; the last time in range works. Both backends."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from factdiff.cli.main import main as cli
from factdiff.store import open_store
from tests.conftest import WORKED
from tests.integration.service_helpers import client, make_keys, running_api

HUGE = "99999999999999999d"
TOO_LONG = "longer than the longest duration factdiff takes, 36500d"
OUT_OF_RANGE = "outside the times factdiff stores"


def run(target: str, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> Any:
    """``factdiff ARGS --db TARGET`` as a subprocess (a worker that does not stop is a
    failure after the timeout, not a hung test)."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("FACTDIFF_")}
    return subprocess.run(
        [sys.executable, "-m", "factdiff.cli", *args, "--db", target],
        capture_output=True,
        text=True,
        env={**environ, **(env or {})},
        cwd=cwd,
        check=False,
        timeout=60,
    )


def assert_one_line(result: Any, *expected: str) -> None:
    """Exit 2 with one ``error:`` line holding ``expected``, and no traceback."""
    stderr = result.stderr
    assert result.returncode == 2, (result.returncode, stderr[-2000:])
    assert "Traceback" not in stderr
    assert len(stderr.splitlines()) == 1, stderr
    assert stderr.startswith("error: ")
    for text in expected:
        assert text in stderr


def fill(target: str) -> str:
    """``target`` holding the worked example (an entry the naive 40-word summary fails)."""
    source = (WORKED / "source.txt").read_text(encoding="utf-8")
    with open_store(target) as store:
        store.add("support-bot", source, now=datetime(2026, 3, 14, tzinfo=UTC))
    return target


@pytest.fixture
def filled(target: str) -> str:
    """A filled store on each backend."""
    return fill(target)


@pytest.fixture
def filled_sqlite(tmp_path: Path) -> str:
    """A filled SQLite store (for what is refused before any store is read)."""
    return fill(str(tmp_path / "memory.db"))


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["demote", "--older-than", "99999999999999d"], ("--older-than", TOO_LONG)),
        (["demote", "--now", "9999-12-31T23:59Z"], ("--now", OUT_OF_RANGE)),
        (["worker", "--lease", HUGE], ("--lease", TOO_LONG)),
    ],
    ids=["older-than", "now", "lease"],
)
def test_the_reported_options_are_one_line_on_both_backends(
    filled: str, args: list[str], expected: tuple[str, ...]
) -> None:
    assert_one_line(run(filled, *args), *expected)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["demote", "--now", "0001-01-01T00:00+14:00"], ("--now", OUT_OF_RANGE)),
        (["demote", "--backoff", HUGE], ("--backoff", TOO_LONG)),
        (["demote", "--error-backoff", HUGE], ("--error-backoff", TOO_LONG)),
        (["demote", "--error-backoff-max", HUGE], ("--error-backoff-max", TOO_LONG)),
        (["demote", "--deadline", HUGE], ("--deadline", TOO_LONG)),
        (["worker", "--heartbeat", HUGE], ("--heartbeat", TOO_LONG)),
        (["worker", "--poll", HUGE], ("--poll", TOO_LONG)),
        (["worker", "--grace", HUGE], ("--grace", TOO_LONG)),
        (["worker", "--older-than", HUGE], ("--older-than", TOO_LONG)),
        (["search", "--promote-window", HUGE, "invoice"], ("promote_window", TOO_LONG)),
        (["reevaluate", "--schema", "customer_service", "--lease", "1e30"], ("--lease",)),
        (["reevaluate", "--schema", "customer_service", "--now", "9999-12-31T23:59Z"], ("--now",)),
        (["events", "--since", "0001-01-01T00:00+14:00"], ("--since", OUT_OF_RANGE)),
        (["events", "--until", "9999-12-31T23:59-14:00"], ("--until", OUT_OF_RANGE)),
        (["report", "losses", "--since", "9999-12-31T23:59Z"], ("--since", OUT_OF_RANGE)),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, list) else None,
)
def test_an_option_beyond_the_bounds_is_one_line(
    filled_sqlite: str, args: list[str], expected: tuple[str, ...]
) -> None:
    assert_one_line(run(filled_sqlite, *args), *expected)


@pytest.mark.parametrize(
    ("args", "variable"),
    [
        (["worker"], "FACTDIFF_LEASE"),
        (["worker"], "FACTDIFF_POLL"),
        (["demote"], "FACTDIFF_OLDER_THAN"),
        (["search", "invoice"], "FACTDIFF_PROMOTE_WINDOW"),
    ],
)
def test_an_environment_value_beyond_the_bound_is_one_line(
    filled_sqlite: str, args: list[str], variable: str
) -> None:
    assert_one_line(run(filled_sqlite, *args, env={variable: HUGE}), TOO_LONG)


def test_a_settings_file_value_beyond_the_bound_is_one_line(
    filled_sqlite: str, tmp_path: Path
) -> None:
    (tmp_path / "factdiff.toml").write_text(f'grace = "{HUGE}"\n', encoding="utf-8")
    assert_one_line(run(filled_sqlite, "worker", cwd=tmp_path), "factdiff.toml: grace", TOO_LONG)
    (tmp_path / "factdiff.toml").write_text("lease = " + "9" * 5000 + "\n", encoding="utf-8")
    assert_one_line(run(filled_sqlite, "worker", cwd=tmp_path), "more than 4300 digits")


def test_the_last_time_in_range_works(filled: str) -> None:
    result = CliRunner().invoke(
        cli,
        ["demote", "--db", filled, "--now", "9899-12-31T23:59Z", "--ladder", "naive:40,extractive"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    shown = CliRunner().invoke(cli, ["list", "--db", filled, "--json"], catch_exceptions=False)
    (entry,) = json.loads(shown.stdout)["entries"]
    assert entry["attempt_count"] == 1  # failed: its retry is at the end of the range
    assert entry["next_attempt_at"] == "9899-12-31T23:59:59.999999+00:00"
    longest = CliRunner().invoke(
        cli, ["demote", "--db", filled, "--older-than", "36500d", "--json"], catch_exceptions=False
    )
    assert longest.exit_code == 0, longest.output


def test_http_times_and_durations_beyond_the_bounds_are_422(target: str) -> None:
    keys = make_keys(target)
    with running_api(target) as base, client(base, keys.operator) as http:
        for response in (
            http.post("/v1/demotions", json={"older_than": "99999999999999d"}),
            http.get("/v1/review-queue", params={"older_than": "99999999999999d"}),
            http.get("/v1/events", params={"since": "0001-01-01T00:00:00+14:00"}),
            http.get("/v1/events", params={"until": "9999-12-31T23:59:00-14:00"}),
        ):
            assert response.status_code == 422, response.text
            assert response.json()["error"]["code"] == "invalid_request"
        assert http.post("/v1/demotions", json={"older_than": "36500d"}).status_code == 200
