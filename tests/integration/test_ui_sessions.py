"""Review-page sessions live in the store on SQLite and PostgreSQL: signing out ends a
session for every copy of its cookie, expired ones are refused and swept, and a cookie
without a session row (signed before sessions were stored) does not sign anyone in."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from factdiff.store import MemoryStore
from factdiff.ui.session import COOKIE, SECRET_ENV, Session, SessionSigner
from tests.integration.service_helpers import make_keys, running_api

NOW = datetime(2026, 3, 14, 12, 0, tzinfo=UTC)


def _csrf(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found is not None
    return found.group(1)


def test_sessions_start_end_and_expire(store: MemoryStore) -> None:
    token = store.start_ui_session("ops", expires_at=NOW + timedelta(hours=1), now=NOW)
    assert store.ui_session_key(token, NOW) == "ops"
    assert store.ui_session_key(token + "x", NOW) is None
    assert store.ui_session_key(token, NOW + timedelta(hours=1)) is None  # expired
    assert store.end_ui_session(token, NOW)
    assert not store.end_ui_session(token, NOW)
    assert store.ui_session_key(token, NOW) is None
    later = NOW + timedelta(hours=2)
    fresh = store.start_ui_session("ops", expires_at=later + timedelta(hours=1), now=later)
    assert store.ui_session_key(fresh, later) == "ops"
    assert not store.end_ui_session(token, later)  # swept when the new one started


def test_signing_out_ends_every_copy_of_the_cookie(target: str) -> None:
    keys = make_keys(target)
    with running_api(target) as base, httpx.Client(base_url=base, timeout=60) as browser:
        browser.post(
            "/ui/login", data={"key": keys.operator, "csrf": _csrf(browser.get("/ui/login").text)}
        )
        copy = dict(browser.cookies)
        page = browser.get("/ui/reviews")
        assert page.status_code == 200
        out = browser.post("/ui/logout", data={"csrf": _csrf(page.text)})
        assert out.headers["location"] == "/ui/login"
        with httpx.Client(base_url=base, cookies=copy, timeout=60) as replay:
            assert replay.get("/ui/reviews").headers["location"] == "/ui/login"
            assert replay.get("/ui/dashboard").headers["location"] == "/ui/login"


def test_a_cookie_without_a_stored_session_signs_nobody_in(
    target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_keys(target)  # the operator key "ops" exists and is live
    secret = b"k" * 32
    monkeypatch.setenv(SECRET_ENV, secret.decode())
    forged = SessionSigner(secret).dump(Session.fresh("ops"))  # validly signed, no row
    with (
        running_api(target) as base,
        httpx.Client(base_url=base, cookies={COOKIE: forged}, timeout=60) as old,
    ):
        assert old.get("/ui/reviews").headers["location"] == "/ui/login"
