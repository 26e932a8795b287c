"""The offline reasoner: plays every role deterministically from the evidence, with no model.

It is the embedded default's provider and a measured baseline (see claimcourt.bench.climate_fever),
not a prop: its debaters cite the passages most likely to back their side, its moderator aims the next
retrieval at the widest disagreement, and its judge calls each sub-claim from the stance of its evidence.
Every result it produces says reasoner "offline".

Stance (claimcourt.reasoning.stance_model): per passage, the learned probability that it bears on a
statement (supports or refutes it) and that it refutes it if it does, from small lexical readings
(claimcourt.reasoning.stance.FEATURES), trained on CLIMATE-FEVER's per-sentence labels of the tune half
only. Support counts only where the lexical rule allows it: the passage names the statement's subject and
states (part of) its predicate, speaks of the statement's place, scope, time and both halves of its
comparison (claimcourt.reasoning.qualifiers), and is not read as stating the opposite (negation, antonyms
such as rising/falling and stopped/continuing, minimisers, "the main cause" given as something else). So a
passage about a "relatively flat" graph is no evidence that the Earth is flat, nor Arctic record lows of
2002-2012 that Antarctic sea ice hit a record low in 2023; a passage the rule reads as the opposite
refutes with all its weight.

The judge, per sub-claim: the passages retrieved for it and the user's context (every passage if none
was retrieved for it), those that share at least one content word with it (RELEVANT). If the most bearing
passage's P(bears) is under the fitted bears_at, not enough evidence (a score within 42–58, ±25 up to ±40
as less bears on it); otherwise
the bears-weighted P(refutes) of the TOP most bearing passages decides: under supported_below supported,
from refuted_from refuted, in between conflicting (±20). A call scores 65–95 (35–5) with a ±14–6 interval
as it goes further past its thresholds, so it keeps its band through the score stage's evidence-quality
pulls. The overall score is the contract's composition of the sub-claim scores. The thresholds are data,
fitted by claimcourt.bench.stance_train on the tune half's pipeline pools (stance_model.json).

Measured on CLIMATE-FEVER claims-dev through the real pipeline (python -m claimcourt.bench.climate_fever):
every weight, threshold and rule choice was made on the even-line-index half (the bench's "tune" split)
only, comparing choices by 4-fold cross-validation within it; the odd half ("held-out") was only measured:
at the end (macro-F1 0.322), then after two changes not made for it (onto the new main, identical; a
wider interval for an empty pool, one claim from refuted to not enough evidence). Macro-F1 / balanced
accuracy / precision of supported (majority baseline about 0.15 / 0.25 / 0.43):
    tune      0.318 / 0.345 / 0.743 before, 0.384 / 0.412 / 0.762 learned, 0.406 / 0.431 / 0.771 now
              (in-sample: thresholds fitted here)
    tune CV   0.345 / 0.372 / 0.655 learned, 0.350 / 0.372 / 0.702 now (whole system, 5 folds, two fold
              seeds: stance_train --cv 5 --seeds 2; the expected held-out)
    held-out  0.301 / 0.327 / 0.556 before, 0.323 / 0.338 / 0.647 learned, 0.325 / 0.338 / 0.608 now
("before" is the lexical rule alone, "learned" the learned stance before issue 24's qualifiers, "now" with
them; the embedding reader, CLAIMCOURT_OFFLINE_READER=embedding: tune CV 0.361 / 0.383 / 0.762, held-out
0.316 / 0.334 / 0.584.) The issue's targets (held-out macro-F1 and balanced accuracy >= 0.40,
precision of supported >= 0.70) are not met, and the reader, not retrieval, is what binds
(python -m claimcourt.bench.climate_limits, held-out, measured only): the pools hold an annotated SUPPORTS
sentence for 54 % of the claims with one and a REFUTES sentence for 29 %, and a perfect reading of these pools
would score 0.524 / 0.514 / 0.874; but this judge reading the five annotated sentences themselves (perfect
retrieval) scores only 0.297 / 0.331 / 0.674 (0.313 / 0.351 / 0.718 before issue 24; tune, thresholds refitted
by 4-fold CV, before it: 0.317 / 0.350 / 0.745). The lexical stance separates bearing from non-bearing
sentences weakly (AUC 0.63-0.64; refuting from supporting 0.68-0.70), half the sentence labels carry a
dissenting annotator vote, and DISPUTED (46 held-out claims, 28 to tune on) needs a support and a refutation
both found and both read right. Tried on the tune half and not kept, none better than this within the
cross-validation's noise (about ±0.02 macro-F1; the figures are in docs/architecture.md#figures): more
passages per query (8, 10), article-score fusion, title boosting and article expansion in retrieval, pool
passages as the stance's negatives, IDF-weighted overlap, passage-word features, vote-weighted labels, boosted
trees, a claim-level one-vs-rest judge, stricter, looser or partial support gates, TOP 4 or 5, and a stricter
precision floor.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from typing import Any, Literal
from urllib.parse import urlparse

from pydantic import BaseModel

from claimcourt.contract import Shape, compose
from claimcourt.evidence import hindsight
from claimcourt.models import (
    AdjudicateInput,
    ArgueInput,
    ArgumentDraft,
    DecomposeInput,
    Decomposition,
    DecompositionCheck,
    Direction,
    Evidence,
    FrontierIssue,
    Interval,
    Judgement,
    ModerateInput,
    ModeratorView,
    Point,
    StructuralAnalysis,
    SubClaim,
    SubClaimJudgement,
    Suitability,
    SuitabilityFlag,
    SuitabilityInput,
    Verdict,
    WouldChange,
)
from claimcourt.prompts import SOURCE_COVERAGE
from claimcourt.reasoning import offline_factcheck, offline_motion
from claimcourt.reasoning.base import ProviderReply, Task
from claimcourt.reasoning.instructions import WARNING as INSTRUCTION_WARNING
from claimcourt.reasoning.instructions import looks_like_instruction
from claimcourt.reasoning.offline_rubric import OfflineRubric
from claimcourt.reasoning.stance import content_stems, key_terms, stance, subject_words, tokens
from claimcourt.reasoning.stance_model import CITE_AT, TOP, Call, PassageStance, decide, summarise
from claimcourt.reasoning.stance_model import judge as judge_passage
from claimcourt.reasoning.stance_model import model as stance_model

MODEL = "offline"

# Evidence below this relevance shares no content with the statement: it cannot bear on it.
RELEVANT = 0.05
CONVERGED_GAP = 12
# The moderator's first follow-up query: the disputed sub-claim's first content words (the decomposer's
# directive has up to 12). On the tune half, 5 gave a better 4-fold cross-validated macro-F1 than the
# cited passages' new terms (0.39 against 0.36), the sub-claim's subject alone, its antonyms, or its
# sources' titles.
HEAD_TERMS = 5
# The sub-claim id the pipeline gives the user's --context passages: evidence for every sub-claim.
CONTEXT = "context"
# Scores and 80 % half-widths for the judge's calls (claimcourt.contract's bands: supported from 60, refuted
# up to 40). A call at its thresholds' edge scores 65 (35) with ±14, one far past them up to 95 (5) with ±6,
# so a supported call stays supported through the score stage's evidence-quality pulls and widening.
DECIDED_FROM, DECIDED_SPAN = 15, 30
DECIDED_HALF_WIDTH = (14, 6)
UNDECIDED_LEAN = 8
CONFLICTING_HALF_WIDTH = 20
# Not enough evidence: ±25 when a passage nearly bears on the sub-claim, up to ±40 when none does at all.
UNDECIDED_HALF_WIDTH = (25, 40)

_SELF_REFERENCE = re.compile(r"\b(this (statement|sentence|claim)|i am lying)\b", re.I)
_UNFALSIFIABLE = re.compile(
    r"\b(god|gods|soul|souls|afterlife|karma|destiny|meaning of life|everything happens for a reason)\b", re.I
)
# Opinion, value and policy preference: no evidence makes "X is bad" or "we should Y" true or false. A value
# word must be what the claim predicates ("is bad", "the best policy"), an obligation must bind an agent
# ("we should", "governments must") or prescribe an act ("should be banned"); factual comparatives
# ("stronger", "cheaper than") are not value words, nor is "wrong" ("the models are wrong" is checkable), and
# reported speech ("… claiming ‘we have to …’") or hindsight ("we should have seen") prescribes nothing.
# Matters of taste are opinions too: "tastes better", "cuter than", "the best pizza topping" (but "most
# people prefer vanilla", "the most popular flavour" are about people and sales, which evidence settles).
_VALUE = re.compile(
    r"\b(?:is|are|was|were|be|being|seems?|looks?)\s+(?:not\s+)?(?:so\s+|very\s+|really\s+|truly\s+)?"
    r"(?:an?\s+)?(?:good|bad|evil|immoral|moral|wonderful|terrible|awful|horrible|great|beautiful|ugly|"
    r"stupid|dumb|silly|ridiculous|disgusting|shameful|unfair|unjust|overrated|underrated|pointless|"
    r"worthwhile|boring|delicious|tasty|yummy|gross|cute|lovely|fun|cool|awesome|amazing)"
    r"(?:\s+(?:thing|idea|policy))?\s*[.!]?$"
    r"|\bthe\s+(?:best|worst|right|wrong|smartest|only\s+sensible)\s+(?:\w+\s+){0,2}?"
    r"(?:policy|policies|way|approach|solution|option|idea|choice|answer|thing\s+to\s+do)\b"
    r"|\bthe\s+(?:best|worst|greatest|tastiest|nicest|coolest|most\s+(?:beautiful|delicious|enjoyable|"
    r"overrated|underrated))\s+(?:\w+\s+){0,2}?(?:toppings?|flavou?rs?|food|dish|cuisine|drink|band|song|"
    r"movie|film|book|album|singer|artist|music|genre|pet|colou?r)\b"
    r"|\btastes?\s+(?:so\s+|much\s+|far\s+|way\s+|a\s+lot\s+)?(?:better|worse|nicer|best|worst|great|"
    r"good|bad|amazing|awful|delicious|disgusting)\b|\bsounds?\s+(?:much\s+|far\s+)?(?:better|worse)\b"
    r"|\b(?:is|are|was|were)\s+(?:much\s+|far\s+|way\s+|a\s+lot\s+)?(?:cuter|prettier|uglier|tastier|"
    r"yummier|more\s+(?:beautiful|delicious|enjoyable|fun|boring|elegant|stylish))\b"
    r"|\b(?:a\s+waste\s+of|morally|immoral|we\s+deserve)\b",
    re.I,
)
_POLICY = re.compile(
    r"^\W*(?:we|you|they|governments?|people|everyone|society|countries|nations|politicians|leaders|humanity|"
    r"the\s+world|the\s+government|congress|parliament)\s+(?:really\s+)?(?:should|ought\s+to|must|need\s+to|"
    r"have\s+to)\s+(?!have\b|be\s+\w+ing\b)"
    r"|\bshould\s+(?:not\s+)?be\s+(?:banned|taxed|abolished|outlawed|allowed|required|encouraged|"
    r"subsidi[sz]ed|prohibited|stopped|punished|forbidden)\b"
    r"|^\s*(?:let's|let\s+us|ban|stop|tax|end)\b",
    re.I,
)
_TIME_SENSITIVE = re.compile(
    r"\b(today|tonight|tomorrow|yesterday|right now|currently|this (week|month|year)|next (week|month|year)|"
    r"latest|breaking|upcoming|will (win|lose|be|become|reach|hit))\b",
    re.I,
)
# Where a clause's qualifiers start: when, where, over what ("… has declined | since 1979 | in the Arctic").
_QUALIFIER = re.compile(
    r"\s+(?=(?:since|in|during|from|over|across|between|until|before|after|within|throughout)\s)", re.I
)
# Effort's sub-claim limit beyond which a one-clause claim's qualifiers become sub-claims of their own:
# low (3) and standard (4) keep a one-clause claim whole, high (6) splits off up to two qualifiers. (At
# standard, one qualifier split lowered the tune half's macro-F1 on its first quarter: not kept there.)
WHOLE_UP_TO = 4
_SPLIT = re.compile(r";|,?\s+\b(?:and|but|whereas|while|because)\b\s+", re.I)
# A part that opens by pointing back ("… and they rose", "… and then it fell") is not a claim of its own.
_ANAPHORA = frozenset(
    "it its they them their this that these those he she his her such which who whom whose then so "
    "there".split()
)


def _is_clause(part: str) -> bool:
    """Whether a part of a claim is a claim of its own: a subject of its own, a verb (an auxiliary, a known
    verb or a past participle: claimcourt.reasoning.stance.subject_words), and at least three content words.
    "Scientists and professionals" and "plausible and terrifying" are not split."""
    words = tokens(part)
    return (
        len(content_stems(part)) >= 3
        and bool(subject_words(part))
        and bool(words)
        and words[0] not in _ANAPHORA
    )


def _excerpt(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def _rated(statement: str, evidence: Sequence[Evidence]) -> list[tuple[Evidence, PassageStance]]:
    """Passages that share something with the statement, with their learned stance, in pool order."""
    rated = [(e, judge_passage(statement, e.text, e.title)) for e in evidence]
    return [(e, s) for e, s in rated if relevance_of(statement, e) >= RELEVANT]


def weighed_pool(
    sub_claim_id: str, text: str, evidence: Sequence[Evidence]
) -> list[tuple[Evidence, PassageStance]]:
    """What the judge weighs for a sub-claim: the passages retrieved for it and the user's context (all the
    evidence if none was), each once, rated against its text."""
    own = [e for e in evidence if e.sub_claim_id in (sub_claim_id, CONTEXT)] or list(evidence)
    return _rated(text, list({e.id: e for e in own}.values()))


def relevance_of(statement: str, e: Evidence) -> float:
    return stance(statement, e.text, e.title).relevance


def belief(rated: Sequence[tuple[Evidence, PassageStance]]) -> int:
    """A debater's honest probability for a sub-claim, before either side leans it: the likeliest support
    against the likeliest refutation. It needs no threshold of the judge's, so what the debaters cite (and
    the moderator then asks for) does not depend on how the judge decides."""
    support = max((s.support for _, s in rated), default=0.0)
    refute = max((s.refute for _, s in rated), default=0.0)
    return round(50 + 45 * (support - refute))


def call(rated: Sequence[tuple[Evidence, PassageStance]]) -> Call:
    """The judge's call on a sub-claim from its rated passages (stance_model.decide)."""
    return decide(summarise([s.weighed for _, s in rated]), stance_model().decision)


