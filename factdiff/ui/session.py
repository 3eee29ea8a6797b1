"""The UI session: a signed cookie naming the operator key that signed in, the session's
token, and the CSRF token every form must echo.

The cookie is ``base64url(json) "." base64url(hmac-sha256)`` under the app's secret
(``FACTDIFF_UI_SECRET``, else a random secret per process: sessions then end when the
process restarts, and several worker processes need the variable set). It is HttpOnly,
SameSite=Strict, Secure when the request came over HTTPS (TLS, or a trusted proxy's
``X-Forwarded-Proto: https``), and expires after ``SESSION_SECONDS``. It holds the key's
name, never its secret. A signed-in session also lives in the store (``ui_sessions``, by
the token's hash): each request re-checks that it has not ended (signing out ends it, so a
copy of the cookie is refused afterwards) and that the key exists, is not revoked and is an
operator key.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import time
from dataclasses import dataclass

__all__ = [
    "COOKIE",
    "SECRET_ENV",
    "SESSION_SECONDS",
    "Session",
    "SessionSigner",
]

COOKIE = "factdiff_ui"
SECRET_ENV = "FACTDIFF_UI_SECRET"
SESSION_SECONDS = 12 * 3600
"""A session lasts 12 hours; then the operator signs in again."""


@dataclass(frozen=True)
class Session:
    """What the cookie says: the signed-in key's name (``None``: not signed in), the CSRF
    token, when it expires (Unix seconds), and the token of its row in the store (signed-in
    sessions only)."""

    key_name: str | None
    csrf: str
    expires: int
    token: str | None = None

    @classmethod
    def fresh(cls, key_name: str | None = None, token: str | None = None) -> Session:
        """A new session with a new CSRF token."""
        expires = int(time.time()) + SESSION_SECONDS
        return cls(key_name, secrets.token_urlsafe(24), expires, token)

    def csrf_matches(self, sent: str | None) -> bool:
        """Whether a form's token is this session's (constant-time)."""
        return sent is not None and hmac.compare_digest(sent.encode(), self.csrf.encode())


class SessionSigner:
    """Signs and reads session cookies with one secret."""

    def __init__(self, secret: bytes | None = None) -> None:
        configured = os.environ.get(SECRET_ENV, "")
        self._secret = secret or (configured.encode() if configured else secrets.token_bytes(32))

    def dump(self, session: Session) -> str:
        """The cookie value of ``session``."""
        body = json.dumps(
            {"k": session.key_name, "c": session.csrf, "e": session.expires, "s": session.token},
            sort_keys=True,
            separators=(",", ":"),
        ).encode()
        return f"{_b64(body)}.{_b64(self._sign(body))}"

    def load(self, value: str | None) -> Session | None:
        """The session in a cookie value; ``None`` when absent, forged, malformed or expired."""
        if not value or value.count(".") != 1:
            return None
        body_text, signature = value.split(".")
        try:
            body = _unb64(body_text)
            if not hmac.compare_digest(_unb64(signature), self._sign(body)):
                return None
            data = json.loads(body)
            token = data.get("s")
            session = Session(
                None if data["k"] is None else str(data["k"]),
                str(data["c"]),
                int(data["e"]),
                None if token is None else str(token),
            )
        except (ValueError, KeyError, TypeError, AttributeError):
            return None
        return session if session.expires > time.time() else None

    def _sign(self, body: bytes) -> bytes:
        return hmac.new(self._secret, body, hashlib.sha256).digest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
