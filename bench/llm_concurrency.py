"""LLM demotion concurrency, client CPU, call counts and tokens, against the scripted server.

Run: ``.venv/bin/python bench/llm_concurrency.py [--latency 0.2] [--entries-per-slot 8]
[--provider openai|anthropic] [--extract-workers N] [--concurrency 8,32,128]``

The server (``factdiff.testing.ScriptedLLMServer``) runs in its own process (spawned), so the
client side does not share its GIL; both share the machine's cores. It answers every request
after a fixed latency L: a summary request with the extractive summary of the entry at the
requested word budget (computed in the server process before timing; every compression is
clean), an extraction request like the rules extractor would (``RulesOracle``).

1. **Throughput**: ``Demoter.run(now, concurrency=C)`` (what ``factdiff demote --concurrency
   C`` runs) over a fresh SQLite store of ~1 KB call notes, rules extractor (offline), LLM
   summarizer (one model call per entry). Ideal = C / L entries per second. Client CPU per
   compression: this process's CPU (user + system) over the pass divided by the entries,
   and separately the CPU of the extraction worker processes over the same pass (from
   ``/proc``; 0 without them). The server process's CPU per entry is shown apart (*server*):
   on a machine of few cores it shares them with the client. A
   warm-up pass (4 entries per slot, not timed) starts the SDK clients and the process pool.
2. **LLM calls** per clean compression and per retry, with an LLM extractor
   (``openai:bench-extractor``) and an LLM summarizer: counted by the server.
3. **Tokens** per entry for ~1 KB and ~8 KB entries with the LLM extractor (as the server
   reports them: request body and answer characters / 4).

Figures depend on the machine and on everything else running on it: report them with that.
Section 1 first times a fixed standard-library workload (*U*, ``reference_ms``) and gives
each pass's CPU per entry in those units too (*total/U*), to compare runs made on different
machines or days. It ends with the **floor** of a compression's client CPU, measured in this
process right after the passes, part by part: *SDK call*, the same summary calls made alone
through the SDK at each C (nothing else in flight), client CPU per call; *verify*, the rules
extraction of each entry's rung-0 summary and the diff, alone. Every compression makes one
such call and one such verification, so no pass can cost less than their sum (*floor*);
*- floor* is what the rest of a pass (the store's reads and writes, the warm row's encoding,
the window, the worker processes) added per entry, *x floor* the pass's total over it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import re
import resource
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from factdiff.compression.engine import Rung
from factdiff.compression.pipeline import compress_many
from factdiff.compression.process_pool import shutdown_pools
from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.demotion.retry import RetryPolicy
from factdiff.demotion.runner import work_for
from factdiff.extraction.llm import LLMExtractor
from factdiff.providers import CallPolicy, ModelSpec, runtime, set_provider_limit, shutdown
from factdiff.schema.loader import load_schema
from factdiff.schema.model import FactSchema
from factdiff.store import open_store
from factdiff.summarize import ExtractiveSummarizer, SummaryRequest
from factdiff.summarize.llm import LLMSummarizer
from factdiff.testing import Answer, RecordedRequest, RulesOracle, ScriptedLLMServer
from factdiff.testing.oracle import entry_text
from factdiff.verify.check import DEFAULT_EXTRACTOR, verify
from factdiff.verify.policy import Outcome

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "schemas" / "customer_service.yaml"
TEMPLATE = (ROOT / "tests" / "fixtures" / "worked_example" / "source.txt").read_text().strip()
FILLER = (
    "The agent reviewed the account history, confirmed the contact details on file and "
    "noted that the customer had been polite and patient throughout the conversation. "
)
T0 = datetime(2026, 3, 14, 19, 32, tzinfo=UTC)
NOW = T0 + timedelta(days=30)


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


def lossy(text: str) -> str:
    """The entry without its tool-call sentence (drops the credit memo id)."""
    return text.split(" Tool call:", maxsplit=1)[0]


class Responder:
    """Extractive summaries for summary requests, rules-like answers for extraction ones."""

    def __init__(self, schema: FactSchema, texts: list[str], latency: float, lossy_first: bool):
        self.oracle = RulesOracle(schema)
        self.latency = latency
        self.lossy_first = lossy_first
        self.summaries = {
            (text, budget): summary
            for budget in BUDGETS
            for text, summary in zip(
                texts, extractive_summaries(schema, texts, budget), strict=True
            )
        }

    def __call__(self, request: RecordedRequest) -> Answer:
        if request.structured:
            return self.oracle(request).after(self.latency)
        text = entry_text(request)
        message = request.last_user_message
        if self.lossy_first and "MUST state" not in message:
            return Answer.text(lossy(text)).after(self.latency)
        budget = int(message.split("at most ", 1)[1].split(" words", 1)[0])
        summary = self.summaries.get((text, budget), text)
        return Answer.text(summary).after(self.latency)


BUDGETS = (120, 400)
"""The ladder's word budgets: rung 0 (120 words) passes for every 1 KB entry."""


