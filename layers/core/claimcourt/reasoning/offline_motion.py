"""The offline reasoner's motion-debate roles: deterministic, no model.

- stances and queries from the motion's key terms;
- a team's statement argues its own side in its own words: it cites the passages the passage stance
  (stance_model, as the claim debaters read them) reads as backing its side more than the other's, new
  ones within its allowance (none in the closing), never one the other team cited; says so when the pool
  backs it with nothing; answers the other team's last citations by what they do not show (another place,
  time or scope, half a comparison, or no statement of the motion at all: qualifiers.py, stance.py); and
  answers the checks its citations met; its notes (private, no word limit: `_notes`) are its
  supplementary material from the pool: what the turn stood on, the passages held in reserve, the other
  team's and what they do not show, the checks to answer, what to press next, its honest view;
- the judge maps consensus (passages both teams cite) and the frontier (each team's strongest citation
  against the other's, each named so that the two never read alike: never a term against itself);
- the screen before vote zero (`suitability`): rules on the motion's wording — an instruction or a
  fragment is no motion; taste or faith no evidence could move; a factual claim posing as a motion (a
  measured change or a cause, with no word of value or policy); loaded adjectives that presuppose the answer;
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
    MotionScreen,
    MotionStatement,
    MotionSuitabilityInput,
    Persona,
    PersonaVote,
    PublicStatement,
    Side,
    SpeakInput,
    Stances,
    StancesInput,
)
from claimcourt.reasoning.instructions import WARNING as INSTRUCTION_WARNING
from claimcourt.reasoning.instructions import looks_like_instruction
from claimcourt.reasoning.qualifiers import differs
from claimcourt.reasoning.stance import content_stems, key_terms, tokens
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


# ---------------------------------------------------------------- the screen before vote zero

# Taste, faith and the supernatural: no passage could move an audience on them.
_UNMOVABLE = re.compile(
    r"\b(god|gods|soul|souls|afterlife|karma|destiny|meaning of life|heaven|hell)\b"
    r"|\bthis (statement|motion) is\b|\btastes?\s+(?:\w+\s+)?(?:better|worse|best|nicer)\b"
    r"|\bpineapple\b|\b(?:cuter|prettier|uglier|tastier)\b"
    r"|\bthe\s+(?:best|worst|greatest)\s+(?:\w+\s+)?(?:band|song|movie|film|album|colou?r|flavou?r|topping)\b",
    re.I,
)
# What makes a motion a question of policy or value: what should be done, what is better, worse, right.
_VALUE_OR_POLICY = re.compile(
    r"\b(should|ought|must|needs? to|has to|have to|would|better|worse|best|worst|good|bad|evil|harm\w*|"
    r"benefit\w*|threat\w*|danger\w*|progress|legitimate|preferable|right|wrong|fair|unfair|just|unjust|"
    r"justified|necessary|worth\w*|deserve\w*|fail\w*|broken|disaster\w*|crisis|inevitable|obsolete|"
    r"undermin\w*|violat\w*|oppress\w*|provok\w*|model for|case for|case against|stronger|weaker|"
    r"responsib\w*|blame|trust|resolved|this house|time to|priority|central|matter\w*|more than|"
    r"less than|outweigh\w*|succeed\w*|success\w*|finished|over)\b",
    re.I,
)
# A measured change or a cause: what a fact-check settles ("rose by 1.1 °C", "cause autism").
_MEASURED = re.compile(
    r"\b(ris(?:e|es|en|ing)|rose|increas\w*|decreas\w*|declin\w*|f[ae]ll(?:en|s)?|dropp?\w*|caus\w*|"
    r"melt\w*|warm(?:ed|ing|s)|doubl\w*|exceed\w*|linked to|correlat\w*)\b"
    r"|\d+(?:[.,]\d+)?\s*(?:%|percent|per cent|°|degrees?|ppm|million|billion)",
    re.I,
)
# Adjectives that decide the motion before anyone speaks, or cast one side's stakeholders as wrong.
_LOADED = re.compile(
    r"\b(reckless\w*|disastrous|so-called|obviously|clearly|undeniabl\w*|everyone knows|any sane|"
    r"greedy|scam|hoax|idiotic|stupid|insane|shameful|evil|corrupt|lazy|brainwashed|sheeple|woke|alarmists?|"
    r"deniers?)\b",
    re.I,
)
_REWORD = "Restate it neutrally (what should be done, or what is better on balance) to have it debated."


def suitability(inputs: MotionSuitabilityInput) -> MotionScreen:
    """The offline screen of a motion's wording (the module's docstring). It reads words, not meaning:
    "Vaccines cause autism" reads factual, and "Globalization has undermined America's working class"
    reads as a judgement of value, which is how debate series stage it."""
    motion = proposition(inputs.motion)
    if looks_like_instruction(inputs.motion):
        return MotionScreen(
            kind="not_a_motion",
            movable=False,
            loaded=False,
            stakeholders="None: it addresses the system, not a question people disagree on.",
            outcome="stop",
            reasons=[INSTRUCTION_WARNING.replace("a claim about the world", "a motion")],
        )
    if len(tokens(motion)) < 2 or not content_stems(motion):
        return MotionScreen(
            kind="not_a_motion",
            movable=False,
            loaded=False,
            stakeholders="None named: it states no question.",
            outcome="stop",
            reasons=["This is a fragment, not a motion: state what should be done, or what is better."],
        )
    if _UNMOVABLE.search(motion):
        return MotionScreen(
            kind="value",
            movable=False,
            loaded=False,
            stakeholders="Each person's own taste or faith: no stakeholder's case rests on evidence.",
            outcome="stop",
            reasons=[
                "No evidence could move an audience on this (a matter of taste or faith): a debate over "
                "evidence cannot serve it. Ask about something evidence bears on, such as what people do or "
                "what a policy costs."
            ],
        )
    reasons = []
    factual = not _VALUE_OR_POLICY.search(motion) and bool(_MEASURED.search(motion))
    if factual:
        reasons.append(
            "This reads as a factual claim (a measured change or a cause), not a question of policy or "
            "value: the crowd's vote would measure persuasion, not whether it is true. To have it checked, "
            "use `claimcourt run`; to debate it, ask what should follow from it."
        )
    loaded = _LOADED.search(motion)
    if loaded is not None:
        reasons.append(
            f'Its wording ("{loaded.group()}") decides the question before anyone speaks, and leaves the '
            f"team against arguing with the motion's own words. {_REWORD}"
        )
    policy = re.search(r"\b(should|ought|must)\b", motion, re.I) is not None
    return MotionScreen(
        kind="factual" if factual else "policy" if policy else "value",
        movable=True,
        loaded=loaded is not None,
        stakeholders=(
            "Not read offline: the rules see the motion's words, not who has a stake in it."
            if loaded is None
            else "The wording takes one side's view of the other side's stakeholders."
        ),
        outcome="warn" if reasons else "proceed",
        reasons=reasons,
    )


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


def leaning(prop: str, e: Evidence, read: PassageStance) -> Side | None:
    """The side a passage backs more than the other, as the offline teams read it to cite it: None when
    it bears too little on the motion, or speaks of another place or time (which backs neither side)."""
    if read.bears < CITE_AT or differs(prop, e.text, e.title) is not None:
        return None
    lean = read.support - read.refute
    return "for" if lean > 0 else "against" if lean < 0 else None


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
            and leaning(prop, e, read[e.id]) == side
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
    implied = max(5, min(95, round(50 + 45 * lean)))
    notes, note_citations = _notes(inputs, prop, read, cited, last, implied)
    return MotionStatement(
        statement=statement,
        citations=cited,
        notes=notes,
        note_citations=note_citations,
        implied_score=implied,
    )


_HOW = {1: "states the motion", -1: "states its opposite", 0: "bears on it in part"}
_RESERVE = 4  # passages a team's notes hold in reserve: enough for the next two turns' allowances


def _gist(e: Evidence, words: int = 14) -> str:
    """A passage's opening words, for the team's own notes: its first sentence only and never a whole
    one (a sentence of the notes a fact-checker quoted whole would be withheld: the gist is not one)."""
    first = re.split(r"(?<=[.!?;])\s+", e.text.strip(), maxsplit=1)[0].strip("\"“”'").rstrip(".!?;")
    return _excerpt(first, words)


def _notes(
    inputs: SpeakInput,
    prop: str,
    read: dict[str, PassageStance],
    cited: list[str],
    last: PublicStatement | None,
    implied: int,
) -> tuple[str, list[str]]:
    """A team's private notes, its supplementary material, from the pool (the seed spec sets no word
    limit): what each passage this turn stood on shows, the passages held in reserve, those that bear on
    the motion but back neither side, the other team's last passages and what they do not show, the
    checks on its own to answer, what to press next, its honest view. Each passage by its id in brackets;
    those ids are the notes' citations."""
    side = inputs.side
    passages = {e.id: e for e in inputs.evidence}
    phase = {"opening": "the opening", "rounds": "a debate round", "closing": "the closing"}[inputs.phase]
    named: list[str] = []  # every passage the notes cite, in order: their citations

    def ref(e: Evidence) -> str:
        named.append(e.id)
        return f'[{e.id}] ({e.title or "untitled"}, {e.tier}, "{_gist(e)}")'

    lines = [f"Round {inputs.round} of {inputs.last_round}, {phase}, {side} the motion."]
    stood = [passages[c] for c in cited if c in passages]
    lines += [f"We stood on {ref(e)}: it {_HOW[read[e.id].rule]}." for e in stood] or [
        "We cited no passage this turn: the pool gave us nothing of our own."
    ]
    used = set(cited) | set(inputs.cited_before)
    theirs = {c for s in inputs.statements if s.side != side for c in s.citations}
    unused = [e for e in inputs.evidence if e.id not in used and e.id not in theirs]
    reserve = sorted(
        (e for e in unused if leaning(prop, e, read[e.id]) == side),
        key=lambda e: (-_lean(read[e.id], side), e.id),
    )[:_RESERVE]
    if inputs.phase == "closing":
        lines.append("Nothing new may be cited now: what we said stands on the passages above.")
    else:
        lines += [f"In reserve: {ref(e)}; it {_HOW[read[e.id].rule]}: cite it when the frontier reaches it."
                  for e in reserve] or [
            "No passage we have not cited backs us: from here we stand on what we cited, and on what "
            "theirs do not show."
        ]  # fmt: skip
        aside = [
            e for e in unused
            if read[e.id].bears >= CITE_AT and e not in reserve and differs(prop, e.text, e.title) is not None
        ][:2]  # fmt: skip
        for e in aside:
            kind = (differs(prop, e.text, e.title) or "").partition(": ")[0]
            lines.append(
                f"Beside the point for either side: {ref(e)} speaks of {_DIFFERS.get(kind, kind)}: if they "
                "cite it, say so."
            )
    if last is not None:
        for c in [c for c in last.citations if c in passages][:3]:
            answer = _answer(side, prop, passages[c], read[c], citing=bool(cited))
            lines.append(f"Their {ref(passages[c])}: {answer[0].lower()}{answer[1:]}")
    for check in inputs.checks:
        if check.correspondence is not None and check.correspondence <= 5:
            lines.append(
                f"The check on {check.key} gave it {check.correspondence}/10 for correspondence: answer it "
                "with what the passage says, and do not lean on it alone."
            )
    if inputs.phase != "closing":
        press = inputs.frontier[0].core_issue if inputs.frontier else "the motion's own terms"
        mine = list(dict.fromkeys([*inputs.cited_before, *cited]))
        named.extend(mine)
        lines.append(
            f"Next turn: press on {press}. The closing may cite only what we have cited: "
            + (", ".join(f"[{c}]" for c in mine) or "nothing yet")
            + "."
        )
    lines.append(f"Honest view: {implied} of 100 that the motion holds, on the passages read so far.")
    return "\n".join(lines), list(dict.fromkeys(named))


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
