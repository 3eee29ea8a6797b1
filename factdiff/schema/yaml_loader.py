"""Safe YAML reading with line numbers.

PyYAML's ``safe_load`` keeps the last of duplicate keys, follows aliases (billion-laughs),
and applies YAML 1.1 typing (``no`` is False, ``0123`` is octal, ``2024-01-01`` a date).
We compose the node tree with the safe loader and build plain Python ourselves, so that:

* duplicate keys, merge keys, aliases and non-standard tags are errors with a line number;
* only ``true``/``false`` are booleans, only plain decimal literals are numbers, quoted
  scalars are always strings, and dates stay strings;
* size and depth are bounded (depth while composing, before the composer's recursion can
  exhaust the stack).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import yaml

from factdiff.errors import SchemaError

if TYPE_CHECKING:
    from factdiff.values.base import JSON

MAX_BYTES = 1_048_576
MAX_NODES = 50_000
MAX_DEPTH = 32

_STANDARD_TAGS = frozenset(
    "tag:yaml.org,2002:" + name
    for name in ("str", "int", "float", "bool", "null", "map", "seq", "timestamp")
)
_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
_FLOAT = re.compile(r"[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
Path = tuple[str | int, ...]


@dataclass
class YamlDocument:
    """Plain Python data plus the line (1-based) where each path starts."""

    data: JSON
    lines: dict[Path, int] = field(default_factory=dict)

    def line_of(self, path: Path) -> int | None:
        """The line of ``path`` or of its closest ancestor."""
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return self.lines.get(())


def read_yaml(text: str, source: str) -> YamlDocument:
    """Parse one YAML document safely; raise ``SchemaError`` with file and line on problems."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        raise SchemaError(f"file is larger than {MAX_BYTES} bytes", source=source)
    try:
        root = yaml.compose(text, Loader=_BoundedLoader)
    except _TooDeep as exc:
        raise SchemaError(
            f"nesting deeper than {MAX_DEPTH} levels", source=source, line=exc.line
        ) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = exc.problem or exc.context or "invalid YAML"
        raise SchemaError(f"YAML syntax error: {problem}", source=source, line=line) from None
    except yaml.YAMLError as exc:
        raise SchemaError(f"YAML error: {exc}", source=source) from None
    document = YamlDocument(data=None)
    if root is None:
        raise SchemaError("the file is empty", source=source)
    builder = _Builder(source, document)
    document.data = builder.build(root, (), 0)
    return document


class _TooDeep(Exception):
    def __init__(self, line: int) -> None:
        self.line = line


class _BoundedLoader(yaml.SafeLoader):
    """The safe loader, refusing nesting deeper than ``MAX_DEPTH`` while it composes (its
    composer recurses once per level: flow-style ``[[[...]]]`` thousands deep would
    otherwise exhaust the interpreter's stack before ``_Builder`` could count the levels)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH + 1:
                event = self.peek_event()  # type: ignore[no-untyped-call]
                raise _TooDeep(event.start_mark.line + 1)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


class _Builder:
    def __init__(self, source: str, document: YamlDocument) -> None:
        self.source = source
        self.document = document
        self.seen: set[int] = set()
        self.count = 0

    def fail(self, message: str, node: yaml.Node) -> SchemaError:
        return SchemaError(message, source=self.source, line=node.start_mark.line + 1)

    def build(self, node: yaml.Node, path: Path, depth: int) -> JSON:
        self.count += 1
        if self.count > MAX_NODES:
            raise self.fail(f"more than {MAX_NODES} YAML nodes", node)
        if depth > MAX_DEPTH:
            raise self.fail(f"nesting deeper than {MAX_DEPTH} levels", node)
        if id(node) in self.seen:
            raise self.fail("YAML aliases (*name) are not allowed in schemas", node)
        self.seen.add(id(node))
        if node.tag not in _STANDARD_TAGS:
            raise self.fail(f"unsupported YAML tag {node.tag!r} (only plain YAML is allowed)", node)
        self.document.lines.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            return self.mapping(node, path, depth)
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, (*path, i), depth + 1) for i, item in enumerate(node.value)]
        assert isinstance(node, yaml.ScalarNode)
        return self.scalar(node)

    def mapping(self, node: yaml.MappingNode, path: Path, depth: int) -> dict[str, JSON]:
        result: dict[str, JSON] = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise self.fail("YAML merge keys (<<) are not allowed in schemas", key_node)
            if not isinstance(key_node, yaml.ScalarNode):
                raise self.fail("mapping keys must be plain strings", key_node)
            key = str(key_node.value)
            if key in result:
                raise self.fail(f"duplicate key {key!r}", key_node)
            self.document.lines[(*path, key)] = key_node.start_mark.line + 1
            if id(value_node) in self.seen:
                raise self.fail("YAML aliases (*name) are not allowed in schemas", key_node)
            result[key] = self.build(value_node, (*path, key), depth + 1)
        return result

    @staticmethod
    def scalar(node: yaml.ScalarNode) -> str | int | float | bool | None:
        text = str(node.value)
        if node.style in ("'", '"', "|", ">"):
            return text
        lowered = text.lower()
        if lowered in ("", "~", "null"):
            return None
        if lowered in ("true", "false"):
            return lowered == "true"
        if _INT.fullmatch(text):
            return int(text)
        if _FLOAT.fullmatch(text):
            return float(text)
        return text
