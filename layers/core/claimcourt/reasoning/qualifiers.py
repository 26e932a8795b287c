"""Whether a passage speaks of the statement's place, scope, time and comparison: the qualifiers a
lexical overlap cannot see. "Antarctic sea ice reached a record low in 2023" shares every word but one
with "The Arctic sea ice September minimum extent reached new record lows in 2002, 2005, 2007, and
2012", and the passage is still about another place and another time: it is no evidence for the claim.

A statement's qualifiers, and what a passage must do to speak of them (its source's title counts as
part of the passage for places: a passage from "Antarctica" is about Antarctica):
- a place (a name from GAZETTEER below: continents, oceans and seas, polar and other large regions,
  countries and their adjectives): a passage that names places names it, or a part or whole of it
  ("North Atlantic" and "Atlantic" meet; "Arctic" and "Antarctic", "North" and "South Atlantic" do not);
  one that names none is not about another place;
- the whole world ("global", "worldwide", "the planet"), without a place: the passage is not confined to
  a region (it names no place or region, or it says the world too);
- a time (years, decades, centuries, spans: "in 2023", "since 1979", "the 1990s", "the 20th century",
  "1961-1990"): a passage that states times states one that overlaps it (an undated passage is not
  another time);
- a comparison ("warmer than today", "compared with 1990"): the passage compares too, and names the
  other half ("today": the present, recent years or the 20th century); one half alone ("a time of warm
  climate") says nothing about the comparison.

What differs is said in words (`differs`), for the judge and for a reader checking the rule by hand. The
names are general geography, not the corpus's: none was chosen for a claim it is measured on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

# Every place the rule knows: a canonical name, then its other spellings and adjectives, comma-separated
# (lower case). Large regions and the most-named countries; a place missing here is
# only a place the rule cannot check, never a reason to count support.
GAZETTEER = """
africa: african
asia: asian
europe: european
north america: north american
south america: south american
latin america: latin american
oceania
australia: australian
antarctic: antarctica
arctic
greenland: greenlandic
siberia: siberian
alaska: alaskan
tibet: tibetan, tibetan plateau
himalaya: himalayas, himalayan
alps: alpine
andes: andean
amazon: amazonia, amazonian
sahara: saharan
sahel
tropics: tropical
atlantic
pacific
indian ocean
southern ocean
arctic ocean
mediterranean
caribbean
north sea
baltic: baltic sea
gulf of mexico
great barrier reef
great lakes
middle east
scandinavia: scandinavian
northern hemisphere
southern hemisphere
united states: usa, america, american, americans
canada: canadian
mexico: mexican
brazil: brazilian
argentina: argentine, argentinian
chile: chilean
peru: peruvian
colombia: colombian
venezuela: venezuelan
united kingdom: britain, british, england, english, scotland, scottish, wales, welsh
ireland: irish
france: french
germany: german
spain: spanish
portugal: portuguese
italy: italian
netherlands: dutch, holland
belgium: belgian
switzerland: swiss
austria: austrian
norway: norwegian
sweden: swedish
finland: finnish
denmark: danish
iceland: icelandic
poland: polish
ukraine: ukrainian
russia: russian, soviet, ussr
turkey: turkish
greece: greek
israel: israeli
iran: iranian
iraq: iraqi
saudi arabia: saudi
egypt: egyptian
nigeria: nigerian
kenya: kenyan
ethiopia: ethiopian
south africa: south african
india: indian
pakistan: pakistani
bangladesh: bangladeshi
china: chinese
japan: japanese
korea: korean
indonesia: indonesian
philippines: philippine, filipino
vietnam: vietnamese
thailand: thai
malaysia: malaysian
new zealand
maldives
tuvalu
kiribati
fiji
"""
# Spellings that are place names only in capitals (the pronoun "us", the word "china").
_ABBREVIATIONS = {
    "US": "united states",
    "U.S.": "united states",
    "USA": "united states",
    "UK": "united kingdom",
}
# "Indian" names India, but "Indian Ocean" is the ocean: the longest name at a position wins.
_DIRECTIONS = frozenset("north south east west northern southern eastern western central".split())
# The whole world. ("earth" too: "the Earth's temperature" is the planet's.)
_GLOBAL = frozenset("global globally worldwide world planet planetary globe earth".split())
# Names with a word of the world in them that confine nothing: the phenomenon ("global warming") and
# bodies ("World Meteorological Organization", "World War").
_NOT_SCOPE = re.compile(
    r"\bglobal (?:warming|heating|cooling|dimming|climate change|change)\b|\bWorld(?: [A-Z][\w']*)+", re.I
)
# A region short of the world, named or not.
_REGIONAL = re.compile(
    r"\b(?:regional(?:ly)?|local(?:ly)?|hemispher\w*"
    r"|in (?:some|certain|many|several) (?:regions|areas|places|parts)"
    r"|(?:some|certain) (?:regions|areas)|parts of)\b"
)
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_YEAR = r"(1[0-9]{3}|20[0-9]{2})"
_SPAN = re.compile(
    rf"\b(?:from|between)\s+{_YEAR}\s*(?:to|and|until|-|–|—)\s*{_YEAR}\b|\b{_YEAR}\s*(?:-|–|—)\s*{_YEAR}\b"
)
_SINCE = re.compile(rf"\b(?:since|after|from)\s+(?:the\s+)?{_YEAR}(s?)\b")
# A year, not a quantity ("1000 years", "1500 km").
_SINGLE = re.compile(
    rf"\b{_YEAR}\b(?!\s*(?:years?|km|kilomet\w+|met(?:re|er)s?|m\b|mm|cm|ppm|ppb|gt|tons?|tonnes?|people|%|per\b))"
)
_ORDINALS = {
    "eighteenth": 18,
    "nineteenth": 19,
    "twentieth": 20,
    "twenty-first": 21,
    "18th": 18,
    "19th": 19,
    "20th": 20,
    "21st": 21,
}
_CENTURY = re.compile(r"\b(eighteenth|nineteenth|twentieth|twenty-first|18th|19th|20th|21st)[\s-]+century\b")
# The open end of "since 1979": as late as a passage could speak of.
_NOW = 2100
# The present, as the other half of a comparison ("warmer than today").
_PRESENT = frozenset(
    "today today's present now current currently modern recent recently nowadays contemporary".split()
)
_PRESENT_FROM = 1900  # a time from here on counts as "today" in a comparison (the instrumental record)
# What makes a text a comparison: "than", "compared with/to", "relative to", "exceeds".
_COMPARES = re.compile(
    r"\b(?:than|compared|comparable|relative to|exceed\w*|surpass\w*|versus|vs|as (?:\w+ ){1,2}as)\b"
)
# "than" that compares two things; not a quantity ("more than 97%", "less than a third"), nor a contrast
# ("rather than", "other than").
_THAN = re.compile(
    r"(?<!rather )(?<!other )\b(?:than|compared (?:with|to)|relative to)\b"
    r"(?!\s+(?:\d|a\b|an\b|half|twice|double|one\b|two\b|three\b|ten\b|a few))(.*)"
)
_CLAUSE_END = re.compile(r"[.;:!?()\[\]—]|\b(?:but|however|although|whereas|while)\b")
_FUNCTION = frozenset("a an the in of at on during that those this these it its they was were is are".split())


def _gazetteer() -> dict[tuple[str, ...], str]:
    names: dict[tuple[str, ...], str] = {}
    for line in GAZETTEER.strip().splitlines():
        canonical, _, others = line.partition(":")
        for spelling in (canonical, *others.split(",")):
            if spelling.strip():
                names[tuple(spelling.split())] = canonical
    return names


_NAMES = _gazetteer()
_LONGEST = max(len(n) for n in _NAMES)


@dataclass(frozen=True)
class Place:
    name: str  # the canonical name
    words: tuple[str, ...]  # as written, with a direction before it ("north", "atlantic")

    def meets(self, other: Place) -> bool:
        """The same place, or one a part or whole of the other ("North Atlantic" and "Atlantic")."""
        if self.name != other.name:
            return False
        mine, theirs = self.words[: -len(self.name.split())], other.words[: -len(other.name.split())]
        return not mine or not theirs or mine == theirs


def _words(text: str) -> list[str]:
    """Lower-case words, a possessive read as its noun ("China's" is China)."""
    return [w.removesuffix("'s") for w in _WORD.findall(text.lower().replace("’", "'"))]


@lru_cache(maxsize=16384)
def places(text: str) -> frozenset[Place]:
    """The places a text names, each with the direction written before it."""
    words = _words(text)
    found: set[Place] = set()
    i = 0
    while i < len(words):
        for size in range(min(_LONGEST, len(words) - i), 0, -1):
            name = _NAMES.get(tuple(words[i : i + size]))
            if name is None:
                continue
            direction = (words[i - 1],) if i and words[i - 1] in _DIRECTIONS else ()
            found.add(Place(name, direction + tuple(name.split())))
            i += size - 1
            break
        i += 1
    for abbreviation, name in _ABBREVIATIONS.items():
        if re.search(rf"(?<![\w.]){re.escape(abbreviation)}(?![\w])", text):
            found.add(Place(name, tuple(name.split())))
    return frozenset(found)


def _global(text: str) -> bool:
    return bool(_GLOBAL & set(_words(_NOT_SCOPE.sub(" ", text))))


def _regional(text: str) -> bool:
    return bool(_REGIONAL.search(text.lower()))


@lru_cache(maxsize=16384)
def times(text: str) -> tuple[tuple[int, int], ...]:
    """The spans of years a text states: a year, a decade, a century, a span, "since" a year."""
    lowered = text.lower()
    spans: list[tuple[int, int]] = []
    taken: list[tuple[int, int]] = []  # character ranges already read, so "1961-1990" is not also two years

    def add(start: int, end: int, where: tuple[int, int]) -> None:
        spans.append((min(start, end), max(start, end)))
        taken.append(where)

    def free(m: re.Match[str]) -> bool:
        return not any(a <= m.start() < b for a, b in taken)

    for m in _SPAN.finditer(lowered):
        a, b = (int(g) for g in m.groups() if g and g.isdigit())
        add(a, b, m.span())
    for m in _SINCE.finditer(lowered):
        if free(m):
            add(int(m.group(1)), _NOW, m.span())
    for m in _CENTURY.finditer(lowered):
        century = _ORDINALS[m.group(1)]
        add(100 * (century - 1), 100 * century - 1, m.span())
    for m in re.finditer(r"\b(1[0-9]{2}|20[0-9])0s\b", lowered):
        if free(m):
            add(int(m.group(1)) * 10, int(m.group(1)) * 10 + 9, m.span())
    for m in _SINGLE.finditer(lowered):
        if free(m):
            add(int(m.group(1)), int(m.group(1)), m.span())
    return tuple(sorted(set(spans)))


def _overlap(a: Iterable[tuple[int, int]], b: Iterable[tuple[int, int]]) -> bool:
    listed = list(b)
    return any(lo <= b_hi and b_lo <= hi for lo, hi in a for b_lo, b_hi in listed)


def other_half(statement: str) -> list[str] | None:
    """The other half of a comparison the statement makes ("… warmer than today": ["today"]), as its
    content words; None if it makes none."""
    m = _THAN.search(statement.lower())
    if m is None:
        return None
    rest = _CLAUSE_END.split(m.group(1))[0]
    return [w for w in _words(rest) if w not in _FUNCTION]


def _names_the_other_half(half: list[str], passage: str) -> bool:
    words = set(_words(passage))
    if _PRESENT & set(half):
        return bool(_PRESENT & words) or any(hi >= _PRESENT_FROM for _, hi in times(passage))
    spans = times(" ".join(half))
    if spans:
        return _overlap(spans, times(passage))
    return bool(set(half) & words) or any(p.meets(q) for p in places(" ".join(half)) for q in places(passage))


@lru_cache(maxsize=32768)
def differs(statement: str, passage: str, title: str = "") -> str | None:
    """How the passage's place, scope, time or comparison differs from the statement's, in words; None if
    it speaks of the statement's own (or the statement has none)."""
    titled = f"{title}. {passage}" if title else passage
    here, there = places(statement), places(titled)
    if here:
        # A passage that names no place is not about another one (its title, often, names the place).
        if there and not any(p.meets(q) for p in here for q in there):
            named = ", ".join(sorted(" ".join(q.words) for q in there))
            wanted = ", ".join(sorted(" ".join(p.words) for p in here))
            return f"place: {named}, not {wanted}"
    elif _global(statement) and (there or _regional(passage)) and not _global(passage):
        named = ", ".join(sorted(" ".join(q.words) for q in there)) or "a region"
        return f"scope: {named}, not the whole world"
    when, then = times(statement), times(passage)
    if when and then and not _overlap(when, then):
        return f"time: {_said(then)}, not {_said(when)}"
    half = other_half(statement)
    if half and not (_COMPARES.search(passage.lower()) and _names_the_other_half(half, passage)):
        return f"comparison: says nothing of {' '.join(half) or 'what it is compared with'}"
    return None


def _said(spans: tuple[tuple[int, int], ...]) -> str:
    return ", ".join(
        str(a) if a == b else f"since {a}" if b == _NOW else f"{a}-{b}" for a, b in spans[:4]
    ) + (" …" if len(spans) > 4 else "")
