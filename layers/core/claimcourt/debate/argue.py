"""Stages 4 and 7: one side's argument for a round, from the shared evidence pool."""

from __future__ import annotations

from claimcourt.debate.render import render_evidence, render_points, render_sub_claims
from claimcourt.models import ArgueInput, Argument, ArgumentDraft, Point, Refusal
from claimcourt.reasoning.base import CallContext, Task
from claimcourt.reasoning.reasoner import Reasoner

PERSONAS = (
    "a careful analyst",
    "a sceptical domain expert who looks for base rates and mechanisms",
    "an investigative researcher who weighs primary sources above everything",
    "a forecaster who reasons about how such claims usually turn out",
)
ROLE_TEXT = {
    "for": "You argue that the claim is TRUE. You are the case-for.",
    "against": "You argue that the claim is FALSE. You are the case-against.",
}
SYSTEM = (
    "{role} Argue as {persona}, honestly: concede what the evidence forces you to concede. For every "
    "sub-claim give one point: the argument, the score (0–100) your argument implies for the sub-claim's "
    "truth, your epistemic confidence (0–1) and the ids of the evidence you cite. Cite only evidence ids "
    "from the pool. From round 2, answer your opponent, and if your implied score moves by more than 10 "
    "points, say why in position_change and cite the new evidence that moved you. If you cannot argue "
    "this side in good conscience, return a refusal with the reason. Reply with JSON only."
)
# A position may only move this far without citing new evidence.
UNSUPPORTED_MOVE = 10


def argue_task(inputs: ArgueInput) -> Task[ArgumentDraft]:
    parts = [
        f"Claim: {inputs.claim}",
        f"Round {inputs.round}.",
        "Sub-claims:\n" + render_sub_claims(inputs.sub_claims),
    ]
    if inputs.context:
        parts.append(f"Context supplied by the user:\n{inputs.context}")
    parts.append("Evidence pool:\n" + render_evidence(inputs.evidence))
    if inputs.new_evidence_ids:
        parts.append("New this round: " + ", ".join(inputs.new_evidence_ids))
    if inputs.own_previous is not None:
        parts.append("Your previous argument:\n" + render_points(inputs.own_previous.points))
    if inputs.opponent_previous is not None:
        opp = inputs.opponent_previous
        parts.append(
            "Your opponent's previous argument:\n"
            + (f"(refused: {opp.refusal.reason})" if opp.refusal else render_points(opp.points))
        )
    persona = PERSONAS[inputs.persona % len(PERSONAS)]
    return Task(
        kind="argue",
        role="case_for" if inputs.side == "for" else "case_against",
        inputs=inputs,
        output=ArgumentDraft,
        system=SYSTEM.format(role=ROLE_TEXT[inputs.side], persona=persona),
        prompt="\n\n".join(parts),
        temperature=None,
    )


def enforce_rules(draft: Argument, inputs: ArgueInput) -> Argument:
    """Keep the debate honest whatever the model wrote: citations must exist in the pool, points must
    name real sub-claims, and a position that moves without citing new evidence is held where it was."""
    pool = {e.id for e in inputs.evidence}
    new = set(inputs.new_evidence_ids)
    known = {s.id for s in inputs.sub_claims}
    previous = {p.sub_claim_id: p for p in inputs.own_previous.points} if inputs.own_previous else {}
    points: list[Point] = []
    for point in draft.points:
        if point.sub_claim_id not in known:
            continue
        citations = [c for c in dict.fromkeys(point.citations) if c in pool]
        update: dict[str, object] = {"citations": citations}
        before = previous.get(point.sub_claim_id)
        moved = before is not None and abs(point.implied_score - before.implied_score) > UNSUPPORTED_MOVE
        if before is not None and moved and not new.intersection(citations):
            update["implied_score"] = before.implied_score
            update["position_change"] = (
                f"Held at {before.implied_score}: a move to {point.implied_score} cited no new evidence."
            )
        points.append(point.model_copy(update=update))
    return draft.model_copy(update={"points": points})


def argue(inputs: ArgueInput, reasoner: Reasoner, ctx: CallContext) -> Argument:
    reply = reasoner.call(argue_task(inputs), ctx)
    base = Argument(side=inputs.side, round=inputs.round, persona=inputs.persona)
    if reply.output is None:
        return base.model_copy(update={"refusal": Refusal(reason=reply.refusal or "no reason given")})
    draft = reply.output
    argument = base.model_copy(update={"points": draft.points, "refusal": draft.refusal})
    return enforce_rules(argument, inputs)
