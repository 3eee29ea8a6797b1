"""``factdiff models check`` and ``factdiff extract --extractor`` as a user runs them: the CLI
as a subprocess against the scripted server (refusing ``json_schema`` as llama.cpp does)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest

pytest.importorskip("openai")
pytest.importorskip("anthropic")

from factdiff.schema.builtin import builtin_schema
from factdiff.testing import RulesOracle, ScriptedLLMServer
from tests.acceptance.test_cli import worked_path

MODELS = ("test-extractor", "test-summarizer")


@pytest.fixture
def llama_like() -> Iterator[ScriptedLLMServer]:
    oracle = RulesOracle(builtin_schema("customer_service"), summary=lambda text: text[:300])
    with ScriptedLLMServer(responder=oracle, rejects=("json_schema",), models=MODELS) as server:
        yield server


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("FACTDIFF_")}
    environ.update(OPENAI_API_KEY="sk-test-not-a-key", COLUMNS="120", **env)
    return subprocess.run(
        [sys.executable, "-m", "factdiff.cli", *args],
        capture_output=True,
        text=True,
        env=environ,
        check=False,
        timeout=120,
    )


def test_models_check_finds_the_form_and_does_each_roles_work(
    llama_like: ScriptedLLMServer,
) -> None:
    done = run(
        "models",
        "check",
        "--extractor",
        "openai:test-extractor",
        "--summarizer",
        "openai:test-summarizer",
        "--json",
        OPENAI_BASE_URL=llama_like.openai_url,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] is True
    assert [(r["role"], r["ok"]) for r in report["roles"]] == [
        ("extractor", True),
        ("summarizer", True),
    ]
    extractor, summarizer = report["models"]
    assert extractor["model"] == "openai:test-extractor"
    assert extractor["reachable"] is True
    assert extractor["listed"] is True
    assert extractor["structured_output"] == "json_object"
    assert extractor["extraction"]["facts"]["invoice_id"] == "INV-9182"
    assert extractor["extraction"]["tokens_in"] > 0
    assert extractor["extraction"]["calls"][0]["http_calls"] == 2  # json_schema refused
    assert summarizer["summary"]["ok"] is True
    assert summarizer["summary"]["outcome"] in ("clean", "acceptable_with_notes", "failed")
    assert summarizer["summary"]["tokens_out"] > 0
    assert summarizer["extraction"] is None


def test_models_check_says_connection_refused_and_exits_1(llama_like: ScriptedLLMServer) -> None:
    nowhere = f"http://127.0.0.1:{closed_port()}"
    done = run(
        "models",
        "check",
        "--extractor",
        "openai:test-extractor",
        "--summarizer",
        "anthropic:test-summarizer",
        OPENAI_BASE_URL=llama_like.openai_url,
        ANTHROPIC_BASE_URL=nowhere,
        ANTHROPIC_API_KEY="sk-test-not-a-key",
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"connection refused by {nowhere}" in done.stdout
    assert "timed out" not in done.stdout
    assert "extractor openai:test-extractor: ok" in done.stdout
    assert "summarizer anthropic:test-summarizer: CANNOT WORK" in done.stdout
    assert "structured output: json_object" in done.stdout


def test_models_check_an_unlisted_model_and_a_refused_form_named(
    llama_like: ScriptedLLMServer,
) -> None:
    done = run(
        "models",
        "check",
        "--extractor",
        "openai:not-served",
        "--structured-output",
        "json_schema",
        "--json",
        OPENAI_BASE_URL=llama_like.openai_url,
    )
    assert done.returncode == 1
    (probe,) = json.loads(done.stdout)["models"]
    assert probe["listed"] is False
    error = probe["extraction"]["error"]
    assert "accepts none of the structured-output forms tried (json_schema)" in error
    assert llama_like.openai_url in error


def test_extract_with_a_model_shows_its_validated_record(llama_like: ScriptedLLMServer) -> None:
    done = run(
        "extract",
        "--schema",
        "customer_service",
        worked_path("source"),
        "--extractor",
        "openai:test-extractor",
        "--json",
        OPENAI_BASE_URL=llama_like.openai_url,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["extractor"] == "openai:test-extractor/llm-extract/2"
    assert data["facts"]["customer_id"] == "cust_482"
    assert data["usage"]["calls"] == 1
    assert data["inventory"] == {}  # the model's own record: no schema-free atoms
    rules = run("extract", "--schema", "customer_service", worked_path("source"), "--json")
    assert json.loads(rules.stdout)["extractor"] == "rules/10"


def test_extract_with_an_unreachable_model_is_one_line(llama_like: ScriptedLLMServer) -> None:
    nowhere = f"http://127.0.0.1:{closed_port()}/v1"
    done = run(
        "extract",
        worked_path("source"),
        "--extractor",
        "openai:test-extractor",
        OPENAI_BASE_URL=nowhere,
    )
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1
    assert "connection refused" in done.stderr
