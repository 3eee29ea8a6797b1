"""Decisions and commitments: action verbs from a curated list, their polarity and object.

One regex pass finds the verb forms (on the lower-cased text); a past form (``refused``,
``cancelled``) is always a decision, a base, ``-s`` or ``-ing`` form only after a word that
makes it a verb (``to``, a modal or auxiliary, a pronoun: ``will refund``, ``I confirm``), so
the nouns ``refund`` and ``shipping address`` are not. Polarity is the negation scope used for
enum fields (``factdiff.extraction.negation``). The object is bound only when it is read with
confidence: the noun phrase that directly follows an active verb (``the refund``, ``order
#W123``), its lower-case nouns and identifiers. A passive participle (``was not authorized by
their CTO``), an infinitive (``agreed to pay``), a pronoun, an amount or a bare name leaves the
object unbound, so a decision is then compared by its class and polarity alone, unless it
restates the bound decision before it (``I cancelled order #W1. The order was cancelled.``).
A commitment to pay is ``promise`` however it is worded (``agreed to pay``, ``will pay``), and
an infinitive decision verb after a verb of consent, promise or refusal is the decision
(``agreed to waive the fee`` is ``waive: fee``).
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from types import MappingProxyType

from factdiff.extraction.clauses import Boundaries
from factdiff.extraction.recognizers.base import Match, lowered, vocabulary
from factdiff.extraction.transactions import (
    BASE_ONLY_AFTER_FAILURE,
    NOUNS,
    TRANSACTION_FORMS,
    TRANSACTION_VERBS,
    consented_action,
    failed_attempt,
    failure_before,
    find_transactions,
    outcome_class,
    polarity,
    singular_noun,
    transaction_nouns,
    transaction_object,
)
from factdiff.extraction.verb_frames import (
    ASSERTING,
    COMMITTING,
    PHRASAL_VERBS,
    asserts,
    attribution,
    future_commitment,
    infinitive_decision,
    literal_phrasal,
    note_present,
    particle_after,
)
from factdiff.extraction.wordfind import Word, find_words
from factdiff.values.decision import DecisionValue

VERB_CLASSES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "accept": ("agree", "approve", "accept", "confirm", "authorize", "authorise", "grant"),
        "refuse": ("refuse", "decline", "deny", "reject"),
        "cancel": ("cancel", "revoke"),
        "promise": ("promise", "guarantee"),
        "offer": ("offer", "propose"),
        "waive": ("waive",),
        "refund": ("refund", "reimburse"),
        "escalate": ("escalate",),
        "ship": ("ship", "dispatch"),
        "book": ("book", "reserve"),
        "exchange": ("exchange",),
    }
)
"""Decision classes: verbs of one class state one decision (a synonym swap is no change)."""

_IRREGULAR: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = MappingProxyType(
    {
        "deny": (("denied",), ("deny", "denies", "denying")),
        "cancel": (
            ("cancelled", "canceled"),
            ("cancel", "cancels", "cancelling", "canceling"),
        ),
        "ship": (("shipped",), ("ship", "ships", "shipping")),
        "grant": (("granted",), ("grant", "grants", "granting")),
        "write": (("wrote", "written"), ("write", "writes", "writing")),
        **TRANSACTION_FORMS,
    }
)


def verb_forms(verb: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(past forms, other forms) of a regular verb."""
    if verb in _IRREGULAR:
        return _IRREGULAR[verb]
    if verb.endswith("ee"):
        return (verb + "d",), (verb, verb + "s", verb + "ing")
    if verb.endswith("e"):
        return (verb + "d",), (verb, verb + "s", verb[:-1] + "ing")
    suffix = "es" if verb.endswith(("sh", "ch", "x", "s")) else "s"
    return (verb + "ed",), (verb, verb + suffix, verb + "ing")


class Lexicon:
    """The verb forms of some decision classes, and the one pattern that finds them.

    ``outcomes`` (the generic inventory's lexicon) adds the transaction verbs and outcome
    phrases (``factdiff.extraction.transactions``); ``phrasal`` verbs count only with their
    particle (``particle_of``)."""

    def __init__(
        self,
        classes: Mapping[str, tuple[str, ...]],
        outcomes: bool = False,
        phrasal: Mapping[str, tuple[tuple[str, str], ...]] = MappingProxyType({}),
    ) -> None:
        self.class_of: dict[str, str] = {}
        self.verb_of: dict[str, str] = {}
        self.particle_of: dict[str, str] = {}
        self.past: set[str] = set()
        self.outcomes = outcomes
        pairs = [(name, verb, "") for name, verbs in classes.items() for verb in verbs]
        pairs += [
            (name, verb, particle) for name, both in phrasal.items() for verb, particle in both
        ]
        for name, verb, particle in pairs:
            base = verb.strip().lower()
            past, other = verb_forms(base)
            if not particle:
                self.past.update(past)
            for form in (*past, *other):
                if form in self.class_of:
                    continue
                self.class_of[form] = name
                self.verb_of[form] = base
                if particle:
                    self.particle_of[form] = particle
                    if form in past:
                        self.past.add(form)
        self.forms = frozenset(self.class_of)


