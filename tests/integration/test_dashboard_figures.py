"""One definition per figure: on one store with a known mix (clean, failed, error attempts;
entries waiting for review and one kept hot; priced model calls), the dashboard page, its
JSON twin ``/v1/dashboard``, ``factdiff stats --json`` and ``/metrics`` say the same thing,
on SQLite and PostgreSQL; the page writes rates as percentages and costs in dollars."""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from factdiff.compression.components import ladder_from_spec
from factdiff.compression.engine import Rung
from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.demotion.retry import RetryPolicy
from factdiff.extraction.llm import LLMExtractor
from factdiff.present.wording import percent, signed_percent, usd
from factdiff.schema.model import FactSchema
from factdiff.store import EntryStatus, open_store
from factdiff.summarize.llm import LLMSummarizer
from factdiff.testing import Answer, RecordedRequest, RulesOracle
from tests.conftest import worked
from tests.integration.llm_helpers import FAST, PRICES, scripted, spec
from tests.integration.service_helpers import client, make_keys, running_api

pytest.importorskip("openai")

CALL_TIME = datetime(2026, 3, 14, 19, 32, tzinfo=UTC)
PRICED_AGENT = "emea-enterprise-accounts-support-assistant-for-the-nordics"


def _seed(target: str, customer_service: FactSchema) -> None:
    """``PRICED_AGENT``: an error attempt (a billed refusal), then a clean one, both through
    priced models; ``alice``: two entries failed into review, one of them kept hot; ``bob``:
    one failed into review, one clean."""
    oracle = RulesOracle(customer_service)
    refusals = iter([Answer.refusal("no").with_usage(300, 7)])

    def responder(request: RecordedRequest) -> Answer:
        refused = None if request.structured else next(refusals, None)
        return refused if refused is not None else oracle(request).with_usage(1000, 100)

    old = datetime.now(UTC) - timedelta(days=30)
    with open_store(target) as store, scripted(responder=responder) as server:

        def add(agent: str, text: str) -> str:
            return store.add(
                agent, text, now=old, occurred_at=CALL_TIME, schema="customer_service",
                last_used_at=old,
            )  # fmt: skip

        priced = add(PRICED_AGENT, worked("source"))
        settings = DemotionSettings(
            ladder=(Rung(LLMSummarizer(spec(server, "openai", "test-summarizer"), policy=FAST,
                                       prices=PRICES), budget_words=80),),
            extractor=LLMExtractor(spec(server, "openai", "test-extractor"), policy=FAST,
                                   prices=PRICES),
        )  # fmt: skip
        demoter = Demoter(store, settings)
        assert demoter.run(datetime.now(UTC)).counts == {"error": 1}
        again = store.get(priced).next_attempt_at
        assert again is not None
        assert demoter.run(again).counts == {"clean": 1}
        kept = add("alice", worked("source"))
        for agent in ("alice", "bob"):
            add(agent, worked("source"))
        add("bob", "Customer cust_100 called about invoice INV-1001.")
        offline = DemotionSettings(
            ladder=ladder_from_spec("naive:20"), retry=RetryPolicy(max_attempts=1)
        )
        Demoter(store, offline).run(datetime.now(UTC))
        assert store.get(kept).status is EntryStatus.REVIEW
        assert store.keep_hot(kept, datetime.now(UTC), key_name="ops", reason="legal hold")


def _samples(text: str) -> list[tuple[str, dict[str, str], float]]:
    return [
        (sample.name, dict(sample.labels), sample.value)
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    ]


