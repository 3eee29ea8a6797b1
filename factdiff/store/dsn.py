"""PostgreSQL connection strings in messages: never with their password.

``redact`` hides the password of a URL DSN (``postgresql://user:secret@host/db``), of a
``password=`` query parameter, and of a ``password=...`` keyword in a key/value conninfo
(``host=db password='s3 cret'``). Every message, log line, JSON document and ``location``
that names a PostgreSQL store goes through it.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

HIDDEN = "***"
_KEYWORD = re.compile(r"(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&]*)", re.IGNORECASE)


def redact(dsn: str) -> str:
    """``dsn`` with every password replaced by ``***``."""
    text = dsn
    if "://" in text:
        try:
            parts = urlsplit(text)
        except ValueError:
            parts = None
        if parts is not None and "@" in parts.netloc:
            userinfo, hostport = parts.netloc.rsplit("@", 1)
            if ":" in userinfo:
                user = userinfo.split(":", 1)[0]
                start = text.index(parts.netloc)
                netloc = f"{user}:{HIDDEN}@{hostport}"
                text = text[:start] + netloc + text[start + len(parts.netloc) :]
    return _KEYWORD.sub(lambda m: m.group(1) + HIDDEN, text)
