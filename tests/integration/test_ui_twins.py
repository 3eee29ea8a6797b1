"""The JSON twins of the review pages on SQLite and PostgreSQL: operator keys only, the
dashboard's figures from the store's own tables, the queue's filters and counts, an entry's
highlights, the schema history; and the pages' sign-in and CSRF checks over real HTTP."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from factdiff.compression.components import ladder_from_spec
from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.demotion.retry import RetryPolicy
from factdiff.store import EntryStatus, open_store
from tests.conftest import worked
from tests.integration.service_helpers import client, make_keys, running_api

TWINS = ("/v1/dashboard", "/v1/review-queue", "/v1/schema-history")
CALL_TIME = datetime(2026, 3, 14, 19, 32, tzinfo=UTC)


def _seed(target: str) -> tuple[str, str, str]:
    """Two entries in review (agents ``alice`` and ``bob``) and one compressed cleanly."""
    old = datetime.now(UTC) - timedelta(days=30)
    settings = DemotionSettings(
        ladder=ladder_from_spec("naive:20"), retry=RetryPolicy(max_attempts=1)
    )
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

        failed = add("alice", worked("source"))
        other = add("bob", worked("source"))
        clean = add("bob", "Customer cust_100 called about invoice INV-1001.")
        Demoter(store, settings).run(datetime.now(UTC))
        assert store.get(failed).status is EntryStatus.REVIEW
    return failed, other, clean


def test_twins_need_an_operator_key(target: str) -> None:
    failed, _, _ = _seed(target)
    keys = make_keys(target)
    routes = (*TWINS, f"/v1/entries/{failed}/view")
    with running_api(target) as base, client(base) as anonymous, client(base, keys.alice) as alice:
        for route in routes:
            assert anonymous.get(route).status_code == 401, route
            refused = alice.get(route)
            assert refused.status_code == 403, route
            assert refused.json()["error"]["code"] == "forbidden"
        with client(base, keys.operator) as ops:
            for route in routes:
                assert ops.get(route).status_code == 200, route
            assert ops.get("/v1/entries/nope/view").status_code == 404


def test_dashboard_figures_come_from_the_store(target: str) -> None:
    _seed(target)
    keys = make_keys(target)
    with running_api(target) as base, client(base, keys.operator) as ops:
        figures = ops.get("/v1/dashboard").json()
        assert figures == ops.get("/v1/dashboard").json()
    (day,) = figures["outcomes_by_day"]
    assert day["day"] == datetime.now(UTC).date().isoformat()
    assert (day["clean"], day["failed"], day["error"]) == (1, 2, 0)
    assert figures["failure_by_schema"] == [
        {"schema": "customer_service", "version": 2, "attempts": 3, "failed": 2, "rate": 0.666667}
    ]
    assert [(a["agent"], a["attempts"], a["failed"]) for a in figures["failure_by_agent"]] == [
        ("alice", 1, 1),
        ("bob", 2, 1),
    ]
    lost = {f["field"]: f for f in figures["fields_lost"]}
    assert lost["disputed_amount"] == {
        "field": "disputed_amount",
        "missing": 2,
        "changed": 0,
        "added": 0,
        "total": 2,
    }
    assert figures["review_backlog"]["total"] == 2
    assert [b["agent"] for b in figures["review_backlog"]["by_agent"]] == ["alice", "bob"]
    assert figures["llm_cost"] == {"total_usd": "0.000000", "by_model": []}
    from factdiff.ops.health import agent_health

    scores = figures["memory_score"]
    assert scores["available"] is True
    assert [a["agent"] for a in scores["agents"]] == ["alice", "bob"]
    with open_store(target) as store:
        assert [a["score"] for a in scores["agents"]] == [a["health"] for a in agent_health(store)]
    assert all(0 <= a["score"] < 100 for a in scores["agents"])  # both have entries in review
    assert figures["reevaluation"] == {"available": True, "schemas": []}


def test_review_queue_filters_sorts_and_counts(target: str) -> None:
    failed, other, _ = _seed(target)
    keys = make_keys(target)
    with running_api(target) as base, client(base, keys.operator) as ops:
        everything = ops.get("/v1/review-queue").json()
        assert everything["count"] == everything["waiting"] == 2
        assert everything["counts"]["agent"] == {"alice": 1, "bob": 1}
        assert everything["counts"]["field"]["disputed_amount"] == 2
        # added at one moment: oldest first, then by id
        assert [r["entry"]["id"] for r in everything["reviews"]] == sorted([failed, other])
        newest = ops.get("/v1/review-queue", params={"sort": "-age"}).json()
        assert {r["entry"]["id"] for r in newest["reviews"]} == {failed, other}
        bob = ops.get("/v1/review-queue", params={"agent": "bob"}).json()
        assert [r["entry"]["id"] for r in bob["reviews"]] == [other]
        assert bob["counts"] == everything["counts"]
        by_field = ops.get("/v1/review-queue", params={"field": "no_such_field"}).json()
        assert by_field["count"] == 0
        aged = ops.get("/v1/review-queue", params={"older_than": "400d"}).json()
        assert aged["count"] == 0
        assert ops.get("/v1/review-queue", params={"older_than": "1d"}).json()["count"] == 2
        bad_age = ops.get("/v1/review-queue", params={"older_than": "soon"})
        assert bad_age.status_code == 422
        assert "older_than" in bad_age.json()["error"]["message"]
        assert ops.get("/v1/review-queue", params={"sort": "size"}).status_code == 422
        huge = ops.get("/v1/review-queue", params={"older_than": "9" * 20 + "d"})
        assert huge.status_code == 422


def test_entry_view_marks_missing_facts_at_their_spans(target: str) -> None:
    failed, _, clean = _seed(target)
    keys = make_keys(target)
    with running_api(target) as base, client(base, keys.operator) as ops:
        view = ops.get(f"/v1/entries/{failed}/view").json()
        warm = ops.get(f"/v1/entries/{clean}/view").json()
    source = view["source"]
    assert "".join(s["text"] for s in source["segments"]) == source["text"] == worked("source")
    missing = [s for s in source["segments"] if s["lead"] and s["lead"]["verdict"] == "missing"]
    assert "$2,400" in [s["text"] for s in missing]
    assert {s["lead"]["field"] for s in missing} >= {"disputed_amount", "disputing_party"}
    summary = view["summary"]
    assert "".join(s["text"] for s in summary["segments"]) == summary["text"]
    assert all(s["lead"] is None or s["lead"]["verdict"] == "kept" for s in summary["segments"])
    assert [a["outcome"] for a in view["attempts"]] == ["failed"]
    assert warm["entry"]["tier"] == "warm"
    assert warm["facts_from"] == "warm record"
    assert warm["source"]["text"] == "Customer cust_100 called about invoice INV-1001."
    facts = {s["lead"]["field"] for s in warm["source"]["segments"] if s["lead"]}
    assert "invoice_id" in facts
    narrative = {s["lead"]["field"] for s in warm["summary"]["segments"] if s["lead"]}
    assert "invoice_id" in narrative


def test_schema_history_diffs_consecutive_versions(target: str) -> None:
    keys = make_keys(target)
    first = "schema: notes\nversion: 1\nfields:\n  amount: {type: money, criticality: important}\n"
    second = first.replace("version: 1", "version: 2").replace("important", "critical")
    second += "  due: {type: date, criticality: critical}\n"
    with running_api(target) as base, client(base, keys.operator) as ops:
        for text in (first, second):
            assert ops.post("/v1/schemas", json={"yaml": text}).status_code == 201
        history = ops.get("/v1/schema-history").json()
    (notes,) = [s for s in history["schemas"] if s["name"] == "notes"]
    assert [v["version"] for v in notes["versions"]] == [1, 2]
    assert notes["versions"][0]["diff"] is None
    assert notes["versions"][1]["diff"] == {"added": ["due"], "removed": [], "changed": ["amount"]}


def _csrf(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found is not None
    return found.group(1)


def test_sign_in_cookie_and_forged_posts(target: str) -> None:
    failed, _, _ = _seed(target)
    keys = make_keys(target)
    with running_api(target) as base, httpx.Client(base_url=base, timeout=60) as browser:
        assert browser.get("/ui/reviews").headers["location"] == "/ui/login"
        form = browser.get("/ui/login")
        cookie = form.headers["set-cookie"].lower()
        assert "httponly" in cookie
        assert "samesite=strict" in cookie
        assert "default-src 'none'" in form.headers["content-security-policy"]
        token = _csrf(form.text)
        without = browser.post("/ui/login", data={"key": keys.operator})
        assert without.status_code == 403
        forged = browser.post("/ui/login", data={"key": keys.operator, "csrf": token + "x"})
        assert forged.status_code == 403
        assert browser.post("/ui/login", data={"key": "fd_nope", "csrf": token}).status_code == 401
        agent = browser.post("/ui/login", data={"key": keys.alice, "csrf": token})
        assert agent.status_code == 403
        assert "Agent keys cannot sign in" in agent.text
        signed = browser.post("/ui/login", data={"key": keys.operator, "csrf": token})
        assert (signed.status_code, signed.headers["location"]) == (303, "/ui/reviews")
        page = browser.get(f"/ui/entries/{failed}")
        assert page.status_code == 200
        fresh = _csrf(page.text)
        assert fresh != token
        action = f"/ui/entries/{failed}/approve"
        assert browser.post(action, data={"reason": "x", "csrf": token}).status_code == 403
        assert browser.post(action, data={"reason": "x"}).status_code == 403
        with httpx.Client(base_url=base, timeout=60) as stranger:
            stolen = stranger.post(action, data={"reason": "x", "csrf": fresh})
            assert stolen.status_code == 403
        blank = browser.post(action, data={"reason": "  ", "csrf": fresh})
        assert blank.status_code == 422
        assert "needs a reason" in blank.text
        done = browser.post(action, data={"reason": "ok to lose", "csrf": fresh})
        assert done.headers["location"] == f"/ui/entries/{failed}?done=approved"
        out = browser.post("/ui/logout", data={"csrf": fresh})
        assert out.headers["location"] == "/ui/login"
        assert browser.get("/ui/reviews").headers["location"] == "/ui/login"
    with open_store(target) as store:
        assert store.get(failed).tier.value == "warm"


def test_a_revoked_key_ends_its_session(tmp_path: Path) -> None:
    target = str(tmp_path / "memory.db")
    keys = make_keys(target)
    with running_api(target) as base, httpx.Client(base_url=base, timeout=60) as browser:
        token = _csrf(browser.get("/ui/login").text)
        browser.post("/ui/login", data={"key": keys.operator, "csrf": token})
        assert browser.get("/ui/dashboard").status_code == 200
        with open_store(target) as store:
            store.revoke_api_key("ops", datetime.now(UTC))
        assert browser.get("/ui/dashboard").headers["location"] == "/ui/login"


@pytest.mark.parametrize("path", ["/ui/static/charts.js", "/ui/static/style.css"])
def test_assets_are_served_from_the_package(tmp_path: Path, path: str) -> None:
    target = f"{tmp_path}/memory.db"
    with running_api(target) as base, httpx.Client(base_url=base) as anyone:
        asset = anyone.get(path)
        assert asset.status_code == 200
        assert asset.content
        assert anyone.get("/ui/static/../app.py").status_code == 404
        assert anyone.get("/ui/static/pages.py").status_code == 404


def test_review_actions_from_the_entry_page(target: str) -> None:
    failed, other, _ = _seed(target)
    keys = make_keys(target)
    with running_api(target) as base, httpx.Client(base_url=base, timeout=60) as browser:
        token = _csrf(browser.get("/ui/login").text)
        browser.post("/ui/login", data={"key": keys.operator, "csrf": token})
        csrf = _csrf(browser.get(f"/ui/entries/{failed}").text)

        def post(entry_id: str, action: str, **fields: str) -> httpx.Response:
            return browser.post(f"/ui/entries/{entry_id}/{action}", data={**fields, "csrf": csrf})

        refused = post(failed, "edit", summary="A customer called.")
        assert refused.status_code == 422
        assert "disputed_amount" in refused.text
        edited = post(failed, "edit", summary=worked("faithful"))
        assert edited.headers["location"] == f"/ui/entries/{failed}?done=edited"
        assert "Edited summary verified" in browser.get(edited.headers["location"]).text
        assert post(other, "retry", rung="x").status_code == 422
        assert post(other, "retry", rung="99").status_code == 422
        assert post(other, "keep-hot", reason=" ").status_code == 422
        kept = post(other, "keep-hot", reason="legal hold")
        assert kept.headers["location"] == f"/ui/entries/{other}?done=kept"
        page = browser.get(kept.headers["location"]).text
        assert "kept hot by ops" in page
        assert 'id="approve"' not in page
        assert post(other, "explode").status_code == 404
    with open_store(target) as store:
        assert store.get(failed).tier.value == "warm"
        held = store.kept_hot(other)
        assert held is not None
        assert (held["key"], held["reason"]) == ("ops", "legal hold")


def test_retry_from_the_entry_page(tmp_path: Path) -> None:
    target = str(tmp_path / "memory.db")
    failed, _, _ = _seed(target)
    keys = make_keys(target)
    with running_api(target) as base, httpx.Client(base_url=base, timeout=60) as browser:
        token = _csrf(browser.get("/ui/login").text)
        browser.post("/ui/login", data={"key": keys.operator, "csrf": token})
        csrf = _csrf(browser.get(f"/ui/entries/{failed}").text)
        done = browser.post(f"/ui/entries/{failed}/retry", data={"rung": "0", "csrf": csrf})
        assert done.headers["location"] == f"/ui/entries/{failed}?done=retried"
    with open_store(target) as store:
        assert len(store.attempts(failed)) == 2


def test_queue_page_sorts_by_its_column_headers(tmp_path: Path) -> None:
    target = str(tmp_path / "memory.db")
    _seed(target)
    keys = make_keys(target)
    with running_api(target) as base, httpx.Client(base_url=base, timeout=60) as browser:
        token = _csrf(browser.get("/ui/login").text)
        browser.post("/ui/login", data={"key": keys.operator, "csrf": token})
        page = browser.get("/ui/reviews", params={"agent": "bob"}).text
        links = re.findall(r'class="sort" href="([^"]+)"', page)
        assert "/ui/reviews?agent=bob&amp;schema=&amp;field=&amp;older_than=&amp;sort=lost" in links
        by_lost = browser.get("/ui/reviews", params={"agent": "bob", "sort": "lost"})
        assert 'aria-sort="descending"' in by_lost.text
        assert by_lost.text.count('class="entry-link"') == 1