def score_of(rated: Sequence[tuple[Evidence, PassageStance]], made: Call) -> tuple[int, int]:
    """(score, 80 % half-width) for a call, inside its verdict's band."""
    if made.verdict in (Verdict.SUPPORTED, Verdict.REFUTED):
        sign = 1 if made.verdict is Verdict.SUPPORTED else -1
        wide, narrow = DECIDED_HALF_WIDTH
        return 50 + sign * round(DECIDED_FROM + DECIDED_SPAN * made.strength), round(
            wide - (wide - narrow) * made.strength
        )
    summary = summarise([s.weighed for _, s in rated])
    decision = stance_model().decision
    # Undecided: lean the way the evidence leans, no further than the undecided band allows.
    share = min(1.0, summary.bears / decision.bears_at) if decision.bears_at else 1.0
    middle = (decision.supported_below + decision.refuted_from) / 2
    lean = max(-1.0, min(1.0, (middle - summary.refutes) / max(middle, 1 - middle)))
    if made.verdict is Verdict.CONFLICTING:
        half = CONFLICTING_HALF_WIDTH
    else:
        near, empty = UNDECIDED_HALF_WIDTH
        half = round(empty - (empty - near) * share)
    return 50 + round(UNDECIDED_LEAN * lean * share), half


def _decisive(rated: Sequence[tuple[Evidence, PassageStance]], verdict: Verdict) -> Evidence | None:
    """The passage the call rests on most: the likeliest support for supported, the likeliest refutation
    for refuted, else the most bearing one (pool order breaks ties)."""
    if not rated:
        return None
    key: Callable[[PassageStance], float] = {
        Verdict.SUPPORTED: lambda s: s.support,
        Verdict.REFUTED: lambda s: s.refute,
    }.get(verdict, lambda s: s.bears)
    return max(rated, key=lambda pair: key(pair[1]))[0]


