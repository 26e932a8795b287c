"""A lexical stance model for the offline reasoner: how relevant a passage is to a statement, and
whether it agrees or disagrees. No model, no data, no dependencies — a transparent baseline.

Relevance: the share of the statement's content stems (and bigrams) the passage contains, lowered
when the passage states figures none of which are the statement's, or hedges what the statement asserts.

Polarity: agreement, unless an odd number of these says the passage asserts the opposite:
- a negator ("not", "never", "isn't") or a denial ("hoax", "myth", "debunked") whose scope mentions
  something the other text talks about. A statement is one proposition, so its negator covers its whole
  clause; a passage runs on, so its negator covers what follows it in its clause. Negators inside a
  condition ("if we do nothing, …") and idioms ("not only", "no doubt") deny nothing.
- an antonym swap: the passage uses the opposite of a statement word (rise/fall, stable/increase) in a
  clause about the statement, and not the word itself.
- a minimiser ("only 3 per cent", "a tiny fraction", "little effect") on one side and not the other.

The rules were tuned on the even-indexed half of the CLIMATE-FEVER dev claims; see
claimcourt.reasoning.offline for what was measured.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

STOPWORDS = frozenset(
    (
        "a about above after again against all am an and any are as at be because been before being below "
        "between both but by can could did do does doing down during each few for from further had has have "
        "having he her here hers herself him himself his how i if in into is it its itself just me more most "
        "my myself of off on once only or other our ours ourselves out over own she should so some such "
        "than that the their theirs them themselves then there these they this those through to too under "
        "until up very was we were what when where which while who whom why will with would you your yours "
        "also may might must shall us one two many much per via"
    ).split()
)
# Denials judge a whole proposition wherever they sit in it: "X is a myth", "a hoax that X".
DENIALS = frozenset(
    (
        "false myth myths hoax fraud scam unproven disproven debunked debunk debunks unfounded untrue "
        "retracted retract discredited flawed exaggerated overstated overblown bogus baseless denies deny"
    ).split()
)
# Words that deny the proposition they sit in ("X is a hoax" says "X is not real").
NEGATORS = (
    frozenset(
        (
            "not no never none nobody nothing neither nor cannot without lack lacks lacking fail fails "
            "failed isn't aren't wasn't weren't doesn't don't didn't won't can't hasn't haven't hadn't "
            "shouldn't wouldn't couldn't"
        ).split()
    )
    | DENIALS
)
# Minimisers say an effect is next to nothing: asserted by one side and not the other, the two
# disagree about the same quantity ("only 3 per cent of emissions" against "40% of emissions").
MINIMISERS = frozenset(
    "only merely tiny minuscule negligible insignificant barely hardly scarcely little".split()
)
# A negator and the word after it that together deny nothing: "not only X but Y" asserts X.
_IDIOMS = frozenset(
    {
        ("not", "only"),
        ("not", "just"),
        ("not", "merely"),
        ("not", "least"),
        ("no", "doubt"),
        ("without", "doubt"),
    }
)
# A negator inside a condition ("if we do nothing, X") belongs to the condition, not to what is asserted.
_CONDITIONALS = frozenset({"if", "unless", "whether"})
_HEDGES = frozenset(
    "may might could possibly perhaps probably likely unlikely suggest suggests suggested uncertain "
    "unclear".split()
)
# How many tokens a negator or minimiser governs, at most (a clause rarely runs longer).
_SCOPE = 20
# Relevance factors: a passage whose figures all differ from the statement's is about the topic, not
# the fact; a hedged passage backs an unhedged statement less than a plain one would.
NUMBER_MISMATCH = 0.8
HEDGED = 0.85

_ANTONYM_PAIRS = (
    ("increase", "decrease"),
    ("increase", "decline"),
    ("increase", "reduce"),
    ("rise", "fall"),
    ("rise", "drop"),
    ("rise", "decline"),
    ("higher", "lower"),
    ("warm", "cool"),
    ("gain", "loss"),
    ("gain", "lose"),
    ("grow", "shrink"),
    ("grow", "decline"),
    ("expand", "contract"),
    ("accelerate", "slow"),
    ("faster", "slower"),
    ("positive", "negative"),
    ("strong", "weak"),
    ("safe", "dangerous"),
    ("major", "minor"),
    ("large", "small"),
    ("thicken", "thin"),
    ("advance", "retreat"),
    ("melt", "freeze"),
    ("wet", "dry"),
    ("high", "low"),
    ("hot", "cold"),
    ("natural", "anthropogenic"),
    ("natural", "human"),
    ("benefit", "harm"),
    ("help", "hurt"),
    ("record", "normal"),
    ("unprecedented", "normal"),
    ("accurate", "inaccurate"),
    ("reliable", "unreliable"),
)
# Saying a quantity holds still contradicts saying it moves, whichever way.
_STASIS = (
    "same stable stabilized stabilised unchanged remain remains remained constant steady flat plateau halted"
)
_CHANGE = "rise raise increase grow decline decrease fall drop shrink accelerate change"

_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
# Where a clause ends: sentence punctuation (not a decimal point), brackets, dashes, or a contrast.
_CLAUSE_BREAK = re.compile(r"(?<!\d)[.](?!\d)|[;:!?()\[\]—–]|\b(?:but|however|although|though|whereas)\b")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_SUFFIXES = ("ingly", "ations", "ation", "ments", "ment", "ings", "ing", "ies", "ied", "ed", "es", "ly", "s")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A deliberately small suffix stripper: enough to match warming/warmed/warms."""
    if word.endswith("n't"):
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if suffix in ("ies", "ied"):
                return word + "y"
            break
    # A silent final e goes too, so increase/increased/increasing and rise/rising meet.
    return word[:-1] if word.endswith("e") and len(word) >= 4 else word