PARTICLES: Mapping[str, frozenset[str]] = MappingProxyType({"agree": frozenset({"to", "on"})})
"""Verbs whose object follows a preposition (``agreed to the refund``)."""


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _merged(
    *parts: Mapping[str, tuple[str, ...]],
) -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for part in parts:
        for name, verbs in part.items():
            out[name] = (*out.get(name, ()), *verbs)
    return out


DEFAULT_LEXICON = Lexicon(
    _merged(VERB_CLASSES, TRANSACTION_VERBS), outcomes=True, phrasal=PHRASAL_VERBS
)
"""The generic inventory's decision verbs."""
FORMS = DEFAULT_LEXICON.forms
"""Every inflected form the generic finder knows."""

_LICENSE = _words(
    "to will would shall should can could cannot couldnot wouldnot didnot may might must "
    "please do does did not never i we you they he she it who that which also just already "
    "now then still gladly happily certainly definitely immediately kindly successfully "
    "finally is are am was were be been being has have had "
    "agent customer user representative airline company"
)
"""Words after which a base, ``-s`` or ``-ing`` form is a verb (``will refund``)."""
_PREVIOUS_WORD = re.compile(r"([a-z'’]+)[ \t]*$")
_STOP = _words(
    "a an the to for of on in at by with your my our their his her its it this that these "
    "those them me you us him i we they he she be been is are was were will would please any "
    "all some and or but so as from now then just also up out off down about into there here yes "
    "no not have has had do does did can could which what who again one ok okay sure "
    "because since until unless while when whereas although whether if than where why how via "
    "per within during through went goes gone got gets"
)
OBJECT_WORDS = 3
"""At most this many content words of the direct object make a decision's object."""
_OBJECT_CHARS = 80
_TOKEN = re.compile(r"[$€£]?[#\w][\w#/-]*(?:[.,:']\d[\w-]*)*")
_DETERMINERS = _words(
    "the a an your my our their his her its this that these those both another each every"
)
_RECIPIENTS = _words("me you him her us them")
"""An indirect object skipped before a determiner (``offered you a voucher``)."""
_RECIPIENT_NOUNS = _words(
    "customer customers client clients caller guest guests user member patient passenger "
    "tenant buyer"
)
"""People who receive what is offered, skipped with their determiner before what they
receive (``offered the customer 20% off``, ``gave the client a refund``)."""
_AMOUNT_STARTS = frozenset("0123456789$€£")
_NOT_NOUNS = _words(
    "today tomorrow yesterday tonight morning afternoon evening night week weekend month year "
    "day time moment earlier later soon again ago already instead too either anyway though "
    "monday tuesday wednesday thursday friday saturday sunday everything anything something "
    "nothing one ones same other others rest lot before after"
)
"""Words that end a direct object without heading one (``confirmed this morning``)."""
_LETTER_RUN = re.compile(r"[a-z'’]+")
"""A lower-case word (with its apostrophes)."""
_PASSIVE = _words("is are was were be been being get gets got getting 's ’s")
_SKIPPED = _words("not never already just also now still then successfully all both")


_COORDINATED = re.compile(r"(?<![\w'’])(?<!ahead )(?:and|or)[ \t]+$")
"""``and`` or ``or`` right before a verb form: it may share the verb before it (not ``go
ahead and``, a request)."""
_COORDINATION_CHARS = 100
"""How far a coordinated verb may stand from the verb it shares."""
_SENTENCE_MARKS = re.compile(r"[.!?\"“”\n]")


def _shares(low: str, head: int, start: int) -> bool:
    """Whether the verb form at ``start`` is coordinated with the one at ``head``: ``and`` or
    ``or`` right before it, the two close and no sentence mark between them."""
    return (
        start - head <= _COORDINATION_CHARS
        and _COORDINATED.search(low, max(0, start - 12), start) is not None
        and _SENTENCE_MARKS.search(low, head, start) is None
    )


