"""mkdocs hooks of the docs site (``mkdocs.yml``): the generated reference pages.

``on_files`` adds ``reference/cli.md``, ``reference/http.md``, ``reference/settings.md``,
``reference/python.md`` and ``reference/openapi.json`` to the build, written by
``scripts/docs_reference.py`` and ``scripts/docs_openapi.py`` from the commands, the app, the
settings model and the package's public names. Nothing is written to ``docs/``: the pages
cannot go stale.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

if str(Path(__file__).parent) not in sys.path:  # the scripts beside this one, as run directly
    sys.path.insert(0, str(Path(__file__).parent))

from docs_openapi import openapi_document
from docs_reference import PAGES, page


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """The generated reference pages, added to the site's files."""
    for name in PAGES:
        files.append(File.generated(config, f"reference/{name}.md", content=page(name)))
    document = json.dumps(openapi_document(), indent=2, sort_keys=True) + "\n"
    files.append(File.generated(config, "reference/openapi.json", content=document))
    return files
