"""Headless Chromium for the review pages: the distribution's browser driven by Playwright.

Browser tests need ``/usr/bin/chromium`` (``make browser`` installs it as root). Without it
they skip with that reason; when ``FACTDIFF_REQUIRE_BROWSER=1`` (as in ``.ci/run``) they fail
instead, as PostgreSQL tests do under ``FACTDIFF_REQUIRE_PG=1``. Screenshots go to
``tests/artifacts/`` (gitignored).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from factdiff.compression.components import ladder_from_spec
from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.demotion.retry import RetryPolicy
from factdiff.demotion.review import approve
from factdiff.schema.loader import schema_from_yaml
from factdiff.store import EntryStatus, open_store
from factdiff.store.catalog import SchemaCatalog
from tests.conftest import worked

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext

CHROMIUM = Path("/usr/bin/chromium")
REQUIRE_ENV = "FACTDIFF_REQUIRE_BROWSER"
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
CALL_TIME = datetime(2026, 3, 14, 19, 32, tzinfo=UTC)

XSS = (
    "Payloads: <script>alert('xss-script')</script> and "
    "<img src=x onerror=\"alert('xss-img')\"> and "
    "<a href=\"javascript:alert('xss-link')\">click</a> and "
    "\x1b[31mRED\x1b[0m \x1b]8;;http://evil.example/\x07link\x1b]8;;\x07 were pasted "
    "by the caller into the chat while the agent was reading the account history aloud, "
    "before they agreed on invoice INV-7001 <b>totaling</b> $900 due 2026-04-02."
)
"""An entry whose text is markup, script and terminal escapes: shown literally, never run."""


def require_chromium() -> None:
    """Skip (or fail under ``FACTDIFF_REQUIRE_BROWSER=1``) when Chromium is missing."""
    missing = [CHROMIUM] if not CHROMIUM.exists() else []  # Playwright needs no chromedriver
    if not missing:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            missing = [Path("playwright (pip install -e '.[dev]')")]
    if missing:
        reason = f"{missing[0]} is missing: run `make browser` as root for the browser tests"
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{REQUIRE_ENV}=1 but {reason}")
        pytest.skip(reason)


@contextmanager
def chromium(user_data_dir: Path) -> Iterator[BrowserContext]:
    """A fresh headless Chromium profile in ``user_data_dir``."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(user_data_dir),
            executable_path=str(CHROMIUM),
            args=CHROMIUM_ARGS,
            headless=True,
            viewport={"width": 1280, "height": 900},
        )
        try:
            yield context
        finally:
            context.close()


def seed(target: str) -> dict[str, list[str]]:
    """A store with two entries in review (the worked example, and one whose text is XSS
    payloads), one compressed cleanly, one approved despite its loss (warm, with known gaps),
    and two versions of the ``sales`` schema."""
    old = datetime.now(UTC) - timedelta(days=30)
    settings = DemotionSettings(
        ladder=ladder_from_spec("naive:20"), retry=RetryPolicy(max_attempts=1)
    )
    sales = (Path(__file__).resolve().parents[2] / "schemas" / "sales.yaml").read_text()
    with open_store(target) as store:

        def add(agent: str, text: str) -> str:
            return store.add(
                agent,
                text,
                now=old,
                occurred_at=CALL_TIME,
                schema="customer_service",
                last_used_at=old,
            )

        failed = add("support-bot", worked("source"))
        approved = add("support-bot", worked("source"))
        hostile = add("billing-bot", XSS)
        clean = add("billing-bot", "Customer cust_100 called about invoice INV-1001.")
        Demoter(store, settings).run(datetime.now(UTC))
        assert store.get(failed).status is EntryStatus.REVIEW
        assert store.get(hostile).status is EntryStatus.REVIEW
        approve(store, approved, reason="gaps known", key_name="seed", now=datetime.now(UTC))
        catalog = SchemaCatalog(store)
        now = datetime.now(UTC)
        catalog.register(schema_from_yaml(sales, "sales.yaml"), now, sales)
        second = sales.replace("version: 1", "version: 2", 1).replace(
            "seats:          {type: quantity, criticality: important}",
            "seats:          {type: quantity, criticality: critical}",
        )
        assert second != sales
        catalog.register(schema_from_yaml(second, "sales.yaml"), now, second)
    return {"review": [failed, hostile], "clean": [clean], "approved": [approved]}


UPSET = "The customer sounded upset about the delay."


def seed_unverified_drop(target: str) -> str:
    """One warm entry, compressed clean by a summary that dropped a sentence (``UPSET``) no
    schema field covers."""
    old = datetime.now(UTC) - timedelta(days=30)
    text = f"Refund of $54.04 for order W2378156 was approved on 2026-02-10. {UPSET}"
    settings = DemotionSettings(ladder=ladder_from_spec("naive:10"))
    with open_store(target) as store:
        entry_id = store.add("shop", text, now=old, last_used_at=old)
        Demoter(store, settings).run(datetime.now(UTC))
        warm = store.get(entry_id).warm
        assert warm is not None
        assert warm.meta.outcome.value == "clean"
    return entry_id


def seed_assigned_review(target: str) -> str:
    """One entry in review of agent ``carol``, whose schema (``customer_service``) is
    assigned to the agent, not given with the entry."""
    old = datetime.now(UTC) - timedelta(days=30)
    settings = DemotionSettings(
        ladder=ladder_from_spec("naive:20"), retry=RetryPolicy(max_attempts=1)
    )
    with open_store(target) as store:
        store.set_agent_schema("carol", "customer_service")
        entry_id = store.add(
            "carol", worked("source"), now=old, occurred_at=CALL_TIME, last_used_at=old
        )
        Demoter(store, settings).run(datetime.now(UTC))
        assert store.get(entry_id).status is EntryStatus.REVIEW
    return entry_id
