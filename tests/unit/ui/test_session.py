"""UI session cookies: signed, tamper-evident, expiring, and never holding a key's secret."""

from __future__ import annotations

import time

from factdiff.ui.session import Session, SessionSigner


def test_a_signed_session_reads_back() -> None:
    signer = SessionSigner(b"s" * 32)
    session = Session.fresh("ops")
    assert signer.load(signer.dump(session)) == session
    assert session.csrf_matches(session.csrf)
    assert not session.csrf_matches(session.csrf + "x")
    assert not session.csrf_matches(None)
    stored = Session.fresh("ops", token="t-1")
    assert signer.load(signer.dump(stored)) == stored


def test_tampered_foreign_or_expired_cookies_are_ignored() -> None:
    signer = SessionSigner(b"s" * 32)
    value = signer.dump(Session.fresh("ops"))
    body, signature = value.split(".")
    forged = SessionSigner(b"t" * 32).dump(Session("admin", "c", int(time.time()) + 60))
    assert signer.load(forged) is None
    assert signer.load(body[:-2] + "xx." + signature) is None
    assert signer.load(value + "x") is None
    assert signer.load("") is None
    assert signer.load("no-dot") is None
    assert signer.load("a.b.c") is None
    assert signer.load(signer.dump(Session("ops", "c", int(time.time()) - 1))) is None


def test_the_cookie_names_the_key_never_its_secret() -> None:
    signer = SessionSigner(b"s" * 32)
    assert "fd_" not in signer.dump(Session.fresh("ops"))
