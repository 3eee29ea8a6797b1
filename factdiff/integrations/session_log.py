"""``SessionLog``: a conversation kept as ordered entries of one agent, part verbatim, part
compressed with verification. Framework-free; ``factdiff.integrations.openai_agents`` adapts it
to the OpenAI Agents SDK's ``Session``.

An item is one entry of the agent, tagged ``session:<session_id>``, whose metadata holds
``session_id`` and the item's ``session_position`` (0, 1, 2...: the order of the
conversation; entry ids from one millisecond do not sort in the order of the calls that made
them). Entries with the tag but not that metadata are not items of the session. The entry's
text is the item as given, in the caller's rendering (canonical JSON for the Agents SDK).

Reading the log (``view``) turns it into segments in order: a hot entry is ``Verbatim`` (its
source, byte for byte); a run of consecutive warm entries is one ``Compressed`` segment, their
rendered context (``factdiff.retrieve.context``: each narrative with the source's facts and the
known gaps). ``compact`` makes the next attempt on every item but the newest ``keep_recent``
that is hot, active and due (not backing off after a failed attempt): a failed attempt leaves
its item hot and verbatim, as demotion always does. Every method is a function of the store,
run where the store may be used (``Memory.run`` / ``Memory.arun``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, TypeVar

from factdiff.demotion.demoter import Demoter, DemotionReport
from factdiff.errors import InputError
from factdiff.store import Entry, EntryStatus, MemoryStore, NewEntry, Tier

if TYPE_CHECKING:
    from factdiff.demotion.settings import DemotionSettings
    from factdiff.retrieve.context import RenderedContext

__all__ = [
    "Compressed",
    "Segment",
    "SessionLog",
    "Verbatim",
    "check_session_id",
    "runs",
    "session_tag",
]

T = TypeVar("T")
SESSION_KEY = "session_id"
POSITION_KEY = "session_position"
_PAGE = 500


def check_session_id(session_id: str) -> str:
    """``session_id`` when it is not blank (else ``InputError``)."""
    if not session_id.strip():
        raise InputError("give the session an id: FactdiffSession('conversation-1', ...)")
    return session_id


def session_tag(session_id: str) -> str:
    """The tag every item of the session carries."""
    return f"session:{session_id}"


@dataclass(frozen=True)
class Verbatim:
    """One item still hot: its text as it was added."""

    entry_id: str
    text: str


@dataclass(frozen=True)
class Compressed:
    """Consecutive items that demotion compressed (warm): their rendered context."""

    entry_ids: tuple[str, ...]
    context: RenderedContext


Segment = Verbatim | Compressed


@dataclass(frozen=True)
class SessionLog:
    """The items of ``session_id`` among ``agent``'s entries (see the module docstring);
    new items are added under ``schema`` (None: the agent's assigned or the generic one)."""

    agent: str
    session_id: str
    schema: str | None = None

    def __post_init__(self) -> None:
        check_session_id(self.session_id)

    @property
    def tag(self) -> str:
        """``session:<session_id>``."""
        return session_tag(self.session_id)

    # -- reading ---------------------------------------------------------------------------

    def entries(self, store: MemoryStore) -> list[Entry]:
        """The session's entries in conversation order, without content (one snapshot)."""
        found: list[tuple[int, str, Entry]] = []
        with store.read_snapshot():
            after = ""
            while True:
                page = store.entry_page(agent=self.agent, tag=self.tag, after=after, limit=_PAGE)
                for entry in page.items:
                    position = self._position(entry)
                    if position is not None:
                        found.append((position, entry.id, entry))
                if page.next_after is None:
                    break
                after = str(page.next_after)
        return [entry for _, _, entry in sorted(found, key=lambda item: item[:2])]

    def view(self, store: MemoryStore, limit: int | None = None) -> list[Segment]:
        """The session as segments in order; with ``limit``, only the last ``limit`` of them
        (a compressed run counts as one). Only what is returned is loaded and rendered."""
        if limit is not None and limit < 0:
            raise InputError(f"limit must be 0 or more (got {limit})")
        with store.read_snapshot():
            grouped = list(runs(self.entries(store)))
            if limit is not None:
                grouped = grouped[len(grouped) - limit :] if limit else []
            return [self._segment(store, run) for run in grouped]

    def _segment(self, store: MemoryStore, run: tuple[Entry, ...]) -> Segment:
        if run[0].tier is Tier.WARM:
            return Compressed(tuple(e.id for e in run), store.render_context([e.id for e in run]))
        (entry,) = run
        return Verbatim(entry.id, _hot_text(store.get(entry.id)))

    # -- writing ---------------------------------------------------------------------------

    def append(self, store: MemoryStore, texts: Sequence[str], now: datetime) -> list[str]:
        """Add ``texts`` as the session's next items, said at ``now`` (relative dates in them
        resolve against it), in one transaction; their entry ids."""
        if not texts:
            return []
        positions = [self._position(e) for e in self.entries(store)]
        start = max((p for p in positions if p is not None), default=-1) + 1
        return store.add_many(
            [
                NewEntry(
                    self.agent,
                    text,
                    occurred_at=now,
                    metadata={SESSION_KEY: self.session_id, POSITION_KEY: start + offset},
                    schema=self.schema,
                    tags=(self.tag,),
                )
                for offset, text in enumerate(texts)
            ],
            now=now,
        )

    def pop(
        self,
        store: MemoryStore,
        now: datetime,
        reason: str,
        read: Callable[[str, str], T],
    ) -> T | None:
        """Remove the newest item and return ``read(entry_id, source)`` (None when the
        session is empty). A compressed item's source is read back from its cold archive,
        which is checked against its hash. The entry is forgotten (a tombstone stays) only
        after ``read`` returned: an item ``read`` refuses stays."""
        existing = self.entries(store)
        if not existing:
            return None
        newest = existing[-1]
        if newest.tier is Tier.WARM:
            text = store.read_cold(newest.id)
        else:
            text = _hot_text(store.get(newest.id))
        item = read(newest.id, text)
        store.forget([newest.id], now=now, reason=reason, owner=self.agent)
        return item

    def clear(self, store: MemoryStore, now: datetime, reason: str) -> int:
        """Forget every item of the session (tombstones stay); how many there were."""
        ids = [e.id for e in self.entries(store)]
        if ids:
            store.forget(ids, now=now, reason=reason, owner=self.agent)
        return len(ids)

    # -- compaction ------------------------------------------------------------------------

    def compactable(self, store: MemoryStore, now: datetime, keep_recent: int) -> list[Entry]:
        """The items ``compact`` would attempt: all but the newest ``keep_recent``, hot,
        active (not waiting for review) and due (no backoff running at ``now``)."""
        if keep_recent < 0:
            raise InputError(f"keep_recent must be 0 or more (got {keep_recent})")
        existing = self.entries(store)
        older = existing[: max(0, len(existing) - keep_recent)]
        return [
            e
            for e in older
            if e.tier is Tier.HOT
            and e.status is EntryStatus.ACTIVE
            and (e.next_attempt_at is None or e.next_attempt_at <= now)
        ]

    def compact(
        self,
        store: MemoryStore,
        settings: DemotionSettings,
        now: datetime,
        keep_recent: int,
    ) -> DemotionReport:
        """One attempt on each ``compactable`` item, oldest first, applied as demotion
        applies it (verified; a failed attempt keeps the item hot and schedules the next)."""
        demoter = Demoter(store, settings)
        report = DemotionReport()
        for listed in self.compactable(store, now, keep_recent):
            entry = store.get(listed.id)
            if entry.tier is Tier.HOT and entry.status is EntryStatus.ACTIVE:
                report.add(demoter.demote_entry(entry, now))
        return report

    def _position(self, entry: Entry) -> int | None:
        """The entry's position in this session (None: not an item of it)."""
        if entry.metadata.get(SESSION_KEY) != self.session_id:
            return None
        position = entry.metadata.get(POSITION_KEY)
        return position if isinstance(position, int) and not isinstance(position, bool) else None


def runs(entries: Sequence[Entry]) -> Iterator[tuple[Entry, ...]]:
    """Each hot entry alone, and each run of consecutive warm entries together."""
    run: list[Entry] = []
    for entry in entries:
        if entry.tier is Tier.WARM:
            run.append(entry)
            continue
        if run:
            yield tuple(run)
            run = []
        yield (entry,)
    if run:
        yield tuple(run)


def _hot_text(entry: Entry) -> str:
    """A hot entry's source (its content is loaded by ``store.get``)."""
    if entry.content is None:
        raise InputError(f"entry {entry.id} has no source to read: it is {entry.tier.value}")
    return entry.content