_LICENSING_ENDINGS = tuple(
    ending.replace("'", apostrophe)
    for ending in ("n't", "'ll", "'m", "'re", "'ve")
    for apostrophe in "'’"
)
"""Contractions after which a base form is a verb: ``n't``, ``'ll``, ``'m``, ``'re``, and
``'ve`` (``I've cancel the order``, the past participle as it is often misspelled)."""


def _licensed(low: str, start: int) -> bool:
    """Whether the word before ``start`` licenses a verb form there (:data:`_LICENSE`,
    :data:`_LICENSING_ENDINGS`)."""
    found = _PREVIOUS_WORD.search(low, max(0, start - 24), start)
    if found is None:
        return False
    word = found.group(1)
    return word in _LICENSE or word.endswith(_LICENSING_ENDINGS)


def _passive(low: str, start: int, clause_start: int) -> bool:
    """Whether a past form is a passive participle (``was not authorized by``): a form of
    ``be`` or ``get`` stands before it, past negators and adverbs."""
    words = _LETTER_RUN.findall(low, max(clause_start, start - 48), start)
    for word in reversed(words):
        if word in _PASSIVE:
            return True
        if word not in _SKIPPED and not word.endswith("ly") and not word.endswith("n't"):
            return False
    return False


_UNIT = re.compile(r"\d+(?:[.,:]\d+)?[a-z]{1,3}", re.IGNORECASE)
"""A number with a unit, an ordinal or a clock suffix (``5kg``, ``3rd``, ``10am``): no ID."""


def _identifier(token: str) -> str | None:
    """An identifier token (letters and digits, or ``#`` and digits), normalised."""
    if not any(c.isdigit() for c in token) or _UNIT.fullmatch(token):
        return None
    if any(c.isalpha() for c in token) or token[0] == "#":
        return token.lstrip("#").lower()
    return None


_HYPHENS = re.compile(r"(?<=[a-z])-(?=[a-z])")
"""Hyphens inside a word of letters (``one-month``, ``follow-up``)."""


def _noun(token: str, determined: bool = True) -> bool:
    """A lower-case word (hyphens inside it allowed: ``a one-month credit``) that can head a
    noun phrase (a decision verb's form only after a determiner: ``the refund``)."""
    return (
        _HYPHENS.sub("", token).isalpha()
        and token.islower()
        and len(token) > 2
        and token not in _STOP
        and token not in _NOT_NOUNS
        and (determined or token not in FORMS)
        and not token.endswith("ly")
    )


def _stem(word: str) -> str:
    """An object word's singular: a transaction noun's own (``buses``: ``bus``), else without
    a final ``s`` (``tickets``), which is only a key: ``taxes`` is ``taxe`` on both sides."""
    noun = singular_noun(word)
    if noun is not None:
        return noun
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _object(
    text: str, end: int, stop: int, particles: frozenset[str] = frozenset()
) -> tuple[str, ...]:
    """The verb's direct object, only when it is read with confidence: the noun phrase right
    after the verb (a determiner, at most one indirect object or the verb's particle before
    it: ``offered you a voucher``, ``agreed to the refund``), whose words are lower-case nouns
    or identifiers. A prepositional phrase (``authorized by their CTO``), an infinitive
    (``agreed to pay``), a pronoun, an amount or a name is no object: ``()``."""
    tokens: list[str] = []
    position = end
    for found in _TOKEN.finditer(text, end, stop):
        if text[position : found.start()].strip():
            break  # punctuation ends the phrase
        tokens.append(found.group())
        position = found.end()
        if len(tokens) > 8:
            break
    i = 0
    lower = [t.lower() for t in tokens]
    if (
        len(tokens) > 1
        and lower[1] in _DETERMINERS
        and (lower[0] in _RECIPIENTS or lower[0] in particles)
    ):
        i = 1
    elif (
        len(tokens) > 2
        and lower[0] in _DETERMINERS
        and lower[1] in _RECIPIENT_NOUNS
        and (lower[2] in _DETERMINERS or lower[2][0] in _AMOUNT_STARTS)
    ):
        i = 2  # "offered the customer 20% off": what the customer got is the object
    words: list[str] = []
    identifiers: list[str] = []
    coordinated_at = -1  # where ``and`` or ``or`` joined another noun phrase
    while i < len(tokens):
        read = len(words) + len(identifiers)
        determined = lower[i] in _DETERMINERS
        i += determined
        phrase = 0
        while i < len(tokens) and phrase < OBJECT_WORDS:
            token = tokens[i]
            ident = _identifier(token)
            if ident is not None:
                identifiers.append(ident)
            elif _noun(token, determined or phrase > 0) and not (phrase and token.endswith("ing")):
                words.append(_stem(token))
            elif not (token[:1].isupper() and token[1:].isalpha() and (determined or phrase)):
                break  # a name only inside a noun phrase (``the Hilton hotel``)
            phrase += 1
            i += 1
        if coordinated_at >= 0 and len(words) + len(identifiers) == read:
            i = coordinated_at  # it heads nothing read: the object ends before ``and``
            break
        if i + 1 < len(tokens) and lower[i] in ("and", "or") and lower[i + 1] in _DETERMINERS:
            coordinated_at = i
            i += 1  # a coordinated noun phrase (``the hotel and the flight``)
            continue
        break
    if not identifiers and not words:
        return ()
    if not identifiers and not _noun(tokens[i - 1]):
        return ()  # a phrase ending in a name or a number heads no common noun
    return tuple(sorted({*words, *identifiers}))


