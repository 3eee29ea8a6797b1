"""The deterministic extractive summarizer: cover the facts that matter, then the gist.

Selection, over the clause segments of ``text_units``, in this order:

1. every ``must_keep`` fact (with its whole sentence);
2. every critical fact, even past the budget (``Summary.over_budget`` says so);
3. important facts while they fit (forced from strictness 1);
4. contextual facts while they fit (from strictness 2);
5. the rest of the sentences already touched, shortest first, while they fit;
6. the opening sentence of the text (it usually states the topic or the request), then the
   most central remaining sentences while they fit: a sentence scores the number of other
   sentences sharing each of its content words, per word of the sentence.

A fact is covered when one of its evidence spans lies inside a kept segment (a decision
that occurs more than once: as many of its spans as it has occurrences, the check counts
them). Among its spans the cheapest (fewest new words, earliest on ties) is taken, together
with the first clause of its sentence (the head that usually says who did what); spans next
to one of the field's cue words (``totaling``, ``by``) come first, with their whole
sentence, because the cue is what gives the value its role when the summary is extracted
again. From strictness 1 every fact
keeps its whole sentence. In a JSON tool result a fact keeps its member and the members
holding it, so the result stays valid JSON. Kept segments are rendered in source order;
characters inside fact spans are never changed. The output is byte-identical across runs:
integer arithmetic only, no set iteration, no clock.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from factdiff.extraction.record import Fact, FactRecord
from factdiff.schema.model import Criticality
from factdiff.summarize.base import (
    Summary,
    SummaryRequest,
    facts_by_criticality,
    validate_request,
)
from factdiff.summarize.rendering import flat_segments, render
from factdiff.summarize.text_units import Layout, Span, count_words, split_units, strip_span

__all__ = ["ExtractiveSummarizer"]

METHOD_VERSION = "extractive/1"

_SCALE = 1_000_000
_CUE_WINDOW = 80
_TOKEN = re.compile(r"[^\W\d_]{3,}|\d+")
_STOPWORDS = frozenset(
    """the and for are but not you your yours with this that these those from have has had was
    were will would could should can may might must shall what which who whom whose when
    where why how all any both each few more most other some such only own same than too
    very just into onto about above below over under again further then once here there out
    off our ours they them their theirs his her hers its itself himself herself myself
    yourself ourselves been being does did doing also because while until upon yes okay
    sure thanks thank please hello hey bye goodbye great good fine well let like get got
    one none null""".split()  # noqa: SIM905
)


@dataclass(frozen=True)
class _Target:
    """A fact to cover: its evidence spans, whether it may exceed the budget, and whether it
    keeps its whole sentence."""

    spans: tuple[Span, ...]
    forced: bool
    whole: bool
    cue: re.Pattern[str] | None = None
    """The field's cue words: a span stated next to one is preferred, with its sentence."""
    times: int = 1
    """How many of its spans to keep (``Fact.occurrences``)."""


class _Selection:
    """Which segments are kept, and what keeping more would cost in words."""

    def __init__(self, text: str, layout: Layout) -> None:
        self.text = text
        flat = flat_segments(layout)
        self.segments = [seg for seg, _, _ in flat]
        self.unit_of = [unit for _, unit, _ in flat]
        self.sentence_of = [sentence for _, _, sentence in flat]
        self.structured = [layout.units[u].structured for u in self.unit_of]
        self.parent = _json_parents(layout)
        self.starts = [start for start, _ in self.segments]
        self.seg_words = [count_words(text[a:b]) for a, b in self.segments]
        self.label_words = [
            count_words(text[u.label[0] : u.label[1]]) if u.label else 0 for u in layout.units
        ]
        self.sentence_segs: list[list[int]] = []
        for i, sentence in enumerate(self.sentence_of):
            if sentence == len(self.sentence_segs):
                self.sentence_segs.append([])
            self.sentence_segs[sentence].append(i)
        self.kept = [False] * len(self.segments)
        self.unit_used = [False] * len(layout.units)
        self.words = 0

    def segment_at(self, span: Span) -> int | None:
        """The segment holding ``span`` entirely, if any."""
        i = bisect.bisect_right(self.starts, span[0]) - 1
        if i >= 0 and self.segments[i][0] <= span[0] and span[1] <= self.segments[i][1]:
            return i
        return None

    def chain(self, seg: int) -> list[int]:
        """A JSON member and the members holding it, outermost first."""
        out = [seg]
        while self.parent[out[-1]] >= 0:
            out.append(self.parent[out[-1]])
        return out[::-1]

    def cost(self, segs: Sequence[int]) -> int:
        """Words that keeping ``segs`` would add (their labels included)."""
        words = sum(self.seg_words[i] for i in segs if not self.kept[i])
        units = dict.fromkeys(self.unit_of[i] for i in segs if not self.unit_used[self.unit_of[i]])
        return words + sum(self.label_words[u] for u in units)

    def covered(self, segs: Sequence[int]) -> bool:
        """True when every segment of ``segs`` is kept."""
        return all(self.kept[i] for i in segs)

    def keep(self, segs: Iterable[int]) -> None:
        """Keep ``segs`` (and their units)."""
        for i in segs:
            if not self.kept[i]:
                self.kept[i] = True
                self.words += self.seg_words[i]
            unit = self.unit_of[i]
            if not self.unit_used[unit]:
                self.unit_used[unit] = True
                self.words += self.label_words[unit]


