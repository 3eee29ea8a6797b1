"""Print a summary of factdiff's import graph: cycles, layers and the largest modules.

Cycles are counted three ways: module-level imports only (what can fail at import time),
imports inside functions too (they run late, but still tie the modules together), and every
import, ``if TYPE_CHECKING:`` blocks included (a dependency all the same). Packages are checked
as well: a cycle between ``factdiff.store`` and ``factdiff.retrieve`` is one even when no two
modules import each other. Run from the repository root: ``python scripts/import_graph.py``;
``--check`` exits 1 when any cycle is found, counted any way.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = "factdiff"


def module_name(path: Path, root: Path) -> str:
    """The dotted module name of ``path`` under ``root``."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_type_checking(test: ast.expr) -> bool:
    """Whether an ``if`` test is ``TYPE_CHECKING`` (bare or ``typing.TYPE_CHECKING``)."""
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def top_level_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Imports executed when the module is imported (module body, try and plain if blocks)."""
    found: list[ast.Import | ast.ImportFrom] = []
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop(0)
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif isinstance(node, ast.If) and not is_type_checking(node.test):
            pending.extend(node.body + node.orelse)
        elif isinstance(node, ast.Try):
            pending.extend(node.body + node.orelse + node.finalbody)
            for handler in node.handlers:
                pending.extend(handler.body)
    return found


def deferred_imports(
    tree: ast.Module, *, type_checking: bool = False
) -> list[ast.Import | ast.ImportFrom]:
    """Every import, inside functions included; ``if TYPE_CHECKING:`` blocks too when
    ``type_checking``."""
    found: list[ast.Import | ast.ImportFrom] = []
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        if not type_checking and isinstance(node, ast.If) and is_type_checking(node.test):
            pending.extend(node.orelse)
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        pending.extend(ast.iter_child_nodes(node))
    return found


def resolve(node: ast.Import | ast.ImportFrom, name: str, is_package: bool) -> list[str]:
    """The dotted names an import statement in module ``name`` refers to: for ``from X import
    a, b`` first ``X``, then ``X.a`` and ``X.b`` (which are modules when submodules)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        anchor = name.split(".") if is_package else name.split(".")[:-1]
        anchor = anchor[: len(anchor) - (node.level - 1)]
        base = ".".join([*anchor, base]) if base else ".".join(anchor)
    return [base] + [f"{base}.{alias.name}" for alias in node.names]


def build_graph(
    root: Path, *, deferred: bool = False, type_checking: bool = False
) -> tuple[dict[str, set[str]], dict[str, int]]:
    """Module -> modules it imports at module level (with ``deferred``: anywhere, functions
    included; with ``type_checking`` as well: ``if TYPE_CHECKING:`` blocks too), and module ->
    line count."""
    files = {module_name(path, root): path for path in sorted((root / PACKAGE).rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    lines: dict[str, int] = {}
    for name, path in files.items():
        source = path.read_text(encoding="utf-8")
        lines[name] = source.count("\n")
        targets: set[str] = set()
        tree = ast.parse(source)
        if deferred or type_checking:
            nodes = deferred_imports(tree, type_checking=type_checking)
        else:
            nodes = top_level_imports(tree)
        for node in nodes:
            found = [t for t in resolve(node, name, path.name == "__init__.py") if t in files]
            if isinstance(node, ast.ImportFrom) and len(found) > 1:
                found = found[1:]  # ``from package import submodule``: the submodule's edge
            targets.update(target for target in found if target != name)
        graph[name] = targets
    return graph, lines


def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph between the top-level packages and modules of ``factdiff`` (the root module
    itself, the public face that imports everything, left out)."""

    def top(name: str) -> str | None:
        parts = name.split(".")
        return ".".join(parts[:2]) if len(parts) > 1 else None

    packages: dict[str, set[str]] = {}
    for name, targets in graph.items():
        source = top(name)
        if source is None:
            continue
        found = packages.setdefault(source, set())
        for target in targets:
            above = top(target)
            if above is not None and above != source:
                found.add(above)
    return packages


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components, iteratively, in a stable order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, list[str]]] = [(start, sorted(graph[start]))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            if children:
                child = children.pop(0)
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, sorted(graph[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return components


def layers(graph: dict[str, set[str]], components: list[list[str]]) -> dict[str, int]:
    """Layer of each module: 0 if it imports no factdiff module, else 1 + its deepest import.

    Modules in one cycle share a layer."""
    owner = {member: i for i, component in enumerate(components) for member in component}
    depth: dict[int, int] = {}
    # Tarjan emits components in reverse topological order: dependencies first.
    for i, component in enumerate(components):
        below = [
            depth[owner[target]]
            for member in component
            for target in graph[member]
            if owner[target] != i
        ]
        depth[i] = 1 + max(below) if below else 0
    return {name: depth[owner[name]] for name in graph}


def cycles_of(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one member."""
    return [component for component in strongly_connected(graph) if len(component) > 1]


def _print_cycles(title: str, cycles: list[list[str]]) -> None:
    print(f"{title}: {len(cycles)}")
    for component in cycles:
        print(f"  {len(component)} modules: {', '.join(component)}")


def main(argv: list[str]) -> int:
    check = "--check" in argv
    arguments = [argument for argument in argv[1:] if argument != "--check"]
    root = Path(arguments[0]) if arguments else Path(__file__).resolve().parent.parent
    graph, lines = build_graph(root)
    components = strongly_connected(graph)
    cycles = [component for component in components if len(component) > 1]
    edges = sum(len(targets) for targets in graph.values())
    print(f"modules: {len(graph)}  module-level import edges: {edges}")
    _print_cycles("import cycles", cycles)
    late = cycles_of(build_graph(root, deferred=True)[0])
    _print_cycles("cycles counting imports inside functions too", late)
    every = build_graph(root, deferred=True, type_checking=True)[0]
    typed = cycles_of(every)
    _print_cycles("cycles counting every import (TYPE_CHECKING blocks too)", typed)
    packaged = cycles_of(package_graph(every))
    _print_cycles("cycles between packages (every import)", packaged)
    layer_of = layers(graph, components)
    print(f"layers: {max(layer_of.values()) + 1}")
    for layer in range(max(layer_of.values()) + 1):
        members = sorted(name for name, value in layer_of.items() if value == layer)
        shown = ", ".join(members[:6]) + (", ..." if len(members) > 6 else "")
        print(f"  {layer:2d}: {len(members):3d} modules  {shown}")
    print("largest modules (lines):")
    for name, count in sorted(lines.items(), key=lambda item: (-item[1], item[0]))[:10]:
        print(f"  {count:5d}  {name}")
    found = bool(cycles or late or typed or packaged)
    return 1 if check and found else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