def _particles(lexicon: Lexicon, form: str) -> frozenset[str]:
    return PARTICLES.get(lexicon.verb_of[form], frozenset())


_WISH = _words(
    "want wants wanted like likes wish wishes need needs shall should try trying tried attempt "
    "attempting please let ready prefer prefers ask asks asked asking looking hope hoping"
)
"""Words that make a decision after them in its clause an intention, a request or an offer
(``I'd like to book``, ``do you want me to cancel``, ``please confirm``, ``I'm ready to
book``, ``you asked me to cancel``), not one taken."""
_ASKING = _words(
    "do does did would will shall should can could may is are was were have has what which "
    "when how where why who"
)
"""First words of a clause that asks (with a question mark ending its sentence)."""
_WISH_WORDS = 6
_SUBJECTS = _words("i we you he she they")
"""Subjects that open a clause of their own between a wish word and a decision."""
_CHECKED = re.compile(
    r"(?<![\w'’])(?:(?:confirm|confirming|verify)(?:[ \t]+[a-z]+){0,3}[ \t]*:"
    r"|(?:details|following)[ \t]*:"
    r"|(?:to[ \t]+confirm|ensure[ \t]+that)[ \t]*,)"
)
"""A request to check what follows (``please confirm: ...``, ``verify the following
information: ...``, ``so to confirm, ...``, ``kindly ensure that, ...``)."""


_CHECK_CHARS = 240
"""How far back in its sentence a request to check may stand (``please confirm: ...``): a
bound, so a long sentence costs each decision no more."""
_OPENERS = _words("please kindly so ok okay and yes yup yeah alright then well great sure also")
"""Words that may open an asking clause before its auxiliary (``please can you book it?``)."""
_INVERTING = _words(
    "do does did would will shall should can could may might is are was were have has"
)
"""Auxiliaries that ask when a pronoun follows them at the opening of a clause."""
_ASKED = _words("i we you he she they it")
"""Pronouns that follow an asking auxiliary (``can you``, ``should I``, ``is it``)."""
_QUESTION_WORDS = _words("what which when where how why who")
_COMMANDING = _words("please kindly ok okay yes yup yeah alright well great sure now just")
"""Words that may open a clause before an imperative (``great, now reserve it``); not ``and``
or ``then``, which may join a verb to the subject of the clause before (``we will cancel
it and refund you``)."""
_CHECK_OPENING = re.compile(
    r"(?:^|(?<=[\n:.!?]))[ \t]*(?:(?:ok|okay|alright|so)[ \t,]+)?"
    r"(?:just[ \t]+)?(?:to[ \t]+confirm|confirming)(?![\w'’])",
    re.MULTILINE,
)
"""A sentence that opens by checking (``just confirming your ride for 1``, ``to confirm then
that is $850 transferred``)."""
_SUBORDINATORS = _words("if before once until unless whether")
"""Words that make a non-past decision after them a condition (``before I book it``)."""
_POSSIBILITY = _words("can could may might")
_FUTURE = _words("will shall")
_CONFIRMATION = re.compile(
    r"[^.!?]{0,160}?(?:(?:\bif|[.,;]\s*(?:is|are|does|do|would|will))\s+(?:that|this|it"
    r"|everything|all)\b[^.!?]{0,48}\b(?:correct|right|ok|okay|good|fine|alright|work|works"
    r"|acceptable|accurate)\b|,\s*(?:ok|okay|right|correct|alright)\s*\?)"
)
"""A request to confirm a proposed action, in its sentence or the next (``I'll book it. Is
that correct?``, ``I will reserve a table if that is correct``, ``I'll book it at 10,
okay?``)."""


