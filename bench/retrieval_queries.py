"""The retrieval benchmark's corpus and questions, built from the datasets' own labels.

Corpus: every dialogue of the four dev datasets is one memory entry (``speaker: text``
lines, whole dialogue), agent ``<dataset>-agent``, ``occurred_at`` the dataset's own date
where it fixes one (SGD: 2019-03-01).

Questions (each with the set of entries that answer it; a hit is any of them):

* **id** / **id_sentence**: every MultiWOZ booking reference (the dataset's ``booked``
  metadata) and every tau-retail order and user id (mock-database labels) that the entry's
  text states; alone, and inside a sentence (one of a few fixed templates per kind, chosen by
  the id's position in the list). Relevant: every entry whose text states the id.
* **amount**: every labelled amount (MultiWOZ ``Ticket``/``Fee``/``Price``, SGD price slots,
  tau-retail amounts) whose label is a plain amount (a number with an optional ``$``/``£``
  or currency word; labels such as ``16:5 GBP`` are skipped), in the currency its symbol or
  word names, or the one written right around it, else the dataset's (dollars; a MultiWOZ
  amount that names no currency anywhere is skipped), written in another
  format than the entry's (``293.46`` is asked as ``$293.46``; ``$45`` as ``USD 45.00``;
  ``10.10 pounds`` as ``£10.10``), never a string the entry contains. Relevant: every entry
  with a label of the same amount and currency (an entry stating it without a label counts
  as a miss).
* **date**: every SGD date label with a canonical ISO date, asked as ``2019-03-08`` or as
  ``8 March 2019`` (whichever the entry does not contain). Relevant: every entry with a label
  of that date.
* **nl**: a natural-language question whose answer sits in one entry. For an entry with
  labels, take an answer label (slot A) and two context labels (slots C1, C2, both different
  from A and from each other, letters only, at least 3 characters): ``What was the <A words>
  for <C1 text> (<C2 text>)?``. The question is kept only when no other entry of the corpus
  states both context texts (case-insensitively) and has a label of slot A, so exactly one
  entry answers it. The first such combination in label order is taken, at most one per
  entry; slot names become words through the datasets' own vocabulary (MultiWOZ's short slot
  names spelled out, SGD's snake_case split). Nothing in the question comes from factdiff.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path

from bench.datasets import LOADERS, Dialogue, Label, build_entry, spread

MULTIWOZ_SLOT_WORDS = {
    "Addr": "address",
    "Area": "area",
    "Arrive": "arrival time",
    "Car": "car type",
    "Choice": "number of options",
    "Day": "day",
    "Depart": "departure",
    "Dest": "destination",
    "Fee": "fee",
    "Food": "food",
    "Id": "train id",
    "Leave": "leaving time",
    "Name": "name",
    "People": "number of people",
    "Phone": "phone number",
    "Post": "postcode",
    "Price": "price",
    "Ref": "reference number",
    "Stars": "star rating",
    "Stay": "length of stay",
    "Ticket": "ticket price",
    "Time": "time",
    "Type": "type",
}
"""MultiWOZ's slot abbreviations as the words a user would say."""

_MONEY_SLOTS = re.compile(r"price|fare|amount|balance|rent|cost|fee|ticket", re.IGNORECASE)
_AMOUNT = re.compile(r"\d[\d,]*(?:\.\d+)?")
_LETTERS = re.compile(r"^[A-Za-z][A-Za-z '&-]+$")
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]


@dataclass(frozen=True)
class CorpusEntry:
    """One dialogue as a memory entry."""

    dataset: str
    dialogue_id: str
    text: str
    labels: tuple[Label, ...]
    occurred_at: datetime | None
    booked_refs: tuple[str, ...] = ()

    @property
    def agent(self) -> str:
        return f"{self.dataset}-agent"


@dataclass(frozen=True)
class Question:
    """A query and the corpus entries (by index) that answer it."""

    kind: str
    dataset: str
    text: str
    relevant: frozenset[int]


def load_corpus(data: Path, limit: int | None = None) -> list[CorpusEntry]:
    """Every dialogue (``limit`` per dataset, evenly spread) of the four datasets."""
    corpus = []
    for _name, loader in LOADERS.items():
        for dialogue in spread(loader(data, None), limit):
            corpus.append(_entry(dialogue))
    return [c for c in corpus if c.text.strip()]


def _entry(dialogue: Dialogue) -> CorpusEntry:
    built = build_entry(dialogue)
    occurred = None
    if dialogue.reference is not None:
        day: date = dialogue.reference
        occurred = datetime(day.year, day.month, day.day, tzinfo=UTC)
    return CorpusEntry(
        dialogue.dataset,
        dialogue.dialogue_id,
        built.text,
        built.labels,
        occurred,
        dialogue.booked_refs,
    )


