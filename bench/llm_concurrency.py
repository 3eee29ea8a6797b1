"""LLM pipeline concurrency, call counts and tokens, against the scripted server (offline).

Run: ``.venv/bin/python bench/llm_concurrency.py [--latency 0.1] [--entries-per-slot 4]``

The server (``factdiff.testing.ScriptedLLMServer`` on 127.0.0.1) answers every request after
a fixed latency L. Extraction answers are what the rules extractor finds in the requested
text (grounded quotes, typed values: an oracle model); a summary answer is the entry itself,
so every compression is clean in 3 calls (extract source, summarize, extract summary). The
extractor is ``openai:bench-extractor`` and the summarizer ``anthropic:bench-summarizer``,
both through the real SDK clients. The server runs in its own process (``multiprocessing``,
spawned), so the client side (SDK clients, pipeline, event loop) does not compete with it for
one GIL; both still share the machine's cores.

1. Throughput for C = 1, 8, 32, 128 compressions in flight: achieved entries/s against the
   ideal C / (calls per entry x L).
2. LLM calls per clean compression, and per retry (a first summary that drops a fact, then a
   strict rung): counted by the server.
3. Tokens per entry for ~1 KB and ~8 KB entries (as the server reports them: request body and
   answer characters / 4, i.e. prompt + schema + text).
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import re
import sys
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from factdiff.concurrency import compress_many
from factdiff.extract.llm import LLMExtractor
from factdiff.extract.rules import RulesExtractor
from factdiff.pipeline import Rung
from factdiff.policy import Outcome
from factdiff.providers import CallPolicy, ModelSpec, set_provider_limit, shutdown
from factdiff.record import Fact, FactRecord
from factdiff.schema.loader import load_schema
from factdiff.schema.model import FactSchema, FieldSpec
from factdiff.summarize.llm import LLMSummarizer
from factdiff.testing import Answer, RecordedRequest, ScriptedLLMServer
from factdiff.values.base import FactType

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "schemas" / "customer_service.yaml"
TEMPLATE = (ROOT / "tests" / "fixtures" / "worked_example" / "source.txt").read_text().strip()
FILLER = (
    "The agent reviewed the account history, confirmed the contact details on file and "
    "noted that the customer had been polite and patient throughout the conversation. "
)
TEXT = re.compile(r"<<<\n(.*)\n>>>", re.S)


def entry(index: int, size: int) -> str:
    """A worked-example call note with its own ids, padded to about ``size`` characters."""
    text = (
        TEMPLATE.replace("cust_482", f"cust_{1000 + index}")
        .replace("INV-9182", f"INV-{20000 + index}")
        .replace("CM-3392", f"CM-{50000 + index}")
    )
    while len(text) < size:
        text += " " + FILLER.strip()
    return text


def _json_value(fact: Fact, spec: FieldSpec) -> Any:
    canonical = fact.value.canonical()
    if spec.type in (FactType.MONEY, FactType.QUANTITY) and isinstance(canonical, str):
        amount, _, unit = canonical.partition(" ")
        return {"amount": amount, "currency" if spec.type is FactType.MONEY else "unit": unit}
    if spec.type in (FactType.NUMBER, FactType.PERCENT):
        return str(canonical).rstrip("%")
    if spec.type is FactType.BOOLEAN:
        return bool(canonical)
    if spec.type is FactType.TOOL_CALL:
        return {"name": "", "arguments": [], "result": ""}  # read back from the quote
    if spec.type is FactType.ENUM:
        return canonical
    return fact.text


def oracle_answer(record: FactRecord, schema: FactSchema) -> dict[str, Any]:
    """A model answer that states exactly the record's field values, with their quotes."""
    answer: dict[str, Any] = {}
    for spec in schema.fields:
        items = [{"value": _json_value(f, spec), "quote": f.text} for f in record.fields[spec.name]]
        answer[spec.name] = items if spec.many else (items[0] if items else None)
    return answer


class Oracle:
    """Responder: oracle extraction; the summary is the entry (or, unstrict, a lossy one)."""

    def __init__(self, schema: FactSchema, lossy_first: bool = False) -> None:
        self.schema = schema
        self.lossy_first = lossy_first
        self.answers: dict[str, dict[str, Any]] = {}

    def prepare(self, texts: list[str]) -> None:
        rules = RulesExtractor()
        for text in texts:
            for variant in (text, lossy(text)):
                if variant not in self.answers:
                    record = rules.extract(variant, self.schema)
                    self.answers[variant] = oracle_answer(record, self.schema)

    def __call__(self, request: RecordedRequest) -> Answer:
        found = TEXT.search(request.last_user_message)
        text = found.group(1) if found else ""
        if request.structured:
            return Answer.json(self.answers[text])
        if self.lossy_first and "MUST state" not in request.last_user_message:
            return Answer.text(lossy(text))
        return Answer.text(text)


def lossy(text: str) -> str:
    """The entry without its tool-call sentence (drops the credit memo id)."""
    return text.split(" Tool call:", maxsplit=1)[0]


def _serve(
    conn: Connection, schema_path: str, texts: list[str], latency: float, lossy_first: bool
) -> None:
    """The server process: answer until told to stop, then report the request count."""
    oracle = Oracle(load_schema(schema_path), lossy_first)
    oracle.prepare(texts)
    server = ScriptedLLMServer(responder=lambda r: oracle(r).after(latency)).start()
    try:
        conn.send(server.port)
        conn.recv()
        conn.send(server.request_count)
    finally:
        server.stop()