def _proposed(low: str, start: int, words: list[str]) -> bool:
    """Whether a decision is proposed, not taken: a future form (``I'll book``, ``I will
    book``) whose sentence or the next asks whether that is right, a non-past form after a
    condition (``before I book``, ``if you cancel``) or any form right after one (``on hold
    until paid``, ``once confirmed``), a possibility (``you could reserve``,
    ``I can book``) or what the user will do (``you will book 2 tickets``)."""
    previous = words[-3:]
    if any(w in _SUBORDINATORS for w in previous) and not _past_at(low, start):
        return True
    if previous and previous[-1] in _SUBORDINATORS:
        return True  # a reduced clause: "on hold until paid", "once confirmed, we ship"
    if _possible(words) and not low.startswith("confirm", start):
        return True
    if not previous or not (previous[-1] in _FUTURE or previous[-1].endswith(("'ll", "’ll"))):
        return False
    if previous[-1] in ("you'll", "you’ll") or previous[-2:] == ["you", "will"]:
        return True
    return _CONFIRMATION.match(low, start) is not None


def _possible(words: list[str]) -> bool:
    """Whether the words before a decision make it a possibility: a subject and ``can``,
    ``could``, ``may`` or ``might`` (``I can reserve``, ``you could book``), one of those
    and ``be`` (``orders that can be cancelled``), or one of those or ``will`` with ``be
    able to`` (``you may be able to get an appointment``)."""
    if words[-3:] == ["be", "able", "to"]:
        return len(words) >= 4 and (words[-4] in _POSSIBILITY or words[-4] in _FUTURE)
    if len(words) < 2 or (words[-1] not in _POSSIBILITY and words[-1] != "be"):
        return False
    return words[-2] in _POSSIBILITY if words[-1] == "be" else words[-2] in _SUBJECTS


def _asks(low: str, clause: int, start: int, lexicon: Lexicon | None) -> bool:
    """Whether the decision's clause asks for it, with or without a question mark: it opens
    with an auxiliary and a pronoun, after a question word and its noun if any (``please can
    I book this car.``, ``will you reserve one room``, ``which date should I book``), or the
    decision is an imperative that opens it (``great, now reserve it for me``; a base form of
    ``lexicon``, None: no imperative)."""
    opening: list[str] = []
    commanding = True
    for word in _LETTER_RUN.finditer(low, clause, start):
        if not opening and (word.group() in _OPENERS or word.group() in _COMMANDING):
            commanding = commanding and word.group() in _COMMANDING
            continue
        opening.append(word.group())
        if len(opening) == 4:
            break
    if not opening:
        form = _word_at(low, start)
        return commanding and lexicon is not None and lexicon.verb_of.get(form) == form
    if opening[0] in _QUESTION_WORDS:
        opening = opening[1:] if opening[1:2] and opening[1] in _INVERTING else opening[2:]
    return len(opening) >= 2 and opening[0] in _INVERTING and opening[1] in _ASKED


def _word_at(low: str, start: int) -> str:
    """The lower-case word at ``start`` (empty if none starts there)."""
    found = _LETTER_RUN.match(low, start)
    return "" if found is None else found.group()


def _past_at(low: str, start: int) -> bool:
    """Whether the word at ``start`` is a past form (``booked``, ``paid``)."""
    word = _word_at(low, start)
    return word in DEFAULT_LEXICON.past or word.endswith("ed")


def _words_before(low: str, clause: int, start: int) -> list[str]:
    """The words of the clause opening at ``clause`` before ``start`` (at most 64 characters
    back): what :func:`_wish_before` and :func:`_proposed` read."""
    return _LETTER_RUN.findall(low, max(clause, start - 64), start)


def _wish_before(words: list[str]) -> bool:
    """Whether a wish word stands among the last :data:`_WISH_WORDS` of ``words`` (a clause's
    words before a decision) with no subject after it but its own object."""
    recent = words[-_WISH_WORDS:]
    for i in range(len(recent) - 1, -1, -1):
        word = recent[i]
        if word in _WISH or word.endswith(("'d", "’d")):
            return True
        if word in _SUBJECTS and recent[i + 1 : i + 2] != ["to"]:
            return False  # a clause of its own (``return a speaker I bought``), not ``need you to``
    return False