def _antonyms() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    pairs = [*_ANTONYM_PAIRS, *((a, b) for a in _STASIS.split() for b in _CHANGE.split())]
    for a, b in pairs:
        table.setdefault(stem(a), set()).add(stem(b))
        table.setdefault(stem(b), set()).add(stem(a))
    return {k: frozenset(v) for k, v in table.items()}


ANTONYMS = _antonyms()


def _normal(text: str) -> str:
    return text.lower().replace("’", "'")


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(_normal(text))


def _content(token: str) -> bool:
    return token not in STOPWORDS and token not in NEGATORS and len(token) > 1


def content_stems(text: str) -> list[str]:
    return [stem(t) for t in tokens(text) if _content(t)]


def _is_negator(token: str) -> bool:
    return token in NEGATORS or token.endswith("n't")


def negation_count(text: str) -> int:
    """Every negator in the text, scoped or not."""
    return sum(1 for t in tokens(text) if _is_negator(t))


@lru_cache(maxsize=16384)
def _clauses(text: str) -> tuple[tuple[str, ...], ...]:
    parts = (tuple(tokens(part)) for part in _CLAUSE_BREAK.split(_normal(text)) if part)
    return tuple(part for part in parts if part)


def _mentions(scope: tuple[str, ...], other: frozenset[str]) -> bool:
    return any(stem(t) in other for t in scope[:_SCOPE] if _content(t))


def _scoped_negations(text: str, other: frozenset[str], *, forward: bool) -> int:
    """Negators in `text` whose scope mentions something in `other` (the other text's stems).

    With `forward`, a syntactic negator's scope is what follows it in its clause; otherwise, and for
    a denial, it is the whole clause."""
    count = 0
    for clause in _clauses(text):
        conditional = False
        for i, token in enumerate(clause):
            conditional = conditional or token in _CONDITIONALS
            if conditional or not _is_negator(token):
                continue
            if i + 1 < len(clause) and (token, clause[i + 1]) in _IDIOMS:
                continue
            scope = clause[i + 1 :] if forward and token not in DENIALS else clause
            count += _mentions(scope, other)
    return count


def _minimised(text: str, other: frozenset[str]) -> bool:
    """Whether `text` minimises something `other` talks about ("not only" minimises nothing)."""
    for clause in _clauses(text):
        for i, token in enumerate(clause):
            if (
                token in MINIMISERS
                and not (i and _is_negator(clause[i - 1]))
                and _mentions(clause[i + 1 :], other)
            ):
                return True
    return False


def _swaps(s_set: frozenset[str], passage: str) -> int:
    """Antonyms of statement words that the passage uses instead, in clauses about the statement.

    Each opposite counts once ("remains the same" against "raises" is one swap), and a clause with
    both the word and its antonym ("one declining, two increasing") swaps nothing."""
    found: set[str] = set()
    for clause in _clauses(passage):
        stems = {stem(t) for t in clause if _content(t)}
        if not stems & s_set:
            continue
        for word in s_set:
            opposite = ANTONYMS.get(word, frozenset()) & stems
            if opposite and word not in stems and not opposite & s_set:
                found |= opposite
    return len(found)


@lru_cache(maxsize=16384)
def _numbers(text: str) -> frozenset[str]:
    """The figures a text states (1,250 and 1250 alike); single digits are mostly counts, left out."""
    found = (n.replace(",", "") for n in _NUMBER.findall(text))
    return frozenset(n for n in found if len(n) > 1)


def _hedged(text: str) -> bool:
    return any(t in _HEDGES for t in tokens(text))


@dataclass(frozen=True)
class Stance:
    relevance: float  # 0..1
    polarity: int  # +1 agrees, -1 disagrees

    @property
    def strength(self) -> float:
        return self.relevance * self.polarity


def stance(statement: str, passage: str) -> Stance:
    s_words = content_stems(statement)
    p_words = content_stems(passage)
    if not s_words or not p_words:
        return Stance(0.0, 1)
    s_set, p_set = frozenset(s_words), frozenset(p_words)
    overlap = len(s_set & p_set) / len(s_set)
    s_bigrams = set(pairwise(s_words))
    bigram = len(s_bigrams & set(pairwise(p_words))) / len(s_bigrams) if s_bigrams else 0.0
    relevance = min(1.0, 0.8 * overlap + 0.4 * bigram)
    s_numbers, p_numbers = _numbers(statement), _numbers(passage)
    if s_numbers and p_numbers and not s_numbers & p_numbers:
        relevance *= NUMBER_MISMATCH
    if _hedged(passage) and not _hedged(statement):
        relevance *= HEDGED
    flips = (
        _scoped_negations(statement, p_set, forward=False)
        + _scoped_negations(passage, s_set, forward=True)
        + _swaps(s_set, passage)
        + (_minimised(statement, p_set) != _minimised(passage, s_set))
    )
    return Stance(round(relevance, 4), -1 if flips % 2 else 1)


def key_terms(text: str, limit: int = 10) -> list[str]:
    """Content words in order, once each: a search query's worth."""
    seen: dict[str, str] = {}
    for t in tokens(text):
        if t in STOPWORDS or t in NEGATORS or len(t) < 3:
            continue
        seen.setdefault(stem(t), t)
    return list(seen.values())[:limit]
