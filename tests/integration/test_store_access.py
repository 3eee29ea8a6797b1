"""Getting at a store: read-only SQLite files, PostgreSQL passwords, unreachable servers."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import pytest

from factdiff.errors import StoreError
from factdiff.store import open_store
from tests.acceptance.test_cli import factdiff, worked_path
from tests.processes import wait_for_sigterm_handler

READ_COMMANDS = ("list", "stats", "verify", "events")


def _chattr(flag: str, *paths: Path) -> bool:
    tool = shutil.which("chattr")
    if tool is None:
        return False
    done = subprocess.run([tool, flag, *map(str, paths)], capture_output=True, check=False)
    return done.returncode == 0


@contextmanager
def read_only(*paths: Path) -> Iterator[None]:
    """Make files (0444) and folders (0555) read-only; as root, who ignores modes, also
    immutable (``chattr +i``), or skip when that is not possible."""
    modes = {p: p.stat().st_mode for p in paths}
    for p in paths:
        p.chmod(0o555 if p.is_dir() else 0o444)
    immutable = False
    try:
        if os.geteuid() == 0:
            immutable = _chattr("+i", *paths)
            if not immutable:
                pytest.skip("running as root without chattr: cannot make a file read-only")
        yield
    finally:
        if immutable:
            _chattr("-i", *paths)
        for p, mode in modes.items():
            p.chmod(mode)


@pytest.fixture
def filled_store(tmp_path: Path) -> tuple[Path, str]:
    folder = tmp_path / "store"
    folder.mkdir()
    db = folder / "m.db"
    added = factdiff(
        "add", "--db", str(db), "--agent", "bot", "--occurred-at", "2026-01-01T00:00Z",
        worked_path("source"),
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    factdiff("demote", "--db", str(db), "--now", "2026-03-01T00:00Z")
    factdiff("add", "--db", str(db), "--agent", "bot", worked_path("fluent"))
    return db, added.stdout.strip()


@pytest.mark.parametrize("where", ["file", "file-and-folder"])
def test_read_commands_work_on_a_read_only_sqlite_store(
    filled_store: tuple[Path, str], where: str
) -> None:
    db, entry_id = filled_store
    before = db.read_bytes()
    paths = (db,) if where == "file" else (db, db.parent)
    with read_only(*paths):
        for command in READ_COMMANDS:
            run = factdiff(command, "--db", str(db), "--json")
            assert run.returncode == 0, (command, run.stderr)
            json.loads(run.stdout)
        shown = factdiff("show", entry_id, "--db", str(db), "--json")
        assert json.loads(shown.stdout)["entry"]["tier"] == "warm"
        assert factdiff("stats", "--db", str(db)).returncode == 0
        refused = factdiff("touch", entry_id, "--db", str(db))
        assert refused.returncode == 1
        assert refused.stderr.count("\n") == 1, refused.stderr
        assert "Traceback" not in refused.stderr
    assert db.read_bytes() == before


def test_read_only_store_refuses_writes_through_the_api(filled_store: tuple[Path, str]) -> None:
    db, entry_id = filled_store
    with open_store(db, create=False, read_only=True) as store:
        assert store.get(entry_id).id == entry_id
        with pytest.raises(StoreError, match=r"readonly|read-only|read only"):
            store.touch(entry_id, datetime.now(UTC))


def password_dsn(dsn: str, password: str) -> str:
    scheme, rest = dsn.split("://", 1)
    userinfo, host = rest.split("@", 1) if "@" in rest else ("postgres", rest)
    user = userinfo.split(":", 1)[0]
    return f"{scheme}://{user}:{password}@{host}"


@pytest.mark.postgres
def test_postgres_password_never_printed(pg_dsn: str, tmp_path: Path) -> None:
    """The test server trusts local connections, so any password gets in; none may show."""
    secret = "s3cret-Pa55"
    dsn = password_dsn(pg_dsn, secret)
    runs = [
        factdiff("migrate", "--db", dsn),
        factdiff("migrate", "--db", dsn, "--json"),
        factdiff("add", "--db", dsn, "--agent", "a", worked_path("source")),
        factdiff("list", "--db", dsn),
        factdiff("stats", "--db", dsn, "--json"),
        factdiff("show", "01ARZ3NDEKTSV4RRFFQ69G5FAV", "--db", dsn),
        factdiff("verify", "--db", dsn, "--json"),
        factdiff("list", "--db", password_dsn(pg_dsn.replace("/test", "/no_such_db"), secret)),
        factdiff("list", "--db", f"postgresql://u:{secret}@127.0.0.1:1/test"),
    ]
    worker = subprocess.Popen(
        [sys.executable, "-m", "factdiff.cli", "worker", "--db", dsn, "--poll", "100ms",
         "--worker-id", "w1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    wait_for_sigterm_handler(worker.pid)
    worker.terminate()
    out, err = worker.communicate(timeout=60)
    runs.append(subprocess.CompletedProcess(worker.args, worker.returncode, out, err))
    for run in runs:
        assert secret not in run.stdout + run.stderr, run.args
    migrated = json.loads(runs[1].stdout)
    assert migrated["location"].startswith("postgresql://")
    assert ":***@" in migrated["location"]
    assert runs[0].returncode == 0, runs[0].stderr
    assert ":***@" in runs[0].stdout
    assert runs[-2].returncode == 1
    assert ":***@" in runs[-2].stderr
    assert runs[-1].returncode == 0, runs[-1].stderr
    with open_store(dsn) as store:
        assert secret not in store.location
        assert "***" in store.location


def test_unreachable_postgres_is_one_line_at_once() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again: nothing listens there
    started = time.monotonic()
    run = factdiff("list", "--db", f"postgresql://factdiff@127.0.0.1:{port}/memory")
    elapsed = time.monotonic() - started
    assert run.returncode == 1
    assert run.stderr.count("\n") == 1, run.stderr
    assert run.stderr.startswith("error: cannot reach PostgreSQL at postgresql://factdiff@")
    assert "Connection refused" in run.stderr
    print(f"refused connection reported after {elapsed:.2f} s")


@contextmanager
def silent_server() -> Iterator[int]:
    """A loopback listener that accepts connections and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        stop.set()
        thread.join(5)
        for conn in held:
            conn.close()
        server.close()


def test_silent_postgres_times_out_in_one_line() -> None:
    with silent_server() as port:
        started = time.monotonic()
        run = subprocess.run(
            [sys.executable, "-m", "factdiff.cli", "stats", "--db",
             f"postgresql://factdiff:pw@127.0.0.1:{port}/memory?connect_timeout=2"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )  # fmt: skip
        elapsed = time.monotonic() - started
    assert run.returncode == 1
    assert run.stderr.count("\n") == 1, run.stderr
    assert "cannot reach PostgreSQL at postgresql://factdiff:***@127.0.0.1" in run.stderr
    assert "timeout" in run.stderr.lower()
    assert ":pw@" not in run.stderr
    print(f"silent server reported after {elapsed:.2f} s (connect_timeout=2)")
