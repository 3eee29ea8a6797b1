"""Retrieval: the read side of memory, with facts, known gaps and attested context.

::

    query --rules extractor--> facts (canonical keys)  --fact index-->  entries holding them
          --words-------------------------------------- text index -->  entries saying them
    rank: distinctive facts first, then text relevance; a known gap never hides a hot holder
    hit:  narrative (warm) or source (hot) + fact record + known gaps + gap_hit
          (+ the archived source, hash-checked, when the narrative cannot answer)

``MemoryStore.search`` / ``factdiff search`` (``factdiff.retrieve.search``),
``MemoryStore.render_context`` / ``factdiff context`` (``context``), ``MemoryStore.attest`` and
``check_attestation`` / ``factdiff attest`` (``attest``). The indexes are kept in step by the
store (``factdiff.store.search_index``); what they hold is in ``index`` and ``keys``; known gaps
are read by ``gaps.known_gaps`` only.
"""

from factdiff.retrieve.attest import Attestation, AttestationCheck, EntryChange
from factdiff.retrieve.context import RenderedContext, RenderedEntry, render_context
from factdiff.retrieve.gaps import KnownGap, known_gaps
from factdiff.retrieve.hits import Match, SearchHit
from factdiff.retrieve.search import search
from factdiff.settings import RetrievalSettings, TouchMode, resolve_retrieval_settings

__all__ = [
    "Attestation",
    "AttestationCheck",
    "EntryChange",
    "KnownGap",
    "Match",
    "RenderedContext",
    "RenderedEntry",
    "RetrievalSettings",
    "SearchHit",
    "TouchMode",
    "known_gaps",
    "render_context",
    "resolve_retrieval_settings",
    "search",
]
