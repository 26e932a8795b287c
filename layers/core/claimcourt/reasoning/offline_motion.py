"""The offline reasoner's motion-debate roles: deterministic, no model.

- stances and queries from the motion's key terms;
- a team's statement cites the pool's passages the lexical stance reader (stance.py) reads as most for
  (or against) the motion, new ones within its allowance (none in the closing), and answers the checks
  its citations met; its notes (private) name what to press next;
- the judge maps consensus (passages both teams cite) and the frontier (each team's strongest citation
  against the other's);
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
from claimcourt.reasoning.stance import key_terms, stance

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


def _ranked(inputs: SpeakInput, pool: list[Evidence]) -> list[Evidence]:
    """The passages most for the side first: stating the motion (for) or its opposite (against), then
    those merely about it, by relevance."""
    want = 1 if inputs.side == "for" else -1

    def key(e: Evidence) -> tuple[int, float, str]:
        read = stance(inputs.motion, e.text, e.title)
        return (0 if read.polarity == want else 1 if read.polarity == 0 else 2, -read.relevance, e.id)

    return sorted(pool, key=key)


def speak(inputs: SpeakInput) -> MotionStatement:
    own_before = [c for s in inputs.statements if s.side == inputs.side for c in s.citations]
    if inputs.phase == "closing":
        cited = list(dict.fromkeys(own_before))[:3]
    else:
        fresh = [e for e in inputs.evidence if e.id not in set(inputs.cited_before)]
        cited = [e.id for e in _ranked(inputs, fresh)[: inputs.citation_limit]]
    passages = {e.id: e for e in inputs.evidence}
    lead = {
        "opening": f"We speak {inputs.side} the motion.",
        "rounds": f"Round {inputs.round}: we hold our ground {inputs.side} the motion.",
        "closing": f"In closing, the evidence heard today stands {inputs.side} the motion.",
    }[inputs.phase]
    sentences = [lead]
    for c in cited:
        e = passages.get(c)
        sentences.append(f"{_excerpt(e.text) if e else 'As we showed before'} [{c}].")
    weak = [e for e in inputs.checks if e.correspondence is not None and e.correspondence <= 4]
    if weak:
        sentences.append(f"The checks on {', '.join(e.key for e in weak)} misread what those passages say.")
    if inputs.frontier:
        sentences.append(f"What remains disputed — {inputs.frontier[0].core_issue} — favours our side.")
    statement = " ".join(sentences)
    words = statement.split()
    if len(words) > inputs.word_limit:
        statement = " ".join(words[: inputs.word_limit])
    reads = [stance(inputs.motion, passages[c].text, passages[c].title) for c in cited if c in passages]
    lean = sum(r.polarity * r.relevance for r in reads) / len(reads) if reads else 0.0
    press = (
        inputs.frontier[0].core_issue if inputs.frontier else (cited[0] if cited else "the motion's terms")
    )
    return MotionStatement(
        statement=statement,
        citations=cited,
        notes=(
            f"Round {inputs.round} plan ({inputs.side}): press on {press}; "
            f"cited {', '.join(cited) or 'nothing new'}."
        ),
        implied_score=max(5, min(95, round(50 + 40 * lean))),
    )


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
    if best["for"] is not None and best["against"] is not None:
        frontier.append(
            FrontierIssue(
                core_issue=f"whether {best['for'].title} outweighs {best['against'].title}",
                for_stance=_excerpt(best["for"].sentence, 20),
                against_stance=_excerpt(best["against"].sentence, 20),
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
