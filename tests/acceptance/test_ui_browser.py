"""The review pages in real headless Chromium, on a real uvicorn over a SQLite store: sign in,
the queue, a failed entry with its missing facts highlighted, approval with a reason and its
event, a clean entry's sentences the check did not verify, XSS payloads shown as text, charts
drawn with data, search and schemas, keyboard use and both widths (1280 and 390 px).
Screenshots of every page go to ``tests/artifacts/``."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from tests.acceptance.ui_browser import (
    ARTIFACTS,
    UPSET,
    chromium,
    require_chromium,
    seed,
    seed_assigned_review,
    seed_unverified_drop,
)
from tests.conftest import worked
from tests.integration.service_helpers import Keys, make_keys, running_api

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Dialog, Page

pytestmark = pytest.mark.browser


@dataclass(frozen=True)
class Site:
    """The running app, its keys and the seeded entries."""

    base: str
    keys: Keys
    review: list[str]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    require_chromium()
    target = str(tmp_path_factory.mktemp("ui") / "memory.db")
    ids = seed(target)
    keys = make_keys(target)
    with running_api(target) as base:
        yield Site(base, keys, ids["review"])


@pytest.fixture(scope="module")
def browser(site: Site, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserContext]:
    with chromium(tmp_path_factory.mktemp("chromium-profile")) as context:
        yield context


@pytest.fixture
def page(browser: BrowserContext) -> Iterator[Page]:
    opened = browser.new_page()
    dialogs: list[str] = []

    def refuse(dialog: Dialog) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    opened.on("dialog", refuse)
    yield opened
    opened.close()
    assert dialogs == [], f"a dialog opened: {dialogs}"


def api(site: Site, path: str) -> Any:
    """A JSON twin, read with the operator key."""
    headers = {"Authorization": f"Bearer {site.keys.operator}"}
    response = httpx.get(site.base + path, headers=headers, timeout=60)
    assert response.status_code == 200, response.text
    return response.json()


def shoot(page: Page, name: str) -> None:
    """Screenshots of the page at 1280 and 390 px wide; at 390 nothing overflows sideways."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_timeout(150)  # charts redraw at the new width
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{name} at {width} px overflows by {overflow} px"
        page.screenshot(path=str(ARTIFACTS / f"{name}-{width}.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})


def sign_in(page: Page, site: Site, key: str) -> None:
    """Type the key and submit with Enter (the keyboard path)."""
    page.goto(site.base + "/ui/login")
    page.fill("#key", key)
    page.press("#key", "Enter")
    page.wait_for_load_state()


def test_agent_keys_cannot_sign_in(page: Page, site: Site) -> None:
    page.goto(site.base + "/ui/reviews")
    assert page.url.endswith("/ui/login")
    shoot(page, "login")
    with page.expect_response(
        lambda r: r.url.endswith("/ui/login") and r.request.method == "POST"
    ) as answer:
        sign_in(page, site, site.keys.alice)
    assert answer.value.status == 403
    assert "Agent keys cannot sign in" in page.inner_text("main")
    shoot(page, "login-agent-refused")
    page.goto(site.base + "/ui/dashboard")
    assert page.url.endswith("/ui/login")


def test_review_a_failed_entry(page: Page, site: Site) -> None:
    sign_in(page, site, site.keys.operator)
    assert page.url.endswith("/ui/reviews")
    queue = api(site, "/v1/review-queue")
    assert page.inner_text("#review-count") == str(queue["count"]) == "2"
    assert page.locator("a.entry-link").count() == 2
    shoot(page, "reviews")

    failed = site.review[0]
    page.click(f"a.entry-link[href='/ui/entries/{failed}']")
    page.wait_for_load_state()
    view = api(site, f"/v1/entries/{failed}/view")
    missing = {item["field"] for item in view["diff"]["missing"]}
    assert "disputed_amount" in missing
    marked = set(
        page.eval_on_selector_all(
            "#source mark.v-missing", "marks => marks.map(m => m.dataset.field)"
        )
    )
    spanned = {f for f in missing if _has_span(view, f)}
    assert "disputed_amount" in spanned
    assert spanned <= marked
    assert page.locator("#summary mark.v-missing").count() == 0
    assert page.locator("#diff tr.d-missing").count() == len(view["diff"]["missing"])
    shoot(page, "entry-failed")

    page.fill("#approve-reason", "the disputed line is tracked in the billing system")
    page.press("#approve-reason", "Enter")
    page.wait_for_load_state()
    assert "done=approved" in page.url
    assert page.inner_text("#entry-tier") == "warm"
    event = page.locator("#events li[data-type='review_approved']")
    assert event.count() == 1
    assert "tracked in the billing system" in event.inner_text()
    events = api(site, f"/v1/entries/{failed}")["events"]
    assert [e["payload"]["reason"] for e in events if e["type"] == "review_approved"] == [
        "the disputed line is tracked in the billing system"
    ]
    shoot(page, "entry-approved")


def _has_span(view: dict[str, Any], field: str) -> bool:
    return any(s["lead"] and s["lead"]["field"] == field for s in view["source"]["segments"])


def test_entry_text_is_shown_never_run(page: Page, site: Site) -> None:
    sign_in(page, site, site.keys.operator)
    page.goto(f"{site.base}/ui/entries/{site.review[1]}")
    source = page.inner_text("#source")
    assert "<script>alert('xss-script')</script>" in source
    assert "<img src=x onerror=" in source
    assert "javascript:alert('xss-link')" in source
    assert "\\x1b[31mRED" in source
    assert "\x1b" not in source
    injected = page.evaluate(
        "document.querySelectorAll('main script, main img, main a[href^=\"javascript\"], main b')"
        ".length"
    )
    assert injected == 0
    assert page.locator("#source mark.v-missing").count() >= 1
    shoot(page, "entry-hostile")
    page.goto(site.base + "/ui/search?q=" + httpx.QueryParams({"x": "<script>"})["x"])
    assert page.evaluate("document.querySelectorAll('main script').length") == 0


def test_forged_posts_are_refused(page: Page, site: Site) -> None:
    sign_in(page, site, site.keys.operator)
    target = site.review[1]
    page.goto(f"{site.base}/ui/entries/{target}")
    status = page.evaluate(
        """async (url) => (await fetch(url, {method: 'POST',
            headers: {'Content-Type': 'application/x-www-form-urlencoded'},
            body: 'reason=forged&csrf=not-the-token'})).status""",
        f"{site.base}/ui/entries/{target}/keep-hot",
    )
    assert status == 403
    assert api(site, f"/v1/entries/{target}")["entry"]["status"] == "review"


def test_dashboard_charts_render_with_data(page: Page, site: Site) -> None:
    sign_in(page, site, site.keys.operator)
    page.goto(site.base + "/ui/dashboard")
    page.wait_for_selector("#chart-outcomes svg rect.bar")
    figures = api(site, "/v1/dashboard")
    cells = sum(
        1
        for day in figures["outcomes_by_day"]
        for outcome in ("clean", "acceptable_with_notes", "failed", "error")
        if day[outcome]
    )
    assert cells >= 2
    assert page.locator("#chart-outcomes svg g.column").count() == len(figures["outcomes_by_day"])
    assert page.locator("#chart-outcomes svg rect.bar").count() == cells
    assert page.locator("#chart-schema svg rect.bar").count() == len(figures["failure_by_schema"])
    assert page.locator("#chart-agent svg rect.bar").count() == len(figures["failure_by_agent"])
    assert page.locator("#chart-fields svg rect.bar").count() == len(figures["fields_lost"]) > 0
    assert page.locator("#chart-backlog svg rect.bar").count() == len(
        figures["review_backlog"]["by_agent"]
    )
    labels = page.eval_on_selector_all(
        "#chart-fields svg text.label title", "ts => ts.map(t => t.textContent)"
    )
    assert labels == [f["field"] for f in figures["fields_lost"]]
    agents = figures["memory_score"]["agents"]
    assert page.locator("#memory-score svg rect.bar").count() == len(agents) > 0
    assert page.locator("#memory-score table.scores tbody tr").count() == len(agents)
    shoot(page, "dashboard")


def test_search_and_schemas(page: Page, site: Site) -> None:
    sign_in(page, site, site.keys.operator)
    page.goto(site.base + "/ui/search")
    page.fill("input[name=q]", "Marcus Chen invoice")
    page.press("input[name=q]", "Enter")
    page.wait_for_load_state()
    result = api(site, "/v1/search?q=Marcus+Chen+invoice")
    assert page.inner_text("#hit-count") == str(len(result["hits"]))
    assert result["hits"]
    matched = page.locator(".hit").first.locator(".matched li")
    assert matched.count() == len(result["hits"][0]["matched"]) > 0
    gapped = [i for i, hit in enumerate(result["hits"]) if hit["known_gaps"]]
    assert gapped, "the approved entry is warm with known gaps"
    gaps = page.locator(".hit").nth(gapped[0]).locator(".gaps li")
    expected = [g["field"] for g in result["hits"][gapped[0]]["known_gaps"]]
    assert [text.split()[0] for text in gaps.all_inner_texts()] == expected
    shoot(page, "search")

    page.goto(site.base + "/ui/schemas")
    history = api(site, "/v1/schema-history")
    versions = sum(len(s["versions"]) for s in history["schemas"])
    assert page.locator("tr.version").count() == versions >= 3
    assert "changed: seats" in page.inner_text("main")
    assert "No entry has been re-evaluated yet" in page.inner_text("#reevaluation")
    shoot(page, "schemas")


def test_keyboard_focus_is_visible_and_in_order(page: Page, site: Site) -> None:
    sign_in(page, site, site.keys.operator)
    page.goto(site.base + "/ui/reviews")
    order = []
    for _ in range(6):
        page.keyboard.press("Tab")
        order.append(
            page.evaluate(
                """() => { const e = document.activeElement;
                  const s = getComputedStyle(e);
                  return [e.tagName, e.textContent.trim(), s.outlineStyle, s.outlineWidth]; }"""
            )
        )
    assert order[0][1] == "Skip to content"
    assert [o[1] for o in order[1:5]] == ["Review queue", "Search", "Dashboard", "Schemas"]
    for tag, _, style, width in order:
        assert tag in {"A", "BUTTON", "INPUT", "SELECT"}
        assert style != "none", f"{tag} has no visible focus"
        assert width != "0px", f"{tag} has no visible focus"


def test_an_edited_entry_shows_its_current_state(
    page: Page, tmp_path_factory: pytest.TempPathFactory
) -> None:
    target = str(tmp_path_factory.mktemp("edited") / "memory.db")
    entry_id = seed_assigned_review(target)
    with running_api(target) as base:
        site = Site(base, make_keys(target), [entry_id])
        sign_in(page, site, site.keys.operator)
        row = page.locator("table.queue tbody tr").first
        assert row.locator(".schema-used").inner_text().startswith("customer_service v2")
        assert row.locator(".review-reason").inner_text() == "max_attempts"
        page.click(f"a.entry-link[href='/ui/entries/{entry_id}']")
        page.wait_for_load_state()
        assert page.inner_text("#entry-schema").startswith("customer_service v2")
        assert "assigned to its agent" in page.inner_text("#entry-schema")
        assert "max_attempts" in page.inner_text("#entry-review-reason")
        failed_summary = api(site, f"/v1/entries/{entry_id}/view")["summary"]["text"]
        assert failed_summary in page.inner_text("#summary")

        page.fill("#edit-summary", worked("faithful"))
        page.click("form[action$='/edit'] button[type=submit]")
        page.wait_for_load_state()
        assert "done=edited" in page.url
        view = api(site, f"/v1/entries/{entry_id}/view")
        assert view["summary"]["text"] == worked("faithful")
        assert page.inner_text("#entry-tier") == "warm"
        assert page.locator("#entry-review-reason").count() == 0
        shown = page.inner_text("#summary")
        assert "Marcus Chen" in shown
        assert failed_summary not in shown
        assert page.locator("#diff tr.d-missing").count() == 0
        facts = page.eval_on_selector_all(
            "#facts tbody td:first-child", "c => c.map(x => x.textContent)"
        )
        assert set(facts) == set(view["current"]["facts"]) >= {"invoice_id", "disputed_amount"}
        assert page.inner_text("#known-gaps").startswith("None")
        assert page.locator("#not-checked li").count() == max(
            1, len(view["current"]["coverage"]["unverified"])
        )
        history = page.locator("#history li[data-attempt]")
        assert history.count() == 1
        assert history.first.get_attribute("data-attempt") == "1"
        assert (
            history.first.locator("tr.d-missing").count()
            == len(view["history"][0]["diff"]["missing"])
            > 0
        )
        shoot(page, "entry-edited")


def test_a_clean_entry_lists_what_its_check_did_not_verify(
    page: Page, tmp_path_factory: pytest.TempPathFactory
) -> None:
    target = str(tmp_path_factory.mktemp("unverified") / "memory.db")
    entry_id = seed_unverified_drop(target)
    with running_api(target) as base:
        site = Site(base, make_keys(target), [])
        sign_in(page, site, site.keys.operator)
        page.goto(f"{base}/ui/entries/{entry_id}")
        page.wait_for_load_state()
        assert page.inner_text("#entry-tier") == "warm"
        assert page.locator("h3", has_text="Not checked").count() == 1
        assert page.inner_text("#not-checked") == UPSET
        assert "1 of 2 source sentences" in page.inner_text("#coverage")
        view = api(site, f"/v1/entries/{entry_id}/view")
        assert view["current"]["coverage"]["unverified"] == [UPSET]
        shoot(page, "entry-not-checked")