def _stats(target: str) -> Any:
    env = {k: v for k, v in os.environ.items() if k != "FACTDIFF_DB"}
    run = subprocess.run(
        [sys.executable, "-m", "factdiff.cli", "stats", "--db", target, "--json"],
        capture_output=True, text=True, env=env, check=False, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def _page(base: str, operator: str) -> str:
    with httpx.Client(base_url=base, timeout=60) as browser:
        login = browser.get("/ui/login").text
        found = re.search(r'name="csrf" value="([^"]+)"', login)
        assert found is not None
        browser.post("/ui/login", data={"key": operator, "csrf": found.group(1)})
        page = browser.get("/ui/dashboard")
        assert page.status_code == 200
        return page.text


def _charts(page: str) -> dict[str, Any]:
    """The data each chart of the page is drawn from, by chart id."""
    return {
        name: json.loads(data)
        for name, data in re.findall(
            r'<script type="application/json" id="([\w-]+)-data">(.*?)</script>', page, re.S
        )
    }


def _score_rows(page: str) -> dict[str, list[str]]:
    """The memory-score table: agent (from the cell's title) -> the other cells' text."""
    body = page.split('<table class="scores">', 1)[1].split("</table>", 1)[0]
    rows = {}
    for row in re.findall(r"<tr><td>(.*?)</tr>", body, re.S):
        cells = re.findall(r"<td>(.*?)</td>", "<td>" + row)
        title = re.search(r'<span class="name" title="([^"]*)">', cells[0])
        assert title is not None, cells[0]
        rows[html.unescape(title.group(1))] = [html.unescape(c) for c in cells[1:]]
    return rows


def test_page_twin_stats_and_metrics_agree(target: str, customer_service: FactSchema) -> None:
    _seed(target, customer_service)
    keys = make_keys(target)
    with running_api(target) as base, client(base, keys.operator) as ops:
        twin = ops.get("/v1/dashboard").json()
        samples = _samples(ops.get("/metrics").text)
        page = _page(base, keys.operator)
    stats = _stats(target)

    # the review backlog: waiting entries only; the kept-hot one is counted apart, everywhere
    backlog = twin["review_backlog"]
    assert (backlog["total"], backlog["kept_hot"]) == (2, 1)
    assert [(b["agent"], b["count"]) for b in backlog["by_agent"]] == [("alice", 1), ("bob", 1)]
    assert stats["review_backlog"] == backlog
    gauges = {name: value for name, _, value in samples if not name.endswith("_total")}
    assert gauges["factdiff_review_backlog"] == 2
    assert gauges["factdiff_kept_hot_entries"] == 1
    scores = {a["agent"]: a for a in twin["memory_score"]["agents"]}
    waiting = {b["agent"]: b["count"] for b in backlog["by_agent"]}
    for agent in stats["agents"]:
        name = agent["agent"]
        assert agent["review_backlog"] == scores[name]["review_backlog"] == waiting.get(name, 0)
        assert agent["health"] == scores[name]["score"]
    assert (scores["alice"]["kept_hot"], scores["bob"]["kept_hot"]) == (1, 0)

    # failure rates: per schema version and per agent, the same rows in the twin and stats
    assert stats["failure_rate"] == twin["failure_by_schema"]
    assert stats["failure_by_agent"] == twin["failure_by_agent"]
    attempts: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    outcomes: Counter[str] = Counter()
    for name, labels, value in samples:
        if name == "factdiff_compression_attempts_total":
            attempts[labels["agent"]] += int(value)
            outcomes[labels["outcome"]] += int(value)
            if labels["outcome"] in ("failed", "error"):
                failed[labels["agent"]] += int(value)
    for row in twin["failure_by_agent"]:
        assert (row["attempts"], row["failed"]) == (attempts[row["agent"]], failed[row["agent"]])
    by_day = Counter({k: sum(d[k] for d in twin["outcomes_by_day"]) for k in outcomes})
    assert by_day == outcomes
    assert {k: v for k, v in stats["attempts"].items() if k != "total" and v} == outcomes
    assert outcomes["error"] == 1
    assert outcomes["failed"] == 3

    # facts lost: the twin's top fields are stats' first ones; /metrics sums to stats
    top = [{"field": f, **c, "total": sum(c.values())} for f, c in stats["facts_lost"].items()]
    assert twin["fields_lost"] == top[:10]
    lost: dict[str, Counter[str]] = {}
    for name, labels, value in samples:
        if name == "factdiff_facts_lost_total":
            lost.setdefault(labels["field"], Counter())[labels["kind"]] += int(value)
        elif name == "factdiff_facts_added_total":
            lost.setdefault(labels["field"], Counter())["added"] += int(value)
    assert {f: {k: c[k] for k in ("missing", "changed", "added")} for f, c in lost.items()} == (
        stats["facts_lost"]
    )

    # LLM cost: one total, per model and role, in the twin, stats and /metrics
    cost = twin["llm_cost"]
    assert stats["llm_cost"] == cost
    assert Decimal(cost["total_usd"]) > 0
    priced = {(m["model"], m["role"]): Decimal(m["cost_usd"]) for m in cost["by_model"]}
    exported = {
        (labels["model"], labels["role"]): value
        for name, labels, value in samples
        if name == "factdiff_llm_cost_usd_total"
    }
    assert exported.keys() == priced.keys()
    for key, amount in priced.items():
        assert abs(Decimal(str(exported[key])) - amount) < Decimal("0.000001")
    assert {(m["model"], m["role"]): m["cost_usd"] for m in stats["model_usage"]} == {
        key: f"{amount:.6f}" for key, amount in priced.items()
    }

    # the page: the twin's figures, rates as percentages, the cost in dollars
    charts = _charts(page)
    rates = twin["failure_by_agent"]
    assert charts["chart-agent"]["labels"] == [r["agent"] for r in rates]
    assert charts["chart-agent"]["display"] == [percent(r["rate"]) for r in rates]
    assert charts["chart-schema"]["display"] == [
        percent(r["rate"]) for r in twin["failure_by_schema"]
    ]
    assert charts["chart-backlog"]["values"] == [b["count"] for b in backlog["by_agent"]]
    assert "Review backlog per agent (2 waiting; 1 kept hot, not counted)" in page
    assert charts["chart-cost"]["display"] == [usd(m["cost_usd"]) for m in cost["by_model"]]
    assert f"LLM cost per model (total {usd(cost['total_usd'])})" in page
    assert "0.000000" not in page.replace(cost["total_usd"], "")
    rows = _score_rows(page)
    assert list(rows) == [a["agent"] for a in twin["memory_score"]["agents"]]
    for name, cells in rows.items():
        score = scores[name]
        assert cells == [
            str(score["score"]),
            percent(score["failure_rate"]),
            signed_percent(score["trend"]),
            percent(score["gap_share"]),
            percent(score["reevaluation_rate"]),
            str(score["review_backlog"]),
            str(score["kept_hot"]),
        ]
        assert all(cell == "-" or cell.endswith("%") for cell in cells[1:5]), cells
    assert f"Failure rate (last {twin['memory_score']['window']} attempts)" in page


def test_search_page_counts_one_hit(target: str) -> None:
    with open_store(target) as store:
        store.add("alice", "Order ORD-77 shipped on 2026-03-02.", now=datetime.now(UTC))
    keys = make_keys(target)
    with running_api(target) as base, httpx.Client(base_url=base, timeout=60) as browser:
        found = re.search(r'name="csrf" value="([^"]+)"', browser.get("/ui/login").text)
        assert found is not None
        browser.post("/ui/login", data={"key": keys.operator, "csrf": found.group(1)})
        shown = browser.get("/ui/search", params={"q": "ORD-77"}).text
    assert '<span id="hit-count">1</span> hit for' in shown
