"""LangGraph's long-term memory store on factdiff: ``FactdiffStore``.

::

    from factdiff.integrations.langgraph import FactdiffStore

    store = FactdiffStore("memory.db")                  # or "postgresql://host/db"
    graph = builder.compile(store=store)                # nodes take `store: BaseStore`
    store.put(("support-bot", "acme"), "refund", {"note": "Refund of $1,249.00 approved."})
    store.search(("support-bot",), query="refund 1,249")  # ranked by factdiff's search

How items map to entries (``factdiff.integrations.langgraph.items``):

* a **namespace**'s first label is the entry's **agent**, its other labels are the entry's
  **tags** (``("support-bot", "acme")``: agent ``support-bot``, tag ``acme``), so demotion,
  schema assignment per agent and tag, ``factdiff list --agent`` and erasure see LangGraph's
  memories as any other; with ``FactdiffStore(..., agent="bot")`` every namespace lives under
  agent ``bot`` and all its labels are tags. The exact namespace and key are kept in the
  entry's metadata (``{"langgraph": {"namespace", "key", "created_at"}}``), so
  ``list_namespaces`` (prefix, suffix, ``*``, ``max_depth``, ``limit``/``offset``) returns
  them as they were put, labels in order;
* a **value** is stored as the entry's text in canonical JSON (sorted keys, no whitespace,
  UTF-8), so equal values are equal texts; ``get`` and ``search`` return the value as put,
  from the hot text or, once demotion compressed the entry, from its verified cold archive;
  ``created_at`` is when the key was first put, ``updated_at`` when this value was;
* a **put** of an existing key writes a new entry and then erases the old one
  (``MemoryStore.forget``: its text leaves every table and the search index; a tombstone
  says it was replaced); a put of ``None`` or ``delete`` erases it. A batch's new values are
  written in one transaction after its reads (the last put of a key wins), then what they
  replace is erased, an entry per transaction: a crash in between leaves the old entry
  beside the new one, which reads never show and the key's next put or delete erases;
* **search** with a ``query`` is factdiff's search (facts first, then text relevance) over
  the namespace's agent (every agent for ``()``), its hits kept when they are items under
  the prefix that pass the ``filter``; without a query, the prefix's items newest first.
  ``filter`` has the semantics of LangGraph's in-memory store (exact match, nested dicts,
  ``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``). Every returned item is a
  ``FactdiffSearchItem``: ``score`` is factdiff's (None without a query) and ``factdiff`` holds
  the hit as ``factdiff search --json`` shows it (the narrative of a warm entry as ``text``,
  its ``facts`` and ``known_gaps``). Returned items count as used, as a factdiff search's
  hits do; ``get`` does not;
* **compression** is factdiff's: ``store.demote(older_than=...)`` (or ``factdiff demote``, or a
  worker) makes dormant items warm only when the fact diff shows no critical fact lost;
* ``index`` (which fields to embed) is ignored: factdiff indexes the whole value's words
  and facts; TTLs are not supported (``supports_ttl`` is false).

Finding a key reads the agent's entries carrying its tag, and listings read the metadata of
the agent's (or, for ``()``, every agent's) LangGraph entries, never their text.
"""

from importlib.util import find_spec

from factdiff.errors import UsageError


class LangGraphMissing(UsageError, ImportError):
    """The ``langgraph`` package is not installed (also an ImportError)."""


if find_spec("langgraph") is None:
    raise LangGraphMissing(
        "the LangGraph store needs the langgraph package: pip install 'factdiff[langgraph]'"
    )

from factdiff.integrations.langgraph.filters import UnsupportedFilter  # noqa: E402
from factdiff.integrations.langgraph.store import FactdiffSearchItem, FactdiffStore  # noqa: E402

__all__ = ["FactdiffSearchItem", "FactdiffStore", "LangGraphMissing", "UnsupportedFilter"]
