"""scripts/import_graph.py on a small package written for the test."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import ROOT


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("import_graph", ROOT / "scripts/import_graph.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("import_graph", module)
    spec.loader.exec_module(module)
    return module


def _package(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / "factdiff" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_cycles_layers_and_sizes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _package(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "from factdiff import b\n",
            "b.py": "import factdiff.a\n\n\ndef f():\n    import factdiff.c\n",
            "c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import factdiff.a\n",
            "d.py": "def g():\n    from factdiff.pkg import e\n",
            "pkg/__init__.py": "from factdiff.pkg import e\n",
            "pkg/e.py": "from . import __name__ as _n\nfrom ..c import *\n\n\ndef h():\n"
            "    import factdiff.d\n",
        },
    )
    graph_module = _script()
    graph, lines = graph_module.build_graph(tmp_path)
    assert graph["factdiff.a"] == {"factdiff.b"}
    assert graph["factdiff.b"] == {"factdiff.a"}
    assert graph["factdiff.c"] == set()  # TYPE_CHECKING imports do not count
    assert graph["factdiff.pkg"] == {"factdiff.pkg.e"}
    assert graph["factdiff.pkg.e"] == {"factdiff.pkg", "factdiff.c"}
    assert lines["factdiff.pkg.e"] == 6
    assert graph_module.main(["import_graph.py", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "import cycles: 2\n" in out
    assert "  2 modules: factdiff.a, factdiff.b\n" in out
    assert "  2 modules: factdiff.pkg, factdiff.pkg.e\n" in out
    assert "cycles counting imports inside functions too: 2\n" in out
    assert "  3 modules: factdiff.d, factdiff.pkg, factdiff.pkg.e\n" in out
    assert "cycles counting every import (TYPE_CHECKING blocks too): 2\n" in out
    assert "  3 modules: factdiff.a, factdiff.b, factdiff.c\n" in out
    assert "cycles between packages (every import): 2\n" in out
    assert "  2 modules: factdiff.d, factdiff.pkg\n" in out
    assert "layers: 2\n" in out
    assert graph_module.main(["import_graph.py", str(tmp_path), "--check"]) == 1


def test_check_passes_a_package_without_cycles(tmp_path: Path) -> None:
    _package(
        tmp_path,
        {
            "__init__.py": "from factdiff import a\n",
            "a.py": "from factdiff.pkg import e\n",
            "pkg/__init__.py": "",
            "pkg/e.py": "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    import factdiff.b\n",
            "b.py": "VALUE = 1\n",
        },
    )
    graph_module = _script()
    assert graph_module.main(["import_graph.py", str(tmp_path), "--check"]) == 0