class ExtractiveSummarizer:
    """Deterministic, fact-first extractive summaries within a word budget."""

    identity = "extractive"
    method_version = METHOD_VERSION

    def summarize(self, request: SummaryRequest) -> Summary:
        """Summarize ``request.text``; see the module docstring for the selection order."""
        validate_request(request)
        text, budget = request.text, request.budget_words
        targets = _targets(request)
        protected = [span for target in targets for span in target.spans]
        layout = split_units(text, protected)
        selection = _Selection(text, layout)
        _cover(selection, targets, budget)
        _complete_sentences(selection, budget)
        _fill_central(text, selection, budget)
        if not any(selection.kept):
            _lead(selection, budget)
        summary = render(text, layout, selection.kept, protected)
        return Summary(
            text=summary,
            summarizer=self.identity,
            method_version=METHOD_VERSION,
            over_budget=count_words(summary) > budget,
        )


def _json_parents(layout: Layout) -> list[int]:
    """For every segment, the global index of the JSON member holding it (-1 if none)."""
    out: list[int] = []
    for unit in layout.units:
        base = len(out)
        if unit.tree is not None:
            out.extend(base + p if p >= 0 else -1 for p in unit.tree.parents)
        else:
            out.extend(-1 for s in unit.sentences for _ in s.segments)
    return out


def _targets(request: SummaryRequest) -> list[_Target]:
    """The facts to cover, in priority order."""
    text, strictness = request.text, request.strictness
    out = [
        _Target(_resolve(fact, text, request.source_record), True, True, times=fact.occurrences)
        for fact in request.must_keep
    ]
    cues = {spec.name: _cue_pattern(spec.cues) for spec in request.schema.fields}
    for fact, criticality, name in facts_by_criticality(request.source_record, request.schema):
        if criticality is Criticality.CRITICAL:
            forced = True
        elif criticality is Criticality.IMPORTANT:
            forced = strictness >= 1
        elif strictness >= 2:
            forced = False
        else:
            continue
        spans = _valid_spans(text, fact.spans)
        out.append(_Target(spans, forced, strictness >= 1, cues.get(name), fact.occurrences))
    return [target for target in out if target.spans]