def extractive_summaries(schema: FactSchema, texts: list[str], budget: int) -> list[str]:
    """The summary the scripted server answers for each text at ``budget`` words."""
    summarizer = ExtractiveSummarizer()
    return [
        summarizer.summarize(
            SummaryRequest(text, schema, DEFAULT_EXTRACTOR.extract(text, schema), budget)
        ).text
        for text in texts
    ]


def _serve(
    conn: Connection, schema_path: str, texts: list[str], latency: float, lossy_first: bool
) -> None:
    """The server process: answer until told to stop, then report what it saw."""
    responder = Responder(load_schema(schema_path), texts, latency, lossy_first)
    server = ScriptedLLMServer(responder=responder).start()
    try:
        conn.send(server.port)
        conn.recv()
        conn.send((server.request_count, server.max_in_flight))
    finally:
        server.stop()


class ServerProcess:
    """``ScriptedLLMServer`` with the responder above, in a spawned process."""

    def __init__(self, texts: list[str], latency: float, lossy_first: bool = False) -> None:
        context = multiprocessing.get_context("spawn")
        self._conn, child = context.Pipe()
        self._process = context.Process(
            target=_serve, args=(child, str(SCHEMA), texts, latency, lossy_first), daemon=True
        )
        self._process.start()
        self.port: int = self._conn.recv()

    def cpu_seconds(self) -> float:
        """The server process's CPU so far."""
        return process_cpu_seconds(self._process.pid or 0)

    def url(self, provider: str) -> str:
        base = f"http://127.0.0.1:{self.port}"
        return f"{base}/v1" if provider == "openai" else base

    def stop(self) -> tuple[int, int]:
        """Stop the server; (requests received, most in flight at once)."""
        self._conn.send("stop")
        counts: tuple[int, int] = self._conn.recv()
        self._process.join(timeout=30)
        return counts


