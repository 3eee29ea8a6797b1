"""The README and the docs as a new user follows them.

Every command printed in a shell block of ``README.md`` and ``docs/**/*.md`` is run here as
printed (``RUN``: in document order, by bash, in a sandbox folder with a fresh default store,
against a real ``factdiff serve`` for the curl lines, with the key the docs create, and the
LLM commands against a scripted server on 127.0.0.1 named by the variables the docs name),
or listed with the reason it cannot run here (``NOT_RUN``). A command that appears in the
docs and in neither list fails ``test_every_documented_command_is_run_or_listed``, as does
an entry of either list that the docs no longer print. The worked example's figures stated
in the README are the ones the CLI prints.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from factdiff.store import open_store
from tests.acceptance.doc_commands import DocCommand, program, read_docs, runnable
from tests.acceptance.test_cli import factdiff, worked_path
from tests.conftest import ROOT, WORKED
from tests.integration.service_helpers import free_port

NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
}  # fmt: skip


@dataclass(frozen=True)
class Run:
    """How a documented command runs here.

    ``kind``: ``once`` (run, wait), ``serve`` (left running for the rest of its block),
    ``worker`` (started, its metrics read, stopped), ``mcp`` (an MCP session over its stdio),
    ``export`` (its variables kept for the commands after it), ``make`` (its own test).
    ``bind``: placeholder word -> value (``{name}`` takes the sandbox's entry ``name``).
    ``codes``: the exit codes the docs allow; ``expect``: a text its output holds;
    ``capture``: the variable set to the ``key`` of its JSON output.
    """

    kind: str = "once"
    bind: Mapping[str, str] = field(default_factory=dict)
    codes: tuple[int, ...] = (0,)
    expect: str = ""
    capture: str = ""


DORMANT = datetime(2026, 1, 1, tzinfo=UTC)

CHECKED = (0, 1, 3)
"""``check`` and ``compress`` exit 0 clean, 3 acceptable with notes, 1 failed."""

RUN: dict[str, Run] = {
    "make demo": Run("make"),
    "factdiff check --schema customer_service source.txt summary.txt": Run(
        codes=(1,), expect="outcome: failed"
    ),
    "factdiff check --schema customer_service source.txt summary.txt --json": Run(
        codes=(1,), expect='"outcome": "failed"'
    ),
    "factdiff check source.txt summary.txt": Run(codes=CHECKED, expect="outcome:"),
    "factdiff extract --schema customer_service source.txt --json": Run(expect="INV-9182"),
    "factdiff schema validate my_schema.yaml": Run(expect="ok: customer_service"),
    "factdiff schema show customer_service --json-schema": Run(expect='"properties"'),
    "factdiff add --agent support-bot --occurred-at 2026-03-14T19:32Z --schema "
    "customer_service note.txt": Run(),
    "factdiff add --jsonl notes.jsonl": Run(),
    "factdiff demote --older-than 14d": Run(expect="demotion:"),
    "factdiff show ENTRY_ID": Run(bind={"ENTRY_ID": "{warm1}"}, expect="warm"),
    "factdiff list --status review": Run(),
    "factdiff events --type compression_failure --json": Run(expect='"events"'),
    "factdiff stats": Run(expect="memory score per agent"),
    "factdiff restore ENTRY_ID": Run(bind={"ENTRY_ID": "{warm1}"}, expect="restored"),
    "factdiff compress note.txt --schema customer_service --json": Run(
        codes=CHECKED, expect='"outcome"'
    ),
    "factdiff keys create --agent support-bot --json": Run(capture="KEY", expect='"scope"'),
    "factdiff keys create --operator": Run(expect="fd_"),
    "factdiff serve --port 8787": Run("serve"),
    "curl -H \"Authorization: Bearer $KEY\" -H 'Content-Type: application/json' "
    '-d \'{"text": "Invoice INV-9182: $14,250"}\' localhost:8787/v1/entries': Run(expect='"id"'),
    "curl -H \"Authorization: Bearer $KEY\" 'localhost:8787/v1/search?q=14250+USD&k=3'": Run(
        expect="INV-9182: $14,250"
    ),
    "factdiff mcp --agent support-bot": Run("mcp"),
    "factdiff worker --metrics-port 9101": Run("worker"),
    "factdiff search 'fourteen thousand two hundred fifty dollars'": Run(expect="INV-9182"),
    "factdiff search 'what time does the courier for #W2378156 arrive?' --json": Run(
        expect='"hits"'
    ),
    "factdiff search QUERY --agent support-bot -k 5 --tier warm --include-source always": Run(
        bind={"QUERY": "INV-9182"}, expect="archived source"
    ),
    "factdiff context ID1 ID2 --json": Run(bind={"ID1": "{warm1}", "ID2": "{warm2}"}),
    "factdiff attest --decision refund-42 ID1 ID2": Run(
        bind={"ID1": "{warm1}", "ID2": "{warm2}"}, expect="attested decision refund-42"
    ),
    "factdiff attest verify refund-42": Run(),
    "factdiff forget ID1 ID2 --reason 'erasure request 42'": Run(
        bind={"ID1": "{warm1}", "ID2": "{warm2}"}, expect="erased"
    ),
    "factdiff forget --agent support-bot --reason 'account closed' --json": Run(),
    "factdiff forget ID --vacuum": Run(bind={"ID": "{gone}"}, expect="store vacuumed"),
    "factdiff correct ID fixed.txt --reason 'amount misheard'": Run(bind={"ID": "{kept}"}),
    "factdiff show ID": Run(bind={"ID": "{gone}"}, expect="erased"),
    "export OPENAI_API_KEY=... ANTHROPIC_API_KEY=...": Run("export"),
    "factdiff compress note.txt --schema customer_service --summarizer "
    "anthropic:claude-sonnet-4-5 --extractor jury:openai:gpt-4.1-mini": Run(codes=CHECKED),
    "FACTDIFF_SUMMARIZER=openai:gpt-4.1-mini factdiff demote": Run(expect="demotion:"),
    "factdiff demote --concurrency 32 --in-flight 16 --deadline 60s --summarizer "
    "openai:o3-mini --model-param 'openai:o3-mini:token_param=max_completion_tokens'": Run(
        expect="demotion:"
    ),
    "factdiff schema register support_calls_v2.yaml": Run(expect="support_calls v2"),
    "factdiff schema diff support_calls 1 2": Run(expect="support_calls v1 -> v2"),
    "factdiff reevaluate --schema support_calls": Run(),
    "factdiff report losses --schema support_calls": Run(),
    "factdiff stats --agent support-bot": Run(expect="memory score per agent"),
    "factdiff schema list": Run(expect="support_calls"),
    "factdiff check --schema support_calls@1 source.txt summary.txt": Run(codes=CHECKED),
    "factdiff reevaluate --schema support_calls [--to-version 2] [--agent A] [--all] "
    "[--dry-run] [--json]": Run(bind={"A": "ops-bot"}, expect='"checked"'),
    "factdiff report losses [--schema NAME] [--agent A] [--since ISO] [--json]": Run(
        bind={"NAME": "support_calls", "A": "ops-bot", "ISO": "2020-01-01T00:00Z"},
        expect='"groups"',
    ),
    "factdiff keys create --agent support-bot [--name N] [--json]": Run(
        bind={"N": "support-bot-2"}, expect='"support-bot-2"'
    ),
    "factdiff keys create --operator [--name N]": Run(bind={"N": "ops-2"}, expect="fd_"),
    "factdiff keys list [--json]": Run(expect='"ops-2"'),
    "factdiff keys revoke NAME": Run(bind={"NAME": "support-bot-2"}, expect="revoked"),
    "factdiff serve [--host 127.0.0.1] [--port 8787] [--workers N] [--max-body-bytes B] "
    "[--db ...]": Run("serve", bind={"N": "2", "B": "1048576", "...": "factdiff.db"}),
    "factdiff models check --extractor openai:smollm2 --summarizer extractive --json": Run(
        expect='"structured_output": "json_schema"'
    ),
    "factdiff copy --from factdiff.db --to moved.db": Run(expect="copied factdiff.db"),
    "factdiff verify --db moved.db": Run(expect="ok: every hot source"),
    "factdiff export --out memory.jsonl": Run(),
    "factdiff export --agent support-bot --out support-bot.jsonl": Run(),
    "factdiff import memory.jsonl --db imported.db": Run(expect="imported memory.jsonl"),
    "factdiff mcp [--agent A] [--db ...]": Run(
        "mcp", bind={"A": "support-bot", "...": "factdiff.db"}
    ),
}
"""Every documented command that runs here, by its text without comment."""

NOT_RUN: dict[str, str] = {
    "factdiff serve --ssl-certfile CERT --ssl-keyfile KEY [--forwarded-allow-ips IPS]": (
        "needs a certificate; served over TLS in tests/acceptance/test_serve_session_cookie.py"
    ),
    "make test": "the test suite itself",
    "make local-llm": (
        "compiles llama.cpp (15-30 min once, then cached); the tests marked real_model start "
        "the server it installs (tests/local_llm.py)"
    ),
    "FACTDIFF_TEST_PG_DSN=postgresql://postgres@127.0.0.1:5432/test FACTDIFF_REQUIRE_PG=1 "
    "make test": "the test suite itself (on PostgreSQL)",
    "pip install 'factdiff[postgres]'": (
        "downloads from a package index; `make install` installs the postgres extra"
    ),
    "export FACTDIFF_DB='postgresql://factdiff@db.internal/memory?options=-csearch_path"
    "%3Dfactdiff'": "names a remote PostgreSQL server (db.internal), and so do the lines below",
    "factdiff migrate": "in docs/workers.md it migrates the remote server FACTDIFF_DB names",
    "factdiff worker --concurrency 8": (
        "in docs/workers.md a long-running worker on the remote server; a worker runs here "
        "as `factdiff worker --metrics-port 9101`"
    ),
}
"""Documented commands that cannot run here, with the reason."""

PROSE_BLOCKS = {
    "factdiff/values/     typed values and their comparison (money, dates, IDs, names, tool "
    "calls)": "README's layout of the package",
    "f      = min(1, failure_rate + max(0, trend))      # a climbing failure rate counts at "
    "once": "docs/evolution.md's health formula",
}
"""Shell-looking blocks that hold no command, by first line."""

SUPPORT_CALLS = """schema: support_calls
version: {version}
inventory: {{identifier: critical, money: critical, date: critical}}
fields:
  invoice_id: {{type: identifier, pattern: 'INV-\\d+', criticality: critical}}
  invoice_total: {{type: money, criticality: critical, cues: [totaling, total]}}
{extra}"""


def test_every_documented_command_is_run_or_listed() -> None:
    commands, prose, problems = read_docs(ROOT)
    assert not problems, problems
    keys = {c.key for c in commands}
    unlisted = [f"{c.where}: {c.key}" for c in commands if c.key not in RUN | NOT_RUN]
    assert not unlisted, "documented commands neither run nor listed:\n" + "\n".join(unlisted)
    assert RUN.keys() & NOT_RUN.keys() == set()
    stale = sorted((RUN.keys() | NOT_RUN.keys()) - keys)
    assert not stale, f"listed but no longer documented: {stale}"
    unknown = [
        f"{b.path}:{b.line}: {b.first_line}" for b in prose if b.first_line not in PROSE_BLOCKS
    ]
    assert not unknown, f"blocks that are neither commands nor known prose: {unknown}"
    assert {b.first_line for b in prose} == PROSE_BLOCKS.keys()


class Sandbox:
    """A folder with the docs' files, a fresh default store, and the environment the docs'
    commands run in (``factdiff`` of this interpreter first on ``PATH``)."""

    def __init__(self, folder: Path, llm_url: tuple[str, str]) -> None:
        folder.mkdir()
        self.folder = folder
        self.entries: dict[str, str] = {}
        home = folder / "home"
        (folder / "tmp").mkdir()
        home.mkdir()
        # curl's own config: an HTTP error answer is an exit code, as a script would want
        (home / ".curlrc").write_text("--fail-with-body\n--silent\n--show-error\n")
        bin_dir = str(Path(sys.executable).parent)
        assert shutil.which("factdiff", path=bin_dir), "factdiff is not installed next to python"
        keep = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("FACTDIFF_", "OPENAI_", "ANTHROPIC_", "CURL"))
            and not k.lower().endswith("_proxy")
            and k != "COLUMNS"
        }
        self.env = {
            **keep,
            "PATH": f"{bin_dir}{os.pathsep}{keep.get('PATH', '')}",
            "HOME": str(home),
            "TMPDIR": str(folder / "tmp"),
            "OPENAI_BASE_URL": llm_url[0],
            "ANTHROPIC_BASE_URL": llm_url[1],
            "NO_PROXY": "localhost,127.0.0.1",
            "no_proxy": "localhost,127.0.0.1",
        }
        self.ports = {"8787": str(free_port()), "9101": str(free_port())}

    def copy(self, folder: Path) -> Sandbox:
        """The same files, store and entries in ``folder``: each block starts from them."""
        shutil.copytree(self.folder, folder)
        twin = Sandbox.__new__(Sandbox)
        twin.folder, twin.entries, twin.ports = folder, dict(self.entries), dict(self.ports)
        twin.env = {**self.env, "HOME": str(folder / "home"), "TMPDIR": str(folder / "tmp")}
        return twin

    def bash(self, line: str) -> subprocess.CompletedProcess[str]:
        """``line`` run by bash in the sandbox, as a user would type it."""
        return subprocess.run(
            ["bash", "-c", line], cwd=self.folder, env=self.env, capture_output=True,
            text=True, check=False, timeout=300,
        )  # fmt: skip

    def cli(self, *args: str) -> str:
        """A setup step (not a documented command): the CLI, which must succeed."""
        run = subprocess.run(
            [sys.executable, "-m", "factdiff.cli", *args], cwd=self.folder, env=self.env,
            capture_output=True, text=True, check=False, timeout=300,
        )  # fmt: skip
        assert run.returncode == 0, (args, run.stdout, run.stderr)
        return run.stdout.strip()

    def prepare(self) -> None:
        """The files the docs name, and entries for their placeholders: ``warm1`` and
        ``warm2`` (support-bot, warm), ``kept`` and ``gone`` (billing-bot, hot and dormant),
        an ops-bot entry warm under ``support_calls`` v1 (so v2 finds it due)."""
        source = (WORKED / "source.txt").read_text(encoding="utf-8")
        files = {
            "source.txt": source,
            "summary.txt": (WORKED / "fluent.txt").read_text(encoding="utf-8"),
            "note.txt": source,
            "fixed.txt": source.replace("$14,250", "$14,520"),
            "my_schema.yaml": (ROOT / "schemas" / "customer_service.yaml").read_text("utf-8"),
            "notes.jsonl": "".join(
                json.dumps({"text": text, "agent": "support-bot"}) + "\n"
                for text in ("Order ORD-5521 shipped on 2026-02-10.", "Call CM-7800 at 10:30.")
            ),
            "support_calls_v1.yaml": SUPPORT_CALLS.format(version=1, extra=""),
            "support_calls_v2.yaml": SUPPORT_CALLS.format(
                version=2, extra="  payment_deadline: {type: date, criticality: critical}\n"
            ),
        }
        for name, text in files.items():
            (self.folder / name).write_text(text, encoding="utf-8")
        old = ("--occurred-at", "2026-01-01T00:00Z")
        for name in ("warm1", "warm2"):
            self.entries[name] = self.cli("add", "--agent", "support-bot", *old, "source.txt")
        with open_store(self.folder / "factdiff.db") as store:  # dormant: demote takes them
            for name in ("kept", "gone"):
                self.entries[name] = store.add(
                    "billing-bot", source, now=DORMANT, occurred_at=DORMANT, last_used_at=DORMANT
                )
        self.cli("schema", "register", "support_calls_v1.yaml")
        self.cli("add", "--agent", "ops-bot", "--schema", "support_calls", *old, "note.txt")
        self.cli("demote", "--agent", "support-bot", "--now", "2099-01-01T00:00Z",
                 "--ladder", "extractive:1.0x")  # fmt: skip
        self.cli("demote", "--agent", "ops-bot", "--now", "2099-01-01T00:00Z",
                 "--ladder", "extractive:1.0x")  # fmt: skip

    def line(self, command: DocCommand, spec: Run) -> str:
        bind = {word: value.format(**self.entries) for word, value in spec.bind.items()}
        return runnable(command.text, bind, self.ports)


def _check(command: DocCommand, spec: Run, run: subprocess.CompletedProcess[str]) -> None:
    shown = (command.where, command.key, run.returncode, run.stdout[-3000:], run.stderr[-3000:])
    assert run.returncode in spec.codes, shown
    assert "Traceback" not in run.stderr, shown
    assert spec.expect in run.stdout, shown


class Server:
    """A documented long-running command, started in its own process group."""

    def __init__(self, sandbox: Sandbox, command: DocCommand, line: str) -> None:
        self.command = command
        self.process = subprocess.Popen(
            ["bash", "-c", line], cwd=sandbox.folder, env=sandbox.env, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, start_new_session=True,
        )  # fmt: skip

    def wait_for(self, url: str) -> httpx.Response:
        """The first answer of ``url`` (the process must stay up until it answers)."""
        deadline = time.monotonic() + 120
        while True:
            assert self.process.poll() is None, (self.command.where, self.stop())
            try:
                return httpx.get(url, timeout=5)
            except httpx.TransportError:
                assert time.monotonic() < deadline, (self.command.where, "never answered")
                time.sleep(0.2)

    def stop(self) -> tuple[int, str, str]:
        """SIGTERM to its process group; its exit code and output."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
        out, err = self.process.communicate(timeout=120)
        return self.process.returncode, out, err


def _serve(sandbox: Sandbox, command: DocCommand, line: str) -> Server:
    server = Server(sandbox, command, line)
    ready = server.wait_for(f"http://127.0.0.1:{sandbox.ports['8787']}/healthz")
    assert ready.status_code == 200, (command.where, ready.text)
    return server


def _stopped(server: Server) -> None:
    """Stopped by SIGTERM: exit 0, or the signal itself re-raised after a graceful shutdown
    (uvicorn's way), never a traceback."""
    code, out, err = server.stop()
    assert code in (0, -signal.SIGTERM), (server.command.where, code, out[-2000:], err[-2000:])
    assert "Traceback" not in err, (server.command.where, err[-3000:])


def _worker(sandbox: Sandbox, command: DocCommand, line: str) -> None:
    worker = Server(sandbox, command, line)
    metrics = worker.wait_for(f"http://127.0.0.1:{sandbox.ports['9101']}/metrics")
    assert metrics.status_code == 200
    assert "factdiff_review_backlog" in metrics.text
    _stopped(worker)


def _mcp(sandbox: Sandbox, command: DocCommand, line: str) -> None:
    """An MCP session with the SDK's client over the command's stdio: its tools, a recall."""
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(
        command="bash", args=["-c", line], env=sandbox.env, cwd=str(sandbox.folder)
    )

    async def session() -> None:
        async with Client(params) as client:
            tools = {tool.name for tool in (await client.list_tools()).tools}
            assert {"remember", "recall", "get_memory", "check_summary"} <= tools
            found = await client.call_tool("recall", {"query": "INV-9182", "k": 1})
            assert not found.is_error, (command.where, found)

    anyio.run(session)


def _export(sandbox: Sandbox, command: DocCommand, line: str) -> None:
    """Run the export as printed and keep the variables it set."""
    run = sandbox.bash(f"{line}\nenv -0")
    assert run.returncode == 0, (command.where, run.stderr)
    exported = dict(item.split("=", 1) for item in run.stdout.split("\0") if "=" in item)
    for name in re.findall(r"\b([A-Z_][A-Z0-9_]*)=", line):
        sandbox.env[name] = exported[name]


def test_documented_commands_run_as_printed(tmp_path: Path) -> None:
    """Every command of ``RUN`` in document order, ``make`` apart, each scenario in a copy of
    one prepared sandbox: a block of the README is a scenario of its own (the erasure
    block's ``forget --agent`` must not empty the next section's store), a page of ``docs/``
    is one (its blocks follow each other)."""
    from factdiff.schema.loader import load_schema
    from factdiff.testing import RulesOracle, ScriptedLLMServer

    oracle = RulesOracle(load_schema(ROOT / "schemas" / "customer_service.yaml"))
    server = ScriptedLLMServer((), responder=oracle).start()
    try:
        prepared = Sandbox(tmp_path / "prepared", (server.openai_url, server.anthropic_url))
        prepared.prepare()
        commands, _, _ = read_docs(ROOT)
        scenarios: dict[str, list[DocCommand]] = {}
        for c in commands:
            scene = f"README-{c.block}" if c.path == "README.md" else c.path.replace("/", "-")
            scenarios.setdefault(scene, []).append(c)
        for scene, mine in scenarios.items():
            if any(c.key in RUN and RUN[c.key].kind != "make" for c in mine):
                _run_scenario(prepared.copy(tmp_path / scene), mine)
        not_run = [c.where for c in commands if c.key in RUN and not _can_run(c)]
    finally:
        server.stop()
    # the model commands reached the scripted server, each with its documented model and
    # parameter (o3-mini's token limit under max_completion_tokens)
    called = {(r.provider, str(r.body.get("model"))): r.body for r in server.requests}
    for model in (("anthropic", "claude-sonnet-4-5"), ("openai", "gpt-4.1-mini"),
                  ("openai", "o3-mini")):  # fmt: skip
        assert model in called, (model, sorted(called))
    assert "max_completion_tokens" in called[("openai", "o3-mini")]
    if not_run:
        pytest.skip(f"curl is not installed: the commands at {not_run} did not run")


def _can_run(command: DocCommand) -> bool:
    """Whether the program of a command is here (curl may be missing; the rest is ours)."""
    return program(command.text) != "curl" or shutil.which("curl") is not None


def _run_scenario(sandbox: Sandbox, commands: list[DocCommand]) -> None:
    """Commands in order; a server one starts runs until its block ends."""
    serving: Server | None = None
    block = 0
    for command in commands:
        if command.block != block and serving is not None:
            _stopped(serving)
            serving = None
        block = command.block
        spec = RUN.get(command.key)
        if spec is None or spec.kind == "make" or not _can_run(command):
            continue
        line = sandbox.line(command, spec)
        if spec.kind == "serve":
            serving = _serve(sandbox, command, line)
        elif spec.kind == "worker":
            _worker(sandbox, command, line)
        elif spec.kind == "mcp":
            _mcp(sandbox, command, line)
        elif spec.kind == "export":
            _export(sandbox, command, line)
        else:
            run = sandbox.bash(line)
            _check(command, spec, run)
            if spec.capture:
                sandbox.env[spec.capture] = json.loads(run.stdout)["key"]
    if serving is not None:
        _stopped(serving)


def test_make_demo() -> None:
    """``make demo`` as printed, in the repository (its store goes to a temporary folder)."""
    stamp = ROOT / ".venv" / ".installed"
    fresh = subprocess.run(["make", "-q", "install"], cwd=ROOT, check=False).returncode == 0
    if Path(sys.prefix).resolve() != (ROOT / ".venv").resolve() or not stamp.exists() or not fresh:
        pytest.skip("`make demo` installs into .venv first: run the tests from an installed .venv")
    env = {k: v for k, v in os.environ.items() if not k.startswith("FACTDIFF_")}
    run = subprocess.run(
        ["bash", "-c", "make demo"], cwd=ROOT, env=env, capture_output=True, text=True,
        check=False, timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, (run.stdout[-3000:], run.stderr[-3000:])
    assert "Failure rate per attempt" in run.stdout


def test_worked_example_figures_match_the_output() -> None:
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    stated = re.search(r"fails with (\w+) critical facts missing \((\w+) facts in all", readme)
    assert stated, "the README no longer states the worked example's figures"
    run = factdiff(
        "check", "--schema", "customer_service", worked_path("source"), worked_path("fluent"),
        "--json",
    )  # fmt: skip
    missing = json.loads(run.stdout)["missing"]
    critical = [m for m in missing if m["criticality"] == "critical"]
    assert NUMBERS[stated.group(1)] == len(critical)
    assert NUMBERS[stated.group(2)] == len(missing)
    changed = factdiff(
        "check", "--schema", "customer_service", worked_path("source"), worked_path("changed"),
        "--json",
    )  # fmt: skip
    assert "changing `$2,400` to `$2,500` fails with exactly that change" in readme
    assert [c["field"] for c in json.loads(changed.stdout)["changed"]] == ["disputed_amount"]
