"""Email addresses and URLs in text."""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urlsplit

from factdiff.extraction.recognizers.base import ExtractionContext, Match
from factdiff.values.base import FactType
from factdiff.values.contact import EmailValue, UrlValue

# --------------------------------------------------------------------------- emails

_EMAIL = re.compile(r"(?<![A-Za-z0-9._%+-])([A-Za-z0-9._%+-]{1,64})@([A-Za-z0-9.-]{1,253})")
_DOMAIN_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\Z")
_TLD = re.compile(r"[A-Za-z]{2,24}\Z")


def _valid_local(local: str) -> bool:
    return not (local.startswith(".") or local.endswith(".") or ".." in local)


def _trim_domain(domain: str) -> str | None:
    """The longest valid domain prefix without trailing dots/hyphens, or None."""
    domain = domain.rstrip(".-")
    labels = domain.split(".")
    if len(labels) < 2 or not _TLD.match(labels[-1]):
        return None
    if not all(_DOMAIN_LABEL.match(label) for label in labels):
        return None
    return domain


class EmailRecognizer:
    """Finds email addresses with a practical (not RFC-complete) pattern."""

    fact_type = FactType.EMAIL

    def find(self, text: str, context: ExtractionContext) -> Iterable[Match]:
        """Yield every address; the domain is trimmed of trailing punctuation."""
        if "@" not in text:
            return
        for m in _EMAIL.finditer(text):
            local, domain = m.group(1), _trim_domain(m.group(2))
            if domain is None or not _valid_local(local):
                continue
            end = m.start(2) + len(domain)
            if end < len(text) and text[end] == "@":
                continue
            yield Match(m.start(), end, EmailValue(f"{local}@{domain}".lower()))


def parse_email(text: str, context: ExtractionContext) -> EmailValue | None:
    """Parse one whole address (``mailto:`` and angle brackets allowed)."""
    candidate = text.strip().strip("<>").strip()
    if candidate.lower().startswith("mailto:"):
        candidate = candidate[7:]
    local, sep, domain = candidate.partition("@")
    if not sep or not local or len(local) > 64 or not _valid_local(local):
        return None
    if re.fullmatch(r"[A-Za-z0-9._%+-]+", local) is None:
        return None
    if _trim_domain(domain) != domain:
        return None
    return EmailValue(candidate.lower())


# --------------------------------------------------------------------------- urls

_URL = re.compile(r"(?i)\b(?:https?://|www\.)[^\s<>\"'`{}|\\^]{1,2048}")
_URL_TRAIL = ".,;:!?'\"*"
_CLOSERS = {")": "(", "]": "[", "}": "{"}
_HOST = re.compile(r"(?i)(?:[a-z0-9-]+\.)+[a-z]{2,24}|localhost|\d{1,3}(?:\.\d{1,3}){3}")


def _trim_url(raw: str) -> str:
    """Strip trailing punctuation and unbalanced closing brackets."""
    counts = {c: raw.count(c) for c in "()[]{}"}
    end = len(raw)
    while end:
        last = raw[end - 1]
        closer = last in _CLOSERS and counts[last] > counts[_CLOSERS[last]]
        if last not in _URL_TRAIL and not closer:
            break
        if closer:
            counts[last] -= 1
        end -= 1
    return raw[:end]


def normalize_url(raw: str) -> str | None:
    """Normalised form of an http(s) or ``www.`` URL, or None if it is not one."""
    lowered = raw.lower()
    has_scheme = lowered.startswith(("http://", "https://"))
    if not has_scheme and not lowered.startswith("www."):
        return None
    try:
        parts = urlsplit(raw if has_scheme else "http://" + raw)
        port = parts.port
    except ValueError:
        return None
    host = (parts.hostname or "").rstrip(".")
    if not _HOST.fullmatch(host):
        return None
    scheme = parts.scheme.lower()
    if port is not None and (scheme, port) not in {("http", 80), ("https", 443)}:
        host = f"{host}:{port}"
    if parts.username is not None:
        host = f"{parts.netloc.rpartition('@')[0]}@{host}"
    path = parts.path.rstrip("/") if parts.path.endswith("/") else parts.path
    url = (f"{scheme}://" if has_scheme else "") + host + path
    if parts.query:
        url += "?" + parts.query
    if parts.fragment:
        url += "#" + parts.fragment
    return url


class UrlRecognizer:
    """Finds ``http(s)://`` and ``www.`` URLs, without trailing punctuation."""

    fact_type = FactType.URL

    def find(self, text: str, context: ExtractionContext) -> Iterable[Match]:
        """Yield every URL that normalises."""
        if "://" not in text and "www." not in text.lower():
            return
        for m in _URL.finditer(text):
            raw = _trim_url(m.group())
            url = normalize_url(raw)
            if url is not None:
                yield Match(m.start(), m.start() + len(raw), UrlValue(url))


def parse_url(text: str, context: ExtractionContext) -> UrlValue | None:
    """Parse one whole URL."""
    raw = text.strip().strip("<>")
    if not raw or any(c.isspace() for c in raw):
        return None
    url = normalize_url(_trim_url(raw))
    return UrlValue(url) if url is not None else None
