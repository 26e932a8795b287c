"""The offline reasoner's motion-debate roles: deterministic, no model.

- stances and queries from the motion's key terms;
- a team's statement argues its own side in its own words: it cites the passages the passage stance
  (stance_model, as the claim debaters read them) reads as backing its side more than the other's, new
  ones within its allowance (none in the closing), never one the other team cited; says so when the pool
  backs it with nothing; answers the other team's last citations by what they do not show (another place,
  time or scope, half a comparison, or no statement of the motion at all: qualifiers.py, stance.py); and
  answers the checks its citations met; its notes (private) name what to press next;
- the judge maps consensus (passages both teams cite) and the frontier (each team's strongest citation
  against the other's, each named so that the two never read alike: never a term against itself);
- the crowd: each persona's vote zero is its value leanings against the motion's direction on each value
  axis (a small keyword lexicon, below: crude, and said to be), plus a fixed per-persona offset; after a
  round it moves by its openness × evidence weight × how much better one team's citations of that round
  held up under the other's fact-checks (credibility × correspondence, summed), at most 12 points.
"""

from __future__ import annotations

import hashlib
import re

from claimcourt.models import (
    CartographInput,
    CrowdInput,
    CrowdVotes,
    Evidence,
    FrontierIssue,
    LedgerEntry,
    MotionMap,
    MotionStatement,
    Persona,
    PersonaVote,
    Side,
    SpeakInput,
    Stances,
    StancesInput,
)
from claimcourt.reasoning.qualifiers import differs
from claimcourt.reasoning.stance import content_stems, key_terms
from claimcourt.reasoning.stance_model import CITE_AT, PassageStance
from claimcourt.reasoning.stance_model import judge as judge_passage

# Which way a motion moves each value axis, from its words (+1: towards the axis's first pole).
AXIS_WORDS: dict[str, dict[str, float]] = {
    "reform": {r"\b(abolish|replace|end|broken|time to|overhaul|reform|radical|ban|new)\b": 1.0},
    "markets": {
        r"\b(capitalis\w*|free market\w*|free trade|deregulat\w*|privati[sz]\w*|entrepreneur\w*)\b": 1.0,
        r"\b(regulat\w*|tax\w*|government|state|socialis\w*|nationali[sz]\w*|universal basic)\b": -1.0,
    },
    "technology": {
        r"\b(ai|artificial intelligence|technolog\w*|innovation|automation|internet|social media)\b": 1.0
    },
    "security": {r"\b(police|military|border\w*|surveillance|security|crime|defen[cs]e)\b": 1.0},
    "global": {r"\b(global\w*|immigra\w*|trade|china|international|open)\b": 1.0},
    "equality": {r"\b(inequality|equal\w*|redistribut\w*|wealth|poverty|rich|poor)\b": 1.0},
}
# Words that turn a motion against what it names ("AI is a threat", "more harm than good").
AGAINST_WORDS = re.compile(
    r"\b(threat|harm\w*|danger\w*|destroy\w*|broken|fail\w*|ban|bad|worse|evil|abolish|end)\b", re.I
)
MAX_MOVE = 12


def motion_axes(motion: str) -> dict[str, float]:
    """The motion's direction on each value axis it touches, -1…1."""
    text = motion.lower()
    sign = -1.0 if AGAINST_WORDS.search(text) else 1.0
    axes = {}
    for axis, patterns in AXIS_WORDS.items():
        total = sum(weight for pattern, weight in patterns.items() if re.search(pattern, text))
        if total:
            # "reform" is the motion's own call for change: not inverted by its words of harm
            axes[axis] = max(-1.0, min(1.0, total if axis == "reform" else total * sign))
    return axes


def _offset(persona: Persona, motion: str) -> int:
    """A fixed offset per persona and motion, -8…8: no two voters are the same function."""
    digest = hashlib.sha256(f"{persona.id}|{motion}".encode()).digest()
    return digest[0] % 17 - 8


def vote_zero(persona: Persona, motion: str) -> int:
    axes = motion_axes(motion)
    lean = sum(persona.leanings.get(axis, 0.0) * direction for axis, direction in axes.items())
    return max(3, min(97, round(50 + 30 * max(-1.0, min(1.0, lean)) + _offset(persona, motion))))


