"""A real local model through the verified ladder, side by side with the extractive summarizer.

Run: ``.venv/bin/python bench/real_model.py [--limit N] [--max-chars C] [--data DIR]
[--base-url URL --model NAME]``

Entries are tau-retail dialogues (customer-service calls; ``--limit`` evenly spread, default
10, each cut to ``--max-chars``, default 1500) under the built-in ``customer_service``
schema. Each goes through ``compress`` twice in the same run, with the same ladder shape
(0.35x, 0.6x strict, 1.0x strict) and the rules extractor: once with the local model as
summarizer, once with the extractive summarizer. Without ``--base-url`` the script starts the
server ``make local-llm`` installed (llama.cpp, SmolLM2-135M-Instruct, one thread) on a free
port of 127.0.0.1. Printed per summarizer:

1. model calls: latency p50/p95, tokens in and out per call (the server's own counts);
2. summary words against the rung's budget (mean, share over budget);
3. outcomes per rung and the share of entries clean (clean or acceptable) by rung 0, 1, 2;
4. critical facts lost per attempt (missing or changed), by fact type.

The 135M model's quality is not the point: the figures show what the verifier does with
real, variable model output.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.datasets import base_parser, build_entry, load_tau, print_table, resolve_limit, spread
from factdiff.compression.pipeline import CompressionResult, Rung, compress
from factdiff.errors import FactdiffError
from factdiff.providers import CallPolicy, ModelSpec
from factdiff.schema.builtin import builtin_schema
from factdiff.schema.model import Criticality
from factdiff.summarize import ExtractiveSummarizer, Summarizer
from factdiff.summarize.llm import LLMSummarizer

SHAPE = ((0.35, 0), (0.6, 1), (1.0, 2))
"""(budget share, strictness) of each rung: the default ladder's shape."""


@dataclass
class Tally:
    """What one summarizer did over the run."""

    latencies_ms: list[float] = field(default_factory=list)
    tokens_in: list[int] = field(default_factory=list)
    tokens_out: list[int] = field(default_factory=list)
    words: list[int] = field(default_factory=list)
    over_budget: int = 0
    outcomes: dict[int, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    passed_by: Counter[int] = field(default_factory=Counter)
    lost: Counter[str] = field(default_factory=Counter)
    attempts: int = 0
    entries: int = 0
    errors: list[str] = field(default_factory=list)

    def add(self, result: CompressionResult) -> None:
        self.entries += 1
        for call in result.calls:
            if call.role != "summarize":
                continue
            self.latencies_ms.append(call.duration_ms)
            self.tokens_in.append(call.tokens_in or 0)
            self.tokens_out.append(call.tokens_out or 0)
        for attempt in result.attempts:
            self.attempts += 1
            self.outcomes[attempt.rung][attempt.outcome.value] += 1
            words = len(attempt.summary.split())
            self.words.append(words)
            self.over_budget += words > attempt.budget_words
            for finding in attempt.diff.missing + attempt.diff.changed:
                if finding.criticality is Criticality.CRITICAL:
                    self.lost[finding.fact_type.value] += 1
            if attempt.outcome.passed:
                self.passed_by[attempt.rung] += 1


def _ladder(summarizer: Summarizer) -> tuple[Rung, ...]:
    return tuple(
        Rung(summarizer, budget_ratio=share, strictness=strictness) for share, strictness in SHAPE
    )


def _pct(values: list[float], share: float) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    return f"{ordered[min(len(ordered) - 1, int(share * len(ordered)))]:.0f}"


LOCAL_POLICY = CallPolicy(deadline_s=900.0, max_output_tokens=1024)
"""The documented local setup (docs/local-models.md): a long deadline, and an output budget
that never doubles past 1,024 tokens (a 135M model can repeat itself until any budget ends)."""


@contextmanager
def _server(base_url: str | None, model: str) -> Iterator[tuple[str, str]]:
    if base_url is not None:
        yield base_url, model
        return
    from tests.local_llm import installed, serve

    found = installed()
    if found is None:
        sys.exit("no local model server: run `make local-llm` first, or pass --base-url")
    with tempfile.TemporaryDirectory() as folder, serve(*found, Path(folder) / "server.log") as s:
        yield s.base_url, s.model


def main() -> None:
    parser = base_parser(__doc__.splitlines()[0], default_limit=10)
    parser.add_argument("--max-chars", type=int, default=1500)
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--model", default="smollm2")
    args = parser.parse_args()
    schema = builtin_schema("customer_service")
    dialogues = spread(load_tau(args.data, None), resolve_limit(args.limit))
    texts = [build_entry(d, max_chars=args.max_chars).text for d in dialogues]
    texts = [t for t in texts if t.strip()]
    with _server(args.base_url, args.model) as (url, model):
        spec = ModelSpec("openai", model, base_url=url, api_key="local")
        local = LLMSummarizer(spec, policy=LOCAL_POLICY)
        contenders: dict[str, Summarizer] = {
            f"openai:{model}": local,
            "extractive": ExtractiveSummarizer(),
        }
        tallies = {name: Tally() for name in contenders}
        started = time.perf_counter()
        for index, text in enumerate(texts, 1):
            for name, summarizer in contenders.items():
                try:
                    tallies[name].add(compress(text, schema, _ladder(summarizer)))
                except FactdiffError as exc:
                    tallies[name].errors.append(f"entry {index}: {exc}")
            print(f"  entry {index}/{len(texts)} done", file=sys.stderr)
        wall = time.perf_counter() - started
    print(f"{len(texts)} tau-retail entries (<= {args.max_chars} chars), {wall:.0f} s wall\n")
    _report(tallies, len(texts))


def _report(tallies: dict[str, Tally], entries: int) -> None:
    rows = []
    for name, t in tallies.items():
        rows.append(
            [
                name,
                str(len(t.latencies_ms)),
                _pct(t.latencies_ms, 0.5),
                _pct(t.latencies_ms, 0.95),
                f"{statistics.mean(t.tokens_in):.0f}" if t.tokens_in else "-",
                f"{statistics.mean(t.tokens_out):.0f}" if t.tokens_out else "-",
                f"{statistics.mean(t.words):.0f}" if t.words else "-",
                f"{t.over_budget}/{t.attempts}",
                str(len(t.errors)),
            ]
        )
    print("model calls and summaries")
    print_table(
        ["summarizer", "calls", "p50 ms", "p95 ms", "tok in", "tok out", "words", "over", "err"],
        rows,
    )
    print("\noutcomes per rung; share of entries clean (or acceptable) by rung 0, 1, 2")
    rows = []
    for name, t in tallies.items():
        passed = 0
        shares = []
        for rung in range(len(SHAPE)):
            passed += t.passed_by[rung]
            shares.append(f"{passed / max(1, entries):.2f}")
        for rung in range(len(SHAPE)):
            counts = t.outcomes.get(rung, Counter())
            shown = ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "-"
            rows.append([name, str(rung), shown, shares[rung]])
    print_table(["summarizer", "rung", "outcomes", "clean by"], rows)
    print("\ncritical facts lost (missing or changed) per attempt, by type")
    types = sorted({k for t in tallies.values() for k in t.lost})
    rows = [
        [name, *(f"{t.lost[k] / max(1, t.attempts):.2f}" for k in types)]
        for name, t in tallies.items()
    ]
    print_table(["summarizer", *types], rows)
    for name, t in tallies.items():
        for error in t.errors[:5]:
            print(f"{name}: {error}")


if __name__ == "__main__":
    main()
