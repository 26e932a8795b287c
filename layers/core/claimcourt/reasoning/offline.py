"""The offline reasoner: plays every role deterministically from the evidence, with no model.

It is the embedded default's provider and a measured baseline (see claimcourt.bench.climate_fever),
not a prop: its debaters cite the passages whose stance favours their side, its moderator aims
the next retrieval at the widest disagreement, and its judge weighs the evidence's stance per
sub-claim. Every result it produces says reasoner "offline".
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlparse

from pydantic import BaseModel

from claimcourt.models import (
    AdjudicateInput,
    ArgueInput,
    ArgumentDraft,
    DecomposeCheckInput,
    DecomposeInput,
    Decomposition,
    DecompositionCheck,
    Evidence,
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
)
from claimcourt.reasoning.base import ProviderReply, Task
from claimcourt.reasoning.stance import Stance, content_stems, key_terms, stance

MODEL = "offline"

# Evidence below this relevance is not about the statement at all.
RELEVANT = 0.3
# A judge needs at least one passage this relevant to call a sub-claim either way.
DECISIVE = 0.45
# Both directions this strong (relative to each other) make a sub-claim conflicting.
CONFLICT_RATIO = 0.5
CONVERGED_GAP = 12

_SELF_REFERENCE = re.compile(r"\b(this (statement|sentence|claim)|i am lying)\b", re.I)
_UNFALSIFIABLE = re.compile(
    r"\b(god|gods|soul|souls|afterlife|karma|destiny|meaning of life|everything happens for a reason)\b", re.I
)
_TIME_SENSITIVE = re.compile(
    r"\b(today|tonight|tomorrow|yesterday|right now|currently|this (week|month|year)|next (week|month|year)|"
    r"latest|breaking|upcoming|will (win|lose|be|become|reach|hit))\b",
    re.I,
)
_SPLIT = re.compile(r";|,?\s+\b(?:and|but|whereas|while|because)\b\s+", re.I)


def _excerpt(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def _scored(statement: str, evidence: Sequence[Evidence]) -> list[tuple[Evidence, Stance]]:
    """Relevant passages with their stance, most relevant first (ties: pool order)."""
    rated = [(e, stance(statement, e.text)) for e in evidence]
    rated = [(e, s) for e, s in rated if s.relevance >= RELEVANT]
    return sorted(rated, key=lambda pair: -pair[1].relevance)


def _weight(e: Evidence) -> float:
    return 1.5 if e.tier == "T1" else 1.0


def estimate(rated: Sequence[tuple[Evidence, Stance]]) -> tuple[int, float, float]:
    """(score 0–100, support mass, refute mass) from the rated passages."""
    support = sum(s.relevance * _weight(e) for e, s in rated if s.polarity > 0)
    refute = sum(s.relevance * _weight(e) for e, s in rated if s.polarity < 0)
    score = 50 + 45 * (support - refute) / (support + refute + 0.5)
    return round(score), support, refute


class OfflineReasoner:
    """A Provider that needs no model: each task kind has a deterministic strategy."""

    name = "offline"

    def __init__(self) -> None:
        self._strategies: dict[str, Callable[[Any], BaseModel]] = {
            "suitability": self.suitability,
            "decompose": self.decompose,
            "decompose_check": self.check,
            "argue": self.argue,
            "moderate": self.moderate,
            "adjudicate": self.adjudicate,
        }

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
        if claim.rstrip().endswith("?") or len(content_stems(claim)) < 2:
            flags.append(SuitabilityFlag.NOT_A_CLAIM)
            warnings.append("This reads as a question or fragment, not a claim that can be true or false.")
        if _TIME_SENSITIVE.search(claim):
            flags.append(SuitabilityFlag.TIME_SENSITIVE)
            warnings.append("The claim is time-sensitive: the evidence may not reach the period it is about.")
        proceed = not (
            {SuitabilityFlag.SELF_REFERENTIAL, SuitabilityFlag.UNFALSIFIABLE, SuitabilityFlag.NOT_A_CLAIM}
            & set(flags)
        )
        return Suitability(proceed=proceed, flags=flags, warnings=warnings)

    def decompose(self, inputs: DecomposeInput) -> Decomposition:
        """Split on clause-level conjunctions when every part is a claim of its own; else whole."""
        parts = [p.strip(" ,.") for p in _SPLIT.split(inputs.claim) if p and p.strip(" ,.")]
        if inputs.feedback or len(parts) < 2 or any(len(content_stems(p)) < 3 for p in parts):
            parts = [inputs.claim.strip()]
        parts = parts[: inputs.max_sub_claims]
        sub_claims = [
            SubClaim(id=f"sc{i}", text=text[:600], directive=" ".join(key_terms(text, 12)) or text[:300])
            for i, text in enumerate(parts, start=1)
        ]
        rationale = (
            "The claim is one proposition."
            if len(parts) == 1
            else "The claim joins independent clauses; each is tested on its own."
        )
        return Decomposition(sub_claims=sub_claims, rationale=rationale)

    def check(self, inputs: DecomposeCheckInput) -> DecompositionCheck:
        subs = inputs.decomposition.sub_claims
        stems = [set(content_stems(s.text)) for s in subs]
        overlaps = [
            f"{a.id} and {b.id}"
            for i, a in enumerate(subs)
            for j, b in enumerate(subs)
            if i < j and stems[i] and stems[j] and len(stems[i] & stems[j]) / len(stems[i] | stems[j]) >= 0.7
        ]
        covered = set().union(*stems) if stems else set()
        missing = [w for w in dict.fromkeys(content_stems(inputs.claim)) if w not in covered]
        gaps = [f"nothing tests '{' '.join(missing)}'"] if len(missing) > 1 else []
        return DecompositionCheck(ok=not overlaps and not gaps, overlaps=overlaps, gaps=gaps)

    def argue(self, inputs: ArgueInput) -> ArgumentDraft:
        want = 1 if inputs.side == "for" else -1
        previous = {p.sub_claim_id: p for p in inputs.own_previous.points} if inputs.own_previous else {}
        new = set(inputs.new_evidence_ids)
        points = []
        for sub in inputs.sub_claims:
            rated = _scored(sub.text, inputs.evidence)
            score, _, _ = estimate(rated)
            mine = [(e, s) for e, s in rated if s.polarity == want][:3]
            theirs = [(e, s) for e, s in rated if s.polarity != want][:1]
            if mine:
                lead, lead_stance = mine[0]
                argument = f'[{lead.id}] ({lead.tier}, {lead.title}): "{_excerpt(lead.text)}"'
                if len(mine) > 1:
                    argument += " Also " + ", ".join(f"[{e.id}]" for e, _ in mine[1:]) + "."
                if theirs:
                    argument += (
                        f" The other side will point to [{theirs[0][0].id}], which bears on it less directly."
                    )
                # An advocate leans its way, but no further than its best passage justifies.
                implied = max(0, min(100, score + want * round(10 * lead_stance.relevance)))
                confidence = round(min(0.95, 0.3 + 0.6 * lead_stance.relevance), 2)
            else:
                against = f", and [{theirs[0][0].id}] cuts the other way" if theirs else ""
                argument = f"No passage in the evidence pool supports this side on {sub.id}{against}."
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
        # Aim at what the cited passages talk about that the queries so far did not ask.
        asked = set(content_stems(" ".join(inputs.previous_queries)))
        extra = [
            t
            for c in cited
            if c in pool
            for t in key_terms(pool[c].text, 20)
            if content_stems(t)[0] not in asked
        ]
        base = key_terms(disputed.text, 8)
        candidates = [
            " ".join(base + list(dict.fromkeys(extra))[:4]),
            disputed.text,
            " ".join(base) + " evidence",
        ]
        done = {q.strip().lower() for q in inputs.previous_queries}
        query = next((q for q in candidates if q.strip() and q.strip().lower() not in done), candidates[-1])
        refused = inputs.case_for.refusal is not None or inputs.case_against.refusal is not None
        recommendation = "converged" if widest <= CONVERGED_GAP and not refused else "continue"
        return ModeratorView(
            decisive_dispute=f"{disputed.id}: the sides' implied scores are {widest} points apart",
            dispute_sub_claim_id=disputed.id,
            next_query=query[:300],
            recommendation=recommendation,
            rationale="Converged within tolerance."
            if recommendation == "converged"
            else "The widest gap is still open.",
        )

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
        for sub in inputs.sub_claims:
            own = [e for e in evidence if e.sub_claim_id == sub.id] or evidence
            rated = _scored(sub.text, list({e.id: e for e in own}.values()))
            score, support, refute = estimate(rated)
            best = max((s.relevance for _, s in rated), default=0.0)
            if best < DECISIVE:
                verdict = Verdict.NOT_ENOUGH_EVIDENCE
            elif support and refute and min(support, refute) / max(support, refute) >= CONFLICT_RATIO:
                verdict = Verdict.CONFLICTING
            elif score >= 60:
                verdict = Verdict.SUPPORTED
            elif score <= 40:
                verdict = Verdict.REFUTED
            else:
                verdict = Verdict.CONFLICTING if support and refute else Verdict.NOT_ENOUGH_EVIDENCE
            direction = 1 if score >= 50 else -1
            decisive = next((e for e, s in rated if s.polarity == direction), rated[0][0] if rated else None)
            if decisive is not None:
                sources.add(urlparse(decisive.source_url).hostname or decisive.source_url)
            closest = min(finals, key=lambda label: abs(finals[label].get(sub.id, 50) - score), default=None)
            synthesis = (
                f"{len(rated)} relevant passages: support weight {support:.2f}, refuting weight {refute:.2f}."
                + (f' Decisive: [{decisive.id}] "{_excerpt(decisive.text, 120)}"' if decisive else "")
            )
            judged.append(
                SubClaimJudgement(
                    sub_claim_id=sub.id,
                    score=score,
                    verdict=verdict,
                    referee_synthesis=synthesis,
                    decisive_evidence_id=decisive.id if decisive else None,
                    stronger_position=closest if closest and len(finals) > 1 else "neither",
                )
            )
        scores = [j.score for j in judged]
        # Sub-claims jointly decide the claim: the weakest one pulls the whole down.
        overall = round(0.5 * min(scores) + 0.5 * sum(scores) / len(scores)) if scores else 50
        anchor = min(judged, key=lambda j: j.score) if overall < 50 else max(judged, key=lambda j: j.score)
        return Judgement(
            sub_claims=judged,
            overall_score=overall,
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
    def _would_change(sub: SubClaim, j: SubClaimJudgement) -> str:
        if j.verdict is Verdict.SUPPORTED:
            return (
                f'A primary source contradicting {sub.id} ("{_excerpt(sub.text, 80)}") would lower the score.'
            )
        if j.verdict is Verdict.REFUTED:
            return (
                f'A primary source establishing {sub.id} ("{_excerpt(sub.text, 80)}") would raise the score.'
            )
        return f"Direct, dated evidence on {sub.id} (search: {sub.directive}) would move the score most."