class ServerProcess:
    """``ScriptedLLMServer`` with the oracle responder, in a spawned process."""

    def __init__(self, texts: list[str], latency: float, lossy_first: bool) -> None:
        context = multiprocessing.get_context("spawn")
        self._conn, child = context.Pipe()
        self._process = context.Process(
            target=_serve, args=(child, str(SCHEMA), texts, latency, lossy_first), daemon=True
        )
        self._process.start()
        self.port: int = self._conn.recv()

    @property
    def openai_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> int:
        """Stop the server; the requests it received."""
        self._conn.send("stop")
        count: int = self._conn.recv()
        self._process.join(timeout=30)
        return count


def components(server: ServerProcess, latency: float) -> tuple[LLMExtractor, LLMSummarizer]:
    policy = CallPolicy(deadline_s=60 + 10 * latency, max_attempts=1)
    extractor = LLMExtractor(
        ModelSpec("openai", "bench-extractor", server.openai_url, "sk-bench"), policy=policy
    )
    summarizer = LLMSummarizer(
        ModelSpec("anthropic", "bench-summarizer", server.anthropic_url, "sk-bench"),
        policy=policy,
    )
    return extractor, summarizer


def run(
    schema: FactSchema, texts: list[str], concurrency: int, latency: float, lossy_first: bool
) -> tuple[float, int, list[Any], LLMExtractor, LLMSummarizer]:
    server = ServerProcess(texts, latency, lossy_first)
    calls = 0
    try:
        extractor, summarizer = components(server, latency)
        ladder = (Rung(summarizer, budget_ratio=0.5), Rung(summarizer, 1.0, strictness=1))
        started = time.perf_counter()
        results = asyncio.run(
            compress_many(texts, schema, ladder, extractor=extractor, concurrency=concurrency)
        )
        seconds = time.perf_counter() - started
    finally:
        shutdown()
        calls = server.stop()
    return seconds, calls, results, extractor, summarizer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.1, help="L, seconds per call")
    parser.add_argument("--entries-per-slot", type=int, default=4)
    args = parser.parse_args()
    latency = args.latency
    schema = load_schema(SCHEMA)
    for provider in ("openai", "anthropic"):
        set_provider_limit(provider, 1024)
    run(schema, [entry(0, 1024)], 1, 0.0, False)  # warm up: SDK imports stay out of timings

    print(f"1. throughput, L = {latency * 1000:.0f} ms per call, 3 calls per clean entry")
    print(f"{'C':>5} {'entries':>8} {'seconds':>8} {'entries/s':>10} {'ideal':>8} {'ratio':>6}")
    for concurrency in (1, 8, 32, 128):
        count = max(8, concurrency * args.entries_per_slot)
        texts = [entry(i, 1024) for i in range(count)]
        seconds, calls, results, _, _ = run(schema, texts, concurrency, latency, False)
        clean = sum(1 for r in results if getattr(r, "outcome", None) is Outcome.CLEAN)
        if clean != count:
            errors = {type(r).__name__ for r in results if isinstance(r, BaseException)}
            print(f"  warning: {count - clean} not clean ({errors})")
        per_entry = calls / count
        achieved = count / seconds
        ideal = concurrency / (per_entry * latency)
        print(
            f"{concurrency:>5} {count:>8} {seconds:>8.2f} {achieved:>10.1f} {ideal:>8.1f}"
            f" {achieved / ideal:>6.2f}"
        )

    print("\n2. LLM calls (counted by the server)")
    texts = [entry(i, 1024) for i in range(8)]
    _, calls, _, _, _ = run(schema, texts, 8, 0.0, False)
    print(f"   per clean compression: {calls / len(texts):.2f}")
    _, calls_retry, results, _, _ = run(schema, texts, 8, 0.0, True)
    rungs = sum(len(r.attempts) for r in results if hasattr(r, "attempts"))
    outcomes = [r.outcome.value for r in results if hasattr(r, "outcome")]
    extra = calls_retry - calls
    print(
        f"   with one failed rung first: {calls_retry / len(texts):.2f} per entry "
        f"({rungs / len(texts):.0f} rungs, final {set(outcomes)}); per retry: "
        f"{extra / (rungs - len(texts)):.2f}"
    )

    print("\n3. tokens per entry (clean compression: 3 calls)")
    print(f"{'entry':>8} {'chars':>6} {'tokens in':>10} {'tokens out':>11} {'extract':>8}")
    for size in (1024, 8192):
        texts = [entry(i, size) for i in range(8)]
        _, _, _, extractor, summarizer = run(schema, texts, 8, 0.0, False)
        used_in = extractor.client.usage.tokens_in + summarizer.client.usage.tokens_in
        used_out = extractor.client.usage.tokens_out + summarizer.client.usage.tokens_out
        share = extractor.client.usage.tokens_in / used_in
        print(
            f"{size // 1024:>6} KB {len(texts[0]):>6} {used_in / len(texts):>10.0f} "
            f"{used_out / len(texts):>11.0f} {share:>8.0%}"
        )


if __name__ == "__main__":
    main()
