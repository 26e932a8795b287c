"""The lexical rule of the offline reasoner's stance: how relevant a passage is to a statement, and
whether it states it, its opposite, or neither. No model, no data, no dependencies.

It plays two parts. Its readings are the FEATURES the learned stance weighs
(claimcourt.reasoning.stance_model), and its reading of a proposition (read(): the subject named, the
predicate stated, the polarity, and whether the passage's place, scope, time or comparison differ from the
statement's: claimcourt.reasoning.qualifiers) decides where the learned stance may count support at all.
A passage about another place, scope or time states neither the statement nor its opposite (polarity 0);
one that gives one half of the statement's comparison keeps its polarity (it may still refute) but
cannot support.

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

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from claimcourt.reasoning.qualifiers import differs

STOPWORDS = frozenset(
    (
        "a about above after again against all am an and any are as at be because been before being below "
        "between both but by can could did do does doing down during each few for from further had has have "
        "having he her here hers herself him himself his how i if in into is it its itself just me most "
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
    ("stop", "continue"),
    ("stop", "persist"),
    ("cease", "continue"),
    ("halt", "continue"),
    ("pause", "continue"),
    ("hiatus", "continue"),
    ("increase", "fall"),
    ("increase", "drop"),
    ("rise", "decrease"),
    ("gain", "decline"),
    ("warmer", "cooler"),
    ("hotter", "colder"),
    ("wetter", "drier"),
    ("thicker", "thinner"),
    ("expand", "shrink"),
    ("less", "more"),
    ("fewer", "more"),
)
# Saying a quantity holds still contradicts saying it moves, whichever way.
# ("flat" is left out: it names a shape as often as a trend.)
_STASIS = "same stable stabilized stabilised unchanged remain remains remained constant steady plateau halted"
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
    if word.endswith("'s"):  # Earth's, the Sun's: the possessor
        word = word[:-2]
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if suffix in ("ies", "ied"):
                return word + "y"
            # stopped/stop, planned/plan: a doubled final consonant goes (not ll, ss or zz: falling/fall).
            if suffix in ("ed", "ing") and word[-1] == word[-2] and word[-1] not in "aeiouylsz":
                return word[:-1]
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


# Words that make a predicate exclusive: "X is the main cause of Y" says nothing else is. A passage that
# states the predicate of something other than the statement's subject contradicts it.
_EXCLUSIVE = frozenset(
    "main mainly primary primarily chief chiefly principal principally dominant predominant predominantly "
    "largest biggest leading sole solely".split()
)
_MAIN = "main"
# Where a statement's predicate starts: its first auxiliary or finite verb (after its subject).
_AUXILIARIES = frozenset(
    "is are was were be been being has have had will would can could may might must shall should does do "
    "did remains remain remained".split()
)
_VERBS = frozenset(
    "cause causes caused causing lead leads led contribute contributes show shows make makes increase "
    "increases decrease decreases reduce reduces rise rises fall falls grow grows drive drives affect "
    "affects melt melts warm warms cool cools kill kills continue continues stop stops".split()
)
# A statement's proposition is stated by a passage that names its subject and at least this share of its
# predicate (a predicate word counts when the passage has it, or its opposite in the same clause).
MOST = 0.5
COVER = 0.25


def _canonical(stems: set[str] | frozenset[str]) -> frozenset[str]:
    return frozenset(_MAIN if s in _EXCLUSIVE_STEMS else s for s in stems)


_EXCLUSIVE_STEMS = frozenset(stem(w) for w in _EXCLUSIVE)


def _predicate_start(words: list[str]) -> int | None:
    return next(
        (
            i
            for i, t in enumerate(words)
            if i and (t in _AUXILIARIES or t in _VERBS or _is_negator(t) or (t.endswith("ed") and len(t) > 4))
        ),
        None,
    )


def subject_words(statement: str) -> list[str]:
    """The words of the statement's subject, as written (lower case), or none if it has no verb."""
    words = tokens(statement)
    cut = _predicate_start(words)
    return words[:cut] if cut is not None else []


def split_statement(statement: str) -> tuple[list[str], list[str]]:
    """(subject stems, predicate stems): the subject is what comes before the first auxiliary or verb
    ("Arctic sea ice | has declined since 1979"); without one, the first content word."""
    words = tokens(statement)
    cut = _predicate_start(words)
    stems = [stem(t) for t in words if _content(t)]
    if cut is None:
        return stems[:1], stems[1:]
    return [stem(t) for t in words[:cut] if _content(t)], [stem(t) for t in words[cut:] if _content(t)]


