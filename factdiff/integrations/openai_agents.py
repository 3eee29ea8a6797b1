"""``FactdiffSession``: the OpenAI Agents SDK's ``Session`` on a factdiff ``Memory``.

Needs the ``openai-agents`` extra (``pip install 'factdiff[openai-agents]'``)::

    from agents import Agent, Runner
    from factdiff.integrations.openai_agents import FactdiffSession

    session = FactdiffSession("conversation-42", "memory.db", agent="support-bot")
    await Runner.run(agent, "Refund order 88213?", session=session)
    await session.compact()      # verified compression of all but the newest items

**Mapping.** Each item (a ``TResponseInputItem`` dict) is one entry of the memory's agent,
its text the item's canonical JSON (sorted keys, no spaces, UTF-8), tagged
``session:<session_id>``, in order (``factdiff.integrations.session_log``). Given a
``Memory``, the session lives among that agent's entries (one agent, many sessions; its
searches see them all); given a store (a path or a ``postgresql://`` DSN), the session opens
its own ``Memory`` whose agent is ``agent``, by default the session id, and closes it in
``close()``.

**Compression.** The newest ``keep_recent`` items (default 20) always stay verbatim.
``compact()`` makes one verified demotion attempt (``Memory.demotion_settings``: the same
extractor, ladder and policy as ``Memory.demote``) on each older hot item; an item becomes
warm only when no critical fact was lost, else it stays hot and verbatim and its next
attempt waits for the retry backoff. With ``compact_after=N``, ``add_items`` runs
``compact()`` itself once N older items are waiting (inside the call that adds them: with a
model-backed ladder that call takes the models' time). The agent's ordinary demotion
(``Memory.demote``, ``factdiff demote``, the worker) also compresses a session's dormant
items; whatever made them warm, they read the same.

**Reading.** ``get_items`` returns hot items verbatim and, in the place of each run of
consecutive compressed items, one system message: a verified summary whose text is the
rendered context of those entries (each narrative, the source's facts, the known gaps) and
its hash. ``limit`` (or ``session_settings.limit``) counts returned items, so the summary
of a run counts as one.

**Removing.** ``pop_item`` removes the newest item and returns it as it was added: a
compressed one is read back from its cold archive (checked against its hash). The entry is
forgotten (``Memory.forget``: a tombstone stays), as every entry is by ``clear_session``.

Calls on one ``FactdiffSession`` are serialized; two processes that add to one session at the
same moment may give two items one position (then entry id order decides).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

from factdiff.errors import InputError, UsageError
from factdiff.integrations import canonical_json
from factdiff.integrations.session_log import (
    Compressed,
    SessionLog,
    Verbatim,
    check_session_id,
)
from factdiff.memory import Memory

try:
    from agents.memory.session_settings import (
        SessionSettings,
        coerce_session_settings,
        resolve_session_limit,
    )
except ImportError as exc:  # pragma: no cover - the extra is installed wherever tests run
    raise UsageError(
        f"FactdiffSession needs the OpenAI Agents SDK ({exc}): "
        "pip install 'factdiff[openai-agents]'"
    ) from None

if TYPE_CHECKING:
    from agents.items import TResponseInputItem
    from openai.types.responses import EasyInputMessageParam

    from factdiff.demotion.demoter import DemotionReport

__all__ = ["DEFAULT_KEEP_RECENT", "FactdiffSession", "render_item", "summary_message"]

DEFAULT_KEEP_RECENT = 20
"""Items that stay verbatim, newest first, unless ``keep_recent`` says otherwise."""

SUMMARY_PREAMBLE = (
    "Verified summary of {count} earlier item{s} of this conversation (factdiff). Each "
    "narrative replaced its original only after a fact diff showed no critical fact lost. "
    "The facts listed are the originals', with the words they were stated in: trust them "
    "over the narrative. A known gap is a fact the narrative leaves out; its value is among "
    "the facts."
)


class FactdiffSession:
    """A conversation of the OpenAI Agents SDK kept in factdiff (see the module docstring).

    ``memory``: a ``Memory`` (the session uses its agent and schema, and leaves it open), or
    a store to open one on (``agent``: default the session id; ``schema``: as ``Memory``'s).
    ``keep_recent``: the newest items never compressed. ``compact_after``: when set,
    ``add_items`` compacts once this many older items wait. ``session_settings``: the SDK's
    (its ``limit`` is the default of ``get_items``).
    """

    session_id: str
    session_settings: SessionSettings | None

    def __init__(
        self,
        session_id: str,
        memory: Memory | str | Path,
        *,
        agent: str | None = None,
        schema: str | None = None,
        keep_recent: int = DEFAULT_KEEP_RECENT,
        compact_after: int | None = None,
        session_settings: SessionSettings | Mapping[str, Any] | None = None,
    ) -> None:
        check_session_id(session_id)
        if keep_recent < 0:
            raise InputError(f"keep_recent must be 0 or more (got {keep_recent})")
        if compact_after is not None and compact_after < 1:
            raise InputError(f"compact_after must be 1 or more, or None (got {compact_after})")
        if isinstance(memory, Memory):
            if agent is not None or schema is not None:
                raise UsageError(
                    "a session on a Memory uses its agent and schema: "
                    "give agent= and schema= to Memory(...) instead"
                )
            self._owned = False
            self._memory = memory
        else:
            self._owned = True
            self._memory = Memory(memory, agent=agent or session_id, schema=schema)
        self.session_id = session_id
        self._log = SessionLog(self._memory.agent, session_id, self._memory.schema)
        self.keep_recent = keep_recent
        self.compact_after = compact_after
        self.session_settings = (
            SessionSettings()
            if session_settings is None
            else coerce_session_settings(
                session_settings
                if isinstance(session_settings, SessionSettings)
                else dict(session_settings)
            )
        )
        self._lock = asyncio.Lock()

    @property
    def memory(self) -> Memory:
        """The memory the items are entries of."""
        return self._memory

    # -- the Session protocol --------------------------------------------------------------

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The conversation in order: hot items verbatim, each run of compressed items as
        one ``summary_message``; the latest ``limit`` of these (default: the settings')."""
        wanted = resolve_session_limit(limit, self.session_settings)
        async with self._lock:
            segments = await self._memory.arun(lambda store: self._log.view(store, wanted))
        items: list[TResponseInputItem] = []
        for segment in segments:
            if isinstance(segment, Verbatim):
                items.append(self._item(segment.entry_id, segment.text))
            else:
                items.append(summary_message(segment))
        return items

    def _item(self, entry_id: str, text: str) -> Any:
        """The item (a JSON object) an entry's text holds; ``InputError`` naming the entry
        if it holds none (``Any``: the SDK's item type is a union of typed dicts)."""
        value = canonical_json.load_object(text)
        if value is None:
            raise InputError(
                f"entry {entry_id} of session {self.session_id} is not a JSON object: "
                "correct it with `factdiff correct` or forget it"
            )
        return value

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Append ``items`` (one transaction); then compact if ``compact_after`` says so."""
        texts = [render_item(item, position) for position, item in enumerate(items, start=1)]
        if not texts:
            return
        now = self._memory.now()
        async with self._lock:
            await self._memory.arun(lambda store: self._log.append(store, texts, now))
            if self.compact_after is not None:
                await self._compact_if_due()

    async def pop_item(self) -> TResponseInputItem | None:
        """Remove the newest item and return it as it was added (None when empty)."""
        now = self._memory.now()
        reason = f"openai-agents session {self.session_id}: pop_item"
        async with self._lock:
            popped = await self._memory.arun(
                lambda store: self._log.pop(store, now, reason, self._item)
            )
        item: TResponseInputItem | None = popped
        return item

    async def clear_session(self) -> None:
        """Forget every item of the session (tombstones stay)."""
        now = self._memory.now()
        reason = f"openai-agents session {self.session_id}: clear_session"
        async with self._lock:
            await self._memory.arun(lambda store: self._log.clear(store, now, reason))

    # -- compression and lifecycle ---------------------------------------------------------

    async def compact(self) -> DemotionReport:
        """One verified compression attempt on each item older than the newest
        ``keep_recent`` that is hot and due; the report counts the outcomes."""
        async with self._lock:
            return await self._compact()

    async def _compact(self) -> DemotionReport:
        settings = self._memory.demotion_settings()
        now = self._memory.now()
        return await self._memory.arun(
            lambda store: self._log.compact(store, settings, now, self.keep_recent)
        )

    async def _compact_if_due(self) -> None:
        now = self._memory.now()
        waiting = await self._memory.arun(
            lambda store: self._log.compactable(store, now, self.keep_recent)
        )
        if self.compact_after is not None and len(waiting) >= self.compact_after:
            await self._compact()

    async def close(self) -> None:
        """Close the memory when this session opened it (idempotent)."""
        if self._owned:
            await asyncio.to_thread(self._memory.close)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()


def render_item(item: Mapping[str, object], position: int = 1) -> str:
    """An item's entry text: its canonical JSON (``canonical_json.render``). ``position``
    (from 1) names the item in the error for one that is not a JSON object."""
    if not isinstance(item, Mapping):
        raise InputError(f"session item {position} is a {type(item).__name__}: give a dict")
    return canonical_json.render(item, f"session item {position}")


def summary_message(segment: Compressed) -> EasyInputMessageParam:
    """The system message that stands for a run of compressed items: ``SUMMARY_PREAMBLE``,
    then their rendered context (narratives, facts, known gaps) and its hash."""
    count = len(segment.entry_ids)
    preamble = SUMMARY_PREAMBLE.format(count=count, s="" if count == 1 else "s")
    text = f"{preamble}\n\n{segment.context.text}\ncontext hash: {segment.context.hash}"
    return {"role": "system", "content": text}
