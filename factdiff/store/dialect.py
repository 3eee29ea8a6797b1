"""The dialect seam: where a backend's SQL text and migrations come from.

Statements are named blocks (``-- name: <key>``) with named parameters (``:name``) in
``*.sql`` files, one per concern (``queries.sql``, ``retrieval.sql``...). Those that read
alike on both backends live once in ``sql/common/``; ``sql/<dialect>/`` holds a dialect's own
(a key there wins over the common one), and ``migrations/<dialect>/NNNN_<name>.sql`` its
migrations: ``0001_baseline.sql`` declares every table of a new store, and a later change of the
schema is a migration numbered after it. The store's Python code never spells
SQL itself; both dialects supply the same keys (PostgreSQL's ``:name`` parameters become
psycopg's ``%(name)s`` when loaded), both call the database clock ``factdiff_now_us()``, and
both number their migrations alike, so a schema version means the same tables on either.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from importlib.abc import Traversable
from itertools import pairwise
from pathlib import Path

from factdiff.errors import StoreError

_NAME = re.compile(r"^--\s*name:\s*(\w+)\s*$", re.MULTILINE)
_MIGRATION = re.compile(r"^(\d{4})_(\w+)\.sql$")
_PARAM = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")
PYFORMAT_DIALECTS = frozenset({"postgres"})
"""Dialects whose driver takes ``%(name)s`` parameters: their ``:name`` text is converted."""


@dataclass(frozen=True)
class Migration:
    """One migration script: applying it brings the store to ``version``."""

    version: int
    name: str
    sql: str


def parse_queries(text: str) -> dict[str, str]:
    """Split a queries file into its named blocks (comments between blocks are dropped)."""
    queries: dict[str, str] = {}
    parts = _NAME.split(text)
    for key, body in zip(parts[1::2], parts[2::2], strict=True):
        lines = [ln for ln in body.strip().splitlines() if not ln.lstrip().startswith("--")]
        queries[key] = "\n".join(lines).strip()
    return queries


def to_pyformat(sql: str) -> str:
    """``:name`` parameters as ``%(name)s`` (``::type`` casts and literal ``%`` kept)."""
    return _PARAM.sub(r"%(\1)s", sql.replace("%", "%%"))


def load_migrations(folder: Traversable | Path) -> tuple[Migration, ...]:
    """Every ``NNNN_name.sql`` in ``folder``, in version order, starting at 1.

    Numbers only need to increase (features developed side by side take their own numbers,
    so a gap such as 3 -> 6 is allowed); two migrations with one number are an error.
    """
    found: list[Migration] = []
    for item in folder.iterdir():
        match = _MIGRATION.match(item.name)
        if match:
            found.append(Migration(int(match[1]), match[2], item.read_text("utf-8")))
    found.sort(key=lambda m: m.version)
    if found and found[0].version != 1:
        raise StoreError(f"migration {found[0].version:04d} is out of sequence: none is 0001")
    for before, migration in pairwise(found):
        if migration.version == before.version:
            raise StoreError(f"two migrations are numbered {migration.version:04d}")
    return tuple(found)


def load_queries(folder: Traversable | Path) -> dict[str, str]:
    """The named statements of every ``*.sql`` file in ``folder``.

    ``queries.sql`` comes first, then the others in name order; a key defined twice is an
    error naming both files.
    """
    files = sorted(
        (item for item in folder.iterdir() if item.name.endswith(".sql")),
        key=lambda item: (item.name != "queries.sql", item.name),
    )
    queries: dict[str, str] = {}
    origin: dict[str, str] = {}
    for item in files:
        for key, sql in parse_queries(item.read_text("utf-8")).items():
            if key in queries:
                raise StoreError(f"query {key} is defined in {origin[key]} and {item.name}")
            queries[key], origin[key] = sql, item.name
    return queries


def resolve_queries(
    dialect_dir: Traversable | Path, common_dir: Traversable | Path
) -> dict[str, str]:
    """The statements of a dialect: its own (``load_queries``), then the common ones it does
    not define itself."""
    own = load_queries(dialect_dir)
    common = load_queries(common_dir) if common_dir.is_dir() else {}
    return {**common, **own}


@dataclass(frozen=True)
class Dialect:
    """A backend's SQL: named queries and the migrations (the baseline first)."""

    name: str
    queries: Mapping[str, str]
    migrations: tuple[Migration, ...] = field(default=())

    @property
    def baseline(self) -> str:
        """The name of migration 0001, which every store this code opens starts from."""
        return self.migrations[0].name if self.migrations else ""

    @property
    def version(self) -> int:
        """The schema version this code expects: the last migration's."""
        return self.migrations[-1].version if self.migrations else 0

    def sql(self, key: str, **filters: bool) -> str:
        """The statement ``key``, with the ``filter_*`` blocks whose flag is true spliced in."""
        text = self.queries[key]
        if "{filters}" in text:
            prefix = key.split("_", maxsplit=1)[0]
            parts = [self.queries[f"filter_{prefix}_{f}"] for f, on in filters.items() if on]
            text = text.replace("{filters}", " ".join(parts))
        return text


def load_dialect(name: str) -> Dialect:
    """The packaged dialect ``name`` (``sqlite`` or ``postgres``)."""
    root = resources.files("factdiff.store")
    sql_dir = root / "sql" / name
    queries = resolve_queries(sql_dir, root / "sql" / "common")
    if name in PYFORMAT_DIALECTS:
        queries = {key: to_pyformat(sql) for key, sql in queries.items()}
    return Dialect(
        name=name,
        queries=queries,
        migrations=load_migrations(root / "migrations" / name),
    )