def held_up(entries: list[LedgerEntry], side: Side) -> float:
    """How well a side's citations held up: credibility × correspondence (0–1 each) summed; an
    unchecked citation counts a quarter."""
    return sum(
        (e.credibility or 5) * (e.correspondence or 5) / 100 if e.correspondence is not None else 0.25
        for e in entries
        if e.side == side
    )


def crowd(inputs: CrowdInput) -> CrowdVotes:
    if inputs.round == 0:
        return CrowdVotes(
            votes=[PersonaVote(persona_id=p.id, score=vote_zero(p, inputs.motion)) for p in inputs.personas]
        )
    this_round = [e for e in inputs.ledger if e.round == inputs.round or e.checked_round == inputs.round]
    edge = held_up(this_round, "for") - held_up(this_round, "against")
    spoke = {s.side for s in inputs.statements if s.round == inputs.round}
    if len(spoke) == 1:  # one team fell silent (a refusal): the audience notices
        edge += 2.0 if "for" in spoke else -2.0
    votes = []
    for p in inputs.personas:
        before = inputs.previous.get(p.id, vote_zero(p, inputs.motion))
        move = max(-MAX_MOVE, min(MAX_MOVE, round(4 * p.openness * p.evidence_weight * edge)))
        votes.append(
            PersonaVote(
                persona_id=p.id,
                score=max(0, min(100, before + move)),
                reason=f"checked evidence this round: for {edge:+.1f} net" if move else "not moved",
            )
        )
    return CrowdVotes(votes=votes)


def stances(inputs: StancesInput) -> Stances:
    terms = key_terms(inputs.motion, limit=8)
    queries = [" ".join(terms[:5])] if terms else [inputs.motion[:200]]
    if len(terms) > 5:
        queries.append(" ".join(terms[:2] + terms[5:8]))
    return Stances(
        for_stance=f"The motion holds: {inputs.motion}"[:600],
        against_stance=f"The motion does not hold: {inputs.motion}"[:600],
        queries=queries,
    )


def _excerpt(text: str, words: int = 24) -> str:
    parts = text.split()
    return " ".join(parts[:words]) + (" …" if len(parts) > words else "")


_PREAMBLE = re.compile(r"^\s*(?:resolved|motion|this house (?:believes|would))\s*[:,]?\s*", re.I)


def proposition(motion: str) -> str:
    """The motion as a statement to read passages against: "Resolved: X." is X."""
    return _PREAMBLE.sub("", motion).strip().rstrip(".") or motion


def _backing(s: PassageStance, side: Side) -> float:
    return s.support if side == "for" else s.refute


def _lean(s: PassageStance, side: Side) -> float:
    """How much more a passage backs `side` than the other side (claimcourt's claim debaters read it so)."""
    other: Side = "against" if side == "for" else "for"
    return _backing(s, side) - _backing(s, other)


# What a passage differs in (qualifiers.differs' first word), as a team says it of the other's passage.
_DIFFERS = {"place": "another place", "scope": "a region, not the whole world", "time": "another time"}
_OPENING = {
    "for": "We propose the motion: {prop}.",
    "against": "We oppose the motion: nothing heard here shows that {prop_in_clause}.",
}
_ROUND = {
    "for": "Round {n}: the case for the motion stands, and what was said against it misses it.",
    "against": "Round {n}: the case for the motion still falls short.",
}
_CLOSING = {
    "for": "In closing: the evidence heard today states the motion, and nothing heard refuted it.",
    "against": "In closing: the motion was asserted, not shown.",
}
# How a team introduces a passage it cites: by what the rule reads in it (stance.read: +1 states the
# motion, -1 its opposite), so that a passage is never said to state more than it does.
_CITES = {
    ("for", 1): "{title} states it: {excerpt} [{id}].",
    ("for", 0): "{title} bears it out: {excerpt} [{id}].",
    ("against", -1): "{title} says otherwise: {excerpt} [{id}].",
    ("against", 0): "{title} cuts against it: {excerpt} [{id}].",
}
# Words a motion may open with that are no name: lower-cased inside a sentence ("… shows that the …").
_OPENERS = frozenset("the a an this that these those there it its social most many all some no".split())
_FRONTIER = {
    "for": "What remains disputed, {issue}, turns on passages that state the motion, and ours do.",
    "against": "What remains disputed, {issue}, is where the case for the motion is thinnest.",
}
_NOTHING = {
    "for": "No passage in the pool states the motion outright; we hold it on what the other side has not "
    "refuted.",
    "against": "No passage in the pool states the opposite; our case is that none of it establishes the "
    "motion.",
}