def _stronger(
    finals: dict[Literal["A", "B"], dict[str, int]], sub_id: str, verdict: Verdict
) -> Literal["A", "B", "neither"]:
    """The position whose final word on the sub-claim leaned the way the verdict went (above 50 for
    supported, below for refuted), the further of the two if both did; "neither" if none did, if they
    said the same, or if the verdict went neither way."""
    if verdict not in (Verdict.SUPPORTED, Verdict.REFUTED):
        return "neither"
    sign = 1 if verdict is Verdict.SUPPORTED else -1
    leans = {label: sign * (scores[sub_id] - 50) for label, scores in finals.items() if sub_id in scores}
    leaning = {label: lean for label, lean in leans.items() if lean > 0}
    if not leaning or (len(leaning) == 2 and len(set(leaning.values())) == 1):
        return "neither"
    return max(leaning, key=lambda label: leaning[label])


_YEAR = re.compile(r"\b(1[89]\d\d|2[01]\d\d)\b")


def _beyond_the_evidence(claim: str, inputs: SuitabilityInput) -> str | None:
    """A warning when the claim names a year the evidence cannot speak of: after the source's last
    year, or after the backtest's date, or after today (then it is a forecast)."""
    years = [int(y) for y in _YEAR.findall(claim)]
    if not years:
        return None
    latest = max(years)
    what, until = SOURCE_COVERAGE.get(inputs.evidence_source, ("", None))
    as_of = inputs.as_of.year if inputs.as_of else None
    today = inputs.today.year if inputs.today else None
    if today is not None and latest > today:
        return (
            f"The claim is about {latest}, after today: it is a forecast, which no evidence can settle yet."
        )
    if as_of is not None and latest > as_of:
        return (
            f"The claim is about {latest}, after the backtest's date ({inputs.as_of}): nothing then could "
            "speak of it."
        )
    if until is not None and latest > until:
        return f"The claim is about {latest}, but the evidence ({what}) speaks of nothing after {until}."
    return None


