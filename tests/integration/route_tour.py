"""Call every route group of the API once, in a fresh interpreter, and print (JSON) the
modules of factdiff and of its dependencies that a route imported after the app was made.

    python -m tests.integration.route_tour STORE   # run by test_service_requests

The store is filled by another process (``seed``), so that nothing the tour's own set-up
imports hides a route's lazy import.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx

from tests.integration.service_helpers import bearer, running_api

WATCHED = ("factdiff", "yaml", "phonenumbers", "rapidfuzz", "re2", "zstandard", "jinja2")
"""Top-level packages whose lazy import in a request would race (factdiff and its deps)."""
UNWATCHED = ("phonenumbers.data.",)
"""phonenumbers loads a region's metadata module on first use, under its own lock."""
WORKED = Path(__file__).resolve().parents[1] / "fixtures" / "worked_example"


def _watched(names: set[str]) -> set[str]:
    return {
        name for name in names if name.split(".")[0] in WATCHED and not name.startswith(UNWATCHED)
    }


def worked(name: str) -> str:
    """One text of the worked example."""
    return (WORKED / f"{name}.txt").read_text(encoding="utf-8").strip()


def _tour(base: str, agent: str, operator: str, review: list[str]) -> list[str]:
    """Call the routes; the calls that did not answer as expected."""
    wrong: list[str] = []
    as_agent, as_operator = bearer(agent), bearer(operator)
    with httpx.Client(base_url=base, timeout=60) as http:

        def call(method: str, path: str, key: dict[str, str] | None, **kw: object) -> str:
            answer = http.request(method, path, headers=key, **kw)  # type: ignore[arg-type]
            if answer.status_code >= 400:
                wrong.append(f"{method} {path}: {answer.status_code}")
            return answer.text

        note = "Invoice INV-9182 for $14,250 is due 2026-03-25; call Dana at +1 415 555 0100."
        old = (datetime.now(UTC) - timedelta(days=30)).isoformat()
        added = http.post(
            "/v1/entries", json={"text": note, "occurred_at": old}, headers=as_agent
        ).json()["id"]
        call("POST", "/v1/entries/batch", as_agent, json={"entries": [{"text": "ORD-1 chairs"}]})
        for path in ("/v1/entries", f"/v1/entries/{added}", f"/v1/entries/{added}/attempts"):
            call("GET", path, as_agent)
        call("POST", f"/v1/entries/{added}/touch", as_agent)
        call("GET", "/v1/search", as_agent, params={"q": "14,250 USD"})
        call("POST", "/v1/context", as_agent, json={"ids": [added]})
        call("POST", "/v1/attestations", as_agent, json={"decision": "d-1", "ids": [added]})
        call("GET", "/v1/attestations/d-1", as_agent)
        check = {"source": worked("source"), "summary": worked("fluent")}
        call("POST", "/v1/check", as_agent, json={**check, "schema": "customer_service"})
        call("POST", "/v1/compress", as_agent, json={"text": worked("source")})
        call("POST", "/v1/demotions", as_operator, json={"older_than": "0s"})
        call("GET", "/v1/search", as_agent, params={"q": "INV-9182", "include_source": "always"})
        call("POST", f"/v1/entries/{added}/restore", as_agent)
        call("GET", "/v1/events", as_agent)
        call("GET", "/v1/events/stream", as_agent, params={"after": 0, "limit": 1})
        for path in ("/v1/stats", "/metrics", "/v1/reviews", "/v1/dashboard"):
            call("GET", path, as_operator)
        for path in ("/v1/review-queue", f"/v1/entries/{review[0]}/view", "/v1/schema-history"):
            call("GET", path, as_operator)
        call("GET", "/v1/schemas", as_agent)
        call("GET", "/v1/schemas/customer_service", as_agent)
        call("POST", "/v1/schemas", as_operator, json={"builtin": "customer_service"})
        call("POST", "/v1/schemas/customer_service/reevaluate", as_operator, json={})
        call("POST", f"/v1/reviews/{review[0]}/approve", as_operator, json={"reason": "ok"})
        call("POST", f"/v1/reviews/{review[1]}/edit", as_operator, json={"summary": "x"})
        call("POST", f"/v1/reviews/{review[1]}/retry", as_operator, json={"rung": 0})
        call("POST", f"/v1/entries/{added}/forget", as_agent, json={})
        for path in ("/readyz", "/openapi.json", "/docs", "/redoc"):
            call("GET", path, None)
        login = http.get("/ui/login").text
        found = re.search(r'name="csrf" value="([^"]+)"', login)
        csrf = found.group(1) if found else ""
        http.post("/ui/login", data={"key": operator, "csrf": csrf})
        for path in ("/ui/reviews", f"/ui/entries/{review[2]}", "/ui/dashboard", "/ui/schemas"):
            call("GET", path, None)
        call("GET", "/ui/search", None, params={"q": "INV-9182"})
        http.post(f"/ui/entries/{review[2]}/keep-hot", data={"reason": "hold", "csrf": csrf})
        http.post("/ui/logout", data={"csrf": csrf})
    return [w for w in wrong if not w.startswith(f"POST /v1/reviews/{review[1]}/edit: 422")]


def seed(target: str) -> None:
    """Three entries in review and two keys in the store at ``target``; prints them."""
    from tests.integration.service_helpers import make_keys
    from tests.review_helpers import in_review

    review = in_review(target, 3)
    keys = make_keys(target)
    print(json.dumps({"review": review, "agent": keys.alice, "operator": keys.operator}))


def main() -> None:
    if sys.argv[1] == "seed":
        seed(sys.argv[2])
        return
    target = sys.argv[1]
    made = subprocess.run(
        [sys.executable, "-m", "tests.integration.route_tour", "seed", target],
        check=True,
        capture_output=True,
        text=True,
    )
    seeded = json.loads(made.stdout.strip().splitlines()[-1])
    with running_api(target) as base:
        before = _watched(set(sys.modules))
        wrong = _tour(base, seeded["agent"], seeded["operator"], seeded["review"])
        imported = sorted(_watched(set(sys.modules)) - before)
    print(json.dumps({"imported": imported, "wrong": wrong}))


if __name__ == "__main__":
    main()
