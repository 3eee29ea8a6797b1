"""``factdiff serve`` as a user starts it: a key from ``keys create --json``, then the
contract routes over HTTP on the SQLite store, and 413 over ``--max-body-bytes``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.integration.service_helpers import free_port


def test_serve_on_a_sqlite_file(tmp_path: Path) -> None:
    db = str(tmp_path / "memory.db")
    run = [sys.executable, "-m", "factdiff.cli"]
    made = subprocess.run(
        [*run, "keys", "create", "--agent", "alice", "--json", "--db", db],
        check=True,
        capture_output=True,
        text=True,
    )
    key = json.loads(made.stdout)["key"]
    port = free_port()
    server = subprocess.Popen(
        [*run, "serve", "--db", db, "--port", str(port), "--max-body-bytes", "4096"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ),
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                if httpx.get(f"{base}/readyz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.05)
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}) as http:
            added = http.post("/v1/entries", json={"text": "Invoice INV-9182 for $14,250."})
            assert added.status_code == 201
            entry_id = added.json()["id"]
            hits = http.get("/v1/search", params={"q": "14,250 USD", "k": 1}).json()["hits"]
            assert [hit["entry_id"] for hit in hits] == [entry_id]
            assert http.get(f"/v1/entries/{entry_id}").json()["entry"]["agent_id"] == "alice"
            too_big = http.post("/v1/entries", json={"text": "x" * 5000})
            assert too_big.status_code == 413
    finally:
        server.terminate()
        server.wait(timeout=60)