def _cue_pattern(cues: Sequence[str]) -> re.Pattern[str] | None:
    if not cues:
        return None
    words = "|".join(re.escape(cue) for cue in sorted(cues, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{words})(?!\w)", re.IGNORECASE)


def _valid_spans(text: str, spans: Iterable[Span]) -> tuple[Span, ...]:
    cores = (strip_span(text, span) for span in spans if span[0] < span[1])
    return tuple(sorted(dict.fromkeys(core for core in cores if core is not None)))


def _resolve(fact: Fact, text: str, record: FactRecord) -> tuple[Span, ...]:
    """Where the source states ``fact``: its own spans when they fit the text, else the
    spans of the record fact with the same value, else the first occurrence of its text."""
    spans = _valid_spans(text, (s for s in fact.spans if 0 <= s[0] < s[1] <= len(text)))
    if spans and (not fact.text or text[fact.spans[0][0] : fact.spans[0][1]] == fact.text):
        return spans
    wanted = (type(fact.value), fact.value.key())
    for facts in (*record.fields.values(), *record.inventory.values()):
        for candidate in facts:
            if (type(candidate.value), candidate.value.key()) == wanted:
                return _valid_spans(text, candidate.spans)
    if fact.text and (at := text.find(fact.text)) >= 0:
        return _valid_spans(text, [(at, at + len(fact.text))])
    return spans


def _cover(selection: _Selection, targets: list[_Target], budget: int) -> None:
    """Keep, for each target, the cheapest way to state it (next to a cue when it has one),
    as many times as it occurs."""
    for target in targets:
        options = _options(selection, target)
        open_options = [option for option in options if not selection.covered(option)]
        for _ in range(target.times - (len(options) - len(open_options))):
            if not open_options:
                break
            best = min(open_options, key=selection.cost)
            if not target.forced and selection.words + selection.cost(best) > budget:
                break
            selection.keep(best)
            open_options = [option for option in open_options if not selection.covered(option)]


def _options(selection: _Selection, target: _Target) -> list[list[int]]:
    """The segment sets that would state the target, one per usable span."""
    plain: list[list[int]] = []
    cued: list[list[int]] = []
    for span in target.spans:
        seg = selection.segment_at(span)
        if seg is None:
            continue
        sentence = selection.sentence_segs[selection.sentence_of[seg]]
        if selection.structured[seg]:
            plain.append(selection.chain(seg))
        elif target.cue is not None and _cued(selection, target.cue, span, sentence):
            cued.append(sentence)
        elif target.whole:
            plain.append(sentence)
        else:
            plain.append(sorted({sentence[0], seg}))
    return cued or plain


def _cued(selection: _Selection, cue: re.Pattern[str], span: Span, sentence: list[int]) -> bool:
    """True when a cue word appears near ``span`` in its sentence."""
    start = max(selection.segments[sentence[0]][0], span[0] - _CUE_WINDOW)
    end = min(selection.segments[sentence[-1]][1], span[1] + _CUE_WINDOW)
    return cue.search(selection.text, start, end) is not None


def _complete_sentences(selection: _Selection, budget: int) -> None:
    """Restore the dropped clauses of partly kept sentences, cheapest first, while they fit."""
    partial = [
        segs
        for segs in selection.sentence_segs
        if not selection.structured[segs[0]]
        and any(selection.kept[i] for i in segs)
        and not selection.covered(segs)
    ]
    partial.sort(key=lambda segs: (selection.cost(segs), segs[0]))
    for segs in partial:
        if selection.words + selection.cost(segs) <= budget:
            selection.keep(segs)


def _fill_central(text: str, selection: _Selection, budget: int) -> None:
    """Add untouched sentences by centrality while they fit."""
    candidates: list[tuple[list[int], list[str]]] = []
    for segs in selection.sentence_segs:
        if selection.structured[segs[0]] or any(selection.kept[i] for i in segs):
            continue
        start, end = selection.segments[segs[0]][0], selection.segments[segs[-1]][1]
        candidates.append((segs, _content_words(text[start:end])))
    frequency: dict[str, int] = {}
    for _, words in candidates:
        for word in dict.fromkeys(words):
            frequency[word] = frequency.get(word, 0) + 1
    scored = []
    for segs, words in candidates:
        shared = sum(frequency[word] - 1 for word in dict.fromkeys(words))
        if shared > 0:
            scored.append((-(shared * _SCALE // (len(words) + 3)), segs[0], segs))
    scored.sort(key=lambda item: (item[0], item[1]))
    opening = _opening(selection, candidates)
    if opening is not None:
        scored.insert(0, (0, opening[0], opening))
    remaining = budget - selection.words
    for _, _, segs in scored:
        if remaining <= 0:
            break
        cost = selection.cost(segs)
        if cost <= remaining:
            selection.keep(segs)
            remaining -= cost


def _opening(
    selection: _Selection, candidates: list[tuple[list[int], list[str]]]
) -> list[int] | None:
    """The first sentence with content words, when it lies in the text's first unit."""
    for segs, words in candidates:
        if selection.unit_of[segs[0]] != 0:
            return None
        if words:
            return segs
    return None


def _content_words(sentence: str) -> list[str]:
    return [w for w in _TOKEN.findall(sentence.lower()) if w not in _STOPWORDS]


def _lead(selection: _Selection, budget: int) -> None:
    """Nothing selected: keep the leading segments that fit (at least one)."""
    for i in range(len(selection.segments)):
        if i and selection.words + selection.cost([i]) > budget:
            return
        selection.keep([i])