class OfflineReasoner:
    """A Provider that needs no model: each task kind has a deterministic strategy."""

    name = "offline"
    sends_temperature = True  # deterministic: no sampling, so no role runs at a "natural" temperature

    def __init__(self) -> None:
        self._strategies: dict[str, Callable[[Any], BaseModel]] = {
            "suitability": self.suitability,
            "decompose": self.decompose,
            "argue": self.argue,
            "moderate": self.moderate,
            "adjudicate": self.adjudicate,
            "factcheck": offline_factcheck.factcheck,
            "hindsight": hindsight.classify,  # a backtest's sources, dated by their text (lexically)
            # motion debates (reasoning/offline_motion.py)
            "stances": offline_motion.stances,
            "motion_suitability": offline_motion.suitability,
            "speak": offline_motion.speak,
            "cartograph": offline_motion.cartograph,
            "crowd": offline_motion.crowd,
        }
        # The scorecard's baselines (claimcourt.bench): one call each, answered by this judge.
        from claimcourt.reasoning.offline_baselines import OfflineBaselines

        self._strategies.update(OfflineBaselines(self.adjudicate).strategies())
        # The rubric judge (judge: rubric): this judge's calls, said on the rubric.
        self._strategies.update(OfflineRubric(self.adjudicate).strategies())

    def complete(self, task: Task[Any], model: str, feedback: str | None = None) -> ProviderReply:
        strategy = self._strategies[task.kind]
        output = strategy(task.inputs)
        return ProviderReply(output.model_dump(mode="json"), None, MODEL, 0, 0)

    # ------------------------------------------------------------ roles

    def suitability(self, inputs: SuitabilityInput) -> Suitability:
        claim = inputs.claim
        flags: list[SuitabilityFlag] = []
        warnings: list[str] = []
        if _SELF_REFERENCE.search(claim):
            flags.append(SuitabilityFlag.SELF_REFERENTIAL)
            warnings.append("The claim refers to itself; evidence cannot settle it.")
        if _UNFALSIFIABLE.search(claim):
            flags.append(SuitabilityFlag.UNFALSIFIABLE)
            warnings.append("The claim concerns something no evidence could count against.")
        elif _VALUE.search(claim) or _POLICY.search(claim):
            flags.append(SuitabilityFlag.UNFALSIFIABLE)
            warnings.append(
                "The claim states an opinion or a matter of taste, a value judgement or a policy preference: "
                "evidence can inform it but cannot make it true or false. Restate it as a factual claim "
                "(what happens, how much, compared with what) to have it checked."
            )
        # An instruction to the system (a prompt injection) asserts nothing about the world.
        if looks_like_instruction(claim):
            flags.append(SuitabilityFlag.NOT_A_CLAIM)
            warnings.append(INSTRUCTION_WARNING)
        # A question, a lone word, or nothing but function words ("it is not") asserts nothing.
        elif claim.rstrip().endswith("?") or len(tokens(claim)) < 2 or not content_stems(claim):
            flags.append(SuitabilityFlag.NOT_A_CLAIM)
            warnings.append("This reads as a question or fragment, not a claim that can be true or false.")
        beyond = _beyond_the_evidence(claim, inputs)
        if beyond is not None:
            flags.append(SuitabilityFlag.TIME_SENSITIVE)
            warnings.append(beyond)
        elif _TIME_SENSITIVE.search(claim):
            flags.append(SuitabilityFlag.TIME_SENSITIVE)
            warnings.append("The claim is time-sensitive: the evidence may not reach the period it is about.")
        proceed = not (
            {SuitabilityFlag.SELF_REFERENTIAL, SuitabilityFlag.UNFALSIFIABLE, SuitabilityFlag.NOT_A_CLAIM}
            & set(flags)
        )
        audit = self.audit(claim, inputs.sub_claims) if len(inputs.sub_claims) > 1 else None
        return Suitability(proceed=proceed, flags=flags, warnings=warnings, audit=audit)

    def decompose(self, inputs: DecomposeInput) -> Decomposition:
        """Split on clause-level conjunctions when every part is a claim of its own; a one-clause claim
        with room to spare has its qualifiers (when, where) tested on their own: the subject in that
        period or place. Either way the parts are jointly necessary (shape "all": a claim restricted to
        a period is false if it fails there). After the audit's feedback (a re-split), the claim whole."""
        claim = inputs.claim.strip()
        parts = [p.strip(" ,.") for p in _SPLIT.split(claim) if p and p.strip(" ,.")]
        if inputs.feedback or len(parts) < 2 or not all(_is_clause(p) for p in parts):
            parts = [claim]
        shape: Shape = "all"  # clauses and qualifiers alike are jointly necessary
        rationale = "The claim joins independent clauses; each is tested on its own."
        if len(parts) == 1:
            parts, facets = self._facets(claim, inputs.max_sub_claims - WHOLE_UP_TO, bool(inputs.feedback))
            rationale = (
                "One proposition, true only within its qualifiers (when, where), each tested on the subject: "
                + "; ".join(facets)
                if facets
                else "The claim is one proposition."
            )
        if len(parts) > inputs.max_sub_claims:  # the overflow stays tested, joined to the last part
            parts = [*parts[: inputs.max_sub_claims - 1], " and ".join(parts[inputs.max_sub_claims - 1 :])]
        sub_claims = [
            SubClaim(id=f"sc{i}", text=text[:600], directive=" ".join(key_terms(text, 12)) or text[:300])
            for i, text in enumerate(parts, start=1)
        ]
        return Decomposition(sub_claims=sub_claims, shape=shape, rationale=rationale)

    @staticmethod
    def _facets(claim: str, room: int, feedback: bool) -> tuple[list[str], list[str]]:
        """(sub-claim texts, the qualifiers split off): the core proposition, then the subject with each
        of the first `room` qualifiers; the rest stay with the core."""
        subject = " ".join(subject_words(claim))
        pieces = [p.strip(" ,.") for p in _QUALIFIER.split(claim.rstrip(" ."))]
        core, qualifiers = pieces[0], [q for q in pieces[1:] if content_stems(q)]
        if (
            feedback
            or room < 1
            or not qualifiers
            or not content_stems(subject)
            or len(content_stems(core)) < 2
        ):
            return [claim], []
        facets, kept = qualifiers[:room], qualifiers[room:]
        core_text = " ".join([core, *kept])
        return [core_text] + [f"{subject[:1].upper()}{subject[1:]} {q}" for q in facets], facets

    @staticmethod
    def audit(claim: str, subs: list[SubClaim]) -> DecompositionCheck:
        """The split's audit, lexically: two sub-claims sharing most of their stems overlap; a gap when
        two or more of the claim's stems are tested by none."""
        stems = [set(content_stems(s.text)) for s in subs]
        overlaps = [
            f"{a.id} and {b.id}"
            for i, a in enumerate(subs)
            for j, b in enumerate(subs)
            if i < j and stems[i] and stems[j] and len(stems[i] & stems[j]) / len(stems[i] | stems[j]) >= 0.7
        ]
        covered = set().union(*stems) if stems else set()
        missing = [w for w in dict.fromkeys(content_stems(claim)) if w not in covered]
        gaps = [f"nothing tests '{' '.join(missing)}'"] if len(missing) > 1 else []
        return DecompositionCheck(ok=not overlaps and not gaps, overlaps=overlaps, gaps=gaps)

    def argue(self, inputs: ArgueInput) -> ArgumentDraft:
        """Each side cites the passages most likely to back it (the learned stance: support for the case
        for, refutation for the case against) among those that bear on the sub-claim at all, and leans
        the judge's own estimate its way, no further than its best passage justifies."""
        want = 1 if inputs.side == "for" else -1
        previous = {p.sub_claim_id: p for p in inputs.own_previous.points} if inputs.own_previous else {}
        # Speaking second: the passages the argument just made rests on, to answer by name.
        answered = (
            {p.sub_claim_id: p.citations for p in inputs.opponent_now.points} if inputs.opponent_now else {}
        )
        new = set(inputs.new_evidence_ids)
        # The closing round cites only what this side cited before and what is new this round, as the
        # prompt tells a model: a citation the rules would drop is not written, nor what pointed to it.
        closing = inputs.round > 1 and inputs.round >= inputs.max_rounds
        citable = set(inputs.cited_before) | new if closing else {e.id for e in inputs.evidence}
        points = []
        for sub in inputs.sub_claims:
            rated = _rated(sub.text, inputs.evidence)
            score = belief(rated)

            def backing(s: PassageStance, side: int) -> float:
                return s.support if side > 0 else s.refute

            leaning = [(e, s) for e, s in rated if s.bears >= CITE_AT and e.id in citable]
            mine = sorted(
                ((e, s) for e, s in leaning if backing(s, want) > backing(s, -want)),
                key=lambda pair: -backing(pair[1], want),
            )[:3]
            theirs = sorted(
                ((e, s) for e, s in leaning if backing(s, -want) > backing(s, want)),
                key=lambda pair: -backing(pair[1], -want),
            )[:1]
            if mine:
                lead, lead_stance = mine[0]
                argument = f'[{lead.id}] ({lead.tier}, {lead.title}): "{_excerpt(lead.text)}"'
                if len(mine) > 1:
                    argument += " Also " + ", ".join(f"[{e.id}]" for e, _ in mine[1:]) + "."
                rebutted = [
                    c for c in answered.get(sub.id, []) if c not in {e.id for e, _ in mine} and c in citable
                ]
                if theirs and not rebutted:
                    argument += (
                        f" The other side will point to [{theirs[0][0].id}], which bears on it less directly."
                    )
                if rebutted:
                    argument += (
                        f" The argument just made rests on {', '.join(f'[{c}]' for c in rebutted)}; the"
                        " passages cited here bear on the sub-claim more directly."
                    )
                strength = backing(lead_stance, want)
                implied = max(0, min(100, score + want * round(20 * strength)))
                confidence = round(min(0.95, 0.3 + 0.6 * strength), 2)
            else:
                against = f", and [{theirs[0][0].id}] cuts the other way" if theirs else ""
                pool = "it may cite in this closing round" if closing else "in the evidence pool"
                argument = f"No passage {pool} supports this side on {sub.id}{against}."
                implied, confidence = score, 0.2
            citations = [e.id for e, _ in mine] or ([theirs[0][0].id] if theirs else [])
            before = previous.get(sub.id)
            change = None
            if before is not None and abs(implied - before.implied_score) > 10:
                moved_by = [c for c in citations if c in new]
                change = (
                    f"Moved from {before.implied_score} to {implied} on new evidence {', '.join(moved_by)}."
                )
            points.append(
                Point(
                    sub_claim_id=sub.id,
                    argument=argument,
                    implied_score=implied,
                    confidence=confidence,
                    citations=citations,
                    position_change=change,
                )
            )
        return ArgumentDraft(points=points)

    def moderate(self, inputs: ModerateInput) -> ModeratorView:
        pro = {p.sub_claim_id: p for p in inputs.case_for.points}
        con = {p.sub_claim_id: p for p in inputs.case_against.points}

        def gap(sub: SubClaim) -> int:
            if sub.id not in pro or sub.id not in con:
                return 100
            return abs(pro[sub.id].implied_score - con[sub.id].implied_score)

        disputed = max(inputs.sub_claims, key=gap)
        widest = gap(disputed)
        cited = [c for side in (pro, con) if disputed.id in side for c in side[disputed.id].citations]
        pool = {e.id: e for e in inputs.evidence}
        candidates = self._queries(disputed, [pool[c] for c in cited if c in pool], inputs.previous_queries)
        done = {q.strip().lower() for q in inputs.previous_queries}
        query = next((q for q in candidates if q.strip() and q.strip().lower() not in done), candidates[-1])
        refused = inputs.case_for.refusal is not None or inputs.case_against.refusal is not None
        recommendation = "converged" if widest <= CONVERGED_GAP and not refused else "continue"
        implied = [p.implied_score for side in (pro, con) for p in side.values()]
        consensus, frontier = [], []
        for sub in inputs.sub_claims:
            if sub.id not in pro or sub.id not in con:
                continue
            low, high = sorted((pro[sub.id].implied_score, con[sub.id].implied_score))
            if high - low <= CONVERGED_GAP:
                consensus.append(f"{sub.text}: both sides put it at {low}–{high} of 100.")
            else:
                frontier.append(
                    FrontierIssue(
                        core_issue=sub.text,
                        for_stance=f"puts it at {pro[sub.id].implied_score} of 100",
                        against_stance=f"puts it at {con[sub.id].implied_score} of 100",
                        sub_claim_id=sub.id,
                    )
                )
        return ModeratorView(
            decisive_dispute=f"{disputed.id}: the sides' implied scores are {widest} points apart",
            dispute_sub_claim_id=disputed.id,
            next_query=query[:300],
            recommendation=recommendation,
            # Both sides' honest scores, averaged: the moderator's reading of where the debate stands.
            provisional_score=round(sum(implied) / len(implied)) if implied else 50,
            consensus=consensus,
            disagreement_frontier=frontier,
            rationale="Converged within tolerance."
            if recommendation == "converged"
            else "The widest gap is still open.",
        )

    @staticmethod
    def _queries(disputed: SubClaim, cited: list[Evidence], previous: list[str]) -> list[str]:
        """The next query's candidates, best first (one not yet run is taken): the sub-claim's head (its
        first HEAD_TERMS content words: its subject and main predicate, so the search ranks passages on the
        core of the dispute rather than its details), then what the cited passages talk about that the
        queries so far did not ask."""
        asked = set(content_stems(" ".join(previous)))
        extra = [t for e in cited for t in key_terms(e.text, 20) if content_stems(t)[0] not in asked]
        base = key_terms(disputed.text, 8)
        return [
            " ".join(base[:HEAD_TERMS]),
            " ".join(base + list(dict.fromkeys(extra))[:4]),
            disputed.text,
            " ".join(base) + " evidence",
        ]

    def adjudicate(self, inputs: AdjudicateInput) -> Judgement:
        evidence = list(inputs.evidence)
        if inputs.sample > 0:  # self-consistency: a bootstrap resample of the evidence per sample
            rng = random.Random(f"{inputs.claim}|{inputs.sample}")
            evidence = [rng.choice(evidence) for _ in evidence] if evidence else []
        final_round = max((p.round for p in inputs.positions), default=0)
        finals = {
            p.label: {q.sub_claim_id: q.implied_score for q in p.points}
            for p in inputs.positions
            if p.round == final_round
        }
        judged: list[SubClaimJudgement] = []
        sources: set[str] = set()
        half_widths: list[int] = []
        for sub in inputs.sub_claims:
            # The user's context bears on every sub-claim; other evidence on the one it was retrieved for.
            rated = weighed_pool(sub.id, sub.text, evidence)
            made = call(rated)
            score, half = score_of(rated, made)
            half_widths.append(half)
            decisive = _decisive(rated, made.verdict)
            if decisive is not None:
                sources.add(urlparse(decisive.source_url).hostname or decisive.source_url)
            top = sorted(rated, key=lambda pair: -pair[1].bears)[:TOP]
            synthesis = (
                f"{len(rated)} passages share terms with it; the most bearing: "
                + (
                    ", ".join(f"[{e.id}] bears {s.bears:.2f}, refutes if so {s.refutes:.2f}" for e, s in top)
                    if top
                    else "none"
                )
                + f". {made.verdict.value}."
                + (f' Decisive: [{decisive.id}] "{_excerpt(decisive.text, 120)}"' if decisive else "")
                # What the reader set aside, and why: a passage about another place or time is no support.
                + "".join(f" [{e.id}] not counted as support ({s.differs})." for e, s in top if s.differs)
            )
            judged.append(
                SubClaimJudgement(
                    sub_claim_id=sub.id,
                    score=score,
                    verdict=made.verdict,
                    referee_synthesis=synthesis,
                    decisive_evidence_id=decisive.id if decisive else None,
                    stronger_position=_stronger(finals, sub.id, made.verdict),
                )
            )
        # The offline judge follows the contract's composition rule, so it never departs from it.
        overall = compose([j.score for j in judged], inputs.shape)
        anchor = min(judged, key=lambda j: j.score) if overall < 50 else max(judged, key=lambda j: j.score)
        return Judgement(
            sub_claims=judged,
            overall_score=overall,
            overall_interval=Interval(
                low=max(0, overall - max(half_widths, default=UNDECIDED_HALF_WIDTH[1])),
                high=min(100, overall + max(half_widths, default=UNDECIDED_HALF_WIDTH[1])),
            ),
            adjustment_reason=None,
            decisive_evidence_id=anchor.decisive_evidence_id if judged else None,
            what_would_change=[
                self._would_change(sub, j) for sub, j in zip(inputs.sub_claims, judged, strict=True)
            ],
            structural_analysis=StructuralAnalysis(
                assumptions=[f"{s.id} must hold for the claim to hold: {s.text}" for s in inputs.sub_claims],
                first_principles=[
                    "Primary (T1) sources outweigh secondary ones; "
                    f"{sum(e.tier == 'T1' for e in evidence)} of {len(evidence)} passages here are primary."
                ],
                critical_path=[
                    f"{j.sub_claim_id} ({j.verdict.value}, {j.score})"
                    for j in sorted(judged, key=lambda j: j.score)
                ],
                external_dependencies=sorted(sources),
            ),
        )

    @staticmethod
    def _would_change(sub: SubClaim, j: SubClaimJudgement) -> WouldChange:
        """The lead a sub-claim's judgement leaves: a primary source against what the pool says, or,
        where the pool is undecided, direct evidence for the way it leans; found by its directive."""
        said = f'{sub.id} ("{_excerpt(sub.text, 80)}")'
        if j.verdict is Verdict.SUPPORTED:
            direction, what = (
                Direction.TOWARD_0,
                f"A primary source contradicting {said} would lower the score.",
            )
        elif j.verdict is Verdict.REFUTED:
            direction, what = (
                Direction.TOWARD_100,
                f"A primary source establishing {said} would raise the score.",
            )
        elif j.score >= 50:
            direction, what = (
                Direction.TOWARD_100,
                f"Direct, dated evidence establishing {said} would raise the score most.",
            )
        else:
            direction, what = (
                Direction.TOWARD_0,
                f"Direct, dated evidence against {said} would lower the score most.",
            )
        return WouldChange(
            direction=direction,
            what=what,
            where_to_look=f"primary sources (government, regulator, peer-reviewed): '{sub.directive}'",
            sub_claim=sub.id,
        )