def _requests(low: str, nouns: list[Word], bounds: Boundaries) -> Iterator[Match]:
    """Transactions asked for by their noun (``I need a cab``, ``will you schedule an
    appointment at 3?``, ``Confirming: I am booking a table for 3``): a transaction noun (of
    ``nouns``) asked about or wished for as a decision would be (:func:`prospective`), as a
    decision of its class."""
    for noun in nouns:
        if prospective(low, noun.start, bounds, verb=False):
            yield Match(noun.start, noun.end, DecisionValue(NOUNS[noun.word], False))


def prospective(
    low: str,
    start: int,
    bounds: Boundaries,
    lexicon: Lexicon = DEFAULT_LEXICON,
    verb: bool = True,
) -> bool:
    """Whether a decision at ``start`` is only asked about or wished for: a wish word stands
    before it in its clause (at most :data:`_WISH_WORDS` words back, no subject between them
    but the wish's own object: ``want me to book``, ``need you to confirm``, but not ``need
    to return a speaker I bought``) or ``confirm to`` does (``Pleas confirm to reserve a
    car``), it is proposed (:func:`_proposed`), its clause asks for
    it (:func:`_asks`), its sentence asks to check it (``please confirm: you're
    booking...``, ``just confirming your ride``), or its clause opens with an auxiliary or
    a question word (or runs to the end) of a sentence ending with a question mark.
    ``verb`` is False for an outcome phrase, which opens with its noun, never an imperative
    (``transfer is done``)."""
    if failed_attempt(low, start):
        return False
    clause = bounds.clause_start(start)
    words = _words_before(low, clause, start)
    if _wish_before(words) or words[-2:] == ["confirm", "to"]:
        return True  # wished for, or the action a confirmation is asked for (``confirm to book``)
    if _proposed(low, start, words) or _asks(low, clause, start, lexicon if verb else None):
        return True
    end = bounds.sentence_end(start)
    began = max(bounds.sentence_start(start), start - _CHECK_CHARS)
    checked = _CHECKED.search(low, began, min(len(low), start + 24))
    if checked is not None and checked.start() <= start:
        return True  # after a request to check, or the request itself (``to confirm,``)
    opening = _CHECK_OPENING.search(low, began, start + 16)
    if opening is not None and opening.start() <= start:
        return True  # the sentence opens by checking (``just confirming your ride``)
    if low[end : end + 1] != "?":
        return False
    if bounds.same_clause(start, end):
        return True  # the question is the decision's own clause (``you want to book it?``)
    for word in _LETTER_RUN.finditer(low, clause, start):
        if word.group() not in _OPENERS:
            return word.group() in _ASKING
    return False


def find_decisions(
    text: str, bounds: Boundaries | None = None, lexicon: Lexicon = DEFAULT_LEXICON
) -> Iterator[Match]:
    """Every decision ``text`` states: the verb's span (or the outcome phrase's), its class,
    polarity and object, in text order. Decisions only asked about or wished for are none
    (:func:`prospective`)."""
    bounds = bounds if bounds is not None else Boundaries.of(text)
    low = lowered(text)
    nouns = transaction_nouns(text) if lexicon.outcomes else []
    outcomes = list(find_transactions(text, bounds, nouns)) if lexicon.outcomes else []
    inside = _Spans(outcomes)
    verbs = [(m, h) for m, h in _verbs(text, low, bounds, lexicon) if not inside.holds(m.start)]
    heads = {m.start: head for m, head in verbs if head is not None}
    # asks only set decisions apart: with fewer than two, there is nothing to set apart
    several = len(verbs) + len(outcomes) > 1
    requests = list(_requests(low, nouns, bounds)) if several else []
    found = sorted(
        [
            *((m, _VERB) for m, _ in verbs),
            *((m, _OUTCOME) for m in outcomes),
            *((m, _REQUEST) for m in requests),
        ],
        key=lambda pair: (pair[0].start, pair[0].end),
    )
    asked_at: dict[int, bool] = {}

    def asked(match: Match, kind: str) -> bool:
        if kind == _REQUEST:
            return True  # a transaction asked for by its noun (``I need a cab``)
        head = heads.get(match.start) if kind == _VERB else None
        if head in asked_at:
            asked_at[match.start] = asked_at[head]  # ``please cancel it and refund me``
        else:
            verb = kind == _VERB
            asked_at[match.start] = prospective(low, match.start, bounds, lexicon, verb)
        return asked_at[match.start]

    yield from _restatements(
        text,
        ((m, asked(m, kind)) for m, kind in found),
        lambda m: _additive(low, bounds, m.start, m.end),
    )