def _assertive(text: str) -> bool:
    """Whether a passage asserts something: a question or a quoted title (a reference) asserts nothing."""
    text = text.strip().replace("“", '"').replace("”", '"')
    if text.rstrip(".").rstrip().endswith("?") or text.rstrip('".').endswith("?"):
        return False
    return not (text.startswith('"') and text.rstrip(". ").endswith('"') and text.count('"') == 2)


def _covered(predicate: list[str], passage: str, title: str = "") -> set[str]:
    """The predicate words a passage states, or states the opposite of, in one clause. A clause
    with a word and its opposite ("the rise and fall of the tides") states neither; the source's title
    is read with every clause for that ("falls", titled "Sea level rise")."""
    titled = _canonical(set(content_stems(title)))
    found: set[str] = set()
    for clause in _clauses(passage):
        stems = _canonical({stem(t) for t in clause if _content(t)})
        context = stems | titled
        for word in predicate:
            opposites = ANTONYMS.get(word, frozenset())
            if (word in stems and not opposites & context) or (opposites & stems and word not in context):
                found.add(word)
    return found


@dataclass(frozen=True)
class Stance:
    relevance: float  # 0..1: how much the passage is about the statement
    polarity: int  # +1 states it, -1 states its opposite, 0 is about the topic but states neither

    @property
    def strength(self) -> float:
        return self.relevance * self.polarity


@dataclass(frozen=True)
class Reading:
    """What the lexical rule reads in a passage about a statement, beyond its Stance."""

    relevance: float
    polarity: int
    subject_named: bool  # the passage (or its title) names at least half the statement's subject
    stated: float  # share of the statement's predicate the passage states or states the opposite of
    # How the passage's place, scope, time or comparison differs from the statement's (qualifiers.py), in
    # words; None when it speaks of the statement's own. A passage that differs does not state it.
    differs: str | None = None


def stance(statement: str, passage: str, title: str = "") -> Stance:
    """How `passage` (from a source titled `title`) bears on `statement`."""
    r = read(statement, passage, title)
    return Stance(r.relevance, r.polarity)


@lru_cache(maxsize=32768)
def read(statement: str, passage: str, title: str = "") -> Reading:
    """The rule's reading of `passage` (from a source titled `title`) on `statement`."""
    s_words = content_stems(statement)
    p_words = content_stems(f"{title}. {passage}" if title else passage)
    if not s_words or not p_words:
        return Reading(0.0, 1, False, 0.0)
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
    relevance = round(relevance, 4)
    differ = differs(statement, passage, title)
    if not _assertive(passage):
        return Reading(relevance, 0, False, 0.0, differ)
    subject, predicate = split_statement(statement)
    predicate = [w for w in predicate if w not in subject] or ([] if len(subject) < 2 else subject[1:])
    named = _canonical(p_set)
    text_stems = frozenset(content_stems(passage))
    subject_named = not subject or sum(w in named for w in subject) * 2 >= len(subject)
    # The predicate's first word (its verb or complement: "declined", "flat", "the main cause") must be
    # among them: a passage that shares only the rest says something else about the subject.
    predicate = _canonical_list(predicate)
    found = _covered(predicate, passage, title)
    # A denial ("X is a myth") speaks to the whole proposition, whatever its predicate says.
    denied = bool(DENIALS & (frozenset(tokens(passage)) | frozenset(tokens(statement))))
    share = len(found) / len(set(predicate)) if predicate and not denied else 1.0
    covered = share > MOST or (share >= COVER and predicate[0] in found)
    flips = (
        _scoped_negations(statement, p_set, forward=False)
        + _scoped_negations(passage, s_set, forward=True)
        # One opposite or several ("decreases … increasing" against "flat"), the passage says otherwise once.
        + min(1, _swaps(s_set, passage))
        + (_minimised(statement, p_set) != _minimised(passage, s_set))
    )
    polarity = 0
    if differ is not None and not differ.startswith("comparison"):
        pass  # another place, scope or time: the passage states neither the statement nor its opposite
    elif subject_named and covered:
        polarity = -1 if flips % 2 else 1
    # "X is the main cause of Y" against a passage giving the main cause of Y as something else.
    elif (
        covered
        and not flips % 2
        and _MAIN in _canonical(frozenset(s_words))
        and _MAIN in _canonical(text_stems)
    ):
        polarity = -1
    return Reading(relevance, polarity, subject_named, share, differ)


def _canonical_list(stems: list[str]) -> list[str]:
    return [_MAIN if s in _EXCLUSIVE_STEMS else s for s in stems]


def key_terms(text: str, limit: int = 10) -> list[str]:
    """Content words in order, once each: a search query's worth."""
    seen: dict[str, str] = {}
    for t in tokens(text):
        if t in STOPWORDS or t in NEGATORS or len(t) < 3:
            continue
        seen.setdefault(stem(t), t)
    return list(seen.values())[:limit]


