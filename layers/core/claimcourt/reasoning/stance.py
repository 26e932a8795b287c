"""A lexical stance model for the offline reasoner: how relevant a passage is to a statement, and
whether it agrees or disagrees. No model, no data, no dependencies — a transparent baseline.

Relevance: the share of the statement's content stems (and bigrams) the passage contains.
Polarity: agreement unless negation parity or an antonym swap says the passage asserts the opposite.
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
        "my myself of off on once only or other our ours ourselves out over own same she should so some such "
        "than that the their theirs them themselves then there these they this those through to too under "
        "until up very was we were what when where which while who whom why will with would you your yours "
        "also may might must shall us one two many much per via"
    ).split()
)
# Words that deny the proposition they sit in ("X is a hoax" says "X is not real").
NEGATORS = frozenset(
    (
        "not no never none nobody nothing neither nor cannot without lack lacks lacking fail fails failed "
        "false myth hoax fraud scam unproven disproven debunked unfounded untrue denies deny isn't aren't "
        "wasn't weren't doesn't don't didn't won't can't hasn't haven't hadn't shouldn't wouldn't couldn't"
    ).split()
)
_ANTONYM_PAIRS = (
    ("increase", "decrease"),
    ("increase", "decline"),
    ("rise", "fall"),
    ("rise", "drop"),
    ("more", "less"),
    ("more", "fewer"),
    ("higher", "lower"),
    ("warm", "cool"),
    ("warming", "cooling"),
    ("gain", "loss"),
    ("grow", "shrink"),
    ("expand", "contract"),
    ("accelerate", "slow"),
    ("positive", "negative"),
    ("strong", "weak"),
    ("above", "below"),
    ("safe", "dangerous"),
    ("major", "minor"),
    ("large", "small"),
    ("many", "few"),
    ("most", "least"),
    ("thicken", "thin"),
    ("advance", "retreat"),
    ("melt", "freeze"),
    ("wet", "dry"),
    ("high", "low"),
    ("hot", "cold"),
    ("increasing", "decreasing"),
    ("rising", "falling"),
    ("natural", "anthropogenic"),
    ("natural", "human"),
    ("benefit", "harm"),
    ("help", "hurt"),
    ("record", "normal"),
    ("unprecedented", "normal"),
    ("accurate", "inaccurate"),
    ("reliable", "unreliable"),
)
_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_SUFFIXES = ("ingly", "ations", "ation", "ments", "ment", "ings", "ing", "ies", "ied", "ed", "es", "ly", "s")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A deliberately small suffix stripper: enough to match warming/warmed/warms."""
    if word.endswith("n't"):
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            return base + "y" if suffix in ("ies", "ied") else base
    return word


def _antonyms() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for a, b in _ANTONYM_PAIRS:
        table.setdefault(stem(a), set()).add(stem(b))
        table.setdefault(stem(b), set()).add(stem(a))
    return {k: frozenset(v) for k, v in table.items()}


ANTONYMS = _antonyms()


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower().replace("’", "'"))


def content_stems(text: str) -> list[str]:
    return [stem(t) for t in tokens(text) if t not in STOPWORDS and t not in NEGATORS and len(t) > 1]


def negation_count(text: str) -> int:
    return sum(1 for t in tokens(text) if t in NEGATORS or t.endswith("n't"))


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
    s_set, p_set = set(s_words), set(p_words)
    overlap = len(s_set & p_set) / len(s_set)
    s_bigrams = set(pairwise(s_words))
    p_bigrams = set(pairwise(p_words))
    bigram = len(s_bigrams & p_bigrams) / len(s_bigrams) if s_bigrams else 0.0
    relevance = min(1.0, 0.8 * overlap + 0.4 * bigram)
    swaps = sum(1 for w in s_set if ANTONYMS.get(w, frozenset()) & (p_set - s_set))
    flips = negation_count(statement) + negation_count(passage) + swaps
    return Stance(round(relevance, 4), -1 if flips % 2 else 1)


def key_terms(text: str, limit: int = 10) -> list[str]:
    """Content words in order, once each: a search query's worth."""
    seen: dict[str, str] = {}
    for t in tokens(text):
        if t in STOPWORDS or t in NEGATORS or len(t) < 3:
            continue
        seen.setdefault(stem(t), t)
    return list(seen.values())[:limit]