def process_cpu_seconds(pid: int) -> float:
    """CPU (user + system) of process ``pid`` so far (from ``/proc``; 0 when unreadable)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_seconds(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def pool_cpu_seconds(size: int) -> float:
    """CPU (user + system) of the shared extraction processes of ``size`` so far."""
    from factdiff.compression.executor import Work

    return sum(process_cpu_seconds(pid) for pid in Work.processes(size).worker_pids())


def summarizer_for(server: ServerProcess, provider: str, latency: float) -> LLMSummarizer:
    spec = ModelSpec(provider, "bench-summarizer", server.url(provider), "sk-bench")
    return LLMSummarizer(spec, policy=CallPolicy(deadline_s=60 + 10 * latency, max_attempts=1))


def demotion_pass(
    schema: FactSchema,
    count: int,
    concurrency: int,
    latency: float,
    provider: str,
    extract_workers: int | None,
) -> dict[str, Any]:
    """Load ``count`` entries into a fresh store and time one pass at ``concurrency``."""
    texts = [entry(i, 1024) for i in range(count)]
    warm = [entry(100_000 + i, 1024) for i in range(4 * concurrency)]
    server = ServerProcess(texts + warm, latency)
    with tempfile.TemporaryDirectory() as folder, open_store(Path(folder) / "m.db") as store:
        summarizer = summarizer_for(server, provider, latency)
        settings = DemotionSettings(
            ladder=(Rung(summarizer, budget_words=BUDGETS[0]),),
            retry=RetryPolicy(max_attempts=1),
            extract_workers=extract_workers,
        )
        demoter = Demoter(store, settings)
        for text in warm:
            store.add("warm", text, now=T0, occurred_at=T0, schema="customer_service")
        demoter.run(NOW, agent="warm", concurrency=concurrency)  # SDK clients, process pool
        for text in texts:
            store.add("bench", text, now=T0, occurred_at=T0, schema="customer_service")
        size = work_for(concurrency, extract_workers).process_count
        self_before, pool_before = cpu_seconds(resource.RUSAGE_SELF), pool_cpu_seconds(size)
        server_before = server.cpu_seconds()
        started = time.perf_counter()
        report = demoter.run(NOW, agent="bench", concurrency=concurrency, keep_results=False)
        seconds = time.perf_counter() - started
        self_cpu = cpu_seconds(resource.RUSAGE_SELF) - self_before
        pool_cpu = pool_cpu_seconds(size) - pool_before
        server_cpu = server.cpu_seconds() - server_before
    shutdown_pools()
    shutdown()
    requests, in_flight = server.stop()
    return {
        "seconds": seconds,
        "clean": report.counts.get("clean", 0),
        "counts": report.counts,
        "self_cpu": self_cpu,
        "pool_cpu": pool_cpu,
        "server_cpu": server_cpu,
        "requests": requests,
        "in_flight": in_flight,
        "stages": report.seconds,
    }


def reference_ms(rounds: int = 41) -> float:
    """The median CPU time of a fixed standard-library workload (regex scans, JSON round
    trips and sorts of the worked example's words) in this process: the machine's speed,
    independent of factdiff's code, to compare runs made on different machines or days."""
    words = re.findall(r"\w+", TEMPLATE * 4)
    timings = []
    for _ in range(rounds):
        started = time.process_time()
        for _ in range(20):
            found = re.findall(r"\b[A-Z][\w-]*\d\b|\$[\d,.]+|\d{4}-\d\d-\d\d", TEMPLATE * 4)
            json.loads(json.dumps({"words": sorted(words), "found": found}, sort_keys=True))
        timings.append(time.process_time() - started)
    return statistics.median(timings) * 1000


def throughput(args: argparse.Namespace, schema: FactSchema) -> None:
    latency = args.latency
    workers = "auto" if args.extract_workers is None else str(args.extract_workers)
    unit = reference_ms()
    print(
        f"1. demotion throughput, L = {latency * 1000:.0f} ms per call, 1 model call per entry "
        f"(rules extractor, {args.provider} summarizer), extraction processes: {workers}, "
        f"{os.cpu_count()} cores"
    )
    print(
        f"   machine speed: the reference workload takes {unit:.2f} ms of CPU here (U); "
        "total/U is the CPU per entry in those units"
    )
    print(
        f"{'C':>5} {'entries':>8} {'seconds':>8} {'entries/s':>10} {'ideal':>7} {'ratio':>6}"
        f" {'in flight':>9} {'CPU ms/entry':>13} {'+ pool':>7} {'= total':>8} {'server':>7}"
        f" {'total/U':>8}"
    )
    passes: list[tuple[int, float]] = []
    for concurrency in args.concurrency:
        count = max(64, concurrency * args.entries_per_slot)
        result = demotion_pass(
            schema, count, concurrency, latency, args.provider, args.extract_workers
        )
        if result["clean"] != count:
            print(f"  warning: {count - result['clean']} not clean: {result['counts']}")
        achieved = count / result["seconds"]
        ideal = concurrency / latency
        main_ms = result["self_cpu"] / count * 1000
        pool_ms = result["pool_cpu"] / count * 1000
        print(
            f"{concurrency:>5} {count:>8} {result['seconds']:>8.2f} {achieved:>10.1f}"
            f" {ideal:>7.1f} {achieved / ideal:>6.2f} {result['in_flight']:>9}"
            f" {main_ms:>13.2f} {pool_ms:>7.2f} {main_ms + pool_ms:>8.2f}"
            f" {result['server_cpu'] / count * 1000:>7.2f} {(main_ms + pool_ms) / unit:>8.2f}"
        )
        stages = ", ".join(f"{k} {v:.2f}" for k, v in result["stages"].items())
        print(f"      busy seconds per stage (overlap counted once): {stages}")
        passes.append((concurrency, main_ms + pool_ms))
    floor(args, schema, passes)


def sdk_call_ms(provider: str, latency: float, concurrency: int, count: int) -> float:
    """Client CPU per call of ``count`` rung-0 summary calls made alone through the SDK,
    ``concurrency`` at a time, against the scripted server (after an untimed warm-up)."""
    schema = load_schema(SCHEMA)
    texts = [entry(i, 1024) for i in range(count + concurrency)]
    record = DEFAULT_EXTRACTOR.extract(texts[0], schema)  # a rung-0 prompt does not read it
    requests = [SummaryRequest(text, schema, record, BUDGETS[0]) for text in texts]
    server = ServerProcess(texts, latency)
    summarizer = summarizer_for(server, provider, latency)

    async def calls(batch: list[SummaryRequest]) -> None:
        bound = asyncio.Semaphore(concurrency)

        async def one(request: SummaryRequest) -> None:
            async with bound:
                await summarizer.asummarize(request)

        await asyncio.gather(*(one(request) for request in batch))

    try:
        runtime.run(calls(requests[:concurrency]))
        before = cpu_seconds(resource.RUSAGE_SELF)
        runtime.run(calls(requests[concurrency:]))
        spent = cpu_seconds(resource.RUSAGE_SELF) - before
    finally:
        shutdown()
        server.stop()
    return spent / count * 1000


def verification_ms(schema: FactSchema, count: int, rounds: int = 5) -> float:
    """CPU per entry of the verification alone: the rules extraction of each entry's
    rung-0 summary and the diff against its source record (best of ``rounds``)."""
    texts = [entry(i, 1024) for i in range(count)]
    records = [DEFAULT_EXTRACTOR.extract(text, schema) for text in texts]
    summaries = extractive_summaries(schema, texts, BUDGETS[0])
    best = float("inf")
    for _ in range(rounds):
        started = time.process_time()
        for summary, record in zip(summaries, records, strict=True):
            verify(record, DEFAULT_EXTRACTOR.extract(summary, schema, record.reference), schema)
        best = min(best, time.process_time() - started)
    return best / count * 1000


def floor(args: argparse.Namespace, schema: FactSchema, passes: list[tuple[int, float]]) -> None:
    """The floor of a compression's client CPU next to what each pass spent (see the module
    docstring)."""
    verification = verification_ms(schema, 256)
    print(
        "   floor of a compression's client CPU, each part measured alone right after: the SDK "
        "call (at C) and the verification"
    )
    print(
        f"{'C':>5} {'SDK call':>9} {'+ verify':>9} {'= floor':>8} {'pass total':>11}"
        f" {'- floor':>8} {'x floor':>8}"
    )
    for concurrency, total in passes:
        count = max(64, concurrency * args.entries_per_slot)
        call = sdk_call_ms(args.provider, args.latency, concurrency, count)
        least = call + verification
        print(
            f"{concurrency:>5} {call:>9.2f} {verification:>9.2f} {least:>8.2f} {total:>11.2f}"
            f" {total - least:>8.2f} {total / least:>8.2f}"
        )


def llm_components(server: ServerProcess, latency: float) -> tuple[LLMExtractor, LLMSummarizer]:
    policy = CallPolicy(deadline_s=60 + 10 * latency, max_attempts=1)
    extractor = LLMExtractor(
        ModelSpec("openai", "bench-extractor", server.url("openai"), "sk-bench"), policy=policy
    )
    return extractor, summarizer_for(server, "anthropic", latency)


def llm_run(
    schema: FactSchema, texts: list[str], lossy_first: bool
) -> tuple[int, list[Any], LLMExtractor, LLMSummarizer]:
    server = ServerProcess(texts, 0.0, lossy_first)
    try:
        extractor, summarizer = llm_components(server, 0.0)
        ladder = (
            Rung(summarizer, budget_words=BUDGETS[0]),
            Rung(summarizer, BUDGETS[1], strictness=1),
        )
        results = asyncio.run(
            compress_many(texts, schema, ladder, extractor=extractor, concurrency=8)
        )
    finally:
        shutdown()
        calls, _ = server.stop()
    return calls, results, extractor, summarizer


def calls_and_tokens(schema: FactSchema) -> None:
    print("\n2. LLM calls with an LLM extractor (counted by the server)")
    texts = [entry(i, 1024) for i in range(8)]
    calls, results, _, _ = llm_run(schema, texts, False)
    outcomes = {getattr(r, "outcome", type(r).__name__) for r in results}
    print(f"   per clean compression: {calls / len(texts):.2f} (outcomes {outcomes})")
    calls_retry, results, _, _ = llm_run(schema, texts, True)
    rungs = sum(len(r.attempts) for r in results if hasattr(r, "attempts"))
    final = {r.outcome.value for r in results if hasattr(r, "outcome")}
    extra = calls_retry - calls
    print(
        f"   with one failed rung first: {calls_retry / len(texts):.2f} per entry "
        f"({rungs / len(texts):.0f} rungs, final {final}); per retry: "
        f"{extra / max(1, rungs - len(texts)):.2f}"
    )
    print("\n3. tokens per entry (LLM extractor and summarizer, clean compression: 3 calls)")
    print(f"{'entry':>8} {'chars':>6} {'tokens in':>10} {'tokens out':>11} {'extract':>8}")
    for size in (1024, 8192):
        texts = [entry(i, size) for i in range(8)]
        _, results, extractor, summarizer = llm_run(schema, texts, False)
        if any(getattr(r, "outcome", None) is not Outcome.CLEAN for r in results):
            print("   warning: not every compression was clean")
        used_in = extractor.client.usage.tokens_in + summarizer.client.usage.tokens_in
        used_out = extractor.client.usage.tokens_out + summarizer.client.usage.tokens_out
        share = extractor.client.usage.tokens_in / used_in
        print(
            f"{size // 1024:>6} KB {len(texts[0]):>6} {used_in / len(texts):>10.0f} "
            f"{used_out / len(texts):>11.0f} {share:>8.0%}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2, help="L, seconds per call")
    parser.add_argument("--entries-per-slot", type=int, default=8)
    parser.add_argument("--provider", choices=("openai", "anthropic"), default="openai")
    parser.add_argument(
        "--extract-workers", type=int, default=None, help="extraction processes (default: auto)"
    )
    parser.add_argument(
        "--concurrency",
        type=lambda v: [int(c) for c in v.split(",")],
        default=[1, 8, 32, 128],
        help="comma-separated C values",
    )
    parser.add_argument("--skip-calls", action="store_true", help="only section 1")
    args = parser.parse_args()
    schema = load_schema(SCHEMA)
    for provider in ("openai", "anthropic"):
        set_provider_limit(provider, None)
    throughput(args, schema)
    if not args.skip_calls:
        calls_and_tokens(schema)


if __name__ == "__main__":
    main()
