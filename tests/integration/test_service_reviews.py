"""Operator review over HTTP on SQLite and PostgreSQL: the queue with its last diff, approve
despite loss, edit and re-verify (a failing edit is refused), keep hot, resolve in bulk."""

from __future__ import annotations

from pathlib import Path

from factdiff.store import EntryStatus, EventType, Tier, open_store
from tests.conftest import worked
from tests.integration.service_helpers import client, make_keys, running_api
from tests.review_helpers import in_review


def test_review_decisions(target: str) -> None:
    keys = make_keys(target)
    approved, edited, kept, retried, rest = in_review(target, 5)
    with running_api(target) as base, client(base, keys.operator) as ops:
        queue = ops.get("/v1/reviews").json()
        assert queue["total"] == 5
        assert queue["reviews"][0]["last_attempt"]["outcome"] == "failed"
        assert queue["reviews"][0]["last_attempt"]["diff"]["missing"]

        refused = ops.post(f"/v1/reviews/{approved}/approve", json={"reason": "  "})
        assert refused.status_code == 422
        done = ops.post(f"/v1/reviews/{approved}/approve", json={"reason": "known loss"}).json()
        assert done["tier"] == "warm"
        assert done["known_gaps"]

        bad = ops.post(f"/v1/reviews/{edited}/edit", json={"summary": "A customer called."})
        assert bad.status_code == 422
        assert bad.json()["error"]["code"] == "summary_refused"
        assert bad.json()["error"]["details"]["check"]["outcome"] == "failed"
        good = ops.post(f"/v1/reviews/{edited}/edit", json={"summary": worked("faithful")})
        assert good.status_code == 200, good.text
        assert good.json()["outcome"] == "clean"

        far = ops.post(f"/v1/reviews/{retried}/retry", json={"rung": 99})
        assert far.status_code == 422
        again = ops.post(f"/v1/reviews/{retried}/retry", json={"rung": 0}).json()
        assert again["rung"] == 0
        assert again["applied"] is True
        assert (again["outcome"], again["tier"], again["status"]) == ("clean", "warm", "active")
        held = ops.post(f"/v1/reviews/{kept}/keep-hot", json={"reason": "legal hold"}).json()
        assert held == {"id": kept, "kept": True, "already": False}
        assert [r["entry"]["id"] for r in ops.get("/v1/reviews").json()["reviews"]] == [rest]

        bulk = ops.post("/v1/reviews/resolve", json={"note": "retry all"}).json()
        assert bulk == {"resolved": [rest], "count": 1}
    with open_store(target) as store:
        assert store.get(approved).tier is Tier.WARM
        approval = next(store.events(approved, type=EventType.REVIEW_APPROVED))
        assert approval.payload["key"] == "ops"
        assert approval.payload["reason"] == "known loss"
        assert store.get(edited).tier is Tier.WARM
        assert store.get(edited).warm is not None
        assert store.get(kept).status is EntryStatus.REVIEW
        assert store.kept_hot(kept) == {
            "kept_at": store.kept_hot(kept)["kept_at"],  # type: ignore[index]
            "key": "ops",
            "reason": "legal hold",
        }
        assert store.get(rest).status is EntryStatus.ACTIVE
        assert store.verify() == []


