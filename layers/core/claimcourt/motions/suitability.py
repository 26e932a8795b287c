"""Before a motion's crowd votes: can a debate serve it? (issue 27, "Motion topics")

Two readings, combined into proceed, warn or stop, each with its reasons:
- the screen of the motion's wording: is it a policy or value question evidence and argument can move,
  is it loaded, are its stakeholders balanced (a model's call, `motion_suitability.md`; offline, the rules
  of `reasoning/offline_motion.suitability`);
- the evidence density of the opening research, with no model call: how many passages speak to the
  motion at all (the claim check's shared-words signal, `debate/relevance.py`), and how many lean each
  way (the offline teams' own reading, `offline_motion.leaning`). A pool that is empty, or of which no
  passage shares a single content word with the motion, stops the debate with the claim path's advice on
  what to add (as the claim check stops: a low reading only warns); a side with almost nothing is a
  warning. A motion with no word the check reads is not measured, and never stopped for its pool.
"""

from __future__ import annotations

from collections.abc import Sequence

from claimcourt.debate.relevance import OFF_TOPIC, SharedWords, add_documents_advice
from claimcourt.models import (
    Evidence,
    EvidenceDensity,
    FitOutcome,
    MotionScreen,
    MotionSuitability,
    MotionSuitabilityInput,
    Side,
    StopReason,
)
from claimcourt.prompts import context_block, escape, render
from claimcourt.reasoning.base import CallContext, Task
from claimcourt.reasoning.instructions import looks_like_instruction
from claimcourt.reasoning.offline_motion import leaning, proposition
from claimcourt.reasoning.reasoner import Reasoner
from claimcourt.reasoning.stance_model import judge as judge_passage

# A side with this many passages or fewer leaning its way has almost nothing to argue from, when the other
# has at least THIN_SIDE + CLEAR_GAP: one side's evidence clearly outweighs the other's.
THIN_SIDE = 1
CLEAR_GAP = 2
_SEVERITY: dict[FitOutcome, int] = {"proceed": 0, "warn": 1, "stop": 2}


def suitability_task(inputs: MotionSuitabilityInput) -> Task[MotionScreen]:
    system, prompt = render(
        "motion_suitability", motion=escape(inputs.motion), context=context_block(inputs.context)
    )
    return Task(
        kind="motion_suitability",
        role="judge",  # the judge prepares the debate (as it sets the stances); 0: a screen, not a voice
        inputs=inputs,
        output=MotionScreen,
        system=system,
        prompt=prompt,
        temperature=0.0,
    )


def screen(inputs: MotionSuitabilityInput, reasoner: Reasoner, ctx: CallContext) -> MotionScreen:
    """The model's (or the offline rules') screen, with the code's rules on top: only no motion, or one no
    evidence could move, stops; an instruction posing as a motion stops whatever the model said."""
    reply = reasoner.call(suitability_task(inputs), ctx)
    if reply.output is None:
        return MotionScreen(
            kind="not_a_motion",
            movable=False,
            loaded=False,
            stakeholders="Not assessed: the model declined.",
            outcome="stop",
            reasons=[f"The model declined to screen this motion: {reply.refusal}"],
        )
    found = reply.output
    if looks_like_instruction(inputs.motion) and found.kind != "not_a_motion":
        found = found.model_copy(
            update={
                "kind": "not_a_motion",
                "movable": False,
                "reasons": [
                    *found.reasons,
                    "This reads as an instruction to the system (to ignore its rules, or to output a "
                    "score), not a motion: it was not debated. State the motion itself to have it debated.",
                ],
            }
        )
    blocking = found.kind == "not_a_motion" or not found.movable
    if blocking and found.outcome != "stop":
        return found.model_copy(update={"outcome": "stop"})
    if not blocking and found.outcome == "stop":  # a loaded or factual motion can still be debated
        return found.model_copy(update={"outcome": "warn"})
    return found


def density(motion: str, pool: Sequence[Evidence], *, source: str = "") -> EvidenceDensity:
    """How much of the pool speaks to the motion and which way it leans (the module's docstring)."""
    prop = proposition(motion)
    signal = SharedWords()
    whole = signal.read(prop, pool)
    measured = whole.score is not None
    scores = [signal.read(prop, [e]).score or 0.0 for e in pool] if measured else []
    closest = max(scores, default=0.0) if measured else None
    on_topic = sum(1 for r in scores if r >= OFF_TOPIC)
    sides = [_side(prop, e) for e in pool]
    backing = {"for": sides.count("for"), "against": sides.count("against")}
    warnings: list[str] = []
    if not pool or whole.silent:
        passages = f"{len(pool)} passage{'s' if len(pool) > 1 else ''}"
        found = "found no passage" if not pool else f"found {passages}, none of which shares a word with it"
        warnings = [
            f"Not debated, and no vote taken: the opening research {found}, so neither team would have "
            "evidence to argue from.",
            add_documents_advice(source),
        ]
        outcome: FitOutcome = "stop"
    else:
        if closest is not None and closest < OFF_TOPIC:
            warnings.append(
                f"The evidence pool barely speaks to the motion: none of its {len(pool)} passages shares "
                "much of it. The teams will argue from little; add sources that speak to it (--context, "
                "--corpus NAME)."
            )
        for side, other in (("for", "against"), ("against", "for")):
            if backing[side] > THIN_SIDE or backing[other] < THIN_SIDE + CLEAR_GAP:
                continue
            warnings.append(
                f"The evidence pool gives the team {side} almost nothing: "
                f"{_passages(backing[side])} of {len(pool)} lean{'s' if backing[side] == 1 else ''} its way "
                f"({_passages(backing[other])} the other). Its case will rest on argument more than "
                "evidence; sources that speak for it (--context, --corpus NAME) would make a fairer debate."
            )
        outcome = "warn" if warnings else "proceed"
    return EvidenceDensity(
        passages=len(pool),
        on_topic=on_topic,
        for_side=backing["for"],
        against_side=backing["against"],
        closest=None if closest is None else round(closest, 4),
        outcome=outcome,
        warnings=warnings,
    )


def _side(prop: str, e: Evidence) -> Side | None:
    """The side a passage leans to, as far as the offline reader can tell: what it states (the lexical
    rule: the motion, or its opposite), else the learned lean of a passage with some support. The learned
    reader was trained on claims: a passage that bears on a statement without stating it reads refute about
    half its bearing (0.15–0.33 on every passage of both played motions' pools, support 0 and rule 0: policy
    motions' usual case), which is silence on the motion, not evidence against it."""
    read = judge_passage(prop, e.text, e.title)
    side = leaning(prop, e, read)
    if side is None:
        return None
    if read.rule != 0:
        return "for" if read.rule > 0 else "against"
    return side if read.support > 0 else None


def _passages(n: int) -> str:
    return "no passage" if n == 0 else "1 passage" if n == 1 else f"{n} passages"


def combine(found: MotionScreen, measured: EvidenceDensity) -> MotionSuitability:
    """The check's outcome: the graver of the two; a stop's reason is the wording's before the pool's."""
    outcome = max(found.outcome, measured.outcome, key=lambda o: _SEVERITY[o])
    reason = (
        StopReason.UNSUITABLE
        if found.outcome == "stop"
        else StopReason.ADD_DOCUMENTS
        if measured.outcome == "stop"
        else None
    )
    return MotionSuitability(
        screen=found,
        density=measured,
        outcome=outcome,
        stop_reason=reason,
        warnings=[*found.reasons, *measured.warnings],
    )
