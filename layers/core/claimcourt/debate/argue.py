"""Stages 4 and 7: one side's argument for a round, from the shared evidence pool."""

from __future__ import annotations

from typing import Any

from claimcourt.debate.citations import drop_citations
from claimcourt.debate.prefix import case_prefix, run_tools
from claimcourt.models import ArgueInput, Argument, ArgumentDraft, Point, Refusal, Side
from claimcourt.prompts import NO_ARGUMENT as NO_ARGUMENT  # re-exported: a refusal as read
from claimcourt.prompts import (
    dates_note,
    escape,
    frontier_block,
    points_block,
    render,
)
from claimcourt.reasoning.base import CallContext, Task
from claimcourt.reasoning.reasoner import Reasoner

PERSONAS = (
    "a careful analyst",
    "a sceptical domain expert who looks for base rates and mechanisms",
    "an investigative researcher who weighs primary sources above everything",
    "a forecaster who reasons about how such claims usually turn out",
)
ROLE_TEXT = {
    "for": "You argue that the claim is TRUE.",
    "against": "You argue that the claim is FALSE.",
}
# A position may only move this far without citing new evidence (the debaters' rules, prompts/_shared.md,
# say the same number: a test holds them together).
UNSUPPORTED_MOVE = 10
# Of the two sides arguing a round after the first at once, the one whose call writes the round's new
# blocks to the prompt cache (docs/architecture.md, "Prompt caching"). Round 1's are written before
# either argues, by the suitability check: both sides read them.
WRITER: Side = "for"


def opposite(side: Side) -> Side:
    return "against" if side == "for" else "for"


def turns(first: Side | None) -> dict[str, Any]:
    """The order the state machine argues a round in (its Order? Choice): both sides at once (`first`
    None), or `first` then the other, which reads the first's argument of the same round."""
    if first is None:
        return {"sequential": False, "first": "for", "second": "against"}
    return {"sequential": True, "first": first, "second": opposite(first)}


def _round_note(inputs: ArgueInput) -> str:
    if inputs.round == 1:
        if inputs.max_rounds == 1:
            return (
                "this is the opening round and the only one: no rebuttal follows, so make your whole "
                "case now."
            )
        return "this is the opening round."
    # Speaking second, the other side's last argument is this round's, below; else the last round's.
    which = "argument of this round, below," if inputs.turn == "second" else "last argument"
    note = f"answer the other side's {which} with the evidence — the new evidence first."
    if inputs.debate:  # the earlier rounds are in the opening, anonymized, as the judge reads them
        mine, theirs = inputs.labels[inputs.side], inputs.labels[opposite(inputs.side)]
        note = (
            f"in the debate above your arguments are position {mine}'s and the other side's position "
            f"{theirs}'s; {note}"
        )
    if closing(inputs):
        note += (
            " This is the closing round: no rebuttal follows, so sum up your case. You may cite the passages"
            " you cited in earlier rounds and the passages new this round (listed below), nothing else."
        )
    if inputs.frontier:
        note += (
            " The moderator's disagreement frontier, below, is what is still disputed: argue those issues,"
            " and do not repeat points already made."
        )
    return note


def closing(inputs: ArgueInput) -> bool:
    """The run's last round, of two or more: it cites what its side cited before and what was
    retrieved for it (the moderator's aim at the live dispute), nothing else from the pool."""
    return inputs.round > 1 and inputs.round >= inputs.max_rounds


def _turn_note(inputs: ArgueInput) -> str:
    """Arguing in turn: the first speaker is told it speaks first, the second what it answers."""
    if inputs.turn == "first":
        return (
            " The sides speak in turn, and you speak first this round: the other side will read your"
            " argument before it answers, so make the case that survives its strongest reply."
        )
    if inputs.turn == "second":
        return (
            " The sides speak in turn, and you speak second this round: the other side's argument of this"
            " round is below; answer it directly, point by point, with the evidence, as well as making"
            " your own case."
        )
    return ""


def _now(argument: Argument | None) -> str:
    """Speaking second: the other side's argument of this round (a refusal: that none was made, never
    its words; as the research found, an opponent told of a refusal argues against the refusal)."""
    if argument is None:
        return ""
    body = points_block(argument.points) if argument.made else NO_ARGUMENT
    return f'\n\n<argument of="the other side" round="{argument.round}">\n{body}\n</argument>'


