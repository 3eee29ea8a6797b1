"""The dashboard in real headless Chromium: agent names are never broken mid-word (one line,
an ellipsis when too long, the whole name in the title), at 1280 and 390 px, and the bars
write rates as percentages and costs in dollars, as the page's data says."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

import pytest

from factdiff.compression.components import ladder_from_spec
from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.demotion.retry import RetryPolicy
from factdiff.store import open_store
from tests.acceptance.ui_browser import CALL_TIME, chromium, require_chromium
from tests.conftest import worked
from tests.integration.service_helpers import make_keys, running_api

if TYPE_CHECKING:
    from pathlib import Path

    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

AGENTS = (
    "emea-enterprise-accounts-customer-support-assistant-for-the-nordic-region",
    "billing-bot",
)


@pytest.fixture
def dashboard(tmp_path: Path) -> Iterator[Page]:
    """Signed in on the dashboard of a store where both agents have a failed entry."""
    require_chromium()
    target = str(tmp_path / "memory.db")
    old = datetime.now(UTC) - timedelta(days=30)
    with open_store(target) as store:
        for agent in AGENTS:
            store.add(
                agent, worked("source"), now=old, occurred_at=CALL_TIME,
                schema="customer_service", last_used_at=old,
            )  # fmt: skip
        settings = DemotionSettings(
            ladder=ladder_from_spec("naive:20"), retry=RetryPolicy(max_attempts=2)
        )
        Demoter(store, settings).run(datetime.now(UTC))
    keys = make_keys(target)
    with running_api(target) as base, chromium(tmp_path / "profile") as context:
        page = context.new_page()
        page.goto(base + "/ui/login")
        page.fill("#key", keys.operator)
        page.press("#key", "Enter")
        page.wait_for_load_state()
        page.goto(base + "/ui/dashboard")
        page.wait_for_load_state()
        yield page
        page.close()


def test_agent_names_stay_on_one_line(dashboard: Page) -> None:
    for width in (1280, 390):
        dashboard.set_viewport_size({"width": width, "height": 900})
        dashboard.wait_for_timeout(150)
        names = dashboard.eval_on_selector_all(
            "table.scores tbody tr td:first-child",
            """cells => cells.map(cell => {
                const texts = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
                const rects = [];
                while (texts.nextNode()) {
                    const range = document.createRange();
                    range.selectNodeContents(texts.currentNode);
                    rects.push(...Array.from(range.getClientRects()).filter(r => r.width > 0));
                }
                const titled = cell.querySelector("[title]");
                return {
                    text: cell.textContent,
                    title: titled ? titled.title : null,
                    lines: new Set(rects.map(r => Math.round(r.top))).size,
                };
            })""",
        )
        assert [n["text"] for n in names] == sorted(AGENTS)
        assert all(n["lines"] == 1 for n in names), (width, names)
        assert [n["title"] for n in names] == sorted(AGENTS)
        overflow = dashboard.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"the dashboard at {width} px overflows by {overflow} px"


def test_bars_write_rates_as_percentages(dashboard: Page) -> None:
    values = dashboard.eval_on_selector_all(
        "#chart-agent svg text.value", "ts => ts.map(t => t.textContent)"
    )
    assert values == ["100.0%", "100.0%"]
    cells = dashboard.eval_on_selector_all(
        "table.scores tbody tr td:nth-child(3)", "tds => tds.map(t => t.textContent)"
    )
    assert cells == ["100.0%", "100.0%"]
    assert re.search(r"Failure rate \(last \d+ attempts\)", dashboard.inner_text("table.scores"))
