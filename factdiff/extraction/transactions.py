"""Transaction outcomes as decisions: a booking, purchase, payment or after-sales service (a
refund, an exchange, a return) stated as done or failed.

Agents state outcomes with light verbs and nouns more often than with a decision verb:

* a light verb and a transaction noun: ``made the reservation``, ``got those tickets``,
  ``set up the appointment``, ``completed the transfer``, ``placed the order``, ``initiated
  the transfer``;
* a transaction noun and its outcome: ``your booking is confirmed``, ``the transfer was
  successful``, ``the ride has been booked``, ``the payment went through``, ``the order was
  cancelled``, ``the reservation failed``, ``the reservation did not work``, ``the tickets are
  yours``, ``your cab is on its way`` (a ride also when it comes: ``your cab will arrive
  shortly``, ``is headed your way``), with a short phrase or a compound head between them
  (``your visit to the apartment has been scheduled``, ``the transfer request was made``,
  ``the return request for the air purifier has been processed``; a noun of another class in
  that phrase is part of it: ``the payment for your reservation was declined`` is the
  payment's) or the speaker as the subject of a relative clause (``the transfer I have just
  initiated``);
* a booked person: ``you are now confirmed``, ``you're all set``;
* a pronoun opening its clause and an outcome: ``it was scheduled``, ``and it's on its way``
  (the class of the nearest transaction noun before it, the object unbound);
* the transaction verbs (:data:`TRANSACTION_VERBS`, found with the curated decision verbs):
  ``purchased``, ``bought``, ``paid``, ``rented``, ``transferred``.

The class comes from the noun (a reservation is ``book``, a transfer ``pay``, a refund
``refund``; an after-sales service's approval or refusal is left to the verb finder: ``your
refund was approved`` is ``accept``), or from an outcome that is a decision verb of its own
(``was cancelled`` is ``cancel``); a verb of consent or purchase with a transaction noun for
object takes the noun's class too (``confirmed your reservation``, ``bought the tickets``
are ``book``), but not an after-sales service's (``approved the refund`` is ``accept``).
Polarity is the decision negation scope with ``unable to`` and a failed attempt among the
negators (``couldn't make the reservation``, ``was unable to buy the ticket``, ``an error
trying to book``, ``an issue booking``); a failed outcome (``failed``, ``unsuccessful``, ``a
failure``, ``unavailable``) inverts it. A light verb's base form states an outcome only
after a failure cue (``couldn't make``) or ``able to`` or ``managed to``; otherwise it is an
intention (``can make``). The object is the noun when it names what was booked (``the car
has been booked`` is ``book: car``) and unbound when it names the transaction (``the
reservation was made`` restates ``I booked the table``).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType

from factdiff.extraction.clauses import Boundaries
from factdiff.extraction.negation import negated
from factdiff.extraction.recognizers.base import Match, lowered, vocabulary
from factdiff.extraction.wordfind import Word, find_words, plural_ending
from factdiff.extraction.wordtrie import word_start_alternation
from factdiff.values.decision import DecisionValue


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


TRANSACTION_VERBS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "book": ("rent",),
        "purchase": ("purchase", "buy"),
        "pay": ("pay", "transfer"),
    }
)
"""Transaction verbs by decision class (merged with the curated verbs; ``book`` and
``reserve`` are curated)."""
TRANSACTION_FORMS: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = MappingProxyType(
    {
        "buy": (("bought",), ("buy", "buys", "buying")),
        "pay": (("paid",), ("pay", "pays", "paying")),
        "transfer": (("transferred",), ("transfer", "transfers", "transferring")),
    }
)
"""(past forms, other forms) of the transaction verbs the regular rules miss."""
BASE_ONLY_AFTER_FAILURE = frozenset(("purchase", "buy", "pay", "transfer", "rent"))
"""Verbs whose base form is an outcome only after a failure cue (``couldn't buy``): ``to pay``
after ``agreed`` is the other decision's complement, ``can buy`` an offer."""

NOUNS: Mapping[str, str] = MappingProxyType(
    {
        **dict.fromkeys(
            _words(
                "reservation booking table appointment visit viewing ticket seat room ride cab "
                "taxi flight rental stay car hotel bus"
            ),
            "book",
        ),
        **dict.fromkeys(_words("payment transfer transaction deposit"), "pay"),
        **dict.fromkeys(_words("purchase order"), "purchase"),
        **dict.fromkeys(_words("refund reimbursement chargeback"), "refund"),
        "exchange": "exchange",
        "return": "return",
        **dict.fromkeys(_words("parcel shipment"), "ship"),
    }
)
"""Transaction nouns (singular) -> decision class."""
GOODS = frozenset(noun for noun, kind in NOUNS.items() if kind == "ship")
"""Nouns of goods on their way: their outcomes are shipping's (``the parcel was sent``, ``the
shipment is in transit``), and a verb of consent keeps its class (``accepted the parcel`` is
``accept: parcel``)."""
SERVICE = frozenset(
    noun for noun, kind in NOUNS.items() if kind in ("refund", "exchange", "return")
)
"""Nouns of an after-sales service (a refund, an exchange, a return): a customer asks for it
and an agent decides on it, so an outcome that is a decision of its own (``your refund was
approved``, ``the return was declined``) is that decision's, read by the verb finder
(:data:`_DECIDED`), and a verb of consent keeps its class (``approved the refund`` is
``accept: refund``)."""
GENERAL = _words(
    "reservation booking rental stay payment transfer transaction deposit purchase order "
    "refund reimbursement chargeback exchange return parcel shipment"
)
"""Nouns that name a transaction of any kind: the object stays unbound (``the reservation was
made`` restates ``I booked the table``). Other nouns name what was booked and are the
object (``the car has been booked`` is not ``the tickets have been booked``)."""
_DONE = _words(
    "confirmed booked made reserved completed complete successful done set scheduled created "
    "placed processed initiated started began begun sent secured arranged finalized finalised "
    "approved accepted bought purchased success ordered submitted fixed verified planned "
    "issued credited"
)
"""Outcomes stating the transaction done (the class is the noun's)."""
_CLAUSE_END = re.compile(r"[ \t]*(?:[.,;:!?)\n]|$)")
"""The end of a clause right after a word."""
_DECIDED = _words("confirmed approved accepted declined rejected denied refused")
"""Outcomes that are a decision of their own: after a :data:`SERVICE` noun they are left to
the verb finder (``your refund was approved`` is ``accept``, as ``I approved your refund``)."""
_REQUESTED = _words("requested")
"""An outcome stating the transaction submitted, only right after a form of ``be`` and
without ``by`` after it (``the exchange has been successfully requested``; not ``the payment
requested by the supplier`` or ``a refund was requested by the customer``)."""
BY_AFTER = re.compile(r"[ \t]+by(?![\w'’-])")
"""``by`` right after a word (lower-cased text): the agent of a passive follows."""
_UNDER_WAY = _words("processing underway")
"""Outcomes stating the transaction under way, only right after a form of ``be`` (``the
transfer is now processing``; not ``the order processing time``)."""
_YOURS = _words("yours")
"""An outcome stating the transaction done, only right after a form of ``be`` too (``the
tickets are yours``; not ``are the tickets yours?``)."""
_FAILED = _words("failed unsuccessful declined rejected denied refused failure unavailable")
"""Outcomes stating it failed: the noun's class, negated (``unavailable`` as ``not available``
is: ``that appointment was unavailable``)."""
_OWN_CLASS: Mapping[str, str] = MappingProxyType(
    {
        "cancelled": "cancel",
        "canceled": "cancel",
        "revoked": "cancel",
        "refunded": "refund",
        "paid": "pay",
    }
)
"""Outcomes that are a decision of their own class (``the order was cancelled``)."""
_PARTICIPLES = frozenset(w for w in _DONE | _FAILED | _OWN_CLASS.keys() if w.endswith("ed"))
"""Outcomes that end a phrase after a noun when the clause ends with them (``refund of $45
processed.``, ``reservation at Taverna Bistro confirmed;``): a note written without
auxiliaries."""
_ONLY_NEGATED = _words("possible available")
"""Outcomes only when negated: ``the reservation was not possible`` failed."""
_THROUGH = _words("went go goes gone going")
"""``went through`` (a refund's ``goes back``): done."""
_WENT = _words("went goes gone")
"""Forms of ``go`` that end a phrase after a noun (not the infinitive: ``that transfer to go
through`` is a question's)."""
_THROUGH_WORD = re.compile(r"[ \t]+(?:through|thru|back)(?![\w'’-])")
"""``through`` after a form of ``go`` (``thru`` as it is often written)."""
_AUX = _words(
    "is are was were be been being has have had got gets will would could can cannot did do "
    "does not never now all already just successfully also finally officially fully currently "
    "still "
    "'s ’s "
    "isn't aren't wasn't weren't hasn't haven't hadn't couldn't can't won't didn't doesn't "
    "don't a"
)
"""Words between a transaction noun and its outcome (``has now been``, ``couldn't be``, ``was
a``)."""
_LIGHT: Mapping[str, bool] = MappingProxyType(
    {
        **dict.fromkeys(
            _words(
                "made got completed placed secured arranged scheduled finalized finalised set "
                "setup initiated processed submitted started issued"
            ),
            True,
        ),
        **dict.fromkeys(
            _words(
                "make making get getting complete completing place placing secure securing "
                "arrange arranging schedule scheduling finalize finalise initiate initiating "
                "process processing submit submitting start starting issue issuing"
            ),
            False,
        ),
    }
)
"""Light verbs -> whether the form is a past one (a base form needs a failure cue); ``set``
only with ``up``, and ``setup`` as it is often written, either tense."""
_BEFORE_NOUN = _words(
    "the a an your my our their his her its this that these those both all each another new up"
)
"""Words a light verb's noun phrase may open with (``made those reservations``); a number
does not (``we've got 6 cars`` is a search result)."""
_MODIFIERS = 2
"""At most this many words between those opening words and the noun (``scheduled your
apartment visit``, ``made a dinner reservation``); without an opening word, none (``made
sure the reservation ...`` is no outcome)."""
_NOT_MODIFIERS = _words("and or but to for at with in from of on by as than that which")
_PRONOUN_OBJECT_VERBS = _words(
    "completed placed secured arranged scheduled finalized finalised initiated processed "
    "submitted issued complete place secure arrange schedule finalize finalise initiate "
    "process submit issue"
)
"""Light verbs whose object may be a pronoun standing for the transaction noun before it
(``I was able to schedule that for you``); not ``made``, ``got``, ``set`` or ``started``,
whose ``it`` says other things (``we made it``, ``got it``)."""
_PRONOUN_OBJECT = re.compile(
    r"[ \t]+(?:it|that)(?=[ \t]*(?:[.,;:!?)\n]|$)"
    r"|[ \t]+(?:for|through|thru|now|today|already|as|at|on|in|with|by|successfully)(?![\w'’-]))"
)
"""``it`` or ``that`` as a light verb's whole object: a clause end or a preposition or adverb
after it (``scheduled that for you``; not ``processed that request``)."""
_FAILURE_CUE = re.compile(
    r"(?:\w+n['’]t|not|never|cannot|(?:un)?able[ \t]+to|(?:not[ \t]+|im)possible[ \t]+to"
    r"|fail(?:s|ed)?[ \t]+to|(?:\w+n['’]t[ \t]+manage|managed)[ \t]+to)"
    r"[ \t]+(?:\w+[ \t]+)?$"
)
"""A cue after which a base form states an outcome, failed (``couldn't``, ``unable to``, ``not
possible to``) or done (``able to``, ``managed to``: the polarity says which)."""
_FAILED_ATTEMPT = re.compile(
    r"(?<![\w'’])(?:error|issue|problem|trouble)[ \t]+(?:(?:while|when|with)[ \t]+)?"
    r"(?P<trying>(?:trying|attempting)[ \t]+to[ \t]+)?$"
)
"""An attempt that failed (``there was an issue trying to book``, ``an issue booking``: an
``-ing`` form only without ``trying to``)."""
_PERFECT = re.compile(r"(?<![\w'’])(?:\w+['’]ve|have|has)[ \t]+(?:[a-z]+ly[ \t]+)?$")
"""A perfect auxiliary before a light verb's base form (``I've schedule the visit``): the past
participle as it is often misspelled, an outcome."""
_NOT_AFTER = r"[\w'’-]"
"""A word of these patterns starts after none of these characters."""
_ING = re.compile(r"[a-z]+ing(?![\w'’])")
_UNABLE = re.compile(r"(?<![\w'’])(?:unable|impossible)(?![\w'’])")
_WORD = re.compile(r"[\w'’]+")
_SINGULARS: Mapping[str, str] = MappingProxyType(
    {**{noun: noun for noun in NOUNS}, **{noun + plural_ending(noun): noun for noun in NOUNS}}
)
"""Transaction nouns, singular and plural (``buses``), -> the singular."""
_NOUN_FORMS = frozenset(_SINGULARS)
"""Transaction nouns, singular and plural: a text's vocabulary says which it names."""
_CONNECTIONS = re.compile(r"(?<![\w'’.,])(?:\d+|no|zero|one|two|three)[ \t]+$")
"""A count before ``transfer``: the changes of a bus or train journey (``0 transfers``, ``one
transfer``), not a payment, unless what is paid follows (:data:`_PAID`)."""
_PAID = re.compile(r"[ \t]+of(?![\w'’-])")
"""What follows a payment's ``transfer``: its amount (``one transfer of $500``); not ``to`` or
``for``, which a journey's take too (``0 transfers for $31``, ``1 transfer to Fresno``)."""
_YOU_ARE = re.compile(
    word_start_alternation(["you"], r"[\w'’]")
    + r"(?:['’]re|[ \t]+are)(?:[ \t]+(?:now|all|officially|successfully))*"
    r"[ \t]+(?P<outcome>confirmed|booked|reserved|scheduled|set)(?![\w'’-])"
)
"""``you are now confirmed``, ``you're all set``: the person stands for the booking."""
_LETTERS = re.compile(r"[a-z'’]+|\d+")
_DID_BEFORE = re.compile(r"(?<![\w'’])(?:did|didn['’]t|did[ \t]+not)[ \t]+$")
"""``did`` right before ``work``: the attempt's outcome (``the reservation did not work``), not
whether a proposal suits (``the reservation doesn't work for me``)."""
_TIMETABLE = _words("scheduled set due")
"""Outcome words that state a timetable after ``be`` and before ``to`` (``the bus is
scheduled to arrive``; ``I have a taxi scheduled to pick you up`` is a booking)."""
_BE_BEFORE = re.compile(
    r"(?<![\w'’])(?:is|are|was|were|be|been|'s|’s)[ \t]+"
    r"(?:(?:now|currently|already|successfully)[ \t]+)?$"
)
_ON_THE_WAY = re.compile(r"on[ \t]+(?:its|it['’]s|the|their|your)[ \t]+way(?![\w'’-])")
"""``your cab is on its way`` (or ``on it's way``, as it is often written): done."""
_MOVING = re.compile(
    r"(?:in[ \t]+transit|out[ \t]+for[ \t]+delivery"
    r"|left[ \t]+(?:the|our|their)[ \t]+(?:warehouse|facility|depot|hub|store))(?![\w'’-])|"
    + _ON_THE_WAY.pattern
)
"""Goods shipped: ``in transit``, ``out for delivery``, ``on its way``, ``left the
warehouse``."""
_SHIPPED = frozenset(("ship", "purchase"))
"""Classes of nouns whose goods ship: an order's too (``your order is on its way``)."""
_VEHICLES = _words("cab taxi ride car")
"""Nouns of a ride, booked once it is said to come (``your cab will arrive shortly``)."""
_ARRIVING = re.compile(
    r"(?:coming|arriving|arrive|here|en[ \t-]?route"
    r"|head(?:ed|ing)[ \t]+(?:your[ \t]+way|to[ \t]+you|over))(?![\w'’-])"
)
"""Words that state a ride coming (``is coming``, ``will be here soon``, ``is en route``, ``is
headed your way``)."""
_PREPOSITIONS = _words("to for at with in from of on")
"""Words opening a prepositional phrase between a noun and its outcome (``your reservation at
Taverna Bistro was made``)."""
_PHRASE_WORDS = 4
"""At most this many words in that phrase (a number with its marks is one: ``$1,340.50``)."""
_VALUE_SIGNS = frozenset("$€£#")
"""Signs that may open a value inside that phrase (``of $1,340``, ``for order #W12``)."""
_NUMBER_MARKS = frozenset(".,:")
"""Marks that may join the digits of a value inside that phrase (``1,340.50``, ``7:30``)."""
_RELATIVE_SUBJECT = re.compile(
    r"[ \t]+(?:(?:that|which)[ \t]+)?(?:i|we)(?:['’]ve|['’]d)?(?![\w'’-])"
)
"""The speaker as subject of a relative clause after the noun (``the transfer I have just
initiated``, ``the order that we placed``): its outcome is the noun's."""
_COMPOUND_HEADS = _words("request process")
"""Heads that make a compound with a transaction noun (``the transfer request was made``,
``your transfer process is started``)."""
_OPENER_CHARS = 16
"""At most this many characters (``please``, ``and so``, quotes, spaces) before a request's
verb or a clause's subject pronoun."""
_PLEASE = _words("please")
_SUBJECT_OPENERS = _words("and so but now ok okay yes alright great then")
"""Words a clause may open with before its subject pronoun (``and it was initiated``)."""
_ANTECEDENT_CHARS = 400
"""A pronoun's transaction noun stands at most this many characters before it."""
_PRONOUN_OUTCOMES = _words(
    "confirmed booked reserved scheduled initiated processed started begun completed complete "
    "done placed submitted successful finalized finalised arranged sent failed unsuccessful "
    "processing underway"
)
"""Outcomes a pronoun subject states (``it was scheduled``, ``it's done``; not ``made`` or
``set``, which say other things of ``it``)."""
_PRONOUN_PATTERN = re.compile(
    word_start_alternation(["it", "that"], _NOT_AFTER)
    + r"(?![\w-])(?=(?:['’]s)?(?:\s+[\w'’]+){0,4}?\s+(?:"
    + "|".join(sorted(_PRONOUN_OUTCOMES | _THROUGH | {"on"}))
    + r")(?![\w'’-]))"
)
"""A pronoun with an outcome word among the five words after it: the candidates that
``_pronoun_outcomes`` reads word by word."""
_EXTRAPOSED = re.compile(r"[ \t]+(?:that|to|whether|if|so)(?![\w'’-])")
"""A clause after the outcome that ``it`` stands for (``it was confirmed that returns take 5
days``): no transaction's outcome."""
_PRONOUN_CUES = _PRONOUN_OUTCOMES | _THROUGH | {"way"}
"""Words without one of which a text states no outcome of a pronoun."""


def unable(text: str, start: int, bounds: Boundaries) -> bool:
    """Whether ``unable`` stands in the clause just before ``start`` (``unable to book``): a
    negator for decisions beside those of :mod:`factdiff.extraction.negation`."""
    left = max(bounds.clause_start(start), start - 48)
    window = lowered(text)[left:start]
    ends = [found.end() for found in _UNABLE.finditer(window)]
    return bool(ends) and len(_WORD.findall(window[ends[-1] :])) <= 3


def failed_attempt(low: str, start: int) -> bool:
    """Whether ``start`` follows a failed attempt (``an error trying to book``, ``an issue
    booking``; not ``issue refund``, where ``issue`` is the verb)."""
    found = _FAILED_ATTEMPT.search(low, max(0, start - 48), start)
    if found is None:
        return False
    return found.group("trying") is not None or _ING.match(low, start) is not None


def polarity(text: str, start: int, bounds: Boundaries) -> bool:
    """A decision's negation: the negation scope, ``unable to`` and a failed attempt counted
    as negators."""
    failed = failed_attempt(lowered(text), start)
    return negated(text, start, bounds) != (unable(text, start, bounds) != failed)


def failure_cue(low: str, start: int) -> bool:
    """Whether a failure cue stands right before ``start`` (``couldn't``, ``unable to make``)."""
    return _FAILURE_CUE.search(low, max(0, start - 40), start) is not None


def failure_before(low: str, start: int) -> bool:
    """Whether a failure cue or a failed attempt stands right before ``start``: a base or
    ``-ing`` form there states a failed outcome (``couldn't make``, ``an issue booking``)."""
    return failure_cue(low, start) or failed_attempt(low, start)


CONSENT = frozenset(("accept", "purchase"))
"""Decision classes that state a transaction done when their object is a transaction noun,
of the noun's class (``confirmed your reservation`` is ``book`` as ``your reservation is
confirmed`` is; ``bought the tickets`` is ``book`` as ``the tickets were bought`` is)."""


def outcome_class(kind: str, obj: tuple[str, ...]) -> str:
    """The class of a decision ``kind`` with object ``obj``: a verb of consent or purchase
    whose object names one kind of transaction takes its class (a noun that names what was
    booked before a general one: ``confirmed your ticket purchase`` is ``book``), except an
    after-sales service's (:data:`SERVICE`)."""
    if kind not in CONSENT:
        return kind
    nouns = [w for w in obj if w in NOUNS and w not in SERVICE and w not in GOODS]
    specific = {NOUNS[w] for w in nouns if w not in GENERAL}
    classes = specific or {NOUNS[w] for w in nouns}
    return classes.pop() if len(classes) == 1 else kind


ACTION_NOUNS: Mapping[str, str] = MappingProxyType({"cancellation": "cancel"})
"""Nouns of an action that is a decision class of its own: a verb of consent with one for
object states the action done (``confirmed the cancellation`` is ``cancel``)."""


def consented_action(kind: str, obj: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """``(kind, obj)``, or the action's class and the rest of the object when a verb of
    consent has an action noun (:data:`ACTION_NOUNS`) for object."""
    if kind not in CONSENT:
        return kind, obj
    actions = {ACTION_NOUNS[w] for w in obj if w in ACTION_NOUNS}
    if len(actions) != 1:
        return kind, obj
    return actions.pop(), tuple(w for w in obj if w not in ACTION_NOUNS)


def transaction_nouns(text: str) -> list[Word]:
    """Where ``text`` names a transaction noun (``tickets``: ``ticket``), in text order; a
    counted ``transfer`` is a change of bus or train, not a payment (:data:`_CONNECTIONS`)."""
    nouns = {_singular(w) for w in vocabulary(text) & _NOUN_FORMS}
    if not nouns:
        return []
    low = lowered(text)
    found = find_words(low, nouns, plural=True)
    if "transfer" not in nouns:
        return found
    return [w for w in found if w.word != "transfer" or not _connection(low, w)]


def _connection(low: str, noun: Word) -> bool:
    """Whether a ``transfer`` is counted as a journey's changes are (``0 transfers``)."""
    counted = _CONNECTIONS.search(low, max(0, noun.start - 8), noun.start) is not None
    return counted and _PAID.match(low, noun.end) is None


def find_transactions(
    text: str, bounds: Boundaries, nouns_at: list[Word] | None = None
) -> Iterator[Match]:
    """Every transaction outcome ``text`` states (light verb + noun, noun + outcome), in
    text order; the object is unbound. ``nouns_at``: ``transaction_nouns(text)``, when the
    caller has it."""
    words = vocabulary(text)
    if nouns_at is None:
        nouns_at = transaction_nouns(text)
    if not nouns_at and "you" not in words:
        return
    low = lowered(text)
    found: list[Match] = []
    if nouns_at:
        antecedents = _Antecedents(nouns_at)
        for light in find_words(low, words & _LIGHT.keys()):
            match = _light(text, low, light, bounds, antecedents)
            if match is not None:
                found.append(match)
        outcomes = (_outcome(text, low, noun, bounds) for noun in nouns_at)
        found.extend(_outermost(m for m in outcomes if m is not None))
        if not words.isdisjoint(_PRONOUN_CUES):
            found.extend(_pronoun_outcomes(text, low, bounds, nouns_at))
    for you in _YOU_ARE.finditer(low):
        negative = polarity(text, you.start("outcome"), bounds)
        found.append(Match(you.start(), you.end(), DecisionValue("book", negative)))
    yield from sorted(found, key=lambda m: (m.start, m.end))


def _light(
    text: str, low: str, light: Word, bounds: Boundaries, antecedents: _Antecedents
) -> Match | None:
    """``made the reservation``: a light verb, at most three opening words and two modifiers,
    a noun; or ``scheduled that``, a pronoun standing for the transaction noun before it
    (:func:`_pronoun_object`). A base form states an outcome after a failure cue or a
    perfect auxiliary."""
    verb = light.word
    if not _LIGHT[verb] and not failure_before(low, light.start) and not _perfect(low, light):
        return None
    before = _LETTERS.findall(low, max(0, light.start - 16), light.start)
    if before and before[-1] in _BEFORE_NOUN:
        return None  # an adjective (``your scheduled visit``)
    position = light.end
    if verb in _PRONOUN_OBJECT_VERBS and _PRONOUN_OBJECT.match(low, position) is not None:
        return _pronoun_object(text, light, bounds, antecedents)
    if verb in ("set", "setup"):
        if verb == "set" and not low.startswith(" up", position):
            return None  # ``set`` alone
        if _imperative(low, light.start, bounds):
            return None  # a request (``Set up a reservation for me``)
        position += 3 if verb == "set" else 0
    stop = min(position + 60, len(low))
    opening = modifiers = 0
    for word in _LETTERS.finditer(low, position, stop):
        if low[position : word.start()].strip():
            return None  # punctuation ends the phrase
        token = word.group()
        if token in _NOUN_FORMS:
            stem, start = _singular(token), light.start
            value = DecisionValue(NOUNS[stem], polarity(text, start, bounds), _bound(stem))
            return Match(start, word.end(), value)
        if token in _BEFORE_NOUN and not modifiers and opening < 3:
            opening += 1
        elif opening and modifiers < _MODIFIERS and _modifier_word(token):
            modifiers += 1
        else:
            return None
        position = word.end()
    return None


def _pronoun_object(
    text: str, light: Word, bounds: Boundaries, antecedents: _Antecedents
) -> Match | None:
    """``I scheduled it``: the outcome of the class of the nearest transaction noun before
    the light verb, its object unbound (the pronoun does not say which thing it was)."""
    noun = antecedents.before(light.start)
    if noun is None:
        return None
    negative = polarity(text, light.start, bounds)
    return Match(light.start, light.end, DecisionValue(NOUNS[noun], negative))


def _perfect(low: str, light: Word) -> bool:
    """Whether a perfect auxiliary stands right before ``light`` (``I've schedule``)."""
    return _PERFECT.search(low, max(0, light.start - 32), light.start) is not None


def _modifier_word(token: str) -> bool:
    """Whether ``token`` may stand between a noun phrase's opening words and its noun: a word
    of letters that is no function word (``apartment``, ``dinner``; not ``for`` or ``6``)."""
    return token.isalpha() and token not in _NOT_MODIFIERS and token not in _BEFORE_NOUN


def _singular(word: str) -> str:
    """The transaction noun a word of :data:`_NOUN_FORMS` names (``tickets``: ``ticket``)."""
    return _SINGULARS[word]


def singular_noun(word: str) -> str | None:
    """The transaction noun ``word`` names, singular or plural (``buses``: ``bus``), else
    None."""
    return _SINGULARS.get(word)


def _imperative(low: str, start: int, bounds: Boundaries) -> bool:
    """Whether the verb at ``start`` opens its sentence (after ``please``): a request."""
    return _opens(low, bounds.sentence_start(start), start, _PLEASE)


def _opens(low: str, left: int, start: int, openers: frozenset[str]) -> bool:
    """Whether only ``openers`` stand between ``left`` and ``start``. Only a few characters
    are read, so a long sentence costs no more."""
    if start - left > _OPENER_CHARS:
        return False
    return not (set(_LETTERS.findall(low, left, start)) - openers)


def _outcome(text: str, low: str, noun: Word, bounds: Boundaries) -> Match | None:
    """``your booking is confirmed``: a noun (with a short prepositional phrase or a compound
    head: ``your visit to the apartment``, ``the transfer request``; or the speaker as the
    subject of a relative clause: ``the order we placed``), auxiliaries, an outcome."""
    position = noun.end
    relative = _RELATIVE_SUBJECT.match(low, position)
    if relative is not None:
        position = relative.end()  # ``the transfer I have just initiated``
    stop = min(position + 80, len(low))
    noun_class = NOUNS[noun.word]
    skipped = 0  # words of a prepositional phrase or a compound head (no auxiliaries)
    in_phrase = False
    for count, word in enumerate(_LETTERS.finditer(low, position, stop)):
        joint = low[position : word.start()].strip()
        if joint and not (in_phrase and _value_joint(joint, low, position, word.start())):
            return None
        token = word.group()
        position = word.end()
        if count == 0 and token in _COMPOUND_HEADS:
            skipped = 1
            continue
        opens = count == skipped and not in_phrase and token in _PREPOSITIONS
        if opens and not _ON_THE_WAY.match(low, word.start()):
            skipped, in_phrase = skipped + 1, True  # after the noun or its compound head
            continue
        if in_phrase and token in _PARTICIPLES and _CLAUSE_END.match(low, position):
            in_phrase = False  # ``Refund of $45.00 processed.``: a note's outcome, no auxiliary
        elif in_phrase and token in _WENT and _THROUGH_WORD.match(low, position):
            in_phrase = False  # ``the payment of $50 went through``; not ``... to go through``
        elif in_phrase and (token == "a" or token not in _AUX):
            if skipped > _PHRASE_WORDS or _same_class(token, noun_class):
                return None  # too long, or its own noun states the outcome (``the table at 7``)
            skipped += joint not in _NUMBER_MARKS  # ``1,340.50`` is one word
            continue
        in_phrase = False
        if noun.word in SERVICE and token in _DECIDED:
            return None  # the verb finder's (``your refund was approved`` is ``accept``)
        outcome, end = _outcome_at(text, low, word, noun_class, bounds)
        if outcome is None and noun.word in _VEHICLES:
            arriving = _ARRIVING.match(low, word.start())
            if arriving is not None:
                outcome, end = (noun_class, False), arriving.end()
        if outcome is not None:
            verb, failed = outcome
            negative = polarity(text, word.start(), bounds) != failed
            value = DecisionValue(verb, negative, _bound(noun.word))
            return Match(noun.start, end, value)
        if end < 0 or count - skipped >= 4 or token not in _AUX:
            return None
    return None


def _outermost(matches: Iterable[Match]) -> list[Match]:
    """Noun outcomes in text order, without those inside another's span: the noun in the
    phrase of another's states the same outcome (``the payment for your reservation was
    declined`` is the payment's)."""
    out: list[Match] = []
    for match in matches:
        if out and out[-1].start <= match.start and match.end <= out[-1].end:
            continue
        out.append(match)
    return out


def _same_class(token: str, noun_class: str) -> bool:
    """Whether ``token`` is a transaction noun of ``noun_class``: inside the phrase after a
    noun of that class it states the outcome itself (``the reservation for your table at 7
    is confirmed`` is ``book: table``); a noun of another class is part of the phrase (``the
    refund for your order was processed`` is the refund's)."""
    stem = singular_noun(token)
    return stem is not None and NOUNS[stem] == noun_class


def _value_joint(joint: str, low: str, start: int, end: int) -> bool:
    """Whether ``joint``, the characters in ``[start, end)`` between two words of a phrase
    without blanks, belongs to a typed value: a currency sign or ``#`` before it (``of
    $1,340``, ``for order #W12``), a decimal or thousands mark or a clock's colon between
    digits (``1,340.50``, ``7:30``), an identifier's hyphen between a digit and a letter or
    digit (``for order 7781-AB``)."""
    if joint in _VALUE_SIGNS:
        return True
    before, after = low[start - 1 : start], low[end : end + 1]
    if joint == "-":
        return (before.isdigit() and after.isalnum()) or (before.isalnum() and after.isdigit())
    return joint in _NUMBER_MARKS and before.isdigit() and after.isdigit()


class _Antecedents:
    """The transaction nouns of a text by position, asked which one a later word refers to."""

    def __init__(self, nouns: list[Word]) -> None:
        self.nouns = nouns
        self.starts = [noun.start for noun in nouns]

    def before(self, position: int) -> str | None:
        """The nearest noun before ``position`` (within :data:`_ANTECEDENT_CHARS`)."""
        i = bisect.bisect_left(self.starts, position) - 1
        if i < 0 or position - self.starts[i] > _ANTECEDENT_CHARS:
            return None
        return self.nouns[i].word


_CONFIRM_REQUEST = re.compile(r"(?<![\w'’-])confirm(?![\w'’-])")
"""The base form ``confirm``: a request to confirm (``please confirm``, ``can you confirm``)."""


def _answers_check(low: str, bounds: Boundaries, start: int) -> bool:
    """Whether ``that is confirmed`` at ``start`` answers a request to confirm in the
    sentence before it (``Please confirm to book a cab for 4.`` / ``That is confirmed.``):
    the speaker consents to a proposal, nothing is done yet."""
    ended = bounds.sentence_start(start)
    while ended > 0 and low[ended - 1] in " \t\n.!?;":
        ended -= 1
    began = max(bounds.sentence_start(ended), ended - 400)
    return ended > 0 and _CONFIRM_REQUEST.search(low, began, ended) is not None


def _pronoun_outcomes(
    text: str, low: str, bounds: Boundaries, nouns: list[Word]
) -> Iterator[Match]:
    """``it was scheduled``, ``it's on its way``: a subject pronoun, auxiliaries and an
    outcome, of the class of the nearest transaction noun before it (the object unbound: the
    pronoun does not say which thing of that class it was). ``that is confirmed`` answering
    a request to confirm states nothing (:func:`_answers_check`)."""
    pronouns = list(_PRONOUN_PATTERN.finditer(low))
    if not pronouns:
        return
    antecedents = _Antecedents(nouns)
    for pronoun in pronouns:
        start = pronoun.start()
        noun = antecedents.before(start)
        if noun is None or not _opens(low, bounds.clause_start(start), start, _SUBJECT_OPENERS):
            continue
        noun_class = NOUNS[noun]
        position = pronoun.end()
        for count, word in enumerate(_LETTERS.finditer(low, position, position + 60)):
            if low[position : word.start()].strip() or count >= 5:
                break
            token, position = word.group(), word.end()
            if token in _PRONOUN_OUTCOMES or token == "on" or token in _THROUGH:
                answer = token == "confirmed" and pronoun.group() == "that"
                if answer and _answers_check(low, bounds, start):
                    break
                if noun in SERVICE and token in _DECIDED:
                    break  # the verb finder's, as after the noun itself
                outcome, end = _outcome_at(text, low, word, noun_class, bounds)
                if outcome is not None and _EXTRAPOSED.match(low, end) is None:
                    verb, failed = outcome
                    negative = polarity(text, word.start(), bounds) != failed
                    yield Match(start, end, DecisionValue(verb, negative))
                    break
            if token not in _AUX:
                break


def _timed(low: str, start: int) -> bool:
    """Whether a form of ``be`` stands right before ``start`` (``now``, ``currently``,
    ``already`` or ``successfully`` between them)."""
    return _BE_BEFORE.search(low, max(0, start - 24), start) is not None


def _outcome_at(
    text: str, low: str, word: re.Match[str], noun_class: str, bounds: Boundaries
) -> tuple[tuple[str, bool] | None, int]:
    """((class, failed), end) of the outcome that ``word`` opens after a ``noun_class`` noun;
    (None, -1) when it states that none is (``the table is available``)."""
    token, end = word.group(), word.end()
    if token in _TIMETABLE and low.startswith(" to ", end) and _timed(low, word.start()):
        return None, -1  # ``the bus is scheduled to arrive``: a timetable, no outcome
    if token == "set" and low.startswith(" up", end):
        end += 3
    if token in _THROUGH and (through := _THROUGH_WORD.match(low, end)) is not None:
        end = through.end()
    moving = _MOVING.match(low, word.start()) if noun_class in _SHIPPED else None
    if moving is not None:
        return ("ship", False), moving.end()
    way = _ON_THE_WAY.match(low, word.start()) if token == "on" else None
    if way is not None:
        return (noun_class, False), way.end()
    if token in _UNDER_WAY or token in _YOURS:
        return ((noun_class, False) if _timed(low, word.start()) else None), end
    if token in _REQUESTED:
        submitted = _timed(low, word.start()) and BY_AFTER.match(low, end) is None
        return ((noun_class, False) if submitted else None), end
    if token in _ONLY_NEGATED:
        if not polarity(text, word.start(), bounds):
            return None, -1
        return (noun_class, False), end
    if token == "worked" or (
        token == "work" and _DID_BEFORE.search(low, max(0, word.start() - 12), word.start())
    ):
        return (noun_class, False), end
    return _outcome_class(token, noun_class, low, end), end


SAME_THING: Mapping[str, str] = MappingProxyType(
    {
        "cab": "ride",
        "taxi": "ride",
        "seat": "ticket",
        "visit": "appointment",
        "viewing": "appointment",
    }
)
"""Transaction nouns that name one thing booked (the object takes the second)."""
CLASSES = frozenset(
    kind for noun, kind in NOUNS.items() if noun not in SERVICE and noun not in GOODS
)
"""The decision classes of bookings, payments and purchases, whose objects name what was
booked or bought (an after-sales decision's object stays as the verb finder read it:
``refund order #W123`` is ``refund: order w123``)."""


def transaction_object(kind: str, obj: tuple[str, ...]) -> tuple[str, ...]:
    """A transaction decision's object: general nouns dropped, nouns of one thing made one
    (``booked the reservation`` is unbound, ``booked a cab`` is ``book: ride``)."""
    if kind not in CLASSES:
        return obj
    return tuple(sorted({SAME_THING.get(w, w) for w in obj if w not in GENERAL}))


def _bound(noun: str) -> tuple[str, ...]:
    """The object a transaction noun gives its decision (none for a general noun)."""
    return () if noun in GENERAL else transaction_object(NOUNS[noun], (noun,))


def _outcome_class(token: str, noun_class: str, low: str, end: int) -> tuple[str, bool] | None:
    """(class, failed) of an outcome word, or None."""
    if token in _DONE:
        return noun_class, False
    if token in _FAILED:
        return noun_class, True
    if token in _OWN_CLASS:
        return _OWN_CLASS[token], False
    if token in _THROUGH and low[:end].endswith((" through", " thru")):
        return noun_class, False
    if token in _THROUGH and noun_class == "refund" and low[:end].endswith(" back"):
        return noun_class, False  # "the refund goes back to your card"
    return None
