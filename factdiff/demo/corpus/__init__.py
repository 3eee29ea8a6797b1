"""A deterministic corpus of realistic agent memory entries for ``factdiff demo``.

Three agents, each writing in its domain and extracted with its schema:

* ``support-bot`` / ``customer_service``: billing call notes (disputes, duplicate charges,
  payment plans, SLA credits, late-fee waivers), some as ``Customer:`` / ``Agent:`` transcripts;
* ``ops-agent`` / ``operations``: incident notes and timelines, changes, capacity fixes;
* ``sales-agent`` / ``sales``: discovery, negotiation, renewal and closing call notes.

``generate_corpus(count, seed, start)`` is a pure function of its arguments: one seeded
``random.Random``, no wall clock, no locale, no time zone database (US and EU summer time are
computed by their rules). Each entry states its facts plainly (ids, amounts, dates, times with
zones, people, tool calls) so that a reader could list them. Amounts add up: a disputed line
plus the remaining payment is the invoice total, a discount applied to the list price gives the
deal value, an incident's start plus its downtime is its resolution time.
"""

from __future__ import annotations

from factdiff.demo.corpus.entry import WORKED_EXAMPLE, DemoEntry
from factdiff.demo.corpus.generate import generate_corpus
from factdiff.demo.corpus.tables import AGENTS

__all__ = ["AGENTS", "WORKED_EXAMPLE", "DemoEntry", "generate_corpus"]
