"""factdiff as a user gets it: a wheel and an sdist, installed in a fresh virtual environment
outside the repository, with every extra (the package registry serves the dependencies).

The installed ``factdiff`` must run its demo, migrate a store on SQLite and on PostgreSQL,
show its built-in schemas, and serve the API with its pages and their assets: what the
checkout holds beside the package (tests, fixtures, the repository's ``schemas/``) is not
there to lean on.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import time
import tomllib
import zipfile
from pathlib import Path

import httpx
import pytest

from tests.conftest import ROOT
from tests.integration.conftest import admin_dsn, create_schema, drop_schema
from tests.integration.service_helpers import free_port

EXTRAS = "server,postgres,llm,langgraph,openai-agents"
PACKAGE_DATA = (
    "factdiff/schema/data/customer_service.yaml",
    "factdiff/store/migrations/sqlite/0001_baseline.sql",
    "factdiff/store/migrations/postgres/0001_baseline.sql",
    "factdiff/store/sql/common/queries.sql",
    "factdiff/ui/static/style.css",
    "factdiff/ui/templates/entry.html",
    "factdiff/extraction/data/given_names.txt",
)


def version() -> str:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return str(project["version"])


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``python -m build`` of the checkout: the sdist and the wheel."""
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
        check=True,
        capture_output=True,
    )
    return out


@pytest.fixture(scope="module")
def installed(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with the wheel and every extra: its ``bin``."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    (wheel,) = dist.glob("factdiff-*.whl")
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", f"{wheel}[{EXTRAS}]"],
        check=True,
        capture_output=True,
    )
    return venv / "bin"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A working folder outside the repository."""
    assert ROOT not in tmp_path.parents
    return tmp_path


def outside_env() -> dict[str, str]:
    """This environment without the variables that would point Python at the checkout."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}


def run(bin_dir: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The installed ``factdiff`` with ``args``, in ``cwd``, with no Python path of ours."""
    env = outside_env()
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(
        [str(bin_dir / "factdiff"), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )


def test_the_wheel_and_the_sdist_hold_the_package_data(dist: Path) -> None:
    (wheel,) = dist.glob("factdiff-*.whl")
    (sdist,) = dist.glob("factdiff-*.tar.gz")
    assert wheel.name == f"factdiff-{version()}-py3-none-any.whl"
    in_wheel = set(zipfile.ZipFile(wheel).namelist())
    with tarfile.open(sdist) as archive:
        in_sdist = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for name in PACKAGE_DATA:
        assert name in in_wheel, name
        assert name in in_sdist, name
    assert not any(name.startswith("tests/") for name in in_wheel)


def test_the_installed_command_works_outside_the_repository(installed: Path, outside: Path) -> None:
    python = installed / "python"
    where = subprocess.run(
        [str(python), "-c", "import factdiff; print(factdiff.__file__)"],
        cwd=outside,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert ROOT not in Path(where.strip()).parents  # the installed copy, not the checkout
    assert run(installed, outside, "--version").stdout.strip().endswith(version())
    shown = run(installed, outside, "schema", "show", "customer_service", "--json-schema")
    assert '"properties"' in shown.stdout
    demo = run(installed, outside, "demo", "--count", "20", "--db", str(outside / "demo.db"))
    assert "warm" in demo.stdout
    migrated = run(installed, outside, "migrate", "--db", str(outside / "new.db"), "--json")
    assert json.loads(migrated.stdout)["schema_version"] >= 1


LANGGRAPH_USE = """
from factdiff.integrations.langgraph import FactdiffStore
with FactdiffStore("lg.db") as store:
    store.put(("support-bot", "acme"), "refund", {"note": "Refund for order 88213."})
    (hit,) = store.search(("support-bot",), query="order 88213")
    print(hit.value["note"], hit.factdiff["facts"]["inventory.identifier"][0]["value"])
"""


def test_the_installed_langgraph_store_works(installed: Path, outside: Path) -> None:
    shown = subprocess.run(
        [str(installed / "python"), "-c", LANGGRAPH_USE],
        cwd=outside,
        env=outside_env(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert shown.strip() == "Refund for order 88213. 88213"


OPENAI_AGENTS_USE = """
import asyncio
from agents.memory import Session
from factdiff.integrations.openai_agents import FactdiffSession

async def main():
    async with FactdiffSession("ticket-7", "oa.db", agent="support-bot") as session:
        assert isinstance(session, Session)
        await session.add_items([{"role": "user", "content": "Refund order 88213."}])
        (item,) = await session.get_items()
        print(item["content"])

asyncio.run(main())
"""


def test_the_installed_openai_agents_session_works(installed: Path, outside: Path) -> None:
    shown = subprocess.run(
        [str(installed / "python"), "-c", OPENAI_AGENTS_USE],
        cwd=outside,
        env=outside_env(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert shown.strip() == "Refund order 88213."


@pytest.mark.postgres
def test_the_installed_command_migrates_a_postgresql_store(installed: Path, outside: Path) -> None:
    base = admin_dsn()
    name, dsn = create_schema(base)
    try:
        migrated = run(installed, outside, "migrate", "--db", dsn, "--json")
        assert json.loads(migrated.stdout)["schema_version"] >= 1
        listed = run(installed, outside, "list", "--db", dsn, "--json")
        assert json.loads(listed.stdout)["entries"] == []
    finally:
        drop_schema(base, name)


def test_the_installed_server_serves_the_api_pages_and_assets(
    installed: Path, outside: Path
) -> None:
    port = free_port()
    db = str(outside / "served.db")
    run(installed, outside, "migrate", "--db", db)
    env = outside_env()
    server = subprocess.Popen(
        [str(installed / "factdiff"), "serve", "--db", db, "--port", str(port)],
        cwd=outside,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"{base}/readyz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "factdiff serve did not become ready"
            time.sleep(0.2)
        login = httpx.get(f"{base}/ui/login", timeout=10)
        assert login.status_code == 200
        assert "<form" in login.text
        style = httpx.get(f"{base}/ui/static/style.css", timeout=10)
        assert style.status_code == 200
        assert style.headers["content-type"].startswith("text/css")
        assert httpx.get(f"{base}/docs", timeout=10).status_code == 200
    finally:
        server.terminate()
        server.wait(timeout=30)