_VERB, _OUTCOME, _REQUEST = "verb", "outcome", "request"
"""What found a decision candidate: a decision verb, an outcome phrase (``find_transactions``)
or a transaction noun asked for (``_requests``: never a decision, only an ask)."""


_ADDITIVE = re.compile(
    r"(?<![\w'’-])(?:again(?![\w'’-])|(?:either|too|as[ \t]+well)(?=[ \t]*(?:[.,!?;\n]|$)))"
)
"""Words that make a decision one more of its kind (``I couldn't book that either``,
``booked a table too``, ``cancelled it again``)."""


def _additive(low: str, bounds: Boundaries, start: int, end: int) -> bool:
    """Whether the clause of the decision at ``[start, end)`` says it is one more."""
    began = max(bounds.clause_start(start), start - 80)
    stop = min(bounds.clause_end(end) + 1, end + 80)  # the boundary's own mark included
    return _ADDITIVE.search(low, began, stop) is not None


def _restatements(
    text: str, matches: Iterable[tuple[Match, bool]], additive: Callable[[Match], bool]
) -> Iterator[Match]:
    """The decisions among ``(match, asked)`` pairs, each unbound one that restates a bound
    one given its object: the last bound decision of its class and polarity before it, when
    no other thing is named and none of its class is asked for between them (``I cancelled
    order #W1. Your order has been cancelled.`` is one ``cancel: order w1``; ``Your
    appointment is booked.`` then ``a table for two`` or ``could you book a table?``
    then ``your reservation has been made`` stays two bookings). Each stretch of text between
    them is read once: a restatement is the last bound decision for the next one, and a bound
    decision with another thing after it restates no later one.

    A decision stated again after one of its class was asked for, or saying it is one more
    (``additive``: ``either``, ``too``, ``again``), is a new occurrence of it (``anew``):
    ``your reservation has been made``, ``shall I book the car?``, ``your reservation has
    been made`` states two bookings, and so does ``I couldn't book it``, ``I couldn't book
    that either`` two failures."""
    last: dict[tuple[str, bool], tuple[int, tuple[str, ...]]] = {}  # (end, object)
    asks: dict[str, int] = {}  # class -> decisions of it asked for so far
    stated: dict[object, int] = {}  # value key -> asks of its class when last stated
    for found, asked in matches:
        value = found.value
        assert isinstance(value, DecisionValue)
        if asked:  # a new transaction of its class is under way
            last.pop((value.verb, False), None)
            last.pop((value.verb, True), None)
            asks[value.verb] = asks.get(value.verb, 0) + 1
            continue
        key = (value.verb, value.negated)
        if not value.obj and key in last:
            end, obj = last[key]
            if _other_thing(text, end, found.start, obj):
                del last[key]  # the other thing stands before every later one too
            else:
                value = DecisionValue(value.verb, value.negated, obj)
        if value.obj:
            last[key] = (found.end, value.obj)
        key_of, now = value.key(), asks.get(value.verb, 0)
        before = stated.get(key_of)
        stated[key_of] = now
        anew = before is not None and (before != now or additive(found))
        yield Match(found.start, found.end, value, anew=anew)


def _other_thing(text: str, start: int, end: int, obj: tuple[str, ...]) -> bool:
    """Whether ``text[start:end]`` names an identifier or a thing booked outside ``obj``."""
    for found in _TOKEN.finditer(text, start, end):
        token = found.group()
        ident = _identifier(token)
        if ident is not None:
            if ident not in obj:
                return True
            continue
        stem = _stem(token.lower())
        kind = NOUNS.get(stem)
        if kind is not None and not set(transaction_object(kind, (stem,))) <= set(obj):
            return True
    return False


_BE = _words("am is are 'm ’m 're ’re")
_TO_BE = re.compile(r"(?<![\w'’])to[ \t]+be[ \t]+$")


def _modifier(low: str, start: int, form: str, lexicon: Lexicon) -> bool:
    """Whether a verb form states no decision taken (generic lexicon only): a past form after
    a determiner is an adjective (``the reserved time``), after ``to be`` a purpose (``the
    amount to be transferred``), an ``-ing`` form after a present ``be`` an action under way
    (``I am booking an appointment``)."""
    if not lexicon.outcomes:
        return False
    found = _PREVIOUS_WORD.search(low, max(0, start - 24), start)
    if found is None:
        return False
    word = found.group(1)
    if form in lexicon.past:
        return word in _DETERMINERS or _TO_BE.search(low, max(0, start - 12), start) is not None
    return form.endswith("ing") and (word in _BE or word.endswith(("'m", "’m", "'re", "’re")))