def argue_task(inputs: ArgueInput) -> Task[ArgumentDraft]:
    new = ""
    if inputs.new_evidence_ids:
        new = "New this round: " + ", ".join(escape(i) for i in inputs.new_evidence_ids)
    system, prompt = render(
        "argue",
        role=ROLE_TEXT[inputs.side],
        round=str(inputs.round),
        max_rounds=str(inputs.max_rounds),
        round_note=_round_note(inputs),
        persona=PERSONAS[inputs.persona % len(PERSONAS)],
        new_evidence=new,
        ask=f"Give your argument for round {inputs.round}.",
        turn_note=_turn_note(inputs),
        opponent_now=_now(inputs.opponent_now),
        frontier=frontier_block(inputs.frontier),
        dates=dates_note(inputs.today, inputs.as_of, inputs.evidence),
    )
    wanted = {s.id for s in inputs.sub_claims}

    def one_point_per_sub_claim(draft: ArgumentDraft) -> list[str]:
        if draft.refusal is not None:
            return []
        ids = [p.sub_claim_id for p in draft.points]
        problems = [f"no point on {s}" for s in sorted(wanted - set(ids))]
        problems += [f"{s} is not a sub-claim" for s in sorted(set(ids) - wanted)]
        problems += [f"more than one point on {s}" for s in sorted({i for i in ids if ids.count(i) > 1})]
        return problems

    return Task(
        kind="argue",
        role="case_for" if inputs.side == "for" else "case_against",
        inputs=inputs,
        output=ArgumentDraft,
        system=system,
        prompt=prompt,
        temperature=None,
        array_limits={"points": (0, len(inputs.sub_claims))},
        check=one_point_per_sub_claim,
        # Of the two sides arguing a later round at once, one writes the round's new blocks to the cache;
        # the other could only write them again. Round 1's the suitability check wrote: both read them.
        shared=case_prefix(
            inputs.claim,
            inputs.sub_claims,
            inputs.evidence,
            inputs.debate,
            relevance=inputs.relevance,
            new_from=(inputs.round, "pool")
            if inputs.round > 1 and inputs.turn == "together" and inputs.side != WRITER
            else None,
        ),
        tools=run_tools(inputs.judge),
    )


def _cites_only(text: str, allowed: set[str]) -> str:
    """The text without the markers of ids it may not cite, and without what was built on them, so it
    still reads (saying so, should nothing be left)."""
    kept = drop_citations(text, allowed).strip()
    return kept or "(This point cited only evidence it may not cite here.)"


def enforce_rules(draft: Argument, inputs: ArgueInput) -> Argument:
    """Keep the debate honest whatever the model wrote: citations must exist in the pool (a marker in
    the text too), points must name real sub-claims, a position that moves without citing new evidence
    is held where it was unless it concedes (moves towards the other side's score), and the closing round
    cites only what this side cited before and what was retrieved for it."""
    pool = {e.id for e in inputs.evidence}
    new = set(inputs.new_evidence_ids)
    # The closing round cites what this side cited before and what was retrieved for it, nothing else.
    allowed = set(inputs.cited_before) | new if closing(inputs) else pool
    known = {s.id for s in inputs.sub_claims}
    previous = {p.sub_claim_id: p for p in inputs.own_previous.points} if inputs.own_previous else {}
    answered = inputs.opponent_now or inputs.opponent_previous  # the other side's latest argument
    theirs = {p.sub_claim_id: p for p in answered.points} if answered else {}
    points: list[Point] = []
    for point in draft.points:
        if point.sub_claim_id not in known:
            continue
        citations = [c for c in dict.fromkeys(point.citations) if c in pool and c in allowed]
        # A citation dropped from the list goes from the text too: a reader sees no marker without a source.
        update: dict[str, object] = {
            "citations": citations,
            "argument": _cites_only(point.argument, pool & allowed),
        }
        before = previous.get(point.sub_claim_id)
        moved = before is not None and abs(point.implied_score - before.implied_score) > UNSUPPORTED_MOVE
        if before is not None and moved and not new.intersection(citations):
            # Without new evidence only a concession, a move towards the other side's score, goes this far.
            other = theirs.get(point.sub_claim_id)
            # towards the other side's score, and not past it
            conceded = other is not None and (
                min(before.implied_score, other.implied_score)
                <= point.implied_score
                <= max(before.implied_score, other.implied_score)
            )
            if not conceded:
                how = "" if other is None else ", not a concession towards the other side,"
                update["implied_score"] = before.implied_score
                update["position_change"] = (
                    f"Held at {before.implied_score}: a move to {point.implied_score}{how} cited no new "
                    "evidence."
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
