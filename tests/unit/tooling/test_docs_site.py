"""The docs site's structure: every page in the nav, every nav entry a page, README links
into ``docs/`` pointing at pages and headings that exist."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import yaml

from tests.conftest import ROOT

GENERATED = {f"reference/{name}.md" for name in ("cli", "http", "settings", "python")}
"""Pages ``scripts/docs_hooks.py`` adds at build time (no file in ``docs/``)."""


def _nav_pages(node: object) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, list):
        for item in node:
            yield from _nav_pages(item)
    elif isinstance(node, dict):
        for value in node.values():
            yield from _nav_pages(value)


def _config() -> dict[str, object]:
    loaded = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def test_every_page_is_in_the_nav_and_every_nav_entry_is_a_page() -> None:
    nav = list(_nav_pages(_config()["nav"]))
    files = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")}
    assert len(nav) == len(set(nav))
    assert set(nav) == files | GENERATED
    assert not files & GENERATED


def test_the_build_is_strict_and_offline() -> None:
    config = _config()
    assert config["strict"] is True
    theme = config["theme"]
    assert isinstance(theme, dict)
    assert theme["font"] is False  # no web fonts fetched
    assert config["site_dir"] == "site"
    assert "/site/" in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()


def _slug(heading: str) -> str:
    """The id the docs' Markdown gives a heading (and GitHub, for these headings)."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return re.sub(r"[\s]+", "-", text)


def _anchors(page: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.S | re.M)
    return {_slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, re.M)}


def test_readme_links_into_docs_reach_pages_and_headings() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\((docs/[^)#\s]+)(?:#([^)\s]+))?\)", readme)
    assert links
    for target, anchor in links:
        page = ROOT / target
        assert page.is_file(), target
        if anchor:
            assert anchor in _anchors(page), (target, anchor)


def test_slugs_match_the_headings_readme_links_to() -> None:
    assert _slug("Service: HTTP API, keys, metrics, MCP") == "service-http-api-keys-metrics-mcp"
    assert _slug("Where the figures come from") == "where-the-figures-come-from"