def _answer(side: Side, prop: str, e: Evidence, read: PassageStance, *, citing: bool) -> str:
    """What a team says of one of the other team's passages: what it does not show."""
    title = f'"{e.title}"' if e.title else "their passage"
    differ = differs(prop, e.text, e.title)
    if differ is not None:
        kind, _, detail = differ.partition(": ")
        if kind == "comparison":
            return f"Their {title} gives one half of the comparison and {detail}."
        return f"Their {title} speaks of {_DIFFERS.get(kind, kind)} ({detail})."
    if side == "against" and read.support == 0:
        return f"Their {title} is about the topic, not the motion: it never states that {prop}."
    if side == "for" and read.refute < read.bears / 2:
        return f"Their {title} does not contradict the motion."
    if citing:
        return f"Their {title} is their strongest point, and our passages answer it."
    return f"Their {title} is their strongest point; it does not settle the motion alone."


def speak(inputs: SpeakInput) -> MotionStatement:
    side: Side = inputs.side
    other: Side = "against" if side == "for" else "for"
    prop = proposition(inputs.motion)
    passages = {e.id: e for e in inputs.evidence}
    read = {e.id: judge_passage(prop, e.text, e.title) for e in inputs.evidence}
    own_before = list(dict.fromkeys(c for s in inputs.statements if s.side == side for c in s.citations))
    theirs = {c for s in inputs.statements if s.side == other for c in s.citations}

    def strongest_own(n: int) -> list[str]:
        return sorted(own_before, key=lambda c: -_lean(read[c], side) if c in read else 0.0)[:n]

    if inputs.phase == "closing":
        cited = strongest_own(3)
    else:
        # A team cites what backs its own side more than the other's, and never the other team's passages.
        fresh = [
            e
            for e in inputs.evidence
            if e.id not in set(inputs.cited_before)
            and e.id not in theirs
            and read[e.id].bears >= CITE_AT
            and _lean(read[e.id], side) > 0
            and differs(prop, e.text, e.title) is None  # another place or time backs neither side
        ]
        fresh.sort(key=lambda e: (-_lean(read[e.id], side), e.id))
        # Nothing new backs it: it stands on the strongest of what it cited before (citing again is free).
        cited = [e.id for e in fresh[: inputs.citation_limit]] or strongest_own(2)
    first, _, rest = prop.partition(" ")
    in_clause = f"{first.lower()} {rest}" if first.lower() in _OPENERS else prop
    lead = {
        "opening": _OPENING[side].format(prop=prop, prop_in_clause=in_clause),
        "rounds": _ROUND[side].format(n=inputs.round),
        "closing": _CLOSING[side],
    }[inputs.phase]
    sentences = [lead]
    for c in cited:
        e = passages.get(c)
        if e is None:
            sentences.append(f"As we showed before [{c}].")
        else:
            reading = min(0, read[c].rule) if side == "against" else max(0, read[c].rule)
            sentences.append(
                _CITES[(side, reading)].format(title=e.title or "A passage", excerpt=_excerpt(e.text), id=c)
            )
    if not cited:
        sentences.append(_NOTHING[side])
    # Answer the other team's last statement: what its passages do not show.
    last = next((s for s in reversed(inputs.statements) if s.side == other), None)
    if last is not None:
        answered = [c for c in last.citations if c in passages][:2]
        sentences += dict.fromkeys(
            _answer(side, prop, passages[c], read[c], citing=bool(cited)) for c in answered
        )
    weak = [e for e in inputs.checks if e.correspondence is not None and e.correspondence <= 4]
    if weak:
        sentences.append(f"The checks on {', '.join(e.key for e in weak)} misread what those passages say.")
    if inputs.frontier:
        sentences.append(_FRONTIER[side].format(issue=inputs.frontier[0].core_issue))
    statement = " ".join(sentences)
    words = statement.split()
    if len(words) > inputs.word_limit:
        statement = " ".join(words[: inputs.word_limit])
    leans = [read[c].support - read[c].refute for c in cited if c in read]
    lean = sum(leans) / len(leans) if leans else 0.0
    press = (
        inputs.frontier[0].core_issue if inputs.frontier else (cited[0] if cited else "the motion's terms")
    )
    return MotionStatement(
        statement=statement,
        citations=cited,
        notes=(
            f"Round {inputs.round} plan ({side}): press on {press}; "
            f"cited {', '.join(cited) or 'nothing new'}."
        ),
        implied_score=max(5, min(95, round(50 + 45 * lean))),
    )


