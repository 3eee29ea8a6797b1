"""Latency of the review pages' data and of the pages over HTTP, on a SQLite store of dev-data
entries, against ``MemoryStore.stats()`` (the ``factdiff stats`` document) as the baseline.

Run: ``.venv/bin/python bench/ui_pages.py [--limit N] [--data DIR] [--repeat R]``

Entries: ``--limit`` dialogues (default 300) of each of MultiWOZ, SGD and tau-retail, each
one entry (``speaker: text`` lines, at most 1,200 characters) of the agent named after its
dataset, dormant for 30 days. One demotion pass with a one-rung ladder (``naive:20``, one
attempt) sends most of them to review, so the queue, the dashboard and the entry pages all
have real failures with real diffs to show.

Measured in this one process, one call at a time, ``--repeat`` times each (default 20):

* stats          - ``store.stats()``: the baseline (same tables, counted once each);
* dashboard      - ``dashboard_figures(store)``: the ``/v1/dashboard`` document;
* review queue   - ``review_queue(store, QueueFilters(), now)``: ``/v1/review-queue``;
* entry view     - ``entry_view(store, id)`` over the entries in review (each once per
                   repeat): ``/v1/entries/{id}/view``;
* GET /ui/...    - the pages through a real uvicorn on 127.0.0.1, signed in, read whole.

Figures: p50 / p95 / max in milliseconds, and p50 as a ratio of the baseline's p50.
"""

from __future__ import annotations

import re
import socket
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.datasets import LOADERS, base_parser, build_entry, print_table, resolve_limit, spread
from factdiff.compression.components import ladder_from_spec
from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.demotion.retry import RetryPolicy
from factdiff.ops.dashboard import dashboard_figures
from factdiff.store import EntryStatus, MemoryStore, open_store
from factdiff.store.api_keys import KeyScope
from factdiff.ui.entry_view import entry_view
from factdiff.ui.queue import QueueFilters, review_queue

DATASETS = ("multiwoz", "sgd", "tau")
ENTRY_CHARS = 1200
ENTRY_PAGES = 50
"""Entry views timed per repeat (the first entries in review)."""


def load(store: MemoryStore, data: Path, limit: int | None) -> int:
    """Add one entry per dialogue; returns how many."""
    old = datetime.now(UTC) - timedelta(days=30)
    count = 0
    for name in DATASETS:
        for dialogue in spread(LOADERS[name](data, None), limit):
            text = build_entry(dialogue, ENTRY_CHARS).text
            store.add(name, text, now=old, last_used_at=old)
            count += 1
    return count


def timed(call: Callable[[], object], repeat: int) -> list[float]:
    """Milliseconds of each of ``repeat`` calls."""
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        out.append((time.perf_counter() - start) * 1000)
    return out


def row(name: str, samples: list[float], baseline: float) -> list[str]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    p50 = statistics.median(ordered)
    return [
        name,
        str(len(ordered)),
        f"{p50:.2f}",
        f"{p95:.2f}",
        f"{ordered[-1]:.2f}",
        f"{p50 / baseline:.2f}x",
    ]


def serve(target: str) -> tuple[str, Callable[[], None]]:
    """The app on a free loopback port; returns its URL and a stop function."""
    import uvicorn

    from factdiff.service import create_app

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = uvicorn.Config(create_app(target), host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)

    def stop() -> None:
        server.should_exit = True
        thread.join(timeout=30)

    return f"http://127.0.0.1:{port}", stop


def main() -> None:
    parser = base_parser(__doc__ or "", 300)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    repeat = max(1, args.repeat)
    with tempfile.TemporaryDirectory() as folder:
        target = str(Path(folder) / "memory.db")
        with open_store(target) as store:
            started = time.perf_counter()
            entries = load(store, args.data, resolve_limit(args.limit))
            settings = DemotionSettings(
                ladder=ladder_from_spec("naive:20"), retry=RetryPolicy(max_attempts=1)
            )
            Demoter(store, settings).run(datetime.now(UTC), keep_results=False)
            setup = time.perf_counter() - started
            waiting = store.entry_page(status=EntryStatus.REVIEW, limit=ENTRY_PAGES)
            ids = [e.id for e in waiting.items]
            print(
                f"store: {entries} entries ({', '.join(DATASETS)}), {waiting.total} in review, "
                f"built and demoted in {setup:.1f} s"
            )
            now = datetime.now(UTC)
            baseline = timed(store.stats, repeat)
            base = statistics.median(baseline)
            rows = [
                row("stats (baseline)", baseline, base),
                row("dashboard", timed(lambda: dashboard_figures(store), repeat), base),
                row(
                    "review queue",
                    timed(lambda: review_queue(store, QueueFilters(), now), repeat),
                    base,
                ),
            ]
            views: list[float] = []
            for _ in range(repeat):
                for entry_id in ids:
                    views += timed(partial(entry_view, store, entry_id), 1)
            rows.append(row("entry view", views, base))
            secret = store.create_api_key(
                scope=KeyScope.OPERATOR, agent_id=None, name="bench", now=now
            ).secret
        rows += http_rows(target, secret, ids, repeat, base)
    print_table(["measure", "n", "p50 ms", "p95 ms", "max ms", "p50 / stats"], rows)


def http_rows(
    target: str, secret: str, ids: list[str], repeat: int, base: float
) -> list[list[str]]:
    """The pages over real HTTP, signed in with an operator key."""
    import httpx

    url, stop = serve(target)
    try:
        with httpx.Client(base_url=url, timeout=120) as browser:
            form = browser.get("/ui/login").text
            found = re.search(r'name="csrf" value="([^"]+)"', form)
            assert found is not None
            signed = browser.post("/ui/login", data={"key": secret, "csrf": found.group(1)})
            assert signed.status_code == 303, signed.text

            def get(path: str) -> None:
                response = browser.get(path)
                assert response.status_code == 200, (path, response.status_code)

            rows = [
                row(f"GET {page}", timed(partial(get, page), repeat), base)
                for page in ("/ui/dashboard", "/ui/reviews")
            ]
            pages: list[float] = []
            for _ in range(max(1, repeat // 4)):
                for entry_id in ids:
                    pages += timed(partial(get, f"/ui/entries/{entry_id}"), 1)
            rows.append(row("GET /ui/entries/{id}", pages, base))
            return rows
    finally:
        stop()


if __name__ == "__main__":
    main()