class _Spans:
    """Matches sorted by start, asked whether one of them holds a position (by bisection: a
    text with many outcomes costs each verb a logarithm, not a scan)."""

    def __init__(self, matches: list[Match]) -> None:
        self.starts = [m.start for m in matches]
        self.reach = list(itertools.accumulate((m.end for m in matches), max))

    def holds(self, position: int) -> bool:
        """Whether some match starts at or before ``position`` and ends after it."""
        i = bisect.bisect_right(self.starts, position) - 1
        return i >= 0 and self.reach[i] > position


def _verbs(
    text: str, low: str, bounds: Boundaries, lexicon: Lexicon
) -> Iterator[tuple[Match, int | None]]:
    """The decision verbs of ``lexicon`` in ``text``, each with the start of the verb it is
    coordinated with (None if none): a base or ``-s`` form right after ``and`` or ``or``,
    with a licensed one shortly before it (:func:`_shares`), is a verb too, of that verb's
    polarity (``will escalate the ticket and waive the fee``, ``can't cancel it or refund
    you``); it is asked for when that verb is."""
    present = vocabulary(text) & lexicon.forms
    if not present:
        return
    head: tuple[int, bool] | None = None  # (start, negated) of the last licensed base form
    for start, form_end, form in find_words(low, present, not_before="'’#-"):
        end = form_end  # past the particle of a phrasal verb written right after it
        if _modifier(low, start, form, lexicon):
            continue
        joined = None
        promised = False  # "will pay": a commitment, as "agreed to pay" is
        if form not in lexicon.past:
            if lexicon.verb_of[form] in BASE_ONLY_AFTER_FAILURE and lexicon.outcomes:
                if not failure_before(low, start):
                    if not future_commitment(text, low, start):
                        continue
                    promised = True
            elif (
                not _licensed(low, start)
                and not failed_attempt(low, start)
                and not note_present(
                    low, start, end, lexicon.class_of[form], bounds.clause_start(start)
                )
            ):
                joined = head if head is not None and _shares(low, head[0], start) else None
                if joined is None:
                    continue
        committed = (
            infinitive_decision(low, end, lexicon.forms, lexicon.past)
            if lexicon.verb_of[form] in COMMITTING
            else None
        )
        if committed is not None and lexicon.verb_of[committed] not in BASE_ONLY_AFTER_FAILURE:
            continue  # "agreed to waive the fee": the waiver is the decision, and its polarity
        stop = min(bounds.sentence_end(end), end + _OBJECT_CHARS)
        particle = lexicon.particle_of.get(form)
        if particle is not None:
            joint = particle_after(low, end, particle, bounds.clause_end(end))
            if joint is None:
                continue  # "turned" without "down", "called" without "off"
            end = max(end, joint)  # the particle right after the verb is part of it
        if (
            form in lexicon.past
            and lexicon.class_of[form] == "accept"
            and attribution(low, start, end, bounds.clause_start(start))
        ):
            continue  # "cancelled it; confirmed by agent Luis Romero": who stands behind it
        passive = form in lexicon.past and _passive(low, start, bounds.clause_start(start))
        obj = () if passive else _object(text, end, stop, _particles(lexicon, form))
        if particle is not None and literal_phrasal(lexicon.verb_of[form], particle, obj):
            continue  # "turned down the volume": the phrasal verb's literal sense
        kind = lexicon.class_of[form]
        if promised or (committed is not None and kind == "accept"):
            kind = "promise"  # "agreed to pay" commits as "promised to pay" does
        if lexicon.outcomes:
            kind, obj = consented_action(outcome_class(kind, obj), obj)
            obj = transaction_object(kind, obj)
        if (
            not passive
            and kind == lexicon.class_of[form]
            and lexicon.verb_of[form] in ASSERTING
            and asserts(low, lexicon.verb_of[form], end, stop)
        ):
            continue  # "confirmed INV-2231 was paid"; not "it is confirmed with reference ..."
        negated = joined[1] if joined is not None else polarity(text, start, bounds)
        if form not in lexicon.past and joined is None:
            head = (start, negated)
        yield (
            Match(start, end, DecisionValue(kind, negated, obj)),
            None if joined is None else joined[0],
        )


def parse_decision(text: str) -> DecisionValue | None:
    """The first decision stated in ``text`` (a whole value string), or None."""
    for match in find_decisions(text):
        assert isinstance(match.value, DecisionValue)
        return match.value
    return None
