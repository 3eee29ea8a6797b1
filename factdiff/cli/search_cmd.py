"""``factdiff search``: the entries that answer a query, with their facts and known gaps.

``--json`` prints ``{"query": ..., "hits": [...]}`` (each hit as ``SearchHit.to_json``). The
human view shows each hit's narrative (or hot source) with what matched highlighted, the
facts that matched, the known gaps (those the query asks about marked), and the archived
source when it was attached.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from factdiff.cli.options import db_option, json_option, not_blank, open_store, open_store_to_read
from factdiff.cli.render import console, echo_json, text
from factdiff.inputs.bounds import COUNT_MAX
from factdiff.present.documents import search_document
from factdiff.retrieve.search import INCLUDE_SOURCE
from factdiff.settings import TouchMode, resolve_retrieval_settings

if TYPE_CHECKING:
    from rich.console import Console

    from factdiff.retrieve.hits import SearchHit

MATCH_STYLE = "bold yellow"
GAP_STYLE = "bold red"


@click.command("search")
@click.argument("query", callback=not_blank)
@click.option("--agent", callback=not_blank, help="Only this agent's entries.")
@click.option(
    "-k", "k", type=click.IntRange(1, COUNT_MAX), default=10, show_default=True, help="Hits."
)
@click.option("--tier", type=click.Choice(["hot", "warm"]), help="Only this tier.")
@click.option(
    "--include-source",
    type=click.Choice(INCLUDE_SOURCE),
    default="auto",
    show_default=True,
    help="Attach warm hits' archived sources: always, when needed (auto), never.",
)
@click.option(
    "--touch",
    type=click.Choice([m.value for m in TouchMode]),
    help="What is marked used: hits, top, none (or FACTDIFF_SEARCH_TOUCH; default hits).",
)
@click.option(
    "--promote-after",
    callback=not_blank,
    help="Fetches of a warm source within the window that send it back hot, or never "
    "(or FACTDIFF_PROMOTE_AFTER; default 3).",
)
@click.option(
    "--promote-window",
    callback=not_blank,
    help="The window fetches are counted over (or FACTDIFF_PROMOTE_WINDOW; default 7d).",
)
@click.option(
    "--read-only",
    is_flag=True,
    help="Write nothing (no use marks, fetch counts or promotion); works on a read-only store.",
)
@db_option
@json_option
def search_command(
    query: str,
    agent: str | None,
    k: int,
    tier: str | None,
    include_source: str,
    touch: str | None,
    promote_after: str | None,
    promote_window: str | None,
    read_only: bool,
    db: str,
    as_json: bool,
) -> None:
    """Search memory: entries holding the query's facts first, then by text relevance."""
    settings = resolve_retrieval_settings(
        promote_after=promote_after, promote_window=promote_window, touch=touch
    )
    opened = open_store_to_read(db) if read_only else open_store(db, create=False)
    with opened as store:
        hits = store.search(
            query,
            agent=agent,
            k=k,
            tiers=(tier,) if tier else ("hot", "warm"),
            include_source=include_source,
            touch=not read_only,
            settings=settings,
        )
    if as_json:
        echo_json(search_document(query, hits))
        return
    out = console()
    if not hits:
        out.print(text(f"no entry matches {query!r}"))
        return
    for rank, hit in enumerate(hits, start=1):
        print_hit(out, rank, hit)


def print_hit(out: Console, rank: int, hit: SearchHit) -> None:
    """One hit: header, text with matches highlighted, matched facts, gaps, the share of
    source sentences verified and the unverified ones the summary dropped, source."""
    from rich.text import Text

    when = hit.occurred_at.isoformat() if hit.occurred_at else "-"
    schema = f"{hit.schema.get('name') or '-'} v{hit.schema.get('version') or '-'}"
    out.print(
        Text.assemble(
            (f"{rank}. ", "bold"),
            text(hit.entry_id, "bold"),
            "  agent=",
            text(hit.agent),
            f"  tier={hit.tier}  score={hit.score:.3f}  occurred_at=",
            text(when),
            "  schema=",
            text(schema),
        )
    )
    surfaces = _surfaces(hit)
    label = "narrative" if hit.tier == "warm" else "source"
    body = text(hit.text)
    body.highlight_words(surfaces, MATCH_STYLE, case_sensitive=False)
    out.print(Text.assemble((f"{label}: ", "bold"), body))
    for match in hit.matched:
        where = "" if match.where == "text" else "  (only in the archived source)"
        value = match.value if isinstance(match.value, str) else str(match.value)
        what = f"fact {match.field}: " if match.kind == "fact" else "word: "
        out.print(Text.assemble("  matched ", text(what), text(value, MATCH_STYLE), text(where)))
    asked = {gap.field for gap in hit.gap_hit}
    for gap in hit.known_gaps:
        style = GAP_STYLE if gap.field in asked else ""
        note = "  <- the query asks about it" if gap.field in asked else ""
        criticality = "-" if gap.criticality is None else gap.criticality.value
        out.print(
            Text.assemble("  known gap: ", text(gap.field, style), text(f" ({criticality}){note}"))
        )
    if hit.verified_share is not None:
        out.print(text(f"  verified: {hit.verified_share:.0%} of the source's sentences"))
    for sentence in hit.unverified:
        out.print(Text.assemble("  not checked, dropped: ", text(f'"{sentence}"')))
    if hit.source is not None:
        source = text(hit.source)
        source.highlight_words(surfaces, MATCH_STYLE, case_sensitive=False)
        out.print(Text.assemble(("archived source (hash-checked): ", "bold"), source))
    out.print("")


def _surfaces(hit: SearchHit) -> list[str]:
    """The strings to highlight: matched words and the stated forms of matched facts."""
    words = [str(m.value) for m in hit.matched if m.kind == "text"]
    if hit.facts is not None:
        from factdiff.retrieve.keys import record_facts

        fields = {(m.field, str(m.value)) for m in hit.matched if m.kind == "fact"}
        for name, fact in record_facts(hit.facts):
            if (name, str(fact.value.canonical())) in fields and fact.text:
                words.append(fact.text)
    return sorted({w for w in words if w.strip()}, key=len, reverse=True)