def test_forget_over_http_erases_kept_hot_entries_and_respects_scope(target: str) -> None:
    """``POST /v1/entries/{id}/forget``: an agent key erases its own entries only (another
    agent's answer 404 and stay whole); an operator erases any, a kept-hot one included."""
    keys = make_keys(target)
    kept, other = in_review(target, 2)
    with running_api(target) as base, client(base, keys.operator) as ops:
        assert ops.post(f"/v1/reviews/{kept}/keep-hot", json={"reason": "legal hold"}).is_success
        with client(base, keys.alice) as alice:
            mine = alice.post("/v1/entries", json={"text": "Alice owes $120 by 2026-05-01."})
            own = mine.json()["id"]
            assert alice.post(f"/v1/entries/{other}/forget", json={}).status_code == 404
            erased = alice.post(f"/v1/entries/{own}/forget", json={"reason": "user request"})
            assert erased.status_code == 200, erased.text
            assert erased.json()["newly_erased"] is True
            assert erased.json()["reason"] == "user request"
            assert alice.get(f"/v1/entries/{own}").status_code == 404
        gone = ops.post(f"/v1/entries/{kept}/forget", json={"reason": "erasure request"})
        assert gone.status_code == 200, gone.text
        assert (gone.json()["agent_id"], gone.json()["tier"]) == ("support-bot", "hot")
        again = ops.post(f"/v1/entries/{kept}/forget", json={"reason": "erasure request"})
        assert again.json()["newly_erased"] is False
    with open_store(target) as store:
        assert store.get(other).content == worked("source")
        assert store.kept_hot(kept) is None
        assert store.tombstone(kept) is not None


def test_schema_registration_and_reevaluation_over_http(target: str, tmp_path: Path) -> None:
    """Registering v2 over HTTP queues the warm entries it makes due; ``POST
    /v1/schemas/{name}/reevaluate`` (operator only) promotes exactly those that lost a fact."""
    from tests.integration.evolution_helpers import NAME, V2, drops_email, drops_time, seed

    keys = make_keys(target)
    with open_store(target) as store:
        ids = seed(store, tmp_path, count=12)
    with running_api(target) as base, client(base, keys.operator) as ops:
        registered = ops.post("/v1/schemas", json={"yaml": V2})
        assert registered.status_code == 201, registered.text
        assert registered.json()["due_for_reevaluation"] == 12
        with client(base, keys.alice) as alice:
            assert alice.post(f"/v1/schemas/{NAME}/reevaluate", json={}).status_code == 403
        assert ops.post("/v1/schemas/nope/reevaluate", json={}).status_code == 404
        dry = ops.post(f"/v1/schemas/{NAME}/reevaluate", json={"dry_run": True}).json()
        assert (dry["dry_run"], dry["checked"]) == (True, 12)
        done = ops.post(f"/v1/schemas/{NAME}/reevaluate", json={}).json()
        lost_time = [i for n, i in enumerate(ids) if drops_time(n)]
        annotated = [i for n, i in enumerate(ids) if drops_email(n) and not drops_time(n)]
        assert (done["checked"], done["promoted"]) == (12, len(lost_time))
        assert done["annotated"] == len(annotated)
        again = ops.post(f"/v1/schemas/{NAME}/reevaluate", json={}).json()
        assert again["checked"] == 0
    with open_store(target) as store:
        assert {i for i in ids if store.get(i).tier is Tier.HOT} == set(lost_time)


def test_resolve_needs_no_body(target: str) -> None:
    keys = make_keys(target)
    one, two, three, four = in_review(target, 4)
    with running_api(target) as base, client(base, keys.operator) as ops:
        absent = ops.post(f"/v1/reviews/{one}/resolve")
        assert absent.status_code == 200, absent.text
        assert absent.json() == {"resolved": [one], "count": 1}
        typed_but_empty = ops.post(
            f"/v1/reviews/{two}/resolve", headers={"Content-Type": "application/json"}
        )
        assert typed_but_empty.status_code == 200, typed_but_empty.text
        assert ops.post(f"/v1/reviews/{three}/resolve", json={}).status_code == 200
        wrong = ops.post(f"/v1/reviews/{four}/resolve", json={"nope": 1})
        assert wrong.status_code == 422
        assert ops.post(f"/v1/reviews/{one}/resolve").status_code == 409  # not in review now
        bulk = ops.post("/v1/reviews/resolve")
        assert bulk.status_code == 200, bulk.text
        assert bulk.json() == {"resolved": [four], "count": 1}
        assert ops.post("/v1/reviews/resolve").json() == {"resolved": [], "count": 0}
    with open_store(target) as store:
        assert all(store.get(i).status is EntryStatus.ACTIVE for i in (one, two, three, four))
