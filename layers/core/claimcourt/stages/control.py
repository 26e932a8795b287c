"""Stage 5b: the round controller decides what follows a round (debate/control.py): another round,
a fresh persona, or a stop, and why. The decision is persisted (decision/rNN), announced as a
`round.decided` event, and returned to the state machine, whose AnotherRound? Choice reads it.

Modes (Settings.dynamic_rounds): `on`, the controller's decision is the run's; `shadow`, the run
keeps the effort's fixed rounds and the controller's decision is recorded beside; `off`, fixed
rounds only. A request that fixes its rounds (`rounds`) runs exactly those: under `on` as in
`shadow` (Settings.rounds_mode)."""

from __future__ import annotations

import dataclasses
from typing import Any

from claimcourt import artifacts
from claimcourt.debate.argue import PERSONAS
from claimcourt.debate.control import RoundState, decide, fixed_rounds, signals
from claimcourt.errors import NotFoundError
from claimcourt.models import Directive, RoundAction, RoundDecision, RunEvent, Stage
from claimcourt.settings import MIN_ROUNDS
from claimcourt.stages.payloads import RoundPayload
from claimcourt.wiring import Deps

STAGE = Stage.CONTROL


def run(deps: Deps, p: RoundPayload) -> dict[str, Any]:
    store, settings = deps.store, deps.settings
    request = store.get_run(p.run_id).request
    arguments = artifacts.arguments_of(store, p.run_id)
    now = {a.side: a for a in arguments if a.round == p.round}
    before = {a.side: a for a in arguments if a.round == p.round - 1}
    if set(now) != {"for", "against"}:
        raise NotFoundError(f"run {p.run_id} round {p.round} is missing an argument")
    moderated, view = artifacts.moderation_of(store, p.run_id, p.round)
    known = [s.id for s in artifacts.decomposition_of(store, p.run_id).sub_claims]
    previous = artifacts.decision_of(store, p.run_id, p.round - 1)
    persona = previous.persona if previous is not None else 0  # as artifacts.persona_for reads it
    state = RoundState(
        round=p.round,
        min_rounds=MIN_ROUNDS,
        max_rounds=settings.controller_max_rounds(request.effort),
        persona=persona,
        case_for=now["for"],
        case_against=now["against"],
        previous_for=before.get("for"),
        previous_against=before.get("against"),
        earlier=[a for a in arguments if a.round < p.round],
        moderator=view,
        moderated=moderated,
        previous_provisional=previous.signals.provisional_score if previous and previous.signals else None,
        previous_frontier=previous.signals.frontier if previous and previous.signals else None,
        first=request.first,
    )
    measured = signals(state)
    wanted, wanted_rule = decide(state, measured)
    mode = settings.rounds_mode(request)
    if mode == "on":
        action, rule = wanted, wanted_rule
    else:
        fixed = dataclasses.replace(state, max_rounds=settings.fixed_rounds(request))
        action, rule = fixed_rounds(fixed, measured)
    next_persona = persona + 1 if action is RoundAction.ESCALATE_NEW_PERSONA else persona
    directives = []
    # A debate that stops with the moderator's contrarian search unrun still runs it (FinalSearch): the
    # moderator asked for it so that the judge weighs it; safety stops run nothing more.
    final_search = (
        view is not None
        and not action.another_round
        and action is not RoundAction.STOP_SAFETY
        and bool(view.contrarian_query)
    )
    if view is not None and (action.another_round or final_search):
        sub_claim_id = _known(view.dispute_sub_claim_id, known)
        if action.another_round:
            directives.append(Directive(sub_claim_id=sub_claim_id, query=view.next_query))
        if view.contrarian_query:  # evidence against the way the debate leans, for the judge's review
            directives.append(
                Directive(sub_claim_id=sub_claim_id, query=view.contrarian_query, contrarian=True)
            )
    decision = RoundDecision(
        round=p.round,
        action=action,
        rule=rule,
        mode=mode,
        controller_action=wanted if mode != "off" else None,
        controller_rule=wanted_rule if mode != "off" else "",
        signals=measured,
        decisive_dispute=view.decisive_dispute if view is not None else "",
        directives=directives,
        persona=next_persona,
        persona_name=PERSONAS[next_persona % len(PERSONAS)],
        rationale=view.rationale if view is not None else "",
    )
    doc = decision.model_dump(mode="json")
    store.put_artifact(p.run_id, artifacts.decision_key(p.round), doc)
    store.append_event(
        RunEvent(run_id=p.run_id, type="round.decided", stage=STAGE, round=p.round, data=doc),
        key=f"round.decided:{p.round}",
    )
    return {
        "action": action.value,
        "another_round": action.another_round,
        "final_search": final_search,
        "next_round": p.round + 1,
        "directives": [d.model_dump() for d in directives],
    }


def _known(sub_claim_id: str, known: list[str]) -> str:
    """The dispute's sub-claim if the decomposition has it, else the first sub-claim."""
    return sub_claim_id if sub_claim_id in known else known[0]
