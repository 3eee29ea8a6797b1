"""The review pages' session cookie under ``factdiff serve``: Secure over TLS and behind a
proxy the operator trusts (not behind one it does not), and refused after signing out."""

from __future__ import annotations

import re
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from factdiff.store import open_store
from factdiff.store.api_keys import KeyScope
from tests.acceptance.serve_helpers import served

PROXY = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.7"}


def _operator_key(db: str) -> str:
    with open_store(db) as store:
        made = store.create_api_key(
            scope=KeyScope.OPERATOR, agent_id=None, name="ops", now=datetime.now(UTC)
        )
        return made.secret


def _csrf(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found is not None
    return found.group(1)


def _cookie_flags(response: httpx.Response) -> set[str]:
    cookie = response.headers["set-cookie"]
    return {part.strip().split("=")[0].lower() for part in cookie.split(";")[1:]}


def _self_signed(folder: Path) -> tuple[str, str]:
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed: no certificate for the TLS test")
    cert, key = folder / "cert.pem", folder / "key.pem"
    request = ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
    subprocess.run(
        [openssl, *request, "-subj", "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    return str(cert), str(key)


def test_the_cookie_is_secure_over_tls(tmp_path: Path) -> None:
    db = str(tmp_path / "memory.db")
    cert, key = _self_signed(tmp_path)
    options = ("--ssl-certfile", cert, "--ssl-keyfile", key)
    with served(db, *options, scheme="https") as server:
        assert server.banner.startswith("factdiff serving on https://127.0.0.1:")
        with httpx.Client(base_url=server.base, verify=False) as browser:
            assert "secure" in _cookie_flags(browser.get("/ui/login"))


def test_the_cookie_is_secure_behind_a_trusted_proxy_only(tmp_path: Path) -> None:
    db = str(tmp_path / "memory.db")
    with served(db, "--forwarded-allow-ips", "127.0.0.1") as server:
        trusted = httpx.get(f"{server.base}/ui/login", headers=PROXY)
        plain = httpx.get(f"{server.base}/ui/login")
    assert "secure" in _cookie_flags(trusted)
    assert "secure" not in _cookie_flags(plain)
    with served(db, "--forwarded-allow-ips", "192.0.2.1") as server:  # not this client
        untrusted = httpx.get(f"{server.base}/ui/login", headers=PROXY)
    assert "secure" not in _cookie_flags(untrusted)


def test_a_cookie_is_refused_after_signing_out(tmp_path: Path) -> None:
    db = str(tmp_path / "memory.db")
    key = _operator_key(db)
    with served(db) as server, httpx.Client(base_url=server.base) as browser:
        csrf = _csrf(browser.get("/ui/login").text)
        browser.post("/ui/login", data={"key": key, "csrf": csrf})
        signed_in = dict(browser.cookies)
        assert browser.get("/ui/dashboard").status_code == 200
        out = browser.post("/ui/logout", data={"csrf": _csrf(browser.get("/ui/schemas").text)})
        assert out.headers["location"] == "/ui/login"
        with httpx.Client(base_url=server.base, cookies=signed_in) as replay:
            assert replay.get("/ui/dashboard").headers["location"] == "/ui/login"