# ---------------------------------------------------------------- features for the learned stance

# Direction words: a statement that something goes up, against a passage that says it goes down.
_UP = frozenset(
    stem(w)
    for w in "rise rising increase grow growth gain higher more warm warming accelerate expand hotter "
    "warmer".split()
)
_DOWN = frozenset(
    stem(w)
    for w in "fall falling decrease decline drop shrink loss lower less cool cooling slow reduce colder "
    "cooler".split()
)

# The lexical readings of a (statement, passage) pair that the learned stance weighs
# (claimcourt.reasoning.stance_model), in this order. Each is a number a reader can check by hand.
FEATURES = (
    "relevance",  # stance().relevance: statement stems and bigrams in the passage, figures, hedges
    "relevance_squared",
    "overlap",  # share of the statement's content stems in the passage's text
    "overlap_with_title",  # … in its text or its source's title
    "subject_named",  # share of the statement's subject stems named by the passage or its title
    "predicate_covered",  # share of the statement's predicate stems there
    "predicate_stated",  # share of its predicate the rule reads as stated (or opposed), clause by clause
    "rule_states_it",  # the lexical rule (stance()) reads the passage as stating the statement
    "rule_states_opposite",  # … as stating its opposite
    "rule_states_it_x_relevance",
    "rule_states_opposite_x_relevance",
    "statement_negations",  # negators in the statement about what the passage mentions (at most 2)
    "passage_negations",  # negators in the passage about what the statement mentions (at most 2)
    "negations_differ",  # an odd number of those between the two
    "antonym_swaps",  # statement words whose opposite the passage uses instead (at most 2)
    "minimiser_differs",  # "only", "tiny", "little" on one side and not the other
    "passage_hedged",
    "statement_hedged",
    "statement_has_figures",
    "figures_shared",
    "figures_differ",  # both state figures, none in common
    "statement_up_passage_down",
    "statement_down_passage_up",
    "both_up",
    "both_down",
    "statement_denial",  # "myth", "hoax", "debunked" … in the statement
    "passage_denial",
    "passage_length",  # log(1 + content words)
    "passage_not_assertive",  # a question or a quoted title
    "statement_length",  # content words / 20
)


@lru_cache(maxsize=32768)
def features(statement: str, passage: str, title: str = "") -> tuple[float, ...]:
    """The FEATURES of `passage` (from a source titled `title`) against `statement`."""
    rule = read(statement, passage, title)
    s_words = content_stems(statement)
    p_words = content_stems(passage)
    s_set, p_text = frozenset(s_words), frozenset(p_words)
    p_set = p_text | frozenset(content_stems(title))
    overlap = len(s_set & p_text) / len(s_set) if s_set else 0.0
    overlap_titled = len(s_set & p_set) / len(s_set) if s_set else 0.0
    subject, predicate = split_statement(statement)
    named = sum(w in p_set for w in subject) / len(subject) if subject else 0.0
    covered = sum(w in p_set for w in predicate) / len(predicate) if predicate else 0.0
    s_neg = _scoped_negations(statement, p_set, forward=False)
    p_neg = _scoped_negations(passage, s_set, forward=True)
    s_figures, p_figures = _numbers(statement), _numbers(passage)
    s_up, s_down, p_up, p_down = (
        bool(s_set & _UP),
        bool(s_set & _DOWN),
        bool(p_text & _UP),
        bool(p_text & _DOWN),
    )
    states, opposes = float(rule.polarity == 1), float(rule.polarity == -1)
    return (
        rule.relevance,
        rule.relevance**2,
        overlap,
        overlap_titled,
        named,
        covered,
        rule.stated,
        states,
        opposes,
        states * rule.relevance,
        opposes * rule.relevance,
        float(min(s_neg, 2)),
        float(min(p_neg, 2)),
        float((s_neg + p_neg) % 2),
        float(min(_swaps(s_set, passage), 2)),
        float(_minimised(statement, p_set) != _minimised(passage, s_set)),
        float(_hedged(passage)),
        float(_hedged(statement)),
        float(bool(s_figures)),
        float(bool(s_figures & p_figures)),
        float(bool(s_figures and p_figures and not s_figures & p_figures)),
        float(s_up and p_down and not p_up),
        float(s_down and p_up and not p_down),
        float(s_up and p_up),
        float(s_down and p_down),
        float(bool(DENIALS & frozenset(tokens(statement)))),
        float(bool(DENIALS & frozenset(tokens(passage)))),
        math.log1p(len(p_words)),
        float(not _assertive(passage)),
        len(s_words) / 20,
    )