def _named(entry: LedgerEntry, other: LedgerEntry) -> str:
    """A citation named so that it never reads as the other: its source's title, and where the two
    titles match, what its passage speaks of that the other's does not."""
    title = entry.title or entry.evidence_id
    if title.strip().lower() != (other.title or other.evidence_id).strip().lower():
        return title
    theirs = set(content_stems(other.passage or other.sentence))
    own = [t for t in key_terms(entry.passage or entry.sentence, 20) if content_stems(t)[0] not in theirs]
    return f"{title} on {' '.join(own[:3])}" if own else f"{title} [{entry.evidence_id}]"


def cartograph(inputs: CartographInput) -> MotionMap:
    by_side: dict[str, set[str]] = {"for": set(), "against": set()}
    for s in inputs.statements:
        by_side[s.side].update(s.citations)
    titles = {e.evidence_id: e.title for e in inputs.ledger}
    shared = sorted(by_side["for"] & by_side["against"])
    consensus = [f"Both teams rely on {titles.get(i, i)} [{i}]." for i in shared]
    this_round = [e for e in inputs.ledger if e.round == inputs.round]
    best = {
        side: max(
            (e for e in this_round if e.side == side), key=lambda e: e.correspondence or 5, default=None
        )
        for side in ("for", "against")
    }
    frontier = []
    pro, con = best["for"], best["against"]
    # One passage cited by both is agreement, not a dispute: the frontier never pits a passage against itself.
    if pro is not None and con is not None and pro.evidence_id != con.evidence_id:
        frontier.append(
            FrontierIssue(
                core_issue=f"whether {_named(pro, con)} outweighs {_named(con, pro)}",
                for_stance=_excerpt(pro.sentence, 20),
                against_stance=_excerpt(con.sentence, 20),
                sub_claim_id="motion",
            )
        )
    elif inputs.previous is not None:
        frontier = inputs.previous.disagreement_frontier
    spoken = [s for s in inputs.statements if s.round == inputs.round]
    summary = (
        f"Round {inputs.round}: {len(spoken)} statement(s), {len(this_round)} new citation(s); "
        f"{len(consensus)} point(s) of agreement, {len(frontier)} issue(s) disputed."
    )
    query = None
    if inputs.research_follows and not inputs.final:
        terms = key_terms(" ".join([inputs.motion] + [f.core_issue for f in frontier]), limit=6)
        query = " ".join(terms) or None
    report = None
    if inputs.final:
        lines = []
        for side in ("for", "against"):
            mine = [e for e in inputs.ledger if e.side == side]
            checked = [e for e in mine if e.correspondence is not None]
            held = sum(1 for e in checked if (e.correspondence or 0) >= 6)
            lines.append(
                f"The team {side} made {sum(1 for s in inputs.statements if s.side == side)} statement(s) "
                f"with {len(mine)} citation(s); {held} of the {len(checked)} checked held up."
            )
        report = " ".join([*lines, f"Still disputed: {len(frontier)} issue(s)."])
    return MotionMap(
        consensus=consensus, disagreement_frontier=frontier, next_query=query, summary=summary, report=report
    )
