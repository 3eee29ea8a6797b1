"""Structured output that fits the endpoint: which form asks a model for JSON, found once.

Endpoints take different forms of "answer with JSON that follows this schema":

* ``json_schema``: OpenAI structured outputs (``response_format`` ``json_schema`` with
  ``strict``); for Anthropic, a forced tool whose ``input_schema`` is the schema;
* ``json_object``: JSON mode (``response_format`` ``json_object``, with the schema under
  ``schema``, which llama.cpp's servers use to constrain the output and others ignore) and
  the schema in the instructions (OpenAI protocol only);
* ``prompt``: no constraint on the wire; the schema is in the instructions and the JSON is
  read out of the reply (a code fence, prose around it).

The ``structured_output`` setting (per model, or for all) is ``auto`` or one form. ``auto``
tries the forms in that order: a rejection of a form (``FormRejected``, whatever status the
server answers with) moves to the next one at once, spending no attempt and counting as no
outage. The form that answered is remembered per endpoint, model and setting for the life of
the process (``known``/``remember``); first calls on an endpoint not yet resolved go one at
a time (``resolving``). An endpoint that refuses every form allowed is a configuration error
naming the endpoint, the model and the forms tried (``none_accepted``). Whatever the form,
the caller validates every parsed answer against the schema (``factdiff.extraction.llm``).
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Mapping
from dataclasses import replace

from factdiff.errors import OutputError, ProviderConfigurationError, UsageError
from factdiff.inputs.json_toml import JSON
from factdiff.providers.base import ChatRequest
from factdiff.providers.jsonout import loads_strict

__all__ = [
    "AUTO",
    "FORMS",
    "JSON_INSTRUCTION",
    "MODES",
    "extract_json",
    "forget",
    "forms_for",
    "instructions",
    "is_form_rejection",
    "known",
    "none_accepted",
    "remember",
    "resolving",
    "shaped",
]

AUTO = "auto"
FORMS: Mapping[str, tuple[str, ...]] = {
    "openai": ("json_schema", "json_object", "prompt"),
    "anthropic": ("json_schema", "prompt"),
}
"""The forms each protocol can ask with, strictest first (the order ``auto`` tries)."""
MODES = (AUTO, "json_schema", "json_object", "prompt")
"""The values of the ``structured_output`` setting."""

JSON_INSTRUCTION = "It must follow this JSON Schema:"
"""The words that introduce the schema in the instructions (``json_object``, ``prompt``)."""

Key = tuple[str, str, str, str]
"""(provider, base URL, model, setting)."""

_FORM_HINTS = (
    "response_format",
    "json_schema",
    "json_object",
    "structured output",
    "guided_json",
    "grammar",
    "tool_choice",
    "tool use",
    "tools",
)
_NOT_ABOUT_FORM = frozenset({401, 402, 403, 404, 408, 429})


def forms_for(provider: str, setting: str) -> tuple[str, ...]:
    """The forms to try, in order, for ``setting`` on ``provider``'s protocol."""
    forms = FORMS[provider]
    if setting == AUTO:
        return forms
    if setting not in forms:
        known_modes = ", ".join(m for m in MODES if m == AUTO or m in forms)
        raise UsageError(
            f"structured_output {setting!r} is not a form the {provider} protocol has; "
            f"use one of {known_modes}"
        )
    return (setting,)


def is_form_rejection(status: int, text: str) -> bool:
    """Whether an error answer (status, lower-cased body text) refuses the output form: a
    status that is not about keys, quota, rate or the model's name, whose text names the
    structured-output machinery (llama-cpp-python answers a ``json_schema`` with a 500)."""
    if status in _NOT_ABOUT_FORM:
        return False
    return any(hint in text for hint in _FORM_HINTS)


def instructions(schema: Mapping[str, JSON]) -> str:
    """The system-prompt lines that ask for JSON following ``schema`` (``json_object`` and
    ``prompt`` forms, where the wire carries no schema or may ignore it)."""
    return (
        "Answer with exactly one JSON object and nothing else (no prose, no code fence). "
        f"{JSON_INSTRUCTION}\n"
        + json.dumps(_without_meta(schema), ensure_ascii=False, separators=(",", ":"))
    )


def _without_meta(schema: Mapping[str, JSON]) -> dict[str, JSON]:
    return {k: v for k, v in schema.items() if k != "$schema"}


def shaped(request: ChatRequest, form: str) -> ChatRequest:
    """``request`` as sent in ``form``: the schema in the instructions unless the wire
    carries it strictly."""
    if request.output_schema is None:
        return request
    if form == "json_schema":
        return replace(request, output_form=form)
    system = f"{request.system}\n\n{instructions(request.output_schema)}"
    return replace(request, system=system, output_form=form)


_FENCED = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n(?P<body>.*?)\n?[ \t]*```", re.S)
_DECODER = json.JSONDecoder()


def extract_json(text: str) -> str:
    """The JSON object in a prose reply, as JSON text: the whole reply when it is one
    document, else the first fenced block that parses, else the first ``{...}`` that
    parses from where it starts. Returns ``text`` unchanged when none does (the caller's
    strict reading then says why)."""
    try:
        loads_strict(text)
        return text
    except OutputError:
        pass
    for fenced in _FENCED.finditer(text):
        body = fenced.group("body").strip()
        try:
            loads_strict(body)
            return body
        except OutputError:
            continue
    start = text.find("{")
    while start >= 0:
        try:
            _, end = _DECODER.raw_decode(text, start)
        except ValueError:
            start = text.find("{", start + 1)
            continue
        candidate = text[start:end]
        try:
            loads_strict(candidate)  # duplicate keys and NaN are still refused
            return candidate
        except OutputError:
            return text
    return text


def none_accepted(
    name: str, base_url: str | None, tried: list[str], last: str, *, model: str
) -> ProviderConfigurationError:
    """The configuration error of an endpoint that refused every form tried."""
    where = base_url or "the provider's API"
    allowed = "prompt" if "prompt" not in tried else "a model or server that supports one"
    return ProviderConfigurationError(
        f"{name} at {where} accepts none of the structured-output forms tried "
        f"({', '.join(tried)}); last answer: {last[:160]}; set structured_output for this "
        f"model (e.g. --model-param '{name}:structured_output=prompt') or use {allowed}",
        model=model,
    )


class _Memory:
    """Resolved forms and the locks of endpoints being resolved (process-wide)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.forms: dict[Key, str] = {}
        self.resolving: dict[Key, asyncio.Lock] = {}


_MEMORY = _Memory()


def known(key: Key) -> str | None:
    """The form that last worked for ``key``, if any."""
    with _MEMORY.lock:
        return _MEMORY.forms.get(key)


def remember(key: Key, form: str) -> None:
    """Record that ``form`` works for ``key``."""
    with _MEMORY.lock:
        _MEMORY.forms[key] = form


def resolving(key: Key) -> asyncio.Lock:
    """The lock first calls to an unresolved ``key`` take in turn (on the model loop)."""
    with _MEMORY.lock:
        lock = _MEMORY.resolving.get(key)
        if lock is None:
            lock = _MEMORY.resolving[key] = asyncio.Lock()
        return lock


def forget() -> None:
    """Forget every resolved form (``runtime.shutdown`` calls it: endpoints may change)."""
    with _MEMORY.lock:
        _MEMORY.forms.clear()
        _MEMORY.resolving.clear()