def _word_pattern(value: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w#]){re.escape(value)}(?!\w)")


def entries_stating(corpus: list[CorpusEntry], value: str) -> frozenset[int]:
    """Indexes of the entries whose text states ``value`` as a whole word."""
    pattern = _word_pattern(value)
    return frozenset(i for i, c in enumerate(corpus) if value in c.text and pattern.search(c.text))


# -- identifiers -------------------------------------------------------------------------

ID_TEMPLATES = {
    "booking_ref": (
        "Which booking has the reference number {id}?",
        "I need the details of the reservation with reference {id}.",
    ),
    "order_id": (
        "What happened with order {id}?",
        "Can you pull up the conversation about order {id} for me?",
    ),
    "user_id": (
        "What did we discuss with customer {id}?",
        "Find my notes on the account {id}.",
    ),
}


def identifiers(corpus: list[CorpusEntry]) -> list[tuple[str, str]]:
    """``(kind, id)``: MultiWOZ booked references and tau-retail order and user ids that an
    entry states, each once, in corpus order."""
    found: dict[str, str] = {}
    for entry in corpus:
        if entry.dataset == "multiwoz":
            for ref in entry.booked_refs:
                if ref in entry.text:
                    found.setdefault(ref, "booking_ref")
        elif entry.dataset == "tau":
            for label in entry.labels:
                if label.slot in ("order_id", "user_id"):
                    found.setdefault(label.text, label.slot)
    return [(kind, value) for value, kind in found.items()]


def id_questions(corpus: list[CorpusEntry]) -> list[Question]:
    """Each identifier alone (``id``) and in a sentence (``id_sentence``)."""
    questions = []
    for position, (kind, value) in enumerate(identifiers(corpus)):
        relevant = entries_stating(corpus, value)
        if not relevant:
            continue
        dataset = "multiwoz" if kind == "booking_ref" else "tau"
        templates = ID_TEMPLATES[kind]
        sentence = templates[position % len(templates)].format(id=value)
        questions.append(Question("id", dataset, value, relevant))
        questions.append(Question("id_sentence", dataset, sentence, relevant))
    return questions


# -- amounts and dates -------------------------------------------------------------------


@dataclass(frozen=True)
class _Amount:
    amount: Decimal
    currency: str
    surface: str


_CLEAN_AMOUNT = re.compile(
    r"^\s*(?P<symbol>[$£])?\s*(?P<number>\d[\d,]*(?:\.\d+)?)\s*"
    r"(?P<word>pounds?|gbp|dollars?|usd)?\s*$",
    re.IGNORECASE,
)
_CURRENCY = {"$": "USD", "£": "GBP", "pound": "GBP", "gbp": "GBP", "dollar": "USD", "usd": "USD"}
_DEFAULT_CURRENCY = {"tau": "USD", "multiwoz": "GBP", "sgd": "USD"}


_AROUND = re.compile(r"^\s*(pounds?|gbp|dollars?|usd)\b", re.IGNORECASE)


def _money_label(dataset: str, label: Label, text: str) -> _Amount | None:
    """A labelled amount whose text is a plain amount (``89.5``, ``$ 100``, ``10.10
    pounds``); its currency from its symbol or word, or the currency word or symbol right
    around it in the entry; else the dataset's own, except for MultiWOZ (whose bare amounts
    name no currency at all: such a question could not say which one it means)."""
    if dataset == "tau":
        if label.slot != "amount":
            return None
    elif dataset == "multiwoz":
        if label.slot not in ("Ticket", "Fee", "Price"):
            return None
    elif dataset == "sgd":
        if not _MONEY_SLOTS.search(label.slot):
            return None
    else:
        return None
    found = _CLEAN_AMOUNT.match(label.text)
    if found is None:
        return None
    marker = (found["symbol"] or found["word"] or "").lower()
    after = _AROUND.match(text[label.end : label.end + 12])
    before = text[max(0, label.start - 2) : label.start].strip()
    before = before if before in ("$", "£") else ""
    marker = marker or (after.group(1).lower() if after else "") or before
    if not marker and dataset == "multiwoz":
        return None
    currency = _CURRENCY.get(marker.rstrip("s"), _DEFAULT_CURRENCY[dataset])
    try:
        amount = Decimal(found["number"].replace(",", ""))
    except InvalidOperation:
        return None
    return _Amount(amount, currency, label.text)


def amount_forms(amount: Decimal, currency: str) -> list[str]:
    """Ways to write an amount: code first, symbol with grouping, words."""
    plain = f"{amount:.2f}"
    grouped = f"{amount:,.2f}"
    symbol = {"USD": "$", "GBP": "£"}[currency]
    word = {"USD": "dollars", "GBP": "pounds"}[currency]
    return [f"{symbol}{grouped}", f"{currency} {plain}", f"{plain} {word}"]


def amount_questions(corpus: list[CorpusEntry]) -> list[Question]:
    """Every labelled amount, once, written in a format its entry does not contain."""
    holders: dict[tuple[Decimal, str], set[int]] = {}
    first: dict[tuple[Decimal, str], tuple[int, _Amount]] = {}
    for index, entry in enumerate(corpus):
        for label in entry.labels:
            money = _money_label(entry.dataset, label, entry.text)
            if money is None or money.amount <= 0:
                continue
            key = (money.amount.normalize(), money.currency)
            holders.setdefault(key, set()).add(index)
            first.setdefault(key, (index, money))
    questions = []
    for key, (index, money) in first.items():
        text = corpus[index].text
        form = next((f for f in amount_forms(money.amount, money.currency) if f not in text), None)
        if form is None:
            continue
        dataset = corpus[index].dataset
        questions.append(Question("amount", dataset, form, frozenset(holders[key])))
    return questions


def date_forms(day: date) -> list[str]:
    """``2019-03-08`` and ``8 March 2019``."""
    return [day.isoformat(), f"{day.day} {MONTHS[day.month - 1]} {day.year}"]


def date_questions(corpus: list[CorpusEntry]) -> list[Question]:
    """Every labelled SGD date, in both forms the entry does not contain."""
    holders: dict[date, set[int]] = {}
    for index, entry in enumerate(corpus):
        for label in entry.labels:
            if label.slot.endswith("date") and label.canonical and _ISO.match(label.canonical):
                holders.setdefault(date.fromisoformat(label.canonical), set()).add(index)
    questions = []
    for day, indexes in sorted(holders.items()):
        for form in date_forms(day):
            if all(form not in corpus[i].text for i in indexes):
                questions.append(Question("date", "sgd", form, frozenset(indexes)))
    return questions


# -- natural-language questions ----------------------------------------------------------


def slot_words(dataset: str, slot: str) -> str:
    """A slot name as words (see ``MULTIWOZ_SLOT_WORDS``; SGD snake_case split)."""
    if dataset == "multiwoz":
        return MULTIWOZ_SLOT_WORDS.get(slot, slot.lower())
    return slot.replace("_", " ")


def _context_labels(labels: Iterable[Label]) -> list[Label]:
    seen: dict[tuple[str, str], Label] = {}
    for label in labels:
        text = label.text.strip()
        if len(text) >= 3 and _LETTERS.match(text):
            seen.setdefault((label.slot, text.casefold()), label)
    return list(seen.values())


def _combinations(entry: CorpusEntry) -> Iterator[tuple[Label, Label, str]]:
    contexts = _context_labels(entry.labels)
    answers = list(dict.fromkeys(label.slot for label in entry.labels))
    for answer in answers:
        for i, c1 in enumerate(contexts):
            for c2 in contexts[i + 1 :]:
                slots = {answer, c1.slot, c2.slot}
                if len(slots) == 3 and c1.text.casefold() != c2.text.casefold():
                    yield c1, c2, answer


def nl_questions(corpus: list[CorpusEntry], per_dataset: int | None = None) -> list[Question]:
    """One question per entry whose answer sits in that entry only (see the module)."""
    lowered = [c.text.casefold() for c in corpus]
    with_slot: dict[str, set[int]] = {}
    for index, entry in enumerate(corpus):
        for label in entry.labels:
            with_slot.setdefault(label.slot, set()).add(index)
    stating: dict[str, frozenset[int]] = {}

    def holders(text: str) -> frozenset[int]:
        if text not in stating:
            stating[text] = frozenset(j for j, low in enumerate(lowered) if text in low)
        return stating[text]

    found: dict[str, list[Question]] = {}
    for index, entry in enumerate(corpus):
        if entry.dataset not in ("multiwoz", "sgd"):
            continue
        for c1, c2, answer in _combinations(entry):
            both = holders(c1.text.casefold()) & holders(c2.text.casefold())
            if (both & with_slot[answer]) != {index}:
                continue
            words = slot_words(entry.dataset, answer)
            text = f"What was the {words} for {c1.text} ({c2.text})?"
            found.setdefault(entry.dataset, []).append(
                Question("nl", entry.dataset, text, frozenset({index}))
            )
            break
    questions: list[Question] = []
    for dataset_questions in found.values():
        if per_dataset is None or per_dataset >= len(dataset_questions):
            questions.extend(dataset_questions)
        else:
            step = len(dataset_questions) / per_dataset
            questions.extend(dataset_questions[int(i * step)] for i in range(per_dataset))
    return questions
